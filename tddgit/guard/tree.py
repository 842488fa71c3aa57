"""The work tree as the guard last accepted it, and what changed since, whatever changed it.

The ledger (``<common git dir>/tddgit/guard/tree-<work tree key>.json``) holds, for every
path that differs from HEAD, the content the guard accepted (a blob id, or absent), the
index entry it accepted, and the file's stat at that moment. A path not in the ledger was
clean: its accepted content is HEAD's. One ledger per work tree, shared by every agent
session in it: a change one session made and the guard kept is then never seen as another
session's change.

Cheap by construction: one ``git status --porcelain=v2 -z`` (git's index stat cache says
which paths differ from HEAD), a stat of each of those, and one ``git hash-object -w`` for
only the paths whose stat moved since the ledger. The blobs it writes are what a revert
puts back; they are unreachable objects that ``git gc`` prunes in time.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from tddgit.git import Repo
from tddgit.guard import quick
from tddgit.guard.quick import STATUS

ZERO = "0" * 40


class Entry(NamedTuple):
    """One path that differs from HEAD, as ``git status`` sees it now."""

    path: str
    index_blob: str | None  # the index's blob id (None: not in the index)
    index_mode: str
    deleted: bool  # absent from the work tree


class Accepted(NamedTuple):
    blob: str | None  # None: the file was absent
    index_blob: str | None
    index_mode: str
    stat: tuple[int, int, int] | None  # size, mtime_ns, inode when accepted


class Change(NamedTuple):
    """A path whose content is not what the guard accepted."""

    path: str
    before: Accepted
    blob: str | None  # now (None: absent)
    stat: tuple[int, int, int] | None


def ledger_path(repo: Repo) -> Path:
    import zlib  # built in: hashlib's import alone costs this hot path milliseconds

    key = f"{zlib.crc32(str(repo.root).encode('utf-8', 'surrogateescape')):08x}"
    return repo.tddgit_dir / "guard" / f"tree-{key}.json"


def status_output(repo: Repo) -> bytes:
    """``git status`` as the fast path runs it (quick.STATUS): it compares these bytes."""
    return repo.run(*STATUS, check=False).stdout


def status(repo: Repo, raw: bytes | None = None) -> dict[str, Entry]:
    """Every path whose index entry or work-tree file differs from HEAD (untracked too)."""
    out: dict[str, Entry] = {}
    if raw is None:
        raw = status_output(repo)
    for record in raw.decode("utf-8", "surrogateescape").split("\0"):
        if record.startswith("1 "):
            fields = record.split(" ", 8)
            xy, mode_i, hash_i, path = fields[1], fields[4], fields[7], fields[8]
            index = None if hash_i == ZERO else hash_i
            out[path] = Entry(path, index, mode_i, xy[1] == "D")
        elif record.startswith("u "):
            fields = record.split(" ", 10)
            out[fields[10]] = Entry(fields[10], None, "000000", False)
        elif record.startswith("? "):
            out[record[2:]] = Entry(record[2:], None, "000000", False)
    return out


def stat_of(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def load(repo: Repo) -> dict[str, Any] | None:
    try:
        data = json.loads(ledger_path(repo).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("paths"), dict) else None


def accepted_of(data: dict[str, Any], path: str, head_blobs: dict[str, str | None]) -> Accepted:
    row = data["paths"].get(path)
    if isinstance(row, list) and len(row) == 4:
        stat = tuple(row[3]) if isinstance(row[3], list) and len(row[3]) == 3 else None
        return Accepted(row[0], row[1], str(row[2]), stat)
    blob = head_blobs.get(path)
    return Accepted(blob, blob, "100644" if blob else "000000", None)


def head_blobs(repo: Repo, head: str | None, paths: list[str]) -> dict[str, str | None]:
    """HEAD's blob id of each path (None: not in HEAD)."""
    out: dict[str, str | None] = dict.fromkeys(paths)
    if not head or not paths:
        return out
    proc = repo.run("ls-tree", "-z", "--full-tree", head, "--", *paths, check=False)
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = record.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            out[path] = parts[2]
    return out


def head_side(raw: bytes) -> dict[str, str | None]:
    """HEAD's blob id (None: not in HEAD) of the paths a status output (STATUS) says it of,
    as ``head_blobs`` would answer, without asking git again: a changed tracked path's
    record holds HEAD's blob; an untracked path with no such record is in neither the
    index nor HEAD (one in HEAD but not in the index has its own deleted record). An
    unmerged path is not answered (its record holds the merge's stages)."""
    out: dict[str, str | None] = {}
    for record in raw.decode("utf-8", "surrogateescape").split("\0"):
        if record.startswith("1 "):
            fields = record.split(" ", 8)
            mode_h, hash_h, path = fields[3], fields[6], fields[8]
            out[path] = hash_h if hash_h != ZERO and mode_h not in ("000000", "160000") else None
        elif record.startswith("? ") and record[2:] not in out:
            out[record[2:]] = None
    return out


def hash_files(repo: Repo, paths: list[str]) -> dict[str, str]:
    """Blob ids of the files, written to the object store (a revert may need them)."""
    if not paths:
        return {}
    proc = repo.run(
        "hash-object",
        "-w",
        "--no-filters",
        "--stdin-paths",
        input="".join(p + "\n" for p in paths).encode("utf-8", "surrogateescape"),
        check=False,
    )
    ids = proc.stdout.decode().split()
    if proc.returncode != 0 or len(ids) != len(paths):
        return {p: h for p, h in zip(paths, ids, strict=False)}
    return dict(zip(paths, ids, strict=True))


def hash_files_bytes(repo: Repo, data: bytes) -> str:
    """The blob id of ``data``, written to the object store."""
    return (
        repo.run("hash-object", "-w", "--no-filters", "--stdin", input=data).stdout.decode().strip()
    )


class Scan(NamedTuple):
    """One look at the tree against the ledger."""

    data: dict[str, Any]
    head: str | None
    entries: dict[str, Entry]
    changes: list[Change]
    current: dict[str, tuple[str | None, tuple[int, int, int] | None]]
    fresh: bool  # no ledger (or HEAD moved): the tree is accepted as it is
    raw: bytes = b""  # the git status output it read (the fast path's record)


def scan(repo: Repo, head: str | None) -> Scan:
    """What changed since the ledger; paths back at HEAD's content leave it silently."""
    raw = quick.handed_over(str(ledger_path(repo).parent), str(repo.root))
    if raw is None:
        raw = status_output(repo)
    entries = status(repo, raw)
    data = load(repo)
    fresh = data is None or data.get("head") != head
    if data is None or fresh:
        data = {"head": head, "paths": {}}
    ledger: dict[str, Any] = data["paths"]
    current: dict[str, tuple[str | None, tuple[int, int, int] | None]] = {}
    to_hash: list[str] = []
    for path, entry in entries.items():
        st = None if entry.deleted else stat_of(repo.root / path)
        row = ledger.get(path)
        if st is None:
            current[path] = (None, None)
        elif isinstance(row, list) and row[3] == list(st) and row[0] is not None:
            current[path] = (row[0], st)
        else:
            to_hash.append(path)
            current[path] = ("", st)
    hashed = hash_files(repo, [p for p in to_hash if os.path.isfile(repo.root / p)])
    for path in to_hash:
        blob, st = hashed.get(path), current[path][1]
        current[path] = (blob, st)
        row = ledger.get(path)
        if isinstance(row, list) and blob is not None and row[0] == blob and st:
            row[3] = list(st)  # touched, not changed: hash it no more
    changes: list[Change] = []
    if not fresh:
        missing = [p for p in current if p not in ledger]
        known = head_side(raw)
        blobs = {p: known[p] for p in missing if p in known}
        blobs.update(head_blobs(repo, head, [p for p in missing if p not in known]))
        for path, (blob, st) in current.items():
            before = accepted_of(data, path, blobs)
            if blob != before.blob:
                changes.append(Change(path, before, blob, st))
    return Scan(data, head, entries, changes, current, fresh, raw)


def accept(scan_: Scan, paths: list[str] | None = None) -> None:
    """Record the scanned content of ``paths`` (all: None) as accepted; paths clean again
    leave the ledger."""
    ledger: dict[str, Any] = scan_.data["paths"]
    for gone in [p for p in ledger if p not in scan_.current]:
        del ledger[gone]
    for path, (blob, st) in scan_.current.items():
        if paths is not None and path not in paths:
            continue
        entry = scan_.entries[path]
        ledger[path] = [blob, entry.index_blob, entry.index_mode, list(st) if st else None]


def save(repo: Repo, scan_: Scan) -> None:
    """Write the ledger; the fast path's record goes (``remember`` writes a new one when
    the check leaves nothing outstanding)."""
    scan_.data["head"] = scan_.head
    path = ledger_path(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    quick.forget(str(path.parent), str(repo.root))
    tmp = path.with_name(f".tddgit-{os.getpid()}-{path.name}")
    tmp.write_text(json.dumps(scan_.data), encoding="utf-8")
    os.replace(tmp, path)


def remember(repo: Repo, scan_: Scan, free: Callable[[list[str]], set[str]] | None = None) -> None:
    """Everything ``scan_`` saw is accepted: record it for the fast path (quick.py), unless
    a listed file moved since the scan looked at it (a change no check has seen).
    ``free``: which of the listed paths keep any change (``aftertool.free_paths``)."""
    guard, root = str(ledger_path(repo).parent), str(repo.root)
    try:
        device = os.stat(guard).st_dev
    except OSError:
        return
    paths = quick.listed(scan_.raw)
    names = [rel.decode("utf-8", "surrogateescape") for rel in paths]
    for name in names:
        seen = scan_.current.get(name)
        if seen is None or stat_of(repo.root / name) != seen[1]:
            return
    kept = free(names) if free is not None and names else set()
    positions = frozenset(i for i, name in enumerate(names) if name in kept)
    line = quick.stat_line(root, [*paths, *quick.CONFIG_FILES], 1 << 63, device, positions)
    if line is not None:
        quick.write_record(guard, root, scan_.raw, line, positions)


@contextlib.contextmanager
def locked(repo: Repo) -> Iterator[None]:
    """One ledger update at a time (parallel sessions' hooks in one work tree)."""
    import fcntl

    path = ledger_path(repo).with_suffix(".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def blob_bytes(repo: Repo, blob: str | None) -> bytes | None:
    if blob is None:
        return None
    proc = repo.run("cat-file", "blob", blob, check=False)
    return proc.stdout if proc.returncode == 0 else None


def put_back(repo: Repo, path: str, target: bytes | None, judged: bytes | None) -> str:
    """Undo one change: the file becomes ``target``, unless it moved on since it was judged
    (another session wrote it meanwhile): then only the judged change is taken out of it
    (``git merge-file``), the other change stays. Returns how it was done."""
    from tddgit.guard.snapshots import Snapshot, restore

    file = repo.root / path
    try:
        now: bytes | None = file.read_bytes()
    except FileNotFoundError:
        now = None
    except IsADirectoryError:
        return "left (a directory now)"
    if now == judged or now is None or judged is None or target is None:
        restore(repo, Snapshot(path, target, None))
        return "put back"
    merged = merge(now, judged, target)
    if merged is None:
        return "left (it changed again since, and the change could not be taken out alone)"
    restore(repo, Snapshot(path, merged, None))
    return "taken out of the file (it changed again since)"


def merge(current: bytes, base: bytes, other: bytes) -> bytes | None:
    """``current`` with the change ``base`` -> ``other`` applied (three-way)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tddgit-merge-") as tmp:
        names = []
        for name, data in (("current", current), ("base", base), ("other", other)):
            p = Path(tmp, name)
            p.write_bytes(data)
            names.append(str(p))
        proc = subprocess.run(["git", "merge-file", "-p", *names], capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def restore_index(repo: Repo, path: str, before: Accepted, entry: Entry) -> None:
    """Put the path's index entry back when the change staged it too (``git checkout
    other -- path``, ``git stash pop``, ``git add``)."""
    if entry.index_blob == before.index_blob:
        return
    if before.index_blob is None:
        repo.run("update-index", "--force-remove", "--", path, check=False)
    else:
        mode = before.index_mode if before.index_mode != "000000" else "100644"
        repo.run(
            "update-index",
            "--add",
            "--cacheinfo",
            f"{mode},{before.index_blob},{path}",
            check=False,
        )
