"""A Python module read one top-level statement at a time (issue 27, item 9: speed).

Real histories change a few lines of long modules; parsing and dumping the whole module
at every version was nearly all the audit's time. A text is cut at the lines that start
a top-level statement (column 0, not a comment or a closing bracket; decorators joined
to what they decorate), and each piece is parsed once per distinct text and remembered:
two versions of a module share most of their pieces.

The pieces give exactly what the whole module gives, or nothing: a piece cut inside a
string, a bracket or a continued line ends unfinished and does not parse, and so does a
piece that starts with ``else:``/``except:``/``finally:``; the caller then parses the
whole text as before. What ``ast.parse`` checks beyond one statement (nothing, in the
versions supported: ``__future__`` placement, ``return`` outside a function and the like
are the compiler's) cannot differ.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Generic, TypeVar

from tddgit.textmemo import text_memo

T = TypeVar("T")

# A line that starts a top-level statement (the same screen as tddgit.audit.blobscan).
_START = re.compile(r"^(?=[^\s#)\]}])", re.M)
# A clause that continues the compound statement before it (if/for/while/try).
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
_LIMIT = 4096  # pieces remembered per analysis before the memory is dropped (RSS)
# Characters of pieces analysed and remembered, at most, per cache: what is made of a
# piece (dumps, trees' summaries) takes 10 to 30 times its text (peak RSS, issue 27).
_CHARS = 2_000_000
# Characters of the texts whose statements are counted and remembered (an int each: the
# texts are the memory).
_STATEMENT_CHARS = 8_000_000


def pieces(text: str) -> list[str]:
    """``text`` cut before each top-level statement; a decorator's lines stay with the
    statement after them. The pieces joined give ``text`` back."""
    cuts = [m.start() for m in _START.finditer(text)]
    if not cuts or cuts[0] != 0:
        cuts.insert(0, 0)
    cuts.append(len(text))
    out: list[str] = []
    carry = ""
    for a, b in pairwise(cuts):
        piece = carry + text[a:b]
        if text.startswith("@", a) and b < len(text):
            carry = piece
            continue
        carry = ""
        out.append(piece)
    if carry:
        out.append(carry)
    return out


def parse(text: str) -> ast.Module:
    """``ast.parse`` without the SyntaxWarnings old code raises (invalid escapes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
_MERGE = 48  # pieces joined at most to make one that parses (a docstring's lines)
_STATEMENTS: dict[str, int | None] = {}  # a text -> its statements, None: does not parse


# Texts that failed to parse because a triple-quoted string never ends in them.
_UNTERMINATED: dict[str, bool] = {}


def _open_string(exc: BaseException) -> bool:
    """Did the parse fail because a triple-quoted string is still open at the end?"""
    msg = exc.args[0] if isinstance(exc, SyntaxError) and exc.args else ""
    return isinstance(msg, str) and "triple-quoted string" in msg


# The trees just parsed to count statements, for the analysis that usually follows
# (``PieceCache.of`` takes each once); a few only, for memory.
_TREES: dict[str, ast.Module] = {}
_TREE_CHARS = 300_000
_CHARS_SEEN = [0]  # characters of the texts in _STATEMENTS


def _statements(text: str) -> int | None:
    found = _STATEMENTS.get(text, -1)
    if found == -1:
        _CHARS_SEEN[0] += len(text)
        if len(_STATEMENTS) >= 4 * _LIMIT or _CHARS_SEEN[0] > _STATEMENT_CHARS:
            # Both bounded by the characters of their texts together (the texts that
            # never parse are the longest: joins of many pieces).
            _STATEMENTS.clear()
            _UNTERMINATED.clear()
            _CHARS_SEEN[0] = len(text)
        try:
            tree = parse(text)
        except _ERRORS as exc:
            found = None
            if _open_string(exc):
                _UNTERMINATED[text] = True
        else:
            found = len(tree.body)
            if len(_TREES) >= 256 or sum(map(len, _TREES)) + len(text) > _TREE_CHARS:
                _TREES.clear()  # a tree takes ~100 times its text
            _TREES[text] = tree
        _STATEMENTS[text] = found
    return found


def tree_of(piece: str) -> ast.Module:
    """The tree of a unit: the one ``units`` just parsed (taken: its reader may change
    it), or parsed again."""
    tree = _TREES.pop(piece, None)
    return tree if tree is not None else parse(piece)


@text_memo()
def units(text: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """``text`` as consecutive pieces that each parse alone, with their numbers of
    statements; a piece that does not parse (cut inside a docstring) is joined with the
    next ones until it does, an ``else:`` or ``except:`` with the unit before. None when no such cut is found (the caller reads the whole
    text): then the whole text may not parse either."""
    ps = pieces(text)
    out: list[str] = []
    counts: list[int] = []
    i = 0
    while i < len(ps):
        unit, j = ps[i], i + 1
        if out and _CLAUSE.match(unit):  # else/except/finally of the statement before
            unit = out.pop() + unit
            counts.pop()
        n = _statements(unit)
        # A unit cut inside a triple-quoted string (a docstring with lines at column 0)
        # still ends inside it until a piece with a triple quote comes: those joins cannot
        # parse, so they are not tried (each try parses the whole growing text).
        open_string = n is None and _UNTERMINATED.get(unit, False)
        while n is None and j < len(ps) and j - i < _MERGE:
            unit, j = unit + ps[j], j + 1
            if open_string and '"""' not in ps[j - 1] and "'''" not in ps[j - 1]:
                continue
            n = _statements(unit)
            open_string = n is None and _UNTERMINATED.get(unit, False)
        if n is None:
            return None
        out.append(unit)
        counts.append(n)
        i = j
    return tuple(out), tuple(counts)


class PieceCache(Generic[T]):
    """``analyse`` of each unit of a text (``units``), remembered by the unit's text."""

    def __init__(self, analyse: Callable[..., T], *, with_text: bool = False) -> None:
        """``analyse(tree)``, or ``analyse(tree, text)`` ``with_text``."""
        self._analyse = analyse
        self._with_text = with_text
        self._seen: dict[str, object] = {}
        self._chars = 0  # of the texts remembered: analyses grow with them

    def of(self, texts: Sequence[str]) -> list[T] | None:
        """``analyse`` of each of ``texts`` (units: each parses alone); None when one
        fails all the same (too deep to dump)."""
        out: list[T] = []
        seen = self._seen
        for piece in texts:
            found = seen.get(piece, seen)  # the dict itself: not seen yet
            if found is seen:
                try:
                    tree = tree_of(piece)
                    found = self._analyse(tree, piece) if self._with_text else self._analyse(tree)
                except _ERRORS:
                    found = None
                self._chars += len(piece)
                if len(seen) >= _LIMIT or self._chars > _CHARS:
                    seen.clear()
                    self._chars = len(piece)
                seen[piece] = found
            if found is None:
                return None
            out.append(found)  # type: ignore[arg-type]
        return out
