"""JS/TS over-mocking (PRODUCT.md §9) without a JS toolchain.

On the tokens of ``jstokens`` (a tolerant tokenizer), calls are found by their dotted
names: test blocks (``it``/``test``), suites (``describe``), hooks (``beforeEach``...) and
mock factories (``jest.fn``, ``vi.mock``, ``sinon.stub``...). A test's mocks are those
inside its block plus those shared with it: in the hooks and bodies of its enclosing
suites and at file level. docs/detectors.md lists the tokenizer's limits.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tddgit.detectors import OVER_MOCKING, DetectorFinding
from tddgit.detectors.jstokens import Token, match_brackets, tokenize

MOCK_CALLS = frozenset(
    {
        "jest.mock",
        "jest.doMock",
        "jest.fn",
        "jest.spyOn",
        "vi.mock",
        "vi.doMock",
        "vi.fn",
        "vi.spyOn",
        "sinon.stub",
        "sinon.mock",
        "sinon.spy",
        "sinon.fake",
    }
)
_TEST_HEADS = frozenset({"it", "test", "xit", "fit", "xtest"})
_SUITE_HEADS = frozenset({"describe", "context", "suite", "fdescribe", "xdescribe"})
_HOOKS = frozenset({"beforeEach", "beforeAll", "afterEach", "afterAll", "before", "after"})
_MODIFIERS = frozenset(
    {"only", "skip", "todo", "each", "concurrent", "failing", "sequential", "serial", "parallel"}
)


# --- calls and blocks --------------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    name: str  # dotted, e.g. "jest.fn", "describe.each"
    start: int  # token index of the first name token
    line: int


@dataclass(frozen=True)
class _Block:
    kind: str  # "test" | "suite" | "hook"
    title: str
    line: int
    first: int  # token index range covered (the call's argument list)
    last: int


def _calls(tokens: list[Token], pairs: dict[int, int]) -> list[tuple[_Call, int]]:
    """Every dotted-name call, with the index of the ``(`` of its (last) argument list."""
    out: list[tuple[_Call, int]] = []
    k, n = 0, len(tokens)
    while k < n:
        tok = tokens[k]
        if tok.kind != "id" or (k and tokens[k - 1].text in (".", "?")):
            k += 1
            continue
        parts, j = [tok.text], k + 1
        while j + 1 < n and tokens[j].text == "." and tokens[j + 1].kind == "id":
            parts.append(tokens[j + 1].text)
            j += 2
        j = _skip_type_arguments(tokens, j)
        if j < n and tokens[j].text == "(":
            out.append((_Call(".".join(parts), k, tok.line), j))
        elif _tagged_each(parts, tokens, j):  # describe.each`table`(title, fn)
            out.append((_Call(".".join(parts), k, tok.line), j + 1))
        k = j if j > k else k + 1
    return out


def _skip_type_arguments(tokens: list[Token], j: int) -> int:
    """Past TypeScript type arguments (``vi.fn<[number], string>(``) when a call follows."""
    if j >= len(tokens) or tokens[j].text != "<":
        return j
    depth = 0
    for k in range(j, min(len(tokens), j + 200)):
        tok = tokens[k]
        if tok.text == "<":
            depth += 1
        elif tok.text == ">" and not (
            k and tokens[k - 1].text == "=" and tokens[k - 1].pos == tok.pos - 1
        ):
            depth -= 1  # `=>` inside a function type is not a closing angle bracket
            if depth == 0:
                return k + 1 if k + 1 < len(tokens) and tokens[k + 1].text == "(" else j
        elif tok.text in (";", ")"):
            break
    return j


def _tagged_each(parts: list[str], tokens: list[Token], j: int) -> bool:
    return (
        parts[-1] == "each"
        and j + 1 < len(tokens)
        and tokens[j].kind == "str"
        and tokens[j + 1].text == "("
    )


def _classify(name: str) -> str | None:
    parts = name.split(".")
    head, mods = parts[0], parts[1:]
    if head == "test" and mods[:1] == ["describe"]:  # Playwright: test.describe(...)
        head, mods = "describe", mods[1:]
    elif head == "test" and len(mods) == 1 and mods[0] in _HOOKS:  # test.beforeEach(...)
        return "hook"
    if not all(m in _MODIFIERS for m in mods):
        return None
    if head in _TEST_HEADS:
        return "test"
    if head in _SUITE_HEADS:
        return "suite"
    return "hook" if head in _HOOKS and not mods else None


def _arguments(tokens: list[Token], pairs: dict[int, int], call: _Call, paren: int) -> int:
    """Index of the ``(`` holding the block's callback: ``each(table)(...)`` uses the second."""
    if not call.name.endswith(".each"):
        return paren
    after = pairs.get(paren, paren) + 1
    if after < len(tokens) and tokens[after].text == "(":
        return after
    return paren


def _blocks(
    tokens: list[Token], pairs: dict[int, int], calls: list[tuple[_Call, int]]
) -> list[_Block]:
    blocks: list[_Block] = []
    for call, paren in calls:
        kind = _classify(call.name)
        if kind is None:
            continue
        args = _arguments(tokens, pairs, call, paren)
        first_arg = tokens[args + 1] if args + 1 < len(tokens) else None
        title = first_arg.text if first_arg is not None and first_arg.kind == "str" else ""
        blocks.append(
            _Block(
                kind,
                title or f"<{call.name} at line {call.line}>",
                call.line,
                call.start,
                pairs.get(args, len(tokens) - 1),
            )
        )
    return blocks


# --- counting ----------------------------------------------------------------------------


@dataclass(frozen=True)
class JsTestMocks:
    """The mocks one JS/TS test gets; the audit compares these across commits."""

    name: str  # suite titles and the test title joined by " > "
    line: int
    mocks: int
    mock_kinds: tuple[str, ...]
    shared: int  # how many of them come from hooks, enclosing suites or the file level


def _innermost(blocks: list[_Block], index: int, exclude: _Block | None = None) -> _Block | None:
    best: _Block | None = None
    for b in blocks:
        if (
            b is not exclude
            and b.first <= index <= b.last
            and (best is None or b.first > best.first)
        ):
            best = b
    return best


@dataclass(frozen=True)
class JsTest:
    """One test block of a JS/TS test file, as the runners name it."""

    name: str  # suite titles and the test title, each stripped, joined by " > "
    line: int
    # the block's tokens but semicolons (optional in JS): formatting and comments don't count
    fingerprint: str
    exact: bool  # False when a title is computed (template, .each, no literal): unknowable


def test_blocks(source: str) -> list[JsTest]:
    """Every test block (``it``/``test`` and their modifiers) of a JS/TS test file, with
    the name its runner gives it; ``[]`` for a file too deeply nested to read."""
    try:
        tokens = tokenize(source)
    except RecursionError:
        return []
    pairs = match_brackets(tokens)
    blocks = _blocks(tokens, pairs, _calls(tokens, pairs))
    parent = {id(b): _innermost(blocks, b.first, exclude=b) for b in blocks}
    found: list[JsTest] = []
    for test in (b for b in blocks if b.kind == "test"):
        chain, up = [test], parent[id(test)]
        while up is not None:
            if up.kind == "suite":
                chain.append(up)
            up = parent[id(up)]
        exact = all(_literal_title(tokens, b) for b in chain)
        body = tokens[test.first : test.last + 1]
        found.append(
            JsTest(
                " > ".join(b.title.strip() for b in reversed(chain)),
                test.line,
                "\x00".join(f"{t.kind}:{t.text}" for t in body if t.text != ";"),
                exact,
            )
        )
    return found


test_blocks.__test__ = False  # type: ignore[attr-defined]


def _literal_title(tokens: list[Token], block: _Block) -> bool:
    """Whether the block's title is a plain string literal (no ``${}``, no ``.each``)."""
    k = block.first
    while k + 2 <= block.last and tokens[k + 1].text == ".":
        if tokens[k + 2].text == "each":
            return False
        k += 2
    if k + 2 > block.last or tokens[k + 1].text != "(":
        return False
    title = tokens[k + 2]
    return title.kind == "str" and "${" not in title.text


def test_mocks(source: str) -> dict[str, JsTestMocks]:
    """Per-test mock counts of a JS/TS test file, keyed by qualified test name."""
    try:
        tokens = tokenize(source)
    except RecursionError:  # templates nested hundreds deep: not a test file worth reading
        return {}
    pairs = match_brackets(tokens)
    calls = _calls(tokens, pairs)
    blocks = _blocks(tokens, pairs, calls)
    parent = {id(b): _innermost(blocks, b.first, exclude=b) for b in blocks}
    mocks = [c for c, _ in calls if c.name in MOCK_CALLS]
    # A mock outside every test is shared with the tests of the suite (or file) it runs in.
    shared_by: dict[int | None, list[str]] = {}
    for m in mocks:
        owner = _innermost(blocks, m.start)
        if owner is not None and owner.kind == "hook":
            owner = parent[id(owner)]
        if owner is None or owner.kind == "suite":
            shared_by.setdefault(None if owner is None else id(owner), []).append(m.name)
    out: dict[str, JsTestMocks] = {}
    for test in (b for b in blocks if b.kind == "test"):
        own = [m.name for m in mocks if test.first <= m.start <= test.last]
        chain, shared = [], list(shared_by.get(None, []))
        up = parent[id(test)]
        while up is not None:
            if up.kind == "suite":
                chain.append(up.title)
                shared += shared_by.get(id(up), [])
            up = parent[id(up)]
        name = " > ".join([*reversed(chain), test.title])
        key, copy = name, 2
        while key in out:  # two tests with one title both run: keep both
            key, copy = f"{name} #{copy}", copy + 1
        kinds = tuple(own + shared)
        out[key] = JsTestMocks(key, test.line, len(kinds), kinds, len(shared))
    return out


test_mocks.__test__ = False  # type: ignore[attr-defined]


def analyze_js(source: str, path: str, *, max_mocks: int) -> list[DetectorFinding]:
    """Over-mocking findings for every test block of one JS/TS test file."""
    found: list[DetectorFinding] = []
    for m in test_mocks(source).values():
        if m.mocks <= max_mocks:
            continue
        kinds = [f"{k}×{n}" if n > 1 else k for k, n in Counter(m.mock_kinds).items()]
        shared = f" ({m.shared} shared from hooks or enclosing blocks)" if m.shared else ""
        message = f"{m.mocks} mocks (max {max_mocks}): {', '.join(kinds)}{shared}"
        found.append(
            DetectorFinding(OVER_MOCKING, "warning", path, m.line, m.name, message, m.mocks)
        )
    return found
