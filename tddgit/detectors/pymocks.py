"""Mocks in Python tests (PRODUCT.md §9, ``over-mocking``): what counts as one mock, and
the mocks a test gets from its body, its class (patch decorators, ``setUp``) and the
fixtures it requests (same file or conftests, transitively, as pytest resolves them).

docs/detectors.md states every counting rule and why.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tddgit.detectors.pyast import (
    FUNCS,
    MOCK_CONSTRUCTORS,
    MOCK_MODULE,
    FuncDef,
    body_nodes,
    dotted,
)

# Per-class set-up whose mocks every test of the class gets.
_SETUP_METHODS = frozenset({"setUp", "asyncSetUp", "setUpClass", "setup_method", "setup_class"})
_PATCHERS = frozenset({"patch", "patch.object", "patch.dict", "patch.multiple"})
_MOCKER_EXTRAS = frozenset({"spy", "stub", "async_stub"})
_MOCKER_FIXTURES = frozenset(
    {"mocker", "class_mocker", "module_mocker", "package_mocker", "session_mocker"}
)
_MONKEYPATCH_CALLS = frozenset({"setattr", "setitem", "delattr", "delitem"})
_FIXTURE_DECORATORS = frozenset({"pytest.fixture", "pytest_asyncio.fixture", "fixture"})


def mock_kind(call: ast.Call, aliases: Mapping[str, str]) -> str | None:
    """The kind of mock a call creates (``patch.object``, ``MagicMock``...), or None."""
    name = dotted(call.func, aliases)
    if name is None:
        return None
    if name.startswith(MOCK_MODULE + "."):
        rest = name[len(MOCK_MODULE) + 1 :]
        return rest if rest in _PATCHERS or rest in MOCK_CONSTRUCTORS else None
    head, _, rest = name.partition(".")
    mocker_call = rest in _PATCHERS or rest in MOCK_CONSTRUCTORS or rest in _MOCKER_EXTRAS
    if head in _MOCKER_FIXTURES and head not in aliases and mocker_call:
        return f"mocker.{rest}"
    if head == "monkeypatch" and rest in _MONKEYPATCH_CALLS:
        return f"monkeypatch.{rest}"
    # an unimported bare `patch(...)`/`Mock()` most likely came from a star import
    root = name.split(".")[0]
    if root not in aliases and (name in _PATCHERS or name in MOCK_CONSTRUCTORS):
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
        if not isinstance(stmt, FUNCS):
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
            mocks=tuple(body_mocks(stmt, aliases)),
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


def body_mocks(
    func: FuncDef, aliases: Mapping[str, str], nodes: Sequence[ast.AST] | None = None
) -> list[str]:
    """The mocks of one function: its patch decorators and the mocks its body creates
    (``nodes``: its ``body_nodes`` when the caller has them already)."""
    kinds = patch_decorators(func.decorator_list, aliases)
    for node in body_nodes(func) if nodes is None else nodes:
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
        if isinstance(stmt, FUNCS) and stmt.name in _SETUP_METHODS:
            found[stmt.name] = stmt
    return found


def class_mocks(
    cls: ast.ClassDef, classes: Mapping[str, ast.ClassDef], aliases: Mapping[str, str]
) -> list[str]:
    """The mocks every test of a class gets: its patch decorators and those of its
    set-up methods."""
    kinds = patch_decorators(cls.decorator_list, aliases)
    for method in _setup_methods(cls, classes).values():
        kinds += body_mocks(method, aliases)
    return kinds
