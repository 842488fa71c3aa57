"""What one version of a Python test file checks, and whether a new version checks more
(``tddgit.audit.changes.adds_test_behaviour``).

A version is analysed once (``analysed``), unit by unit (``tddgit.audit.pychunks``) and a
class member by member (``tddgit.audit.pystmts``): its test functions and their bodies,
the checks in them (without names and failure messages), its parametrized cases and its
literal values. ``judge`` compares two analyses.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple

from tddgit.audit.pychunks import PieceCache, parse, units
from tddgit.audit.pystmts import StmtMemo, source_lines
from tddgit.textmemo import text_memo

# Calls that check something, by name (assertEqual, expect, should, pytest.raises, fail);
# a project's own helpers (check_row) are not counted: extracting one checks nothing new.
_CHECK_NAME = re.compile(r"^(?:assert|expect|fail|raises|should)", re.I)

_parse = parse


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
def analysed(text: str) -> _Module | None:
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


def analysed_all(texts: list[str]) -> _Module | None:
    """``analysed`` of the texts joined by newlines, file by file: when each parses alone
    the joined module's statements are theirs one after the other, so its analysis is
    theirs added up (a test defined again is its last definition, as in one module).
    Parsing a large commit's files as one text took a tree of the whole (sympy: 1.5 MB
    of tests renumbered in one commit, 330 MB). When one does not parse alone, the
    joined text is read as before."""
    if len(texts) < 2:
        return analysed(texts[0] if texts else "")
    found = [analysed(t) for t in texts]
    if any(m is None for m in found):
        return analysed("\n".join(texts))
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


def judge(o: _Module | None, n: _Module | None) -> bool | None:
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
