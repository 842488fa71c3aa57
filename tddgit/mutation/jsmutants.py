"""Mutants of given lines of a JS/TS file, from the tolerant tokenizer the detectors use.

The same operators as for Python where JS has them, in the same order: a skipped branch
(`if (c)` → `if (false)`), relational, boolean and arithmetic operators, constants. An
operator is taken only where its spelling is unambiguous in the token stream: `<`, `>`,
`+`, `-`, `*` and `/` need whitespace on both sides (so TypeScript generics, JSX, `=>`,
`++` and unary signs are never touched). Arid lines (imports, exports of names, `console`
calls, type-only declarations) are never mutated.
"""

from __future__ import annotations

from collections.abc import Iterator

from tddgit.detectors.jstokens import Token, match_brackets, tokenize
from tddgit.mutation.operators import Mutant

_COMPARE = {
    "===": "!==",
    "!==": "===",
    "==": "!=",
    "!=": "==",
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
}
_BOOL = {"&&": "||", "||": "&&"}
_ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"}
_SPACED = frozenset({"<", ">", "<=", ">=", "+", "-", "*", "/", "%"})
_ARID_START = frozenset({"import", "interface", "type", "declare"})


def mutants(
    path: str, source: str, lines: set[int] | frozenset[int], per_line: int
) -> list[Mutant]:
    tokens = tokenize(source)
    arid = _arid_lines(tokens)
    text_lines = source.splitlines()
    found: dict[int, list[tuple[int, str, int, int, str]]] = {}
    for rank, name, line, start, end, replacement in _candidates(source, tokens):
        if line in lines and line not in arid:
            found.setdefault(line, []).append((rank, name, start, end, replacement))
    out: list[Mutant] = []
    for line in sorted(found):
        made = 0
        for _rank, name, start, end, replacement in sorted(found[line], key=lambda c: c[0]):
            mutated = source[:start] + replacement + source[end:]
            if mutated == source:
                continue
            original = text_lines[line - 1].strip()
            after = mutated.splitlines()[line - 1].strip()
            out.append(Mutant(path, line, name, original, after, mutated))
            made += 1
            if made >= per_line:
                break
    return out


def _operators(source: str, tokens: list[Token]) -> Iterator[tuple[int, int, str, int]]:
    """Runs of adjacent punctuation as operators: (start, end, text, line)."""
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind != "punct":
            i += 1
            continue
        j = i + 1
        while (
            j < len(tokens)
            and tokens[j].kind == "punct"
            and tokens[j].pos == tokens[j - 1].pos + 1
            and tokens[j].text not in "()[]{};,"
            and t.text not in "()[]{};,"
        ):
            j += 1
        start, end = t.pos, tokens[j - 1].pos + 1
        yield start, end, source[start:end], t.line
        i = j


def _candidates(source: str, tokens: list[Token]) -> Iterator[tuple[int, str, int, int, int, str]]:
    """(rank, operator, line, start, end, replacement)."""
    pairs = match_brackets(tokens)
    for n, t in enumerate(tokens):
        if t.kind == "id" and t.text == "if" and n + 1 < len(tokens):
            opening = tokens[n + 1]
            close = pairs.get(n + 1)
            if opening.text == "(" and close is not None and close > n + 2:
                first, last = tokens[n + 2], tokens[close]
                yield 0, "skip-branch", first.line, first.pos, last.pos, "false"
        elif t.kind == "id" and t.text in ("true", "false"):
            other = "false" if t.text == "true" else "true"
            yield 6, "constant", t.line, t.pos, t.pos + len(t.text), other
        elif t.kind == "num" and t.text.isdigit():
            yield 6, "constant", t.line, t.pos, t.pos + len(t.text), str(int(t.text) + 1)
    for start, end, op, line in _operators(source, tokens):
        if op in _SPACED and not _spaced(source, start, end):
            continue
        if op in _COMPARE:
            yield 3, "compare", line, start, end, _COMPARE[op]
        elif op in _BOOL:
            yield 4, "boolean", line, start, end, _BOOL[op]
        elif op in _ARITH:
            yield 5, "arithmetic", line, start, end, _ARITH[op]


def _spaced(source: str, start: int, end: int) -> bool:
    before = source[start - 1] if start > 0 else ""
    after = source[end] if end < len(source) else ""
    return before in (" ", "\t") and after in (" ", "\t")


def _arid_lines(tokens: list[Token]) -> set[int]:
    arid: set[int] = set()
    starts: dict[int, Token] = {}
    for t in tokens:
        starts.setdefault(t.line, t)
    for line, first in starts.items():
        if first.kind == "id" and first.text in _ARID_START:
            arid.add(line)
    for n, t in enumerate(tokens):
        if t.kind == "id" and t.text == "console":
            arid.add(t.line)
        if t.kind == "id" and t.text == "export" and n + 1 < len(tokens):
            following = tokens[n + 1]
            if following.text in ("{", "*", "type", "interface"):
                arid.add(t.line)
    return arid
