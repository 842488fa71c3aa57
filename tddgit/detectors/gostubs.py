"""Stub detection for ``red.allow_stubs`` in Go production files (``stubs.py`` for
Python, ``jsstubs.py`` for JS/TS); nothing is compiled or run.

A function or method is a *stub* when its body is empty, is one ``panic("…")`` with a
string literal (``panic("not implemented")``), or returns only zero values (``return``,
``return 0``, ``return ""``, ``return nil``, ``return false``, ``return T{}``, and
lists of them). A red step may add stubs, types, imports and the package clause, but no
other code (``var`` / ``const`` with values count as code). Functions are compared by
receiver and name, their text without comments and layout, so moving or reformatting
one is not a change.
"""

from __future__ import annotations

import re

from tddgit.bracetext import close_brace, non_stub_functions, squash
from tddgit.targets_go import mask

_FUNC = re.compile(r"(?m)^func\s*(?:\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*)?(\w+)")
_DECL = re.compile(r"(?m)^(package|import|type|var|const)\b")
_ZERO = r'(?:0|0\.0|""|nil|false|[\w.]+\{\s*\}|\*new\([\w.]+\))'
_STUB_BODY = re.compile(
    rf'^(?:|panic\(\s*"(?:[^"\\]|\\.)*"\s*\)|return(?:\s+{_ZERO}(?:\s*,\s*{_ZERO})*)?)$'
)
_ALLOWED = frozenset({"package", "import", "type"})


def _units(source: str) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """Functions by ``Receiver.name`` -> (their text, their body), and the other
    top-level declarations (each squashed)."""
    masked = mask(source)
    code = mask(source, literals=False)
    funcs: dict[str, tuple[str, str]] = {}
    spans: list[tuple[int, int]] = []
    for m in _FUNC.finditer(masked):
        open_at = masked.find("{", m.end())
        if open_at == -1:
            continue
        close = close_brace(masked, open_at)
        key = f"{m.group(1)}.{m.group(2)}" if m.group(1) else m.group(2)
        funcs[key] = (squash(code[m.start() : close + 1]), squash(code[open_at + 1 : close]))
        spans.append((m.start(), close + 1))
    rest = list(code)
    for start, end in spans:
        rest[start:end] = " " * (end - start)
    outside = "".join(rest)
    starts = [m.start() for m in _DECL.finditer(outside)]
    decls = {squash(outside[a:b]) for a, b in zip(starts, [*starts[1:], len(outside)], strict=True)}
    return funcs, decls


def non_stub_additions_go(old: str | None, new: str, path: str) -> list[str]:
    """One line per addition in ``new`` (vs ``old``) that is not a stub or a declaration."""
    new_funcs, new_decls = _units(new)
    old_funcs, old_decls = _units(old) if old is not None else ({}, set())
    out = non_stub_functions(
        new_funcs,
        old_funcs,
        lambda body: bool(_STUB_BODY.match(body)),
        lambda key: f"{path}: func {key}",
    )
    for decl in sorted(new_decls - old_decls):
        if decl.split(" ", 1)[0] not in _ALLOWED:
            out.append(f"{path}: `{decl[:60]}`: code in a red step, not a declaration")
    return out
