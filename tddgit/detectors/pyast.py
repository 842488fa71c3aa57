"""A Python test file's AST, read for the detectors (PRODUCT.md §9): the names its imports
bind (``aliases_of``, ``dotted``) and the calls and asserts of a function's body
(``body_nodes``), each found by a walk that gives ``ast.walk``'s order for a fraction of
its cost.

The mock backport resolves to ``unittest.mock`` here, and a star import of it binds its
mock names, so ``pymocks`` sees every mock by one dotted name.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
FuncDef = ast.FunctionDef | ast.AsyncFunctionDef

MOCK_MODULE = "unittest.mock"
MOCK_CONSTRUCTORS = frozenset(
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


def _canonical_module(name: str) -> str:
    # the `mock` backport on PyPI has the same API as unittest.mock
    return MOCK_MODULE + name[4:] if name == "mock" or name.startswith("mock.") else name


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
    return aliases_and_classes(tree)[0]


def aliases_and_classes(tree: ast.Module) -> tuple[dict[str, str], list[ast.ClassDef]]:
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
                if module == MOCK_MODULE:
                    out.update({n: f"{module}.{n}" for n in (*MOCK_CONSTRUCTORS, "patch")})
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


def call_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


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


def body_nodes(func: FuncDef) -> list[ast.AST]:
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
