"""The stub judgement of a Python change, read one top-level statement at a time (issue
27, item 9: speed).

``tddgit.detectors.stubs.non_stub_additions`` parses and walks both whole versions of a
module; on a real history that is most of the audit's time, and most of each version is
the version before. Here each version is cut into units (``tddgit.audit.pychunks``: pieces
that parse alone, so together they read exactly as the whole module), each unit is walked
once per distinct text in the audit and its units' line numbers moved to where the unit
sits. The comparison is the detector's own (``compare_units``), so the answer is the same;
when a version cannot be cut, the whole modules are judged as before.
"""

from __future__ import annotations

import ast

from tddgit.audit.pychunks import PieceCache, units
from tddgit.detectors.stubs import Unit, compare_units, non_stub_additions, shifted, walk_module


def _walk(tree: ast.Module) -> tuple[Unit, ...]:
    return tuple(walk_module(tree))


_WALKS = PieceCache(_walk)


def _module_units(text: str) -> list[Unit] | None:
    """The detector's units of a whole module, from its units' (None: not cut)."""
    cut = units(text)
    if cut is None:
        return None
    found = _WALKS.of(cut[0])
    if found is None:
        return None
    out: list[Unit] = []
    before = 0  # lines above the unit
    for piece, walked in zip(cut[0], found, strict=True):
        if before:
            out += [shifted(u, before) for u in walked]
        else:
            out += walked
        before += piece.count("\n")
    return out


def non_stub_additions_py(old: str | None, new: str, path: str) -> list[str]:
    """``non_stub_additions(old, new, path)``, unit by unit."""
    new_units = _module_units(new)
    if new_units is None:
        return non_stub_additions(old, new, path)
    old_units: list[Unit] = []
    if old is not None:
        found = _module_units(old)
        if found is None:
            return non_stub_additions(old, new, path)
        old_units = found
    return compare_units(old_units, new_units, path)
