"""What a change to one file does, read from its two versions (issue 27: read what
changed, not only which files).

- ``adds_code``: does a production change add code at all? Not when it only deletes, or
  only changes comments, docstrings or type annotations (Python by AST; every language by
  its added lines).
- ``adds_test_behaviour``: does a test change add or change what the tests check? A new
  test case, a changed expectation, a new failure; not a rename, formatting, lint, a
  helper extracted, a conflict resolved, tests converted to parametrize.

Both are deliberately simple and language-light: a reviewer's first glance, not a proof.
Only the evidence of a run proves anything (``--verify``).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple

from tddgit.audit.pychunks import PieceCache, parse, units
from tddgit.audit.pycode import same_code
from tddgit.audit.pystmts import StmtMemo, source_lines
from tddgit.textmemo import text_memo

# A line that is only a comment (or the middle of a block comment), in the common languages.
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|/\*|\*|\*/|--|<!--|-->|;)")
# Calls that check something, by name (assertEqual, expect, should, pytest.raises, fail);
# a project's own helpers (check_row) are not counted: extracting one checks nothing new.
_CHECK_NAME = re.compile(r"^(?:assert|expect|fail|raises|should)", re.I)
# Lines of other languages' tests that add a case or a check.
_TEST_LINE = re.compile(
    r"@Test\b|@ParameterizedTest|\[(?:Fact|Theory|Test|TestMethod|TestCase|InlineData)\b"
    r"|\bassert|\bAssert\.|\bexpect\s*\(|\.should|\bShould[A-Z]|\bfail\s*\("
    r"|\b(?:it|test|specify|describe)(?:\.each|\.only)?\s*\(\s*['\"`]|#\[test\]|\bfunc Test"
)
_JS_TITLE = re.compile(r"\b(?:it|test|specify)(?:\.\w+)?\s*\(\s*(['\"`])(.*?)\1")
_JS_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`[^`]*`|\b\d+(?:\.\d+)?\b")
_JS_CHECK_LINE = re.compile(r"\bexpect\s*\(|\bassert\w*|\bt\.\w+\s*\(|\.should|\bfail\s*\(")


_parse = parse


def _is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _is_js(path: str) -> bool:
    return path.endswith((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"))


def added_lines(old: str, new: str) -> list[str]:
    """The lines of ``new`` that ``old`` does not have (a diff's + lines, counted as a
    multiset: linear, where a real diff is quadratic on the long files of real histories),
    without those inside a block comment (``/* ... */``) of ``new``: of each line that
    ``new`` has more often than ``old``, the occurrences after the first ``old`` has."""
    o, n = _version(old), _version(new)
    had = o.counts
    # The (line, count) pairs only one side has, by set difference of two remembered
    # sets (C speed): the lines whose counts differ. Most changes touch a few lines.
    wanted: dict[str, int] = {}  # bare line -> its occurrences in old (the first kept)
    for bare, times in n.items - o.items:
        before = had.get(bare, 0)
        if times > before:
            wanted[bare] = before
    if not wanted:
        return []
    bares, hidden, lines = n.bares, n.hidden, n.lines
    out: list[str] = []
    seen = dict.fromkeys(wanted, 0)
    for j in [j for j, bare in enumerate(bares) if bare in wanted]:
        bare = bares[j]
        times = seen[bare]
        seen[bare] = times + 1
        if times >= wanted[bare] and j not in hidden:
            out.append(lines[j])
    return out


class _Version(NamedTuple):
    """One text's lines as ``added_lines`` compares them, made once per text."""

    lines: list[str]
    bares: list[str]  # each line without its trailing comment and spaces
    counts: dict[str, int]  # bare line -> how many times
    items: frozenset[tuple[str, int]]
    hidden: set[int]  # lines wholly inside a block comment


@text_memo()
def _version(text: str) -> _Version:
    """A file's new version at one commit is its old version at the next that changes
    it: each is split, stripped and counted once (comprehensions and ``Counter``: a loop
    per line was a tenth of a first audit)."""
    lines = text.splitlines()
    sub = _TRAILING.sub
    # a trailing comment added changes no code (no # or //: no comment to strip)
    bares = [(sub("", ln) if "#" in ln or "//" in ln else ln).rstrip() for ln in lines]
    counts = dict(Counter(bares))
    hidden = _block_comment_lines(text) if "/*" in text else set()
    return _Version(lines, bares, counts, frozenset(counts.items()), hidden)


_TRAILING = re.compile(r"\s+(?://|#)(?!.*['\"`]).*$")


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def _block_comment_lines(text: str) -> set[int]:
    """Indexes of the lines that lie wholly inside a ``/* ... */`` comment."""
    out: set[int] = set()
    # Line numbers counted on from the previous comment, not from the start of the text
    # each time: that was quadratic on C sources with thousands of comments.
    line = pos = 0
    for m in _BLOCK_COMMENT.finditer(text):
        first = line + text.count("\n", pos, m.start())
        last = line = first + text.count("\n", m.start(), m.end())
        pos = m.end()
        before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        after_end = text.find("\n", m.end())
        after = text[m.end() : after_end if after_end >= 0 else len(text)]
        lo = first if not before.strip() else first + 1
        hi = last if not after.strip() else last - 1
        out.update(range(lo, hi + 1))
    return out


def _meaningful(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.strip() and not _COMMENT_LINE.match(ln)]


# --- production -------------------------------------------------------------------------


def lines_of(text: str | None) -> frozenset[str]:
    """The meaningful lines of a text, without their spacing (for ``adds_code``)."""
    return _lines_of(text) if text else frozenset()


@text_memo()
def _lines_of(text: str) -> frozenset[str]:
    return frozenset(_squash(ln) for ln in _meaningful(text.splitlines()))


def adds_code(
    old: str | None, new: str | None, path: str, elsewhere: set[str] | None = None
) -> bool:
    """False when the change from ``old`` (None: a new file) to ``new`` only deletes, or only
    changes comments, blank lines, docstrings or type annotations, or only adds lines that
    ``elsewhere`` (``lines_of`` the commit's other files before it) had: code moved."""
    if new is None:
        return True  # unreadable: the audit cannot tell, so it counts as code
    # Lines first (linear); the AST only for the few lines a docstring or annotation
    # change leaves: parsing every long module of a real history is the audit's cost.
    added = _meaningful(added_lines(old or "", new))
    if elsewhere:
        added = [ln for ln in added if _squash(ln) not in elsewhere]
    if not added:
        return False
    # the same code (an empty new module: a placeholder) adds none
    return not (
        _is_python(path)
        and len(added) <= AST_LINES
        and len(new) <= AST_BYTES
        and same_code(old if old is not None else "", new)
    )


AST_LINES = 40  # added lines up to which a Python change is compared by AST
AST_BYTES = 200_000


# A line that only declares or stubs, in the C-like languages (C#, Java, Kotlin, JS/TS,
# Go, Rust, Swift): braces, imports and exports, type and method signatures, a default
# return, a not-implemented throw.
_STUB_LINE = re.compile(
    r"^\s*(?:[{}()\[\];,]*"
    r"|(?:(?:import|using|package|namespace|module|use|mod)\b|export\s*\{).*"
    r"|(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|open|data"
    r"|override|virtual|async|export|default|pub|suspend|inline)\s+)*"
    r"(?:class|interface|object|enum|struct|record|trait|impl|type|fun|fn|func|function"
    r"|void|def)\b[^=;]*[{(]?[^;]*$"
    r"|(?:(?:public|private|protected|internal|static|override|virtual|abstract|async)\s+)+"
    r"[\w<>\[\],.? ]+\([^)]*\)\s*(?:\{|=>)?\s*\}?$"
    r"|return\s*(?:null|nil|None|0|false|true|\[\]|\{\}|\"\"|''|default|string\.Empty"
    r"|emptyList\(\)|undefined)?\s*;?\s*\}?"
    r"|throw\s+new\s+\w*(?:NotImplemented|UnsupportedOperation)\w*\([^)]*\)\s*;?"
    r"|(?:TODO|todo!|unimplemented!|panic)\([^)]*\)\s*;?"
    r"|.*=\s*TODO\(\)\s*;?)\s*$"
)


def only_stubs(old: str | None, new: str) -> bool:
    """Does the change add only declarations and stubs (judged line by line, for the
    languages the AST-based stub judges do not read)?"""
    return all(_STUB_LINE.match(ln) for ln in _meaningful(added_lines(old or "", new)))


# --- tests ------------------------------------------------------------------------------


def _py_tests(tree: ast.Module, scope: str = "") -> dict[str, str]:
    """Test functions (``test*``, at any depth of classes) -> their body without docstring."""
    out: dict[str, str] = {}

    def walk(body: list[ast.stmt], scope: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{scope}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                node.name.startswith("test")
            ):
                stmts = node.body
                first = stmts[0] if stmts else None
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    stmts = stmts[1:]  # the docstring
                out[scope + node.name] = "\n".join(ast.dump(s) for s in stmts)

    walk(tree.body, scope)
    return out


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _constants(nodes: Iterator[ast.AST]) -> set[object]:
    return {
        n.value
        for n in nodes
        if isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes, int, float, complex))
    }


def _is_check(node: ast.AST) -> bool:
    return isinstance(node, ast.Assert) or (
        isinstance(node, ast.Call) and bool(_CHECK_NAME.match(_call_name(node)))
    )


def _py_checks(
    tree: ast.Module, funcs: list[ast.FunctionDef | ast.AsyncFunctionDef]
) -> tuple[Counter[str], set[object]]:
    """(the checks inside the test functions ``funcs`` of ``tree``, their names left out;
    the literal values of parametrized test functions' decorators). Checks in helpers are
    not counted: a helper extracted or used checks nothing new."""
    checks: Counter[str] = Counter()
    cases: set[object] = set()
    for node in funcs:
        params = {a.arg for a in node.args.args}
        for d in node.decorator_list:
            # parametrize("a, b", ...): the names of the parameters are no expectation
            cases |= {
                c
                for c in _constants(ast.walk(d))
                if not (isinstance(c, str) and {w.strip() for w in c.split(",")} <= params)
            }
        for sub in ast.walk(node):
            if _is_check(sub):
                checks[_check_key(sub)] += 1
    # A script-style test (the TDD book's first functional test): checks at module level.
    for stmt in tree.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for sub in ast.walk(stmt):
                if _is_check(sub):
                    checks[_check_key(sub)] += 1
    return checks, cases


_NAME = re.compile(r"Name\(id='[^']*'")
# unittest's assertion methods: one checked value, or two (assertEqual, assertIn ...); a
# further positional argument is the failure message.
_UNITTEST = re.compile(r"^assert[A-Z]\w*$")
# (their further positional arguments are the call's arguments or a precision, not a message)
_UNITTEST_ARGS = frozenset(
    (
        "assertRaises",
        "assertRaisesRegex",
        "assertWarns",
        "assertWarnsRegex",
        "assertLogs",
        "assertAlmostEqual",
        "assertNotAlmostEqual",
        "assertRaisesRegexp",
    )
)
_UNITTEST_ONE = frozenset(
    ("assertTrue", "assertFalse", "assertIsNone", "assertIsNotNone", "assert_", "failUnless")
)


def _check_key(node: ast.AST) -> str:
    """A check without its names and its failure message (rewording a message or renaming
    a variable changes no expectation)."""
    if isinstance(node, ast.Assert):
        text = ast.dump(node.test)
    elif isinstance(node, ast.Call):
        args = node.args
        name = _call_name(node)
        if (
            isinstance(node.func, ast.Attribute)
            and _UNITTEST.match(name)
            and name not in _UNITTEST_ARGS
        ):
            # unittest's failure message may come positionally, after the checked values
            args = args[: 1 if name in _UNITTEST_ONE else 2]
        parts = [node.func, *args, *(k for k in node.keywords if k.arg != "msg")]
        text = "|".join(ast.dump(p) for p in parts)
    else:
        text = ast.dump(node)
    return _NAME.sub("Name(id='_'", text)


class _Module(NamedTuple):
    """What the test rules need of one version of a Python test file."""

    texts: tuple[str, ...]  # its units (tddgit.audit.pychunks), or the whole text
    tests: dict[str, str]
    checks: Counter[str]
    cases: set[object]
    constants: set[object]


Analysis = tuple[dict[str, str], Counter[str], set[object], set[object]]


def _analyse(tree: ast.Module, text: str) -> Analysis:
    """(test functions -> their bodies, checks, parametrized cases, literal values) of a
    module, statement by statement: a class member by member, each remembered by its
    text (``tddgit.audit.pystmts``), so a change to one test method of a long class
    reads that method only. Added up they are the whole module's (the tests in order: a
    test defined twice is its last definition)."""
    lines = source_lines(text)
    tests: dict[str, str] = {}
    checks: Counter[str] = Counter()
    cases: set[object] = set()
    constants: set[object] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            t, ch, ca, co = _class(stmt, lines, "")
        else:
            t, ch, ca, co = _TOP.of(stmt, lines)
        tests.update(t)
        checks.update(ch)
        cases |= ca
        constants |= co
    return tests, checks, cases, constants


def _class(node: ast.ClassDef, lines: list[str], scope: str) -> Analysis:
    """A class: the literal values of its decorators, bases and keywords, and its members
    (checks outside test functions are not counted in a class)."""
    inner = f"{scope}{node.name}."
    tests: dict[str, str] = {}
    checks: Counter[str] = Counter()
    cases: set[object] = set()
    constants: set[object] = set()
    for field in node._fields:
        if field != "body":
            value = getattr(node, field, None)
            for part in value if isinstance(value, list) else [value]:
                if isinstance(part, ast.AST):
                    constants |= _constants(ast.walk(part))
    for stmt in node.body:
        if isinstance(stmt, ast.ClassDef):
            t, ch, ca, co = _class(stmt, lines, inner)
        else:
            t, ch, ca, co = _MEMBERS.of(stmt, lines, inner)
        tests.update(t)
        checks.update(ch)
        cases |= ca
        constants |= co
    return tests, checks, cases, constants


def _statement(stmt: ast.stmt, scope: str, top: bool) -> Analysis:
    """One statement (not a class) at the top of a module, or a class member: its test
    function, the checks in its test functions (at any depth) and, at the top, its own
    checks (a script-style test). One walk: a check counts once per test function around
    it (``_py_checks`` walks each test function, nested ones again) and once more at the
    top of a module outside a function or class."""
    constants: set[object] = set()
    checks: Counter[str] = Counter()
    cases: set[object] = set()
    own = top and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    todo: list[tuple[ast.AST, int]] = [(stmt, 1 if own else 0)]
    while todo:
        node, times = todo.pop()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, bytes, int, float, complex)):
                constants.add(node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            times += 1
            params = {a.arg for a in node.args.args}
            for d in node.decorator_list:
                # parametrize("a, b", ...): the names of the parameters are no expectation
                cases |= {
                    c
                    for c in _constants(ast.walk(d))
                    if not (isinstance(c, str) and {w.strip() for w in c.split(",")} <= params)
                }
        if times and _is_check(node):
            checks[_check_key(node)] += times
        todo.extend((child, times) for child in ast.iter_child_nodes(node))
    return _py_tests(ast.Module(body=[stmt], type_ignores=[]), scope), checks, cases, constants


_TOP = StmtMemo(lambda stmt, scope: _statement(stmt, scope, True))
_MEMBERS = StmtMemo(lambda stmt, scope: _statement(stmt, scope, False))
_UNITS = PieceCache(_analyse, with_text=True)


@text_memo()
def _analysed(text: str) -> _Module | None:
    """One version of a test file, analysed once: a file's new version at one commit is
    its old version at the next commit that changes it (real histories change the same
    long test modules again and again). Read unit by unit (``tddgit.audit.pychunks``:
    most units of a version are those of the version before), the whole text only when
    it has no such units."""
    cut = units(text)
    found = _UNITS.of(cut[0]) if cut is not None else None
    if cut is None or found is None:
        try:
            whole = _analyse(_parse(text), text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        return _Module((text,), *whole)
    tests: dict[str, str] = {}
    checks: Counter[str] = Counter()
    cases: set[object] = set()
    constants: set[object] = set()
    for t, ch, ca, co in found:  # in order: a test defined twice is its last definition
        tests.update(t)
        checks.update(ch)
        cases |= ca
        constants |= co
    return _Module(cut[0], tests, checks, cases, constants)


def _analysed_all(texts: list[str]) -> _Module | None:
    """``_analysed`` of the texts joined by newlines, file by file: when each parses alone
    the joined module's statements are theirs one after the other, so its analysis is
    theirs added up (a test defined again is its last definition, as in one module).
    Parsing a large commit's files as one text took a tree of the whole (sympy: 1.5 MB
    of tests renumbered in one commit, 330 MB). When one does not parse alone, the
    joined text is read as before."""
    if len(texts) < 2:
        return _analysed(texts[0] if texts else "")
    found = [_analysed(t) for t in texts]
    if any(m is None for m in found):
        return _analysed("\n".join(texts))
    tests: dict[str, str] = {}
    checks: Counter[str] = Counter()
    cases: set[object] = set()
    constants: set[object] = set()
    parts: list[str] = []
    for m in found:
        assert m is not None
        tests.update(m.tests)
        checks.update(m.checks)
        cases |= m.cases
        constants |= m.constants
        parts += m.texts
    return _Module(tuple(parts), tests, checks, cases, constants)


def _py_behaviour(old: str | None, new: str) -> bool | None:
    return _judge(_analysed(old if old is not None else ""), _analysed(new))


def _judge(o: _Module | None, n: _Module | None) -> bool | None:
    """Does ``n`` (a test file's new version, analysed) add test behaviour to ``o``?"""
    if n is None or o is None:
        return None
    old_bodies = set(o.tests.values())
    fresh = [k for k, body in n.tests.items() if k not in o.tests and body not in old_bodies]
    if fresh and len(n.tests) > len(o.tests):
        return True  # more test cases than before, not renamed ones
    every_old = o.constants
    if n.cases - o.cases - every_old:
        return True  # a new parametrized case
    added = [k for k, c in n.checks.items() if c > o.checks[k]]
    if not added:
        return False
    if len(n.tests) < len(o.tests) and not any(
        c not in every_old for c in _constants_of_dumps(n.texts, added)
    ):
        return False  # tests merged, their checks reworded: no new expectation
    # Checks rewritten over parameters whose values all come from the old file: tests
    # converted to parametrize, not a new expectation.
    return not (n.cases and n.cases <= every_old)


def _constants_of_dumps(texts: tuple[str, ...], dumps: list[str]) -> set[object]:
    """The literal values of the checks of ``texts`` (a module's units, each parsed
    again: a rare case) whose anonymous dumps are ``dumps``."""
    wanted = set(dumps)
    out: set[object] = set()
    for node in (n for t in texts for n in ast.walk(_parse(t))):
        if _is_check(node) and _check_key(node) in wanted:
            out |= _constants(ast.walk(node))
    return out


def _squash(text: str) -> str:
    """``text`` without whitespace (``str.split`` and ``\\s`` know the same spaces)."""
    return "".join(text.split())


def _js_behaviour(old: str | None, new: str) -> bool:
    old = old or ""
    old_titles = {t for _, t in _JS_TITLE.findall(old)}
    new_titles = [t for _, t in _JS_TITLE.findall(new)]
    fresh = [t for t in new_titles if t not in old_titles]
    if fresh and len(new_titles) > len(old_titles):
        return True
    # A check line that the old file does not have, even re-wrapped: a new expectation.
    flat = _squash(old)
    return any(
        _JS_CHECK_LINE.search(line) and _squash(line) not in flat
        for line in _meaningful(added_lines(old, new))
    )


def adds_test_behaviour_many(changes: list[tuple[str, str | None, str | None]]) -> bool:
    """``adds_test_behaviour`` over all the test files a commit changes, (path, old, new)
    each: tests moved from one file to another (a split, a rename) are not new. Python
    files are judged together, the others one by one."""
    py = [(o, n) for p, o, n in changes if _is_python(p)]
    if py:
        if any(n is None for _, n in py):
            return True
        judged = _judge(
            _analysed_all([o for o, _ in py if o]), _analysed_all([n for _, n in py if n])
        )
        if judged is None:  # one of them does not parse: one by one
            judged = any(adds_test_behaviour(o, n, "x.py") for o, n in py)
        if judged:
            return True
    return any(adds_test_behaviour(o, n, p) for p, o, n in changes if not _is_python(p))


def adds_test_behaviour(old: str | None, new: str | None, path: str) -> bool:
    """Does the change from ``old`` (None: a new file) to ``new`` add a test case or change
    what a test checks? True when it cannot tell (an unreadable file)."""
    if new is None:
        return True
    if _is_python(path):
        judged = _py_behaviour(old, new)
        if judged is not None:
            return judged
    elif _is_js(path):
        return _js_behaviour(old, new)
    return any(_TEST_LINE.search(ln) for ln in _meaningful(added_lines(old or "", new)))


def changes_existing_checks(old: str | None, new: str | None, path: str) -> bool:
    """Does the change remove or alter a check ``old`` had (the test bent, not extended)?"""
    if old is None or new is None:
        return new is None
    if _is_python(path):
        o, n = _analysed(old), _analysed(new)
        if o is None or n is None:
            return True
        return any(c > n.checks[k] for k, c in o.checks.items())
    flat = _squash(new)
    check = _JS_CHECK_LINE if _is_js(path) else _TEST_LINE
    return any(check.search(ln) and _squash(ln) not in flat for ln in _meaningful(old.splitlines()))
