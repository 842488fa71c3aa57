"""Python test anti-patterns (PRODUCT.md §9), per test function, from the AST only.

``over-mocking``: more than ``max_mocks`` mocks in one test — patchers (decorators, context
managers, ``.start()``), mock constructions, ``mocker.*`` and ``monkeypatch.set*``, including
those of the fixtures the test requests (same file or the conftests given, transitively),
of its class's patch decorators and of its class's ``setUp``.

``broad-assertion``: more than ``max_asserts`` assertions on different subjects, an
assertion on a constant, or no assertion at all.

Here the tests are found (as pytest collects them) and measured, and the thresholds
applied; what counts as a mock is in ``pymocks``, as an assertion in ``pyasserts``, over
the AST read by ``pyast``. docs/detectors.md states every counting rule and why.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from tddgit.detectors import BROAD_ASSERTION, OVER_MOCKING, PARSE_ERROR, DetectorFinding
from tddgit.detectors.pyasserts import assertions_of
from tddgit.detectors.pyast import (
    FUNCS,
    FuncDef,
    aliases_and_classes,
    aliases_of,
    body_nodes,
    call_name,
)
from tddgit.detectors.pymocks import (
    Fixture,
    FixtureChain,
    body_mocks,
    class_mocks,
    fixtures_in,
    resolve_fixtures,
)


@dataclass(frozen=True)
class TestMetrics:
    """What the detectors measure in one test; the audit compares these across commits."""

    __test__ = False  # not a pytest test class

    name: str  # qualified: "test_x", "TestCls::test_x"
    line: int
    mocks: int
    mock_kinds: tuple[str, ...]  # one entry per mock, e.g. ("patch", "MagicMock")
    subjects: tuple[str, ...]  # distinct normalised assertion subjects, in order
    has_assertion: bool
    constant_assertion: str | None  # source of the first assertion on a constant
    constant_line: int | None


@dataclass(frozen=True)
class _TestDef:
    name: str
    func: FuncDef
    classes: tuple[ast.ClassDef, ...]  # enclosing test classes, outermost first


# --- finding the tests -----------------------------------------------------------------


def _is_test_case(cls: ast.ClassDef, known: set[str]) -> bool:
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
        if name.endswith("TestCase") or name in known:
            return True
    return False


def _collects(cls: ast.ClassDef, known_cases: set[str]) -> bool:
    if _is_test_case(cls, known_cases):
        known_cases.add(cls.name)
        return True
    # pytest skips Test* classes with an __init__ (it cannot instantiate them)
    has_init = any(isinstance(s, FUNCS) and s.name == "__init__" for s in cls.body)
    return cls.name.startswith("Test") and not has_init


def _iter_tests(
    body: list[ast.stmt],
    classes: tuple[ast.ClassDef, ...],
    known_cases: set[str],
    fixture_funcs: set[int],
) -> Iterator[_TestDef]:
    for stmt in body:
        if isinstance(stmt, FUNCS):
            if stmt.name.startswith("test") and id(stmt) not in fixture_funcs:
                qual = "::".join([*(c.name for c in classes), stmt.name])
                yield _TestDef(qual, stmt, classes)
        elif isinstance(stmt, ast.ClassDef) and _collects(stmt, known_cases):
            yield from _iter_tests(stmt.body, (*classes, stmt), known_cases, fixture_funcs)


def _parametrized_names(func: FuncDef) -> set[str]:
    names: set[str] = set()
    for dec in func.decorator_list:
        if isinstance(dec, ast.Call) and call_name(dec.func) == "parametrize" and dec.args:
            first = dec.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.update(n.strip() for n in first.value.split(","))
            elif isinstance(first, (ast.List, ast.Tuple)):
                names.update(
                    e.value
                    for e in first.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )
    return names


def _requested(test: _TestDef) -> list[str]:
    """Fixture names a test asks for: its parameters (minus parametrized ones) and marks."""
    args = test.func.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    skip = _parametrized_names(test.func) | {"self", "cls"}
    names = [p for p in params if p not in skip]
    for owner in (*test.classes, test.func):
        for dec in owner.decorator_list:
            if isinstance(dec, ast.Call) and call_name(dec.func) == "usefixtures":
                names += [
                    a.value
                    for a in dec.args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
    return names


# --- putting it together -----------------------------------------------------------------


@dataclass(frozen=True)
class _Module:
    tree: ast.Module
    aliases: Mapping[str, str]
    classes: Sequence[ast.ClassDef] | None = None  # every class, when found with the aliases


def _conftest_levels(conftests: Mapping[str, str] | None) -> list[dict[str, Fixture]]:
    """Conftest fixtures, nearest (deepest path) first; unparseable conftests are skipped."""
    levels: list[dict[str, Fixture]] = []
    for path in sorted(conftests or {}, key=lambda p: (-p.count("/"), p)):
        try:
            tree = ast.parse(conftests[path] if conftests else "", filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        levels.append(fixtures_in(tree.body, aliases_of(tree), path))
    return levels


def _metrics(
    mod: _Module,
    path: str,
    conftests: Mapping[str, str] | None,
    max_subjects: int | None = None,
) -> list[TestMetrics]:
    module_fixtures = fixtures_in(mod.tree.body, mod.aliases, path)
    base_levels = [module_fixtures, *_conftest_levels(conftests)]
    every_class = (
        mod.classes
        if mod.classes is not None
        else [c for c in ast.walk(mod.tree) if isinstance(c, ast.ClassDef)]
    )
    class_fixtures = {id(c): fixtures_in(c.body, mod.aliases, path) for c in every_class}
    fixture_funcs = {
        id(f.node) for level in (module_fixtures, *class_fixtures.values()) for f in level.values()
    }
    classes = {c.name: c for c in mod.tree.body if isinstance(c, ast.ClassDef)}
    out: list[TestMetrics] = []
    for test in _iter_tests(mod.tree.body, (), set(), fixture_funcs):
        class_levels = [class_fixtures[id(c)] for c in reversed(test.classes)]
        chain = FixtureChain(levels=(*class_levels, *base_levels))
        nodes = body_nodes(test.func)
        kinds = body_mocks(test.func, mod.aliases, nodes)
        for cls in test.classes:
            kinds += class_mocks(cls, classes, mod.aliases)
        for fixture in resolve_fixtures(chain, _requested(test)):
            kinds += fixture.mocks
        acc = assertions_of(test.func, mod.aliases, max_subjects, nodes)
        out.append(
            TestMetrics(
                name=test.name,
                line=test.func.lineno,
                mocks=len(kinds),
                mock_kinds=tuple(kinds),
                subjects=tuple(acc.subjects),
                has_assertion=acc.has,
                constant_assertion=acc.constant,
                constant_line=acc.constant_line,
            )
        )
    return out


def _parse(source: str, path: str) -> _Module:
    tree = ast.parse(source, filename=path)
    return _Module(tree, aliases_of(tree))


def test_metrics(
    source: str,
    path: str,
    conftests: Mapping[str, str] | None = None,
    *,
    max_subjects: int | None = None,
) -> dict[str, TestMetrics]:
    """Per-test measurements keyed by qualified test name; {} when the source does not parse.

    ``max_subjects`` is a fast mode for callers that only compare the number of subjects
    with that threshold (``findings_for``): a test that cannot have more subjects gets
    ``subjects=()``; everything else is as without it."""
    try:
        if max_subjects is None:
            mod = _parse(source, path)
        else:  # the fast mode walks the whole tree once, not twice
            tree = ast.parse(source, filename=path)
            mod = _Module(tree, *aliases_and_classes(tree))
        return {m.name: m for m in _metrics(mod, path, conftests, max_subjects)}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}


test_metrics.__test__ = False  # type: ignore[attr-defined]


def _summary(items: list[str], limit: int = 6) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", … (+{len(items) - limit})" if len(items) > limit else "")


def findings_for(
    m: TestMetrics, path: str, *, max_mocks: int, max_asserts: int
) -> list[DetectorFinding]:
    """The findings one test's metrics give under the thresholds."""
    found: list[DetectorFinding] = []

    def add(rule: str, message: str, count: int, line: int | None = None) -> None:
        found.append(DetectorFinding(rule, "warning", path, line or m.line, m.name, message, count))

    if m.mocks > max_mocks:
        kinds = [f"{k}×{n}" if n > 1 else k for k, n in Counter(m.mock_kinds).items()]
        add(OVER_MOCKING, f"{m.mocks} mocks (max {max_mocks}): {_summary(kinds)}", m.mocks)
    if len(m.subjects) > max_asserts:
        n = len(m.subjects)
        add(
            BROAD_ASSERTION,
            f"assertions on {n} different subjects (max {max_asserts}): "
            f"{_summary(list(m.subjects))}",
            n,
        )
    if m.constant_assertion is not None:
        add(
            BROAD_ASSERTION,
            f"assertion on a constant always passes: `{m.constant_assertion}`",
            1,
            m.constant_line,
        )
    elif not m.has_assertion:
        add(BROAD_ASSERTION, "no assertion: this test can only fail by raising", 0)
    return found


def analyze_python(
    source: str,
    path: str,
    *,
    max_mocks: int,
    max_asserts: int,
    conftests: Mapping[str, str] | None = None,
) -> list[DetectorFinding]:
    """Findings for every test in one Python test file; a note when it does not parse."""
    try:
        metrics = _metrics(_parse(source, path), path, conftests)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = exc.lineno if isinstance(exc, SyntaxError) and exc.lineno else 1
        reason = exc.msg if isinstance(exc, SyntaxError) else (str(exc) or type(exc).__name__)
        msg = f"not checked: cannot parse ({reason})"
        return [DetectorFinding(PARSE_ERROR, "note", path, line, None, msg, 0)]
    found: list[DetectorFinding] = []
    for m in metrics:
        found += findings_for(m, path, max_mocks=max_mocks, max_asserts=max_asserts)
    return found
