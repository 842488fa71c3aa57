"""Do two versions of a Python module run the same code? (``same_code``, for
``tddgit.audit.changes.adds_code``): the same statements once docstrings and annotations
are left out.

Real histories change a few lines of long modules, and dumping both whole modules at
every candidate commit was nearly all the audit's time (issue 27, item 9). So both texts
are cut into their top-level statements (``tddgit.audit.pychunks``); a piece is parsed
once per distinct text in the audit, and only the pieces between the longest common
head and tail are dumped and compared. When every piece parses alone the pieces read
exactly as the whole module does (a piece cut inside a string, a bracket or a continued
line does not parse), so the answer is the whole modules' answer; when one does not
(``else:`` at column 0, old Python 2 code), both whole modules are compared as before.
"""

from __future__ import annotations

import ast

from tddgit.audit.pychunks import PieceCache, parse, units
from tddgit.textmemo import text_memo

_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


def same_code(old: str, new: str) -> bool:
    """True when ``old`` and ``new`` differ only in comments, layout, docstrings or
    annotations; False when they differ in code or either does not parse."""
    uo, un = units(old), units(new)
    if uo is None or un is None:
        return _whole(old, new)
    (po, counts_o), (pn, _) = uo, un
    head = 0
    while head < len(po) and head < len(pn) and po[head] == pn[head]:
        head += 1
    if head == len(po) == len(pn):
        return True  # the same text
    tail = 0
    while tail < len(po) - head and tail < len(pn) - head and po[-1 - tail] == pn[-1 - tail]:
        tail += 1
    mid_o = _DUMPS.of(po[head : len(po) - tail])
    mid_n = _DUMPS.of(pn[head : len(pn) - tail])
    if mid_o is None or mid_n is None:
        return _whole(old, new)
    so = [d for piece in mid_o for d in piece]
    sn = [d for piece in mid_n for d in piece]
    if sum(counts_o[:head]) == 0:  # the module's first statement is in the change
        if not so or not sn:
            return _whole(old, new)  # it is in the common tail on one side: rare
        so, sn = _undoc(so), _undoc(sn)
    return [d for d, _ in so] == [d for d, _ in sn]


def _undoc(stmts: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Without the module's docstring (its first statement, when a string)."""
    return stmts[1:] if stmts[0][1] else stmts


def _whole(old: str, new: str) -> bool:
    try:
        return _stripped(old) == _stripped(new)
    except _ERRORS:
        return False


@text_memo(entries=32)
def _stripped(text: str) -> str:
    """The whole module without docstrings and annotations, once per version."""
    return _strip_python(parse(text))


def _dumps(tree: ast.Module) -> tuple[tuple[str, bool], ...]:
    """(dump without docstrings and annotations, is a string) for each top-level
    statement of a unit: a string is a docstring only as the module's first statement."""
    return tuple(
        (
            _strip_python(stmt),
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str),
        )
        for stmt in tree.body
    )


_DUMPS = PieceCache(_dumps)


def _strip_python(tree: ast.AST) -> str:
    """The AST without docstrings and annotations: what runs."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:]  # type: ignore[attr-defined]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        elif isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.dump(tree)
