"""Python statements reduced to what runs (for ``tddgit.audit.typingonly``): typing,
exception chaining, a declaration changed as a refactoring, docstrings left out.

``runs`` changes the statements in place (the caller parses them for this alone) and
returns those left; ``unchain`` first, once per tree: it clears what ``runs`` reads of
the whole tree (a raise's cause, a lambda's annotations).
"""

from __future__ import annotations

import ast

_TYPEVARS = frozenset(("TypeVar", "ParamSpec", "TypeVarTuple", "NewType"))
_DECORATORS = frozenset(("final", "override", "runtime_checkable", "type_check_only"))


def unchain(node: ast.AST) -> None:
    """Leave out the causes of raises (``from e``, ``from None``) and the annotations of
    lambdas, everywhere in ``node``."""
    for n in ast.walk(node):
        if isinstance(n, ast.Raise):
            n.cause = None
        elif isinstance(n, ast.Lambda):
            _unannotate(n.args)


def is_protocol(cls: ast.ClassDef) -> bool:
    """A protocol class whose methods are stubs: typing only."""
    return any(_name(b) == "Protocol" for b in cls.bases) and _stubs_only(cls)


def _name(node: ast.expr) -> str:
    """The last name of ``x``, ``t.x`` or of either subscripted (``t.Protocol[T]``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def runs(stmts: list[ast.stmt], in_class: bool) -> list[ast.stmt]:
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
            out += runs(s.orelse, in_class)  # what runs: the else branch
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
            if is_protocol(s):
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
            setattr(s, field, runs(block, in_class and field == "body"))
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        for h in s.handlers:  # type: ignore[attr-defined]
            h.body = runs(h.body, False)
            if h.name and not any(
                isinstance(n, ast.Name) and n.id == h.name for b in h.body for n in ast.walk(b)
            ):
                h.name = None  # bound only for ``from e``
    if isinstance(s, ast.Match):
        for case in s.cases:
            case.body = runs(case.body, False)


def _unannotate(args: ast.arguments) -> None:
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if a is not None:
            a.annotation = None


def _redeclare(f: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Leave out what Fowler's *Change Function Declaration* changes without changing what
    the function does: its positional parameters' names (renamed throughout its body), a
    positional-only marker, a ``*args`` or ``**kwargs`` its body never reads."""
    args = f.args
    found = [n for b in f.body for n in ast.walk(b) if isinstance(n, ast.Name)]
    read = {n.id for n in found}
    if args.vararg is not None and args.vararg.arg not in read:
        args.vararg = None
    if args.kwarg is not None and args.kwarg.arg not in read:
        args.kwarg = None
    args.args = [*args.posonlyargs, *args.args]
    args.posonlyargs = []
    names = {a.arg: f"_{i}" for i, a in enumerate(args.args)}
    for a in args.args:
        a.arg = names[a.arg]
    for n in found:
        if n.id in names:
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
