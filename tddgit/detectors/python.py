"""Python test anti-patterns (PRODUCT.md §9), per test function, from the AST only.

``over-mocking``: more than ``max_mocks`` mocks in one test — patchers (decorators, context
managers, ``.start()``), mock constructions, ``mocker.*`` and ``monkeypatch.set*``, including
those of the fixtures the test requests (same file or the conftests given, transitively),
of its class's patch decorators and of its class's ``setUp``.

``broad-assertion``: more than ``max_asserts`` assertions on different subjects, an
assertion on a constant, or no assertion at all.

docs/detectors.md states every counting rule and why.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import count

from tddgit.detectors import BROAD_ASSERTION, OVER_MOCKING, PARSE_ERROR, DetectorFinding

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
FuncDef = ast.FunctionDef | ast.AsyncFunctionDef
# Per-class set-up whose mocks every test of the class gets.
_SETUP_METHODS = frozenset({"setUp", "asyncSetUp", "setUpClass", "setup_method", "setup_class"})
_RAISES = frozenset({"pytest.raises", "pytest.warns", "pytest.deprecated_call"})
_HELPER_PREFIXES = ("assert", "check_", "expect")
_SUBJECT_OF_FIRST_ARG = frozenset({"isinstance", "issubclass", "hasattr", "callable"})


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


# --- names, mocks and fixtures -----------------------------------------------------------

_MOCK_MODULE = "unittest.mock"
_PATCHERS = frozenset({"patch", "patch.object", "patch.dict", "patch.multiple"})
_CONSTRUCTORS = frozenset(
    {
        "Mock",
        "MagicMock",
        "AsyncMock",
        "NonCallableMock",
        "NonCallableMagicMock",
        "PropertyMock",
        "create_autospec",
    }
)
_MOCKER_EXTRAS = frozenset({"spy", "stub", "async_stub"})
_MOCKER_FIXTURES = frozenset(
    {"mocker", "class_mocker", "module_mocker", "package_mocker", "session_mocker"}
)
_MONKEYPATCH_CALLS = frozenset({"setattr", "setitem", "delattr", "delitem"})
_FIXTURE_DECORATORS = frozenset({"pytest.fixture", "pytest_asyncio.fixture", "fixture"})


def _canonical_module(name: str) -> str:
    # the `mock` backport on PyPI has the same API as unittest.mock
    return _MOCK_MODULE + name[4:] if name == "mock" or name.startswith("mock.") else name


# The fields that hold statements (or the handlers and cases that hold them).
_BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _statements(tree: ast.Module) -> list[ast.AST]:
    """Every statement of the tree (with the except handlers and match cases between them)
    in ``ast.walk`` order, without visiting any expression.

    Imports and classes are statements, and a statement only ever sits under statements,
    handlers and cases, so this breadth-first walk of that part of the tree keeps every
    node's depth and relative order: ``ast.walk`` filtered, for a fraction of its cost."""
    out: list[ast.AST] = [tree]
    for node in out:  # appending while iterating: a breadth-first queue
        for name in node._fields:
            if name in _BLOCK_FIELDS:
                block = getattr(node, name, None)
                if isinstance(block, list):
                    out.extend(block)
    return out


def aliases_of(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it was imported as (imports anywhere in the file)."""
    return _aliases_and_classes(tree)[0]


def _aliases_and_classes(tree: ast.Module) -> tuple[dict[str, str], list[ast.ClassDef]]:
    """``aliases_of`` and every class (in ``ast.walk`` order) in one walk of the tree."""
    out: dict[str, str] = {}
    classes: list[ast.ClassDef] = []
    for node in _statements(tree):
        if isinstance(node, ast.ClassDef):
            classes.append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            _add_aliases(node, out)
    return out, classes


def _add_aliases(node: ast.AST, out: dict[str, str]) -> None:
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                out[a.asname] = _canonical_module(a.name)
            else:
                top = a.name.split(".")[0]
                out[top] = _canonical_module(top)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        module = _canonical_module(node.module)
        for a in node.names:
            if a.name == "*":
                if module == _MOCK_MODULE:
                    out.update({n: f"{module}.{n}" for n in (*_CONSTRUCTORS, "patch")})
                continue
            out[a.asname or a.name] = _canonical_module(f"{module}.{a.name}")


def dotted(expr: ast.expr, aliases: Mapping[str, str]) -> str | None:
    """``m.patch.object`` -> ``unittest.mock.patch.object`` after resolving imports."""
    if isinstance(expr, ast.Name):
        return aliases.get(expr.id, expr.id)
    if isinstance(expr, ast.Attribute):
        base = dotted(expr.value, aliases)
        return None if base is None else f"{base}.{expr.attr}"
    return None


def mock_kind(call: ast.Call, aliases: Mapping[str, str]) -> str | None:
    """The kind of mock a call creates (``patch.object``, ``MagicMock``...), or None."""
    name = dotted(call.func, aliases)
    if name is None:
        return None
    if name.startswith(_MOCK_MODULE + "."):
        rest = name[len(_MOCK_MODULE) + 1 :]
        return rest if rest in _PATCHERS or rest in _CONSTRUCTORS else None
    head, _, rest = name.partition(".")
    mocker_call = rest in _PATCHERS or rest in _CONSTRUCTORS or rest in _MOCKER_EXTRAS
    if head in _MOCKER_FIXTURES and head not in aliases and mocker_call:
        return f"mocker.{rest}"
    if head == "monkeypatch" and rest in _MONKEYPATCH_CALLS:
        return f"monkeypatch.{rest}"
    # an unimported bare `patch(...)`/`Mock()` most likely came from a star import
    root = name.split(".")[0]
    if root not in aliases and (name in _PATCHERS or name in _CONSTRUCTORS):
        return name
    return None


def patch_decorators(decorators: list[ast.expr], aliases: Mapping[str, str]) -> list[str]:
    """Patchers applied as decorators (each stacked one is one mock)."""
    kinds: list[str] = []
    for dec in decorators:
        if isinstance(dec, ast.Call):
            kind = mock_kind(dec, aliases)
            if kind and kind.split(".")[-1] in ("patch", "object", "dict", "multiple"):
                kinds.append(kind)
    return kinds


@dataclass(frozen=True)
class Fixture:
    name: str
    node: FuncDef
    path: str
    autouse: bool
    requests: tuple[str, ...]
    mocks: tuple[str, ...]  # its own mocks, not those of the fixtures it requests


def _fixture_decorator(func: FuncDef, aliases: Mapping[str, str]) -> ast.expr | None:
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr != "fixture":
            continue  # every fixture decorator's dotted name ends in "fixture"
        if dotted(target, aliases) in _FIXTURE_DECORATORS:
            return dec
    return None


def _keyword(dec: ast.expr, key: str) -> object:
    if isinstance(dec, ast.Call):
        for kw in dec.keywords:
            if kw.arg == key and isinstance(kw.value, ast.Constant):
                return kw.value.value
    return None


def fixtures_in(body: list[ast.stmt], aliases: Mapping[str, str], path: str) -> dict[str, Fixture]:
    """The fixtures a module or class body defines, by the name tests request them with."""
    out: dict[str, Fixture] = {}
    for stmt in body:
        if not isinstance(stmt, _FUNCS):
            continue
        dec = _fixture_decorator(stmt, aliases)
        if dec is None:
            continue
        name = _keyword(dec, "name")
        args = stmt.args
        params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        out[name if isinstance(name, str) else stmt.name] = Fixture(
            name=name if isinstance(name, str) else stmt.name,
            node=stmt,
            path=path,
            autouse=_keyword(dec, "autouse") is True,
            requests=tuple(p for p in params if p not in ("self", "cls", "request")),
            mocks=tuple(_body_mocks(stmt, aliases)),
        )
    return out


@dataclass(frozen=True)
class FixtureChain:
    """Where a test looks fixtures up: its classes (innermost first), its module, conftests."""

    levels: tuple[dict[str, Fixture], ...]

    def find(self, name: str, start: int = 0) -> tuple[int, Fixture] | None:
        for i in range(start, len(self.levels)):
            if name in self.levels[i]:
                return i, self.levels[i][name]
        return None


def resolve_fixtures(chain: FixtureChain, requested: list[str]) -> list[Fixture]:
    """Every fixture a test gets — requested, autouse, and what those request in turn.

    pytest creates each fixture once per test, so a fixture reached twice counts once; a
    fixture sees only fixtures at its own level or further out (a conftest fixture cannot
    use a test module's), and one that requests its own name gets the next one out.
    """
    seen: dict[tuple[int, str], Fixture] = {}
    todo: list[tuple[str, int]] = [(n, 0) for n in requested]
    autouse_names: set[str] = set()
    for defined in chain.levels:
        autouse_names |= {n for n, f in defined.items() if f.autouse}
    todo += [(n, 0) for n in sorted(autouse_names)]
    while todo:
        name, start = todo.pop()
        hit = chain.find(name, start)
        if hit is None or (hit[0], name) in seen:
            continue
        level, fixture = hit
        seen[(level, name)] = fixture
        for dep in fixture.requests:
            todo.append((dep, level + 1 if dep == name else level))
    return list(seen.values())


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
    has_init = any(isinstance(s, _FUNCS) and s.name == "__init__" for s in cls.body)
    return cls.name.startswith("Test") and not has_init


def _iter_tests(
    body: list[ast.stmt],
    classes: tuple[ast.ClassDef, ...],
    known_cases: set[str],
    fixture_funcs: set[int],
) -> Iterator[_TestDef]:
    for stmt in body:
        if isinstance(stmt, _FUNCS):
            if stmt.name.startswith("test") and id(stmt) not in fixture_funcs:
                qual = "::".join([*(c.name for c in classes), stmt.name])
                yield _TestDef(qual, stmt, classes)
        elif isinstance(stmt, ast.ClassDef) and _collects(stmt, known_cases):
            yield from _iter_tests(stmt.body, (*classes, stmt), known_cases, fixture_funcs)


# --- assertions --------------------------------------------------------------------------


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        return _is_literal(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_literal(e) for e in node.elts)
    return False


def _always_true(node: ast.expr) -> bool:
    """An ``assert`` operand that can never fail."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        # `assert (x == 1, "msg")` is the classic always-passing assert
        return len(node.keys if isinstance(node, ast.Dict) else node.elts) > 0
    if isinstance(node, ast.Compare):
        return all(_is_literal(e) for e in (node.left, *node.comparators))
    return False


class _Placeholder(ast.NodeTransformer):
    """``resp.json()["id"]`` and ``resp.json()["name"]`` are one subject: the payload."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Constant):
            node.slice = ast.Name(id="…", ctx=ast.Load())
        return node


def _subject(node: ast.expr) -> str:
    if isinstance(node, ast.Await):
        node = node.value
    import copy

    tree = _Placeholder().visit(copy.deepcopy(node))
    return " ".join(ast.unparse(tree).split())


def _assert_subjects(node: ast.expr, subject: Callable[[ast.expr], str] = _subject) -> list[str]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [s for v in node.values for s in _assert_subjects(v, subject)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _assert_subjects(node.operand, subject)
    if isinstance(node, ast.Compare):
        for side in (node.left, *node.comparators):
            if not _is_literal(side):
                return [subject(side)]
        return []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        return [subject(node.args[0] if node.func.id in _SUBJECT_OF_FIRST_ARG else node)]
    return [subject(node)]


def _counting() -> Callable[[ast.expr], str]:
    """A stand-in for ``_subject`` giving every expression its own name: the number of
    distinct names is then an upper bound of the number of distinct subjects, found
    without copying and unparsing each expression."""
    numbers = count()
    return lambda node: f"\0{next(numbers)}"


@dataclass
class _Assertions:
    subjects: dict[str, None]  # ordered set
    subject: Callable[[ast.expr], str] = _subject  # how an expression names its subject
    has: bool = False
    constant: str | None = None
    constant_line: int | None = None

    def add(self, subjects: list[str]) -> None:
        self.has = True
        for s in subjects:
            self.subjects.setdefault(s, None)

    def const(self, node: ast.AST) -> None:
        self.has = True
        if self.constant is None:
            self.constant = " ".join(ast.unparse(node).split())
            self.constant_line = getattr(node, "lineno", None)


def _call_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _self_assert_always_passes(method: str, args: list[ast.expr]) -> bool:
    if not args:
        return False
    first = args[0]
    if method in ("assertTrue", "assert_"):
        return _always_true(first)
    if method == "assertFalse":
        return isinstance(first, ast.Constant) and not first.value
    if method == "assertIsNotNone":
        return isinstance(first, ast.Constant) and first.value is not None
    # assertEqual(1, 1), assertIn("a", "abc"): nothing under test is compared
    return len(args) >= 2 and _is_literal(first) and _is_literal(args[1])


def _self_assert(call: ast.Call, method: str, acc: _Assertions) -> None:
    if _self_assert_always_passes(method, call.args):
        acc.const(call)
        return
    # the subject is the first non-literal of the first two arguments (yoda style too)
    subjects = [acc.subject(a) for a in call.args[:2] if not _is_literal(a)]
    acc.add(subjects[:1] or [method])


def _scan_call(call: ast.Call, aliases: Mapping[str, str], acc: _Assertions) -> None:
    name = dotted(call.func, aliases) or ""
    last = _call_name(call.func)
    arg0 = call.args[0] if call.args else None
    if name in _RAISES:
        acc.add([f"{last}({acc.subject(arg0)})" if arg0 is not None else last])
    elif name == "pytest.fail":
        acc.has = True
    elif isinstance(call.func, ast.Attribute) and _call_name(call.func.value) == "self":
        if last.startswith("assert"):
            _self_assert(call, last, acc)
        elif last == "fail":
            acc.has = True
    elif isinstance(call.func, ast.Attribute) and last.startswith("assert_"):
        acc.add([acc.subject(call.func.value)])  # mock.assert_called_once_with(...)
    elif last.startswith(_HELPER_PREFIXES):
        acc.add([acc.subject(arg0)] if arg0 is not None and not _is_literal(arg0) else [last])


def _assertions(
    func: FuncDef,
    aliases: Mapping[str, str],
    subject: Callable[[ast.expr], str] = _subject,
    nodes: Sequence[ast.AST] | None = None,
) -> _Assertions:
    acc = _Assertions(subjects={}, subject=subject)
    for node in _body_nodes(func) if nodes is None else nodes:
        if isinstance(node, ast.Assert):
            if _always_true(node.test):
                acc.const(node)
            else:
                acc.add(_assert_subjects(node.test, subject))
        elif isinstance(node, ast.Call):
            _scan_call(node, aliases, acc)
    return acc


# Fields that never hold a node which is, or contains, a call or an assert.
_LEAF_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "kind", "conversion", "is_async", "level"}
    | {"module", "type_comment", "asname", "name", "names", "kwd_attrs", "rest", "tag"}
)
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(cls: type) -> tuple[str, ...]:
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        names: tuple[str, ...] = getattr(cls, "_fields", ())  # () for a str or a bool
        leaf = cls is ast.Constant or not issubclass(cls, ast.AST)
        fields = () if leaf else tuple(f for f in names if f not in _LEAF_FIELDS)
        _NODE_FIELDS[cls] = fields
    return fields


def _body_nodes(func: FuncDef) -> list[ast.AST]:
    """The calls and asserts of a function's body, in the order of ``ast.walk`` over each
    statement in turn (the order counts: it orders mock kinds and subjects in messages).

    One walk serves the mock and the assertion scans; it skips leaves that cannot hold a
    call (names, operators, contexts, constants), which keeps every other node's depth and
    relative order, so the result is ``ast.walk``'s filtered."""
    out: list[ast.AST] = []
    for stmt in func.body:
        queue: list[object] = [stmt]
        for node in queue:  # appending while iterating: a breadth-first queue
            for name in _node_fields(type(node)):
                value = getattr(node, name, None)
                if type(value) is list:
                    queue.extend(value)
                elif value is not None:
                    queue.append(value)
        out += [n for n in queue if isinstance(n, (ast.Call, ast.Assert))]
    return out


# --- mocks -------------------------------------------------------------------------------


def _body_mocks(
    func: FuncDef, aliases: Mapping[str, str], nodes: Sequence[ast.AST] | None = None
) -> list[str]:
    kinds = patch_decorators(func.decorator_list, aliases)
    for node in _body_nodes(func) if nodes is None else nodes:
        if isinstance(node, ast.Call):
            kind = mock_kind(node, aliases)
            if kind:
                kinds.append(kind)
    return kinds


def _setup_methods(
    cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef], seen: frozenset[str] = frozenset()
) -> dict[str, FuncDef]:
    """The set-up methods a class runs: its own, else inherited from a class in this file."""
    found: dict[str, FuncDef] = {}
    for base in cls.bases:
        parent = classes.get(base.id) if isinstance(base, ast.Name) else None
        if parent is not None and parent.name not in seen:
            inherited = _setup_methods(parent, classes, seen | {cls.name})
            found.update({k: v for k, v in inherited.items() if k not in found})
    for stmt in cls.body:
        if isinstance(stmt, _FUNCS) and stmt.name in _SETUP_METHODS:
            found[stmt.name] = stmt
    return found


def _class_mocks(
    cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef], aliases: Mapping[str, str]
) -> list[str]:
    kinds = patch_decorators(cls.decorator_list, aliases)
    for method in _setup_methods(cls, classes).values():
        kinds += _body_mocks(method, aliases)
    return kinds


def _parametrized_names(func: FuncDef) -> set[str]:
    names: set[str] = set()
    for dec in func.decorator_list:
        if isinstance(dec, ast.Call) and _call_name(dec.func) == "parametrize" and dec.args:
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
            if isinstance(dec, ast.Call) and _call_name(dec.func) == "usefixtures":
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
        nodes = _body_nodes(test.func)
        kinds = _body_mocks(test.func, mod.aliases, nodes)
        for cls in test.classes:
            kinds += _class_mocks(cls, classes, mod.aliases)
        for fixture in resolve_fixtures(chain, _requested(test)):
            kinds += fixture.mocks
        acc = _test_assertions(test.func, mod.aliases, max_subjects, nodes)
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


def _test_assertions(
    func: FuncDef, aliases: Mapping[str, str], max_subjects: int | None, nodes: Sequence[ast.AST]
) -> _Assertions:
    """The assertions of a test; with ``max_subjects``, subjects are only named (the costly
    part) when there may be more than that many, and left empty otherwise."""
    if max_subjects is None:
        return _assertions(func, aliases, nodes=nodes)
    acc = _assertions(func, aliases, _counting(), nodes)
    if len(acc.subjects) > max_subjects:
        return _assertions(func, aliases, nodes=nodes)
    acc.subjects = {}
    return acc


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
            mod = _Module(tree, *_aliases_and_classes(tree))
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
