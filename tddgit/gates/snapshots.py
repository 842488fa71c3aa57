"""A green may write the snapshots its red asked for, and nothing else (issue 24, item 6).

A red whose new jest/vitest test fails because its snapshot is not committed is a red
(``snapshot-missing``): the expected value is the one the implementation will produce, so
it is recorded when the implementation exists -- in the green, with the code. The green
may then add exactly those entries (``exports[`key`]`` in the test file's
``__snapshots__/<file>.snap``), new entries only: an existing entry changed or removed, or
an entry no open red asked for, is a test edit in a green (``test-edited-in-green``, naming
the file and the key).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from tddgit.evidence import Evidence
from tddgit.gates.records import Reason
from tddgit.git import Repo
from tddgit.model import Cause
from tddgit.staged import StagedChange, read_blob

_ENTRY = re.compile(r"^exports\[`((?:[^`\\]|\\.)*)`\] = ", re.M)
_MISSING_KEY = re.compile(r"snapshot `(.+?)` ")
MAX_SNAP = 8 * 1024 * 1024


def is_snapshot_file(path: str) -> bool:
    return path.endswith(".snap") and posixpath.basename(posixpath.dirname(path)) == "__snapshots__"


def snap_of(test_file: str) -> str:
    """``test/fmt.test.js`` -> ``test/__snapshots__/fmt.test.js.snap`` (jest's and vitest's
    default place)."""
    folder, name = posixpath.split(test_file)
    return posixpath.join(folder, "__snapshots__", f"{name}.snap")


def entries(text: str | None) -> dict[str, str]:
    """Snapshot key -> its whole entry text, in a ``.snap`` file."""
    if not text:
        return {}
    found = list(_ENTRY.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        out[m.group(1)] = text[m.start() : end].rstrip()
    return out


def asked(reds: Iterable[Evidence]) -> dict[str, set[str]]:
    """``.snap`` path -> the keys the open reds' targets failed on as not committed."""
    out: dict[str, set[str]] = {}
    for ev in reds:
        for t in ev.targets:
            if t.cause is not Cause.SNAPSHOT_MISSING:
                continue
            m = _MISSING_KEY.search(t.message)
            file = t.id.split("::", 1)[0]
            if m is not None:
                out.setdefault(snap_of(file), set()).add(m.group(1))
    return out


def green_reasons(repo: Repo, change: StagedChange, reds: Iterable[Evidence]) -> list[Reason]:
    """``test-edited-in-green`` for each snapshot change the open reds did not ask for."""
    changed = [
        f for f in change.files if is_snapshot_file(f.path) or is_snapshot_file(f.old_path or "")
    ]
    if not changed:
        return []
    wanted = asked(reds)
    reasons: list[Reason] = []
    for f in changed:
        old = entries(
            _text(repo, change.base_tree, f.old_path or f.path) if f.status != "A" else None
        )
        new = entries(_text(repo, change.tree, f.path) if f.status != "D" else None)
        allowed = wanted.get(f.path, set())
        for key in sorted(set(old) | set(new)):
            if old.get(key) == new.get(key):
                continue
            if key not in old and key in allowed:
                continue  # the entry a red asked for, written with the code
            how = "removed" if key not in new else "changed" if key in old else "added"
            reasons.append(
                Reason(
                    "test-edited-in-green",
                    f"{f.path}: snapshot `{key}` {how} in a green step (a green may only add "
                    "the snapshots its red's tests asked for)",
                )
            )
    return reasons


def _text(repo: Repo, tree: str, path: str) -> str | None:
    blob = read_blob(repo, tree, path)
    return blob[:MAX_SNAP].decode("utf-8", "replace") if blob is not None else None
