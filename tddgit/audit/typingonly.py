"""Does a Python change alter what runs? (for the ``pre-test-code`` decision, issue 27:
a reviewer calls a typing commit or a lint fix a refactor, not untested code).

Two versions run the same when they are equal once these are left out:

- typing: annotations (a dataclass-style field keeps its name), ``from __future__ import
  annotations``, ``if TYPE_CHECKING:`` blocks (their ``else:`` runs), type variables and
  ``NewType``s, protocol classes of stub methods, ``@overload`` signatures, typing-only
  decorators (``final``, ``override``, ``runtime_checkable``), ``Generic[...]`` bases and
  the subscripts of generic bases (``Base[str]`` is ``Base`` at run time), and imports whose
  names only annotations used;
- exception chaining: ``raise X from e`` and the ``as e`` it needs change the traceback's
  story, not what is raised;
- a function's declaration changed as a refactoring (Fowler's *Change Function
  Declaration*): its positional parameters renamed throughout its body, a positional-only
  marker, a ``*args``/``**kwargs`` it never reads (a typing commit matching a protocol);
- docstrings, comments and layout (the AST).

An import no annotation uses stays code: it may be a re-export. Stub files (``.pyi``) are
typing only. Modules are read one top-level unit at a time (``tddgit.audit.pychunks``):
each unit is normalised once per distinct text, so a long module changed again and again
costs only its changed units.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from tddgit.audit.pychunks import parse, units

_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
_MAX_BYTES = 400_000  # a module with no units is parsed whole up to this size
_LIMIT = 4096  # units remembered before the memory is dropped
_TYPEVARS = frozenset(("TypeVar", "ParamSpec", "TypeVarTuple", "NewType"))
_DECORATORS = frozenset(("final", "override", "runtime_checkable", "type_check_only"))


class _Unit(NamedTuple):
    """One unit normalised: its statements (a dump each, or an import's parts), the names
    it reads at run time and all the names it reads (annotations included)."""

    stmts: tuple[str | tuple[str, tuple[tuple[str, str], ...]], ...]
    runtime: frozenset[str]
    named: frozenset[str]


def same_at_runtime(old: str | None, new: str, path: str = "x.py") -> bool:
    """True when ``old`` (None: a new file) and ``new`` run the same code (see the
    module's docstring); False when they differ or either does not parse."""
    if path.endswith(".pyi"):
        return True
    a = _module(old or "")
    b = _module(new)
    return a is not None and a == b


def _module(text: str) -> list[str] | None:
    cut = units(text)
    found: list[_Unit] = []
    if cut is None:
        if len(text) > _MAX_BYTES:
            return None
        unit = _normalised(text)
        if unit is None:
            return None
        found.append(unit)
    else:
        for piece in cut[0]:
            unit = _normalised(piece)
            if unit is None:
                return None
            found.append(unit)
    runtime = frozenset().union(*(u.runtime for u in found))
    named = frozenset().union(*(u.named for u in found))
    out: list[str] = []
    for u in found:
        for s in u.stmts:
            if isinstance(s, str):
                out.append(s)
                continue
            head, names = s
            # an import only annotations used is typing; one nothing used may be a re-export
            kept = [d for bound, d in names if bound in runtime or bound not in named]
            if kept:
                out.append(head + "|".join(kept))
    return out


_SEEN: dict[str, _Unit | None] = {}


def _normalised(text: str) -> _Unit | None:
    found = _SEEN.get(text, _SEEN)
    if found is _SEEN:
        try:
            found = _normalise(parse(text))
        except _ERRORS:
            found = None
        if len(_SEEN) >= _LIMIT:
            _SEEN.clear()
        _SEEN[text] = found
    return found  # type: ignore[return-value]


def _normalise(tree: ast.Module) -> _Unit:
    names: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.Raise):
            n.cause = None
        elif isinstance(n, ast.Lambda):
            _unannotate(n.args)
    named = frozenset(names)
    body = _body(tree.body, in_class=False)
    stmts: list[str | tuple[str, tuple[tuple[str, str], ...]]] = []
    runtime: set[str] = set()
    for stmt in body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            head = f"from {stmt.module}:{stmt.level}:" if isinstance(stmt, ast.ImportFrom) else ""
            stmts.append(
                (head, tuple(((a.asname or a.name).split(".")[0], ast.dump(a)) for a in stmt.names))
            )
            continue
        runtime.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
        stmts.append(ast.dump(stmt))
    return _Unit(tuple(stmts), frozenset(runtime), named)


def _name(node: ast.expr) -> str:
    """The last name of ``x``, ``t.x`` or of either subscripted (``t.Protocol[T]``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _body(stmts: list[ast.stmt], in_class: bool) -> list[ast.stmt]:
    """``stmts`` normalised: typing and docstrings left out (the rest changed in place)."""
    out: list[ast.stmt] = []
    for s in stmts:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            continue  # a docstring, a bare string or ``...``: nothing runs
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            s.names = [a for a in s.names if a.name != "annotations"]
            if not s.names:
                continue
        if isinstance(s, ast.If) and _name(s.test) == "TYPE_CHECKING":
            out += _body(s.orelse, in_class)  # what runs: the else branch
            continue
        if isinstance(s, ast.Assign) and _is_typevar(s.value):
            continue
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                if not in_class or not isinstance(s.target, ast.Name):
                    continue  # a declaration: nothing runs
                s.annotation = ast.Constant(None)  # a field of a dataclass: its name counts
            elif _is_typevar(s.value) or _name(s.annotation) == "TypeAlias":
                continue
            else:
                s = ast.Assign(targets=[s.target], value=s.value, type_comment=None, lineno=0)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_name(d) == "overload" for d in s.decorator_list):
                continue
            s.decorator_list = [d for d in s.decorator_list if _name(d) not in _DECORATORS]
            s.returns = None
            _unannotate(s.args)
            _redeclare(s)
        elif isinstance(s, ast.ClassDef):
            if any(_name(b) == "Protocol" for b in s.bases) and _stubs_only(s):
                continue
            s.bases = [
                b.value if isinstance(b, ast.Subscript) else b
                for b in s.bases
                if _name(b) not in ("Generic", "Protocol")
            ]
            s.decorator_list = [d for d in s.decorator_list if _name(d) not in _DECORATORS]
        if getattr(s, "type_params", None):  # Python 3.12's ``def f[T]()``, ``class C[T]``
            vars(s)["type_params"] = []  # a field of Python 3.12 nodes only
        _inner(s, isinstance(s, ast.ClassDef))
        out.append(s)
    return out


def _inner(s: ast.stmt, in_class: bool) -> None:
    """Normalise the statement lists inside ``s`` and what its expressions hold."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(s, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            setattr(s, field, _body(block, in_class and field == "body"))
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        for h in s.handlers:  # type: ignore[attr-defined]
            h.body = _body(h.body, False)
            if h.name and not any(
                isinstance(n, ast.Name) and n.id == h.name for b in h.body for n in ast.walk(b)
            ):
                h.name = None  # bound only for ``from e``
    if isinstance(s, ast.Match):
        for case in s.cases:
            case.body = _body(case.body, False)


def _unannotate(args: ast.arguments) -> None:
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if a is not None:
            a.annotation = None


def _redeclare(f: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Leave out what Fowler's *Change Function Declaration* changes without changing what
    the function does: its positional parameters' names (renamed throughout its body), a
    positional-only marker, a ``*args`` or ``**kwargs`` its body never reads."""
    args = f.args
    read = {n.id for b in f.body for n in ast.walk(b) if isinstance(n, ast.Name)}
    if args.vararg is not None and args.vararg.arg not in read:
        args.vararg = None
    if args.kwarg is not None and args.kwarg.arg not in read:
        args.kwarg = None
    args.args = [*args.posonlyargs, *args.args]
    args.posonlyargs = []
    names = {a.arg: f"_{i}" for i, a in enumerate(args.args)}
    for a in args.args:
        a.arg = names[a.arg]
    for b in f.body:
        for n in ast.walk(b):
            if isinstance(n, ast.Name) and n.id in names:
                n.id = names[n.id]


def _is_typevar(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and _name(value.func) in _TYPEVARS


def _stubs_only(cls: ast.ClassDef) -> bool:
    """Are all the methods of a protocol class stubs (``...``, ``pass``, a docstring)?"""
    return all(
        isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))
        for s in cls.body
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        for b in s.body
    )
