"""Stub detection for ``red.allow_stubs`` in JS/TS production files (the Python rules'
counterpart, ``stubs.py``), read with the detectors' tolerant tokenizer; nothing is run.

A function, method or arrow function is a *stub* when its body is empty, is one
``throw`` statement (``throw new Error('not implemented')``), or returns nothing
(``return;``, ``return undefined;``, ``return null;``); an arrow's expression body is a
stub when it is ``undefined`` or ``null``. A red step may add stubs and declarations
(imports, exports of names, types and interfaces, class and function headers) but no
other code. Functions are compared by qualified name (``Class.method``) and by their
tokens, so formatting, comments and moving a function are not changes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tddgit.detectors.jstokens import Token, match_brackets, tokenize

_NOT_NAMES = frozenset(
    {"if", "for", "while", "switch", "catch", "with", "function", "return", "typeof", "await"}
)
# Words that only declare: a line left with these once its functions are cut out is not code.
_DECLARING = frozenset(
    {
        "export",
        "default",
        "async",
        "static",
        "public",
        "private",
        "protected",
        "readonly",
        "abstract",
        "override",
        "declare",
        "const",
        "let",
        "var",
        "get",
        "set",
    }
)
_DECLARATION_HEADS = frozenset({"import", "type", "interface", "declare", "enum"})
_EMPTY_RETURNS = ((), ("undefined",), ("null",))


@dataclass(frozen=True)
class _Func:
    qualname: str
    name: str
    line: int
    first: int  # token range of the whole unit (name or keyword .. end of body)
    last: int
    stub: bool
    shape: str


def _is_stub_body(body: list[Token]) -> bool:
    texts = [t.text for t in body if not (t.kind == "punct" and t.text == ";")]
    if not texts:
        return True
    if texts[0] == "return":
        return tuple(texts[1:]) in _EMPTY_RETURNS
    if texts[0] == "throw":
        # one statement: no block, no second statement
        return not any(t.kind == "punct" and t.text in "{" for t in body[1:]) and (
            sum(1 for t in body if t.text == ";") <= 1
        )
    return False


def _shape(tokens: list[Token]) -> str:
    """Tokens without semicolons (automatic semicolon insertion makes them optional)."""
    return "\x00".join(f"{t.kind}:{t.text}" for t in tokens if t.text != ";")


def _type_annotation_end(tokens: list[Token], k: int) -> int:
    """Past a return type annotation (``): Promise<number> {``): the index of the ``{``."""
    if k < len(tokens) and tokens[k].text == ":":
        j = k + 1
        while j < len(tokens) and tokens[j].text not in ("{", ";", "=") and j - k < 60:
            j += 1
        return j
    return k


def _arrow_end(tokens: list[Token], pairs: dict[int, int], k: int) -> int:
    """Last token of an arrow's expression body starting at ``k``."""
    j = k
    while j < len(tokens):
        tok = tokens[j]
        if tok.kind == "punct" and tok.text in "([{":
            j = pairs.get(j, len(tokens) - 1) + 1
            continue
        if tok.kind == "punct" and tok.text in ";,)]}":
            return j - 1
        if j > k and tok.line > tokens[j - 1].line and tok.text in _DECLARING | {"function"}:
            return j - 1
        j += 1
    return len(tokens) - 1


def _arrow_name(tokens: list[Token], params_first: int) -> tuple[str, int]:
    """``name = (…) =>`` / ``name: (…) =>``: the name and where the unit starts."""
    k = params_first - 1
    if k >= 0 and tokens[k].text == "async":
        k -= 1
    if k >= 1 and tokens[k].text in ("=", ":") and tokens[k - 1].kind == "id":
        return tokens[k - 1].text, k - 1
    return "", params_first


def _functions(tokens: list[Token], pairs: dict[int, int]) -> list[_Func]:
    """Every function, method and arrow function, outermost first."""
    closer = {v: k for k, v in pairs.items()}
    units: list[tuple[str, int, int, int, int, bool]] = []  # name, line, first, open, last
    n = len(tokens)
    for k, tok in enumerate(tokens):
        # name ( params ) [: type] {          -- function declarations and methods
        if tok.kind == "id" and tok.text not in _NOT_NAMES and k + 1 < n:
            if tokens[k + 1].text != "(" or (k and tokens[k - 1].text == "."):
                continue
            after = _type_annotation_end(tokens, pairs.get(k + 1, n - 1) + 1)
            if after < n and tokens[after].text == "{":
                first = k
                if k and tokens[k - 1].text == "function":
                    first = k - 1
                elif k > 1 and tokens[k - 1].text == "*" and tokens[k - 2].text == "function":
                    first = k - 2
                units.append((tok.text, tok.line, first, after, pairs.get(after, n - 1), True))
        # ( params ) => body  /  x => body   -- arrows (`=>` is two punct tokens)
        elif tok.text == "=" and k + 1 < n and tokens[k + 1].text == ">":
            if tokens[k + 1].pos != tok.pos + 1 or k == 0:
                continue
            params = closer.get(k - 1, k - 1) if tokens[k - 1].text == ")" else k - 1
            name, first = _arrow_name(tokens, params)
            body = k + 2
            if body < n and tokens[body].text == "{":
                last, braced = pairs.get(body, n - 1), True
            else:
                last, braced = _arrow_end(tokens, pairs, body), False
            units.append((name or "<arrow>", tokens[k].line, first, body, last, braced))
        # name = function ( … ) {            -- function expressions
        elif tok.text == "function" and k + 1 < n and tokens[k + 1].text == "(":
            after = _type_annotation_end(tokens, pairs.get(k + 1, n - 1) + 1)
            if after < n and tokens[after].text == "{":
                name, first = _arrow_name(tokens, k)
                units.append(
                    (name or "<function>", tok.line, first, after, pairs.get(after, n - 1), True)
                )
    units.sort(key=lambda u: (u[2], -u[4]))
    out: list[_Func] = []
    classes = _classes(tokens, pairs)
    end = -1
    for name, line, first, body, last, braced in units:
        if first <= end:
            continue  # nested in a function judged as a whole
        end = last
        inner = tokens[body + 1 : last] if braced else tokens[body : last + 1]
        stub = (
            _is_stub_body(inner)
            if braced
            else [t.text for t in inner]
            in (
                ["undefined"],
                ["null"],
            )
        )
        owner = next((c for c, a, b in classes if a < first <= b), "")
        qual = f"{owner}.{name}" if owner else name
        out.append(_Func(qual, name, line, first, last, stub, _shape(tokens[first : last + 1])))
    return out


def _classes(tokens: list[Token], pairs: dict[int, int]) -> list[tuple[str, int, int]]:
    """``class Name … { … }``: name and the body's bracket range."""
    found = []
    for k, tok in enumerate(tokens):
        if tok.text == "class" and k + 1 < len(tokens) and tokens[k + 1].kind == "id":
            j = k + 2
            while j < len(tokens) and tokens[j].text != "{" and j - k < 40:
                j += 1
            if j < len(tokens):
                found.append((tokens[k + 1].text, j, pairs.get(j, len(tokens) - 1)))
    return found


def _rest_lines(tokens: list[Token], funcs: list[_Func]) -> list[tuple[int, list[Token]]]:
    """The code outside every function, line by line."""
    inside: set[int] = set()
    for f in funcs:
        inside.update(range(f.first, f.last + 1))
    lines: dict[int, list[Token]] = {}
    for k, tok in enumerate(tokens):
        if k not in inside:
            lines.setdefault(tok.line, []).append(tok)
    return sorted(lines.items())


def _declarative(toks: list[Token]) -> bool:
    texts = [t.text for t in toks]
    if texts[0] == "export" and len(texts) > 1 and texts[1] in _DECLARATION_HEADS:
        return True
    if texts[0] in _DECLARATION_HEADS or texts[:2] in (["export", "{"], ["export", "*"]):
        return True
    if texts[0] == "class" or texts[:2] == ["export", "class"]:
        return True
    if texts[:3] == ["module", ".", "exports"] or texts[:2] == ["exports", "."]:
        # module.exports = { a, b } / exports.a = a: names only
        return all(t.kind in ("id", "punct") for t in toks)
    if texts[:3] == ["export", "default", "class"]:
        return True
    return all(t.text in _DECLARING or t.kind == "punct" for t in toks) or (
        texts[-1:] == ["{"] and texts[0] in ("class", "export")
    )


@dataclass(frozen=True)
class _Parsed:
    funcs: list[_Func]
    lines: list[tuple[int, list[Token]]]


def _parse(source: str) -> _Parsed:
    tokens = tokenize(source)
    pairs = match_brackets(tokens)
    funcs = _functions(tokens, pairs)
    return _Parsed(funcs, _rest_lines(tokens, funcs))


def non_stub_additions_js(old: str | None, new: str, path: str) -> list[str]:
    """One line per addition to ``new`` (vs ``old``, None for a new file) that is neither
    a stub nor a declaration; empty when the change adds only stubs."""
    try:
        now = _parse(new)
        before = _parse(old) if old is not None else _Parsed([], [])
    except RecursionError:
        return [f"{path}: too deeply nested to read"]
    old_funcs = {f.qualname: f for f in before.funcs}
    moved = {(f.name, f.shape.split("\x00", 1)[-1]) for f in before.funcs}
    out: list[str] = []
    for f in now.funcs:
        if f.stub:
            continue
        was = old_funcs.get(f.qualname)
        if was is not None and was.shape == f.shape:
            continue
        if was is None and (f.name, f.shape.split("\x00", 1)[-1]) in moved:
            continue
        what = "has a changed body" if was is not None else "is new and has a body"
        out.append(f"{path}:{f.line}: `{f.qualname}` {what} that is not a stub")
    seen = Counter(_shape(toks) for _, toks in before.lines)
    for line, toks in now.lines:
        key = _shape(toks)
        if seen[key] > 0:
            seen[key] -= 1
            continue
        if not _declarative(toks):
            text = " ".join(t.text for t in toks)
            out.append(f"{path}:{line}: code outside a function: `{text[:60]}`")
    return out
