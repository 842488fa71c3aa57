"""A parsed statement known by its text (issue 27, item 9: the cold audit's speed).

A real history's change to a Python module is one method of a long class: its top-level
unit (``tddgit.audit.pychunks``) is the whole class, and dumping or walking all of it at
every version was most of a first audit's time. Two statements with the same text have
the same tree (``ast.dump`` leaves positions out), so what is made of one statement can
be remembered by its text (``key``), and two statements with the same text need no
comparing at all.

A statement's text is the lines it spans (from its first decorator) with its first and
last columns: the same key is the same characters from the statement's start to its
end, whatever else those lines hold (``a = 1; b = 2``, a one-line class). Lines are
counted as Python counts them (``\\r\\n``, ``\\r`` and ``\\n``), not as
``str.splitlines`` does (form feeds and other separators are no line ends to Python).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

Key = tuple[str, int, int]
_NEWLINE = re.compile(r"\r\n|\r|\n")
_LIMIT = 8192  # statements remembered before the memory is dropped (RSS)
_CHARS = 1_000_000  # characters of their texts, at most (what is made of them: 10-30x)


def source_lines(text: str) -> list[str]:
    """``text``'s lines as Python numbers them (``lines[lineno - 1]``)."""
    return _NEWLINE.split(text) if "\r" in text else text.split("\n")


def key(node: ast.stmt, lines: list[str]) -> Key:
    """The text of ``node`` (decorators included) in a module of ``lines``."""
    first = node.lineno
    for d in getattr(node, "decorator_list", ()):
        first = min(first, d.lineno)  # a decorator starts its own line
    end = node.end_lineno or node.lineno
    return "\n".join(lines[first - 1 : end]), node.col_offset, node.end_col_offset or 0


class StmtMemo(Generic[T]):
    """``make(node)`` remembered by ``(scope, key(node))``, bounded like the piece caches."""

    def __init__(self, make: Callable[[ast.stmt, str], T]) -> None:
        self._make = make
        self._seen: dict[tuple[str, Key], T] = {}
        self._chars = 0

    def of(self, node: ast.stmt, lines: list[str], scope: str = "") -> T:
        k = (scope, key(node, lines))
        seen = self._seen
        found = seen.get(k, _ABSENT)
        if found is _ABSENT:
            found = self._make(node, scope)
            self._chars += len(k[1][0])
            if len(seen) >= _LIMIT or self._chars > _CHARS:
                seen.clear()
                self._chars = len(k[1][0])
            seen[k] = found
        return found  # type: ignore[return-value]


_ABSENT: object = object()


Statements = list[tuple[ast.stmt, list[str]]]  # each with the lines of its module


def same_statements(a: Statements, b: Statements, dump: Callable[[ast.AST], str]) -> bool:
    """Is ``dump`` of each statement of ``a`` that of ``b``'s at its place? ``dump`` is
    ``ast.dump`` of a statement with the docstrings of its bodies left out (and maybe
    more): statements of the same text are the same without dumping, and two classes are
    compared member by member (their docstrings left out), so a change to one method
    dumps that method only. Stops at the first difference."""
    if len(a) != len(b):
        return False
    for (x, x_lines), (y, y_lines) in zip(a, b, strict=True):
        if key(x, x_lines) == key(y, y_lines):
            continue
        if isinstance(x, ast.ClassDef) and isinstance(y, ast.ClassDef):
            if not _same_class(x, x_lines, y, y_lines, dump):
                return False
        elif dump(x) != dump(y):
            return False
    return True


def _same_class(
    x: ast.ClassDef,
    a_lines: list[str],
    y: ast.ClassDef,
    b_lines: list[str],
    dump: Callable[[ast.AST], str],
) -> bool:
    for field in x._fields:
        if field == "body":
            continue
        u, v = getattr(x, field, None), getattr(y, field, None)
        if isinstance(u, list) and isinstance(v, list):
            if len(u) != len(v) or any(dump(p) != dump(q) for p, q in zip(u, v, strict=True)):
                return False
        elif isinstance(u, ast.AST) and isinstance(v, ast.AST):
            if dump(u) != dump(v):
                return False
        elif u != v:
            return False
    return same_statements(
        [(m, a_lines) for m in undoc(x.body)], [(m, b_lines) for m in undoc(y.body)], dump
    )


def is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def undoc(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without its docstring (its first statement, when a string)."""
    return body[1:] if body and is_docstring(body[0]) else body
