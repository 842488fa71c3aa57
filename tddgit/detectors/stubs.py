"""Stub detection for ``red.allow_stubs`` (PRODUCT.md §5, §9): AST only, never imports code.

A red step may add production *stubs* — the names a new test needs, with bodies that do
nothing yet — but no behaviour. ``non_stub_additions`` compares the old and new source of
one production file, unit by unit (functions and classes by qualified name, the remaining
module- and class-level statements by their normalised AST), and names every addition that
is real code. See docs/detectors.md for the exact definition and its reasons.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from tddgit.textmemo import text_memo

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Module/class statements that declare names rather than run behaviour.
_DECLARATIVE_NAMES = frozenset({"__all__", "__slots__", "__match_args__", "__version__"})
_TYPE_ALIAS_NODE = getattr(ast, "TypeAlias", None)  # `type X = ...` (Python 3.12+)
_SNIPPET = 60


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_not_implemented(expr: ast.expr | None) -> bool:
    if isinstance(expr, ast.Call) and not expr.keywords:
        expr = expr.func
    if isinstance(expr, ast.Name):
        return expr.id == "NotImplementedError"
    if isinstance(expr, ast.Attribute):  # builtins.NotImplementedError
        return expr.attr == "NotImplementedError"
    return False


def _is_stub_statement(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return stmt.value.value is Ellipsis
    if isinstance(stmt, ast.Raise):
        cause_ok = stmt.cause is None or (
            isinstance(stmt.cause, ast.Constant) and stmt.cause.value is None
        )
        return cause_ok and _is_not_implemented(stmt.exc)
    return False


def is_stub_body(body: list[ast.stmt]) -> bool:
    """True when a function body is only ``pass``, ``...``, a docstring,
    ``raise NotImplementedError[(...)]``, or a docstring followed by one of those."""
    rest = body[1:] if body and _is_docstring(body[0]) else body
    if not rest:
        return bool(body)  # a docstring alone
    return len(rest) == 1 and _is_stub_statement(rest[0])


@dataclass(frozen=True)
class _Func:
    qualname: str
    name: str
    line: int
    stub: bool
    shape: str  # normalised body, decorators and defaults: what "changed" compares


@dataclass(frozen=True)
class _Stmt:
    scope: str  # "" for the module, else the class's qualified name
    line: int
    shape: str
    declarative: bool
    text: str


def _func_shape(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    # Annotations are left out on purpose: changing a type hint runs no new behaviour.
    parts = [*node.body, *node.decorator_list, *node.args.defaults]
    parts += [d for d in node.args.kw_defaults if d is not None]
    return "\n".join(ast.dump(p) for p in parts)


def _is_type_checking_block(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.If) or stmt.orelse:
        return False
    test = stmt.test
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
    return name == "TYPE_CHECKING" and all(_is_import(s) for s in stmt.body)


def _is_import(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.Import, ast.ImportFrom))


def _is_guarded_import(stmt: ast.stmt) -> bool:
    """``try: import x`` / ``except ImportError: pass | import y | x = None``."""
    if not isinstance(stmt, ast.Try) or stmt.finalbody or stmt.orelse:
        return False
    handlers = [s for h in stmt.handlers for s in h.body]
    fallback_ok = all(
        _is_import(s)
        or isinstance(s, ast.Pass)
        or (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant))
        for s in handlers
    )
    return bool(stmt.body) and all(_is_import(s) for s in stmt.body) and fallback_ok


def _assigned_names(stmt: ast.stmt) -> list[str]:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _is_type_alias_annotation(stmt: ast.stmt) -> bool:
    ann = stmt.annotation if isinstance(stmt, ast.AnnAssign) else None
    name = ann.id if isinstance(ann, ast.Name) else getattr(ann, "attr", "")
    return name == "TypeAlias"


def _is_declarative(stmt: ast.stmt, in_class: bool) -> bool:
    """Statements that are not "code": they declare, import or document."""
    if _is_docstring(stmt) or _is_import(stmt) or _is_stub_statement(stmt):
        return True
    if _TYPE_ALIAS_NODE is not None and isinstance(stmt, _TYPE_ALIAS_NODE):
        return True
    if isinstance(stmt, ast.AnnAssign) and (stmt.value is None or _is_type_alias_annotation(stmt)):
        return True
    names = _assigned_names(stmt)
    if names and all(n in _DECLARATIVE_NAMES for n in names):
        return True
    return not in_class and (_is_type_checking_block(stmt) or _is_guarded_import(stmt))


def _walk(
    body: list[ast.stmt], scope: str, in_class: bool
) -> Iterator[_Func | _Stmt | tuple[str, int]]:
    """Units of a module or class body; classes yield (qualname, line) then their members."""
    for stmt in body:
        qual = f"{scope}.{getattr(stmt, 'name', '')}" if scope else getattr(stmt, "name", "")
        if isinstance(stmt, _FUNCS):
            yield _Func(qual, stmt.name, stmt.lineno, is_stub_body(stmt.body), _func_shape(stmt))
        elif isinstance(stmt, ast.ClassDef):
            yield (qual, stmt.lineno)
            yield from _walk(stmt.body, qual, in_class=True)
        else:
            text = " ".join(ast.unparse(stmt).split())
            yield _Stmt(scope, stmt.lineno, ast.dump(stmt), _is_declarative(stmt, in_class), text)


def _snippet(text: str) -> str:
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


def _parse(source: str, path: str) -> ast.Module:
    return ast.parse(source, filename=path)


def non_stub_additions(old: str | None, new: str, path: str) -> list[str]:
    """One line per production addition in ``new`` (vs ``old``) that is not a stub.

    An empty list means the change adds only stubs and declarations. ``old`` is None for a
    new file; an unparseable ``old`` is treated like a new file (everything is compared
    against nothing), an unparseable ``new`` gives one line saying so.
    """
    new_units = _units(new)
    if isinstance(new_units, BaseException):
        exc = new_units
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        return [
            f"{path}: cannot parse the new source{where}: {exc.args[0] if exc.args else type(exc).__name__}"
        ]
    old_units: list[_Func | _Stmt | tuple[str, int]] = []
    if old is not None:
        found = _units(old)
        old_units = [] if isinstance(found, BaseException) else found
    return _compare(old_units, new_units, path)


_Units = list[_Func | _Stmt | tuple[str, int]]
_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


@text_memo(entries=32)
def _units(source: str) -> _Units | BaseException:
    """The units of one version, or why it does not parse; remembered by text: a file's
    new version at one commit is its old version at the next commit that changes it
    (``tddgit audit`` judges long histories of the same modules). The units do not
    depend on the path (it only names the file in a SyntaxError's own fields, which the
    message does not show)."""
    try:
        return list(_walk(_parse(source, "<unknown>").body, "", in_class=False))
    except _ERRORS as exc:
        exc.__traceback__ = None  # hold no frames in the cache
        return exc


# One unit of a module: a function, another statement, or a class's (qualname, line).
Unit = _Func | _Stmt | tuple[str, int]


def walk_module(tree: ast.Module) -> Iterator[Unit]:
    """The units of a parsed module (what ``non_stub_additions`` compares)."""
    return _walk(tree.body, "", in_class=False)


def shifted(unit: Unit, lines: int) -> Unit:
    """``unit`` of a module's part, placed ``lines`` lines further down."""
    if isinstance(unit, tuple):
        return (unit[0], unit[1] + lines)
    if isinstance(unit, _Func):
        return _Func(unit.qualname, unit.name, unit.line + lines, unit.stub, unit.shape)
    return _Stmt(unit.scope, unit.line + lines, unit.shape, unit.declarative, unit.text)


def compare_units(old_units: list[Unit], new_units: list[Unit], path: str) -> list[str]:
    """``non_stub_additions`` of two versions' units."""
    return _compare(old_units, new_units, path)


def _compare(
    old_units: list[_Func | _Stmt | tuple[str, int]],
    new_units: list[_Func | _Stmt | tuple[str, int]],
    path: str,
) -> list[str]:
    old_funcs = {u.qualname: u for u in old_units if isinstance(u, _Func)}
    # A function moved (into a class, or reordered) keeps its name and body: not new code.
    old_moved = {(u.name, u.shape) for u in old_funcs.values()}
    old_stmts = Counter((u.scope, u.shape) for u in old_units if isinstance(u, _Stmt))
    lines: list[str] = []
    for unit in new_units:
        if isinstance(unit, _Func):
            line = _judge_func(unit, old_funcs.get(unit.qualname), old_moved, path)
        elif isinstance(unit, _Stmt):
            key = (unit.scope, unit.shape)
            if old_stmts[key] > 0:
                old_stmts[key] -= 1
                continue
            line = "" if unit.declarative else _stmt_line(unit, path)
        else:
            line = ""  # a class statement itself declares; its members are judged
        if line:
            lines.append(line)
    return lines


def _judge_func(unit: _Func, before: _Func | None, moved: set[tuple[str, str]], path: str) -> str:
    if unit.stub:
        return ""
    if before is not None:
        if before.shape == unit.shape:
            return ""
        return f"{path}:{unit.line}: `{unit.qualname}` has a changed body that is not a stub"
    if (unit.name, unit.shape) in moved:
        return ""
    return f"{path}:{unit.line}: new `{unit.qualname}` has a body that is not a stub"


def _stmt_line(unit: _Stmt, path: str) -> str:
    where = f"in class `{unit.scope}`" if unit.scope else "at module level"
    return f"{path}:{unit.line}: code {where}: `{_snippet(unit.text)}`"
