"""Snapshot tests of jest and vitest (issue 24, item 6).

A gate runs them in CI mode (jest ``--ci``, ``CI=true`` for vitest), so a snapshot the
test asks for and the tree lacks fails instead of being written into the user's tree. The
failure is then told apart from a real mismatch: ``snapshot-missing`` (red: the expected
value is written with the code, and the green may add exactly that entry, see
``tddgit.gates.snapshots``) against ``assertion`` (red: the committed snapshot differs).
Snapshots the run left unchecked -- obsolete keys -- are reported in a note.

jest says ``New snapshot was not written``; vitest says ``Snapshot `key` mismatched`` for
both, so the committed ``__snapshots__/<file>.snap`` (and the inline argument) decide.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from tddgit.model import Cause, Outcome, TestResult

_VITEST = re.compile(r"Snapshot `(.+?)` mismatched")
_JEST_MISSING = "New snapshot was not written"
_JEST_NAME = re.compile(r"Snapshot name: `(.+?)`")
_JEST_MATCHER = re.compile(r"toMatch(?:Inline)?Snapshot|toThrowErrorMatching(?:Inline)?Snapshot")
_EMPTY_INLINE = re.compile(r"toMatchInlineSnapshot\(\s*\)")
MAX_SNAP = 8 * 1024 * 1024
MISSING_TEXT = "not committed (a gate never writes snapshots)"


def snapshot_cause(text: str) -> tuple[Cause, str] | None:
    """The cause of a jest/vitest failure from its whole text, when it is a snapshot's."""
    if _JEST_MISSING in text:
        name = _JEST_NAME.search(text)
        key = f"`{name.group(1)}` " if name else ""
        return Cause.SNAPSHOT_MISSING, f"snapshot {key}{MISSING_TEXT}"
    m = _VITEST.search(text)
    if m:
        return Cause.ASSERTION, m.group(0)
    if _JEST_MATCHER.search(text):
        name = _JEST_NAME.search(text)
        return Cause.ASSERTION, f"snapshot `{name.group(1)}` mismatched" if name else text[:200]
    return None


def refine(tests: Iterable[TestResult], root: Path) -> tuple[TestResult, ...]:
    """vitest's mismatches whose snapshot is not in the tree become ``snapshot-missing``;
    a missing snapshot whose test writes it inline (an empty ``toMatchInlineSnapshot()``)
    stays amber ``other``: only the test file can hold it, and a green may not edit it."""
    out = []
    for t in tests:
        m = _VITEST.search(t.message) if t.outcome is Outcome.FAILED else None
        if m and t.file and not _committed(root, t.file, m.group(1)):
            t = replace(
                t, cause=Cause.SNAPSHOT_MISSING, message=f"snapshot `{m.group(1)}` {MISSING_TEXT}"
            )
        if t.cause is Cause.SNAPSHOT_MISSING and t.file and _empty_inline(root, t.file):
            t = replace(t, cause=Cause.OTHER, message=f"inline {t.message}: {INLINE_FIX}")
        out.append(t)
    return tuple(out)


INLINE_FIX = "write the expected value inline in the red (toMatchInlineSnapshot(`…`))"


def _empty_inline(root: Path, test_file: str) -> bool:
    return bool(_EMPTY_INLINE.search(_read(root / test_file)))


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_SNAP).decode("utf-8", "replace")
    except OSError:
        return ""


def _committed(root: Path, test_file: str, key: str) -> bool:
    """Whether the tree holds the expected value of snapshot ``key``: in the test file's
    ``__snapshots__/<name>.snap``, or inline (a ``toMatchInlineSnapshot`` with a value)."""
    test = root / test_file
    snap = _read(test.parent / "__snapshots__" / f"{test.name}.snap")
    if f"exports[`{key}`]" in snap:
        return True
    source = _read(test)
    return "toMatchInlineSnapshot(" in source and not _EMPTY_INLINE.search(source)


def obsolete_notes(raw: bytes, rel: Callable[[str], str]) -> list[str]:
    """``obsolete snapshot`` notes from a jest/vitest JSON report's snapshot summary."""
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return []
    summary = data.get("snapshot") if isinstance(data, dict) else None
    entries = summary.get("uncheckedKeysByFile") if isinstance(summary, dict) else None
    notes = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        keys = [str(k) for k in entry.get("keys") or []]
        if keys:
            where = rel(str(entry.get("filePath") or "")) or str(entry.get("filePath"))
            shown = ", ".join(f"`{k}`" for k in keys[:5]) + (" …" if len(keys) > 5 else "")
            notes.append(f"obsolete snapshot in {where}: {shown} (no test checks it)")
    return notes
