"""Which statements of ONE module a test run executes: the post-write check's line
measurement, at a cost only inside that module.

coverage.py traces every frame of the run (pytest's own included), which on Python 3.11
costs about as much again as the tests; the post-write check needs the lines of one file.
This plugin (loaded with ``PYTEST_PLUGINS``, before any conftest imports the project)
puts a finder in front of the import system: when the module whose file is
``$TDDGIT_GUARD_LINES_FILE`` is imported from source, it is compiled from its own source
with a call ``__tddgit_guard_hit__(<line>)`` before each statement (the module's
docstring, ``from __future__`` imports and ``global``/``nonlocal`` excepted), bound to
``set.add``. At exit, each process writes ``$TDDGIT_GUARD_LINES_OUT.<pid>``:
``{"loaded": bool, "statements": [line...], "executed": [line...]}`` (first lines of
statements). Nothing is written when the module was not imported through the finder
(imported earlier, a compiled module, another path): the check then measures with
coverage.py instead.

Imports nothing from tddgit: it runs in the project's interpreter.
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, SourceFileLoader
from types import CodeType, ModuleType

HIT = "__tddgit_guard_hit__"
_TARGET = os.path.realpath(os.environ.get("TDDGIT_GUARD_LINES_FILE", "")) or None
_OUT = os.environ.get("TDDGIT_GUARD_LINES_OUT")
_hits: set[int] = set()
_statements: set[int] = set()
_loaded: list[str] = []


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _with_hits(body: list[ast.stmt], top: bool) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, stmt in enumerate(body):
        future = top and isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        skip = future or isinstance(stmt, (ast.Global, ast.Nonlocal))
        if not skip and not (i == 0 and _is_docstring(stmt)):
            _statements.add(stmt.lineno)
            call = ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(stmt.lineno)], [])
            out.append(ast.copy_location(ast.Expr(call), stmt))
        out.append(stmt)
    return out


def instrument(tree: ast.Module) -> ast.Module:
    for node in ast.walk(tree):  # a node's children are queued before it is changed
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and all(isinstance(v, ast.stmt) for v in value):
                setattr(node, field, _with_hits(value, top=node is tree))
    return ast.fix_missing_locations(tree)


class _Loader(SourceFileLoader):
    def get_code(self, fullname: str) -> CodeType:
        # always from source: a cached .pyc holds the uninstrumented module
        source = self.get_data(self.path)
        tree = instrument(ast.parse(source, self.path))
        return compile(tree, self.path, "exec", dont_inherit=True)

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__[HIT] = _hits.add
        _loaded.append(module.__name__)
        super().exec_module(module)


class _Finder(MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            found: ModuleSpec | None = find(fullname, path, target)
            spec = found
            if spec is not None:
                break
        if spec is None or not spec.origin or not isinstance(spec.loader, SourceFileLoader):
            return spec
        if os.path.realpath(spec.origin) == _TARGET:
            spec.loader = _Loader(fullname, spec.origin)
        return spec


def _write() -> None:
    if not _OUT or not _loaded:
        return
    record = {"loaded": True, "statements": sorted(_statements), "executed": sorted(_hits)}
    try:
        with open(f"{_OUT}.{os.getpid()}", "w", encoding="utf-8") as fh:
            json.dump(record, fh)
    except OSError:
        pass  # the check then measures with coverage.py


if _TARGET and _OUT:
    sys.meta_path.insert(0, _Finder())
    atexit.register(_write)
