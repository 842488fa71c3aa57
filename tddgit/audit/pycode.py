"""Do two versions of a Python module run the same code? (``same_code``, for
``tddgit.audit.changes.adds_code``): the same statements once docstrings and annotations
are left out.

Real histories change a few lines of long modules, and dumping both whole modules at
every candidate commit was nearly all the audit's time (issue 27, item 9). So both texts
are cut into their top-level statements (``tddgit.audit.pychunks``); a piece is parsed
once per distinct text in the audit, and only the pieces between the longest common
head and tail are compared, statement by statement up to the first difference: a
statement of the same text is not dumped, and a class is compared member by member
(``tddgit.audit.pystmts``), so a change to one method dumps that method. When every piece parses alone the pieces read
exactly as the whole module does (a piece cut inside a string, a bracket or a continued
line does not parse), so the answer is the whole modules' answer; when one does not
(``else:`` at column 0, old Python 2 code), both whole modules are compared as before.
"""

from __future__ import annotations

import ast

from tddgit.audit.pychunks import parse, tree_of, units
from tddgit.audit.pystmts import is_docstring, same_statements, source_lines
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
    mid_o = _trees(po[head : len(po) - tail])
    mid_n = _trees(pn[head : len(pn) - tail])
    if mid_o is None or mid_n is None:
        return _whole(old, new)
    so, sn = mid_o, mid_n
    if sum(counts_o[:head]) == 0:  # the module's first statement is in the change
        if not so or not sn:
            return _whole(old, new)  # it is in the common tail on one side: rare
        so = so[1:] if is_docstring(so[0][0]) else so
        sn = sn[1:] if is_docstring(sn[0][0]) else sn
    # statement by statement, the same texts skipped, a class member by member
    return same_statements(so, sn, _strip_python)


def _trees(texts: tuple[str, ...]) -> list[tuple[ast.stmt, list[str]]] | None:
    """The statements of ``texts`` (units: each parses alone), each with its unit's lines
    (the new version's units were just parsed by ``units``); None when one does not parse
    after all (too deep)."""
    out: list[tuple[ast.stmt, list[str]]] = []
    for text in texts:
        try:
            tree = tree_of(text)
        except _ERRORS:
            return None
        lines = source_lines(text)
        out += [(stmt, lines) for stmt in tree.body]
    return out


def _whole(old: str, new: str) -> bool:
    try:
        return _stripped(old) == _stripped(new)
    except _ERRORS:
        return False


@text_memo(entries=32)
def _stripped(text: str) -> str:
    """The whole module without docstrings and annotations, once per version."""
    return _strip_python(parse(text))


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
