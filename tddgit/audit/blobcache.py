"""What the detectors found in each test blob, kept across audits in the git dir.

A blob id names its contents exactly, so an analysis keyed by it never goes stale; the
key of the whole file also holds the tddgit version and the thresholds, which change the
analysis. The file lives in ``<git common dir>/tddgit/`` (shared by worktrees), is
written atomically (temp file, then rename) and read as untrusted input: anything that is
not exactly the expected shape makes the whole file ignored (and rewritten), never
trusted in part.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

SCHEMA = "tddgit.audit-test-blobs/1"
FILE_NAME = "audit-test-blobs.json"
MAX_BYTES = 256 * 1024 * 1024  # a larger file is not ours: ignored
MAX_ENTRIES = 1_000_000  # beyond this the oldest half is dropped on save

# One finding of one test: (rule, qualified test name, count, message).
Hit = tuple[str, str, int, str]


class BlobCache:
    """Blob id -> the detector hits of its tests (an empty tuple: nothing over)."""

    def __init__(self, directory: Path | None, key: str) -> None:
        self.path = directory / FILE_NAME if directory is not None else None
        self.key = key
        self.entries: dict[str, tuple[Hit, ...]] = {}
        self.added = 0
        self.loaded = False

    def load(self) -> None:
        if self.path is None:
            return
        self.entries = _read(self.path, self.key)
        self.loaded = bool(self.entries)

    def get(self, blob: str) -> tuple[Hit, ...] | None:
        return self.entries.get(blob)

    def put(self, blob: str, hits: tuple[Hit, ...]) -> None:
        self.entries[blob] = hits
        self.added += 1

    def save(self) -> None:
        """Write the cache if this audit added to it; failures only cost the next run."""
        if self.path is None or not self.added:
            return
        entries = self.entries
        if len(entries) > MAX_ENTRIES:  # dicts keep insertion order: keep the newest half
            keep = list(entries.items())[-MAX_ENTRIES // 2 :]
            entries = dict(keep)
        doc = {"schema": SCHEMA, "key": self.key, "blobs": {k: list(v) for k, v in entries.items()}}
        with contextlib.suppress(OSError):
            write_atomically(self.path, json.dumps(doc, separators=(",", ":")))


def _read(path: Path, key: str) -> dict[str, tuple[Hit, ...]]:
    return _validated(read_json(path, MAX_BYTES), key) or {}


def read_json(path: Path, max_bytes: int) -> Any:
    """The JSON document in ``path``; None when it is missing, unreadable, not JSON or
    larger than ``max_bytes`` (a file that large is not ours). Shapes are the caller's."""
    try:
        with path.open("rb") as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            return None
        return json.loads(data)
    except (OSError, ValueError, RecursionError):
        return None


def _validated(doc: Any, key: str) -> dict[str, tuple[Hit, ...]] | None:
    """The entries of a well-formed document for ``key``; None for anything else."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("key") != key:
        return None
    blobs = doc.get("blobs")
    if not isinstance(blobs, dict):
        return None
    out: dict[str, tuple[Hit, ...]] = {}
    for blob, hits in blobs.items():
        if not _is_id(blob) or not isinstance(hits, list):
            return None
        checked = []
        for hit in hits:
            if not (
                isinstance(hit, list)
                and len(hit) == 4
                and isinstance(hit[0], str)
                and isinstance(hit[1], str)
                and type(hit[2]) is int
                and isinstance(hit[3], str)
            ):
                return None
            checked.append((hit[0], hit[1], hit[2], hit[3]))
        out[blob] = tuple(checked)
    return out


_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _is_id(value: str) -> bool:
    return _ID.fullmatch(value) is not None


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)  # readers see the old file or the whole new one
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
