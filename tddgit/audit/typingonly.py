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
typing only. What is left out is ``tddgit.audit.typingnorm``'s; here, only what differs is
read: the top-level units both versions share (``tddgit.audit.pychunks``) are skipped, and
inside the rest the statements (and a class's statements) whose text is the same, so a
change to one method of a long class reads that method. Only when those agree are the
whole modules' imports compared (which names run depends on all the module).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from itertools import zip_longest
from typing import NamedTuple

from tddgit.audit.addedlines import added_lines
from tddgit.audit.pychunks import parse, units
from tddgit.audit.typingnorm import is_protocol, runs, unchain

_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
_MAX_BYTES = 400_000  # a module with no units is parsed whole up to this size
_LIMIT = 4096  # units remembered before the memory is dropped


def same_at_runtime(old: str | None, new: str, path: str = "x.py") -> bool:
    """True when ``old`` (None: a new file) and ``new`` run the same code (see the
    module's docstring); False when they differ or either does not parse."""
    if path.endswith(".pyi"):
        return True
    if not _looks_typed(old or "", new):
        return False
    po, pn = _pieces(old or ""), _pieces(new)
    if po is None or pn is None:
        return False
    head, tail = _common(po, pn)
    try:
        a = parse("".join(po[head : len(po) - tail]))
        b = parse("".join(pn[head : len(pn) - tail]))
        a_lines = "".join(po[head : len(po) - tail]).splitlines(keepends=True)
        b_lines = "".join(pn[head : len(pn) - tail]).splitlines(keepends=True)
        if not _same_block(a.body, a_lines, b.body, b_lines, in_class=False):
            return False
    except _ERRORS:
        return False
    # which imports run depends on the names the whole module reads
    imports = _imports(po)
    return imports is not None and imports == _imports(pn)


# A changed line a typing, chaining or declaration change is made of: an annotation, a
# signature's line, an import, a typing name, ``raise ... from``, ``except ... as``, a
# decorator, ``else:``, brackets, ``...``.
_TYPED_LINE = re.compile(
    r"->|\b(?:TypeVar|ParamSpec|NewType|Protocol|Generic|TYPE_CHECKING|TypeAlias|typing"
    r"|overload|import|from|except|cast)\b|^\s*(?:def|class|async def|else:|@)"
    r"|\w\s*:\s*[\w\[\"'.]|^[\s\])}(,.*/|]*$|^\s*\*{0,2}\w+,?\s*$|\.\.\."
)
_UNTYPED_SHARE = 0.5  # of the changed lines, at most, that look like none of those


def _looks_typed(old: str, new: str) -> bool:
    """A cheap screen (speed: the AST is read only past it): do at least half of the
    changed lines look like typing? A body line renamed with its parameter does not."""
    lines = [
        ln
        for ln in (*added_lines(old, new), *added_lines(new, old))
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    untyped = sum(1 for ln in lines if not _TYPED_LINE.search(ln))
    return untyped <= _UNTYPED_SHARE * len(lines)


def _pieces(text: str) -> tuple[str, ...] | None:
    """``text``'s units, or the whole text as one when it has none (not too long)."""
    cut = units(text)
    if cut is not None:
        return cut[0]
    return (text,) if len(text) <= _MAX_BYTES else None


def _common(a: list[str] | tuple[str, ...], b: list[str] | tuple[str, ...]) -> tuple[int, int]:
    """How many items ``a`` and ``b`` share at their head and then at their tail."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def _same_block(
    old: list[ast.stmt],
    old_lines: list[str],
    new: list[ast.stmt],
    new_lines: list[str],
    *,
    in_class: bool,
) -> bool:
    """Do two lists of statements run the same (a module's imports aside)? Statements of
    the same text are skipped; one class changed on both sides is compared by its header
    and then its statements."""
    head, tail = _common(
        [_segment(s, old_lines) for s in old], [_segment(s, new_lines) for s in new]
    )
    mo, mn = old[head : len(old) - tail], new[head : len(new) - tail]
    if len(mo) == len(mn) == 1:
        ca, cb = mo[0], mn[0]
        if (
            isinstance(ca, ast.ClassDef)
            and isinstance(cb, ast.ClassDef)
            and not is_protocol(ca)
            and not is_protocol(cb)
        ):
            body_a, body_b = ca.body, cb.body
            ca.body, cb.body = [], []
            if not _same_runs([ca], [cb], in_class):
                return False
            return _same_block(body_a, old_lines, body_b, new_lines, in_class=True)
    return _same_runs(mo, mn, in_class)


def _segment(s: ast.stmt, lines: list[str]) -> str:
    """The lines of a statement (its decorators with it)."""
    start = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", ())])
    return "".join(lines[start - 1 : s.end_lineno])


def _same_runs(old: list[ast.stmt], new: list[ast.stmt], in_class: bool) -> bool:
    """Do the statements run the same? Read pair by pair up to the first difference."""
    return all(a == b for a, b in zip_longest(_dumps(old, in_class), _dumps(new, in_class)))


def _dumps(stmts: list[ast.stmt], in_class: bool) -> Iterator[str]:
    """What runs of ``stmts``, a dump each, one statement at a time; a module's imports
    are left to ``_imports``."""
    for s in stmts:
        unchain(s)
        for r in runs([s], in_class):
            if in_class or not isinstance(r, (ast.Import, ast.ImportFrom)):
                yield ast.dump(r)


class _Imports(NamedTuple):
    """What ``_imports`` needs of one unit: its imports (a head and, per name bound, the
    name and a dump), the names it reads at run time, all the names it reads."""

    imports: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    runtime: frozenset[str]
    named: frozenset[str]


def _imports(pieces: tuple[str, ...]) -> list[str] | None:
    """The module's imports that run: of each, the names something other than an
    annotation reads, or that nothing reads (a re-export)."""
    found: list[_Imports] = []
    for piece in pieces:
        unit = _read(piece)
        if unit is None:
            return None
        found.append(unit)
    runtime = frozenset().union(*(u.runtime for u in found))
    named = frozenset().union(*(u.named for u in found))
    out: list[str] = []
    for u in found:
        for head, names in u.imports:
            kept = [d for bound, d in names if bound in runtime or bound not in named]
            if kept:
                out.append(head + "|".join(kept))
    return out


_SEEN: dict[str, _Imports | None] = {}
_CHARS = 2_000_000  # characters of the units in _SEEN, at most (peak RSS)
_CHARS_HELD = [0]


def _read(text: str) -> _Imports | None:
    """``_imports``' reading of one unit, once per distinct text."""
    found = _SEEN.get(text, _SEEN)
    if found is _SEEN:
        try:
            found = _read_tree(parse(text))
        except _ERRORS:
            found = None
        _CHARS_HELD[0] += len(text)
        if len(_SEEN) >= _LIMIT or _CHARS_HELD[0] > _CHARS:
            _SEEN.clear()
            _CHARS_HELD[0] = len(text)
        _SEEN[text] = found
    return found  # type: ignore[return-value]


def _read_tree(tree: ast.Module) -> _Imports:
    named = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    unchain(tree)
    imports: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    runtime: set[str] = set()
    for stmt in runs(tree.body, in_class=False):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            head = f"from {stmt.module}:{stmt.level}:" if isinstance(stmt, ast.ImportFrom) else ""
            bound = tuple(((a.asname or a.name).split(".")[0], ast.dump(a)) for a in stmt.names)
            imports.append((head, bound))
        else:
            runtime.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
    return _Imports(tuple(imports), frozenset(runtime), named)
