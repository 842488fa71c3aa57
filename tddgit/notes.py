"""Evidence notes (PRODUCT.md §6): the gate's evidence attached to its commit under
``refs/notes/tddgit``, which travels with push/fetch of that ref.

Writers take an exclusive lock first (``git notes add`` does not check that the tip it
read is still the tip it moves), and retry a ref lock another git process holds. A note
read back is untrusted (anyone can push one): it is parsed by ``noterecords.parse_note``
(a note merged from two people holds several records), size-limited and schema-validated,
never executed.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator

from tddgit import faults
from tddgit.errors import GitError
from tddgit.evidence import MAX_BYTES, Evidence, EvidenceError, cache_get
from tddgit.git import Repo
from tddgit.noterecords import parse_note

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.blobs import BlobReader
    from tddgit.projects.scope import Scope

NOTES_REF = "refs/notes/tddgit"
NOTE_ATTEMPTS = 40
NOTE_LOCK_TIMEOUT = 30.0

# What git says when another process holds (or just moved) the notes ref.
_REF_RACE = (b"cannot lock ref", b".lock': File exists", b"but expected", b"unable to update")


def write_note(repo: Repo, commit: str, evidence: Evidence) -> None:
    """Attach evidence to ``commit`` under refs/notes/tddgit (replacing an older note).

    `git notes add` reads the notes tip, adds to it and moves the ref *without* checking it
    is still the tip it read: two writers at once (two gates, a gate and a post-commit
    hook) silently drop one note. So tddgit writers take an exclusive lock first
    (``flock``, released by the kernel even when the holder is killed). A ref lock held by
    some other git process is retried with a growing, jittered pause; after NOTE_ATTEMPTS
    a GitError says so (the evidence stays in the cache)."""
    write_note_data(repo, commit, evidence.dumps().encode("utf-8"))


def write_note_data(repo: Repo, commit: str, data: bytes) -> None:
    """Attach note ``data`` (one or more evidence records, ``noterecords``) to ``commit``,
    as ``write_note`` does (locked, retried)."""
    faults.point("note.write")
    with _notes_lock(repo):
        proc = _add_note(repo, commit, data)
    if proc.returncode == 0:
        return
    err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    raise GitError(
        f"could not write the evidence note for {commit[:10]}: "
        f"{err[-1] if err else f'exit code {proc.returncode}'}",
        "the evidence stays in tddgit's cache; `tddgit hook post-commit` attaches it to HEAD later",
    )


def _add_note(repo: Repo, commit: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
    import random
    import time

    for attempt in range(NOTE_ATTEMPTS):
        proc = repo.run(
            "notes", f"--ref={NOTES_REF}", "add", "-f", "-F", "-", commit, input=data, check=False
        )
        if proc.returncode == 0 or not any(m in proc.stderr for m in _REF_RACE):
            return proc
        time.sleep(min(0.5, 0.01 * (attempt + 1)) * (0.5 + random.random()))
    return proc


@contextlib.contextmanager
def _notes_lock(repo: Repo) -> Iterator[None]:
    """Exclusive among tddgit processes sharing this repository (worktrees included)."""
    from tddgit.repolock import exclusive

    with exclusive(repo, "notes.lock", NOTE_LOCK_TIMEOUT):
        yield


notes_lock = _notes_lock  # for other writers of the notes ref (notes sync and carry)


def read_note(repo: Repo, commit: str) -> Evidence | None:
    """The evidence note of ``commit``; None when there is none; EvidenceError if invalid."""
    proc = repo.run("notes", f"--ref={NOTES_REF}", "show", commit, check=False)
    if proc.returncode != 0:
        return None
    return parse_note(proc.stdout)


def evidence_for_commit(
    repo: Repo, commit: str, tree: str, phase: str | None, scope: Scope | None = None
) -> Evidence | None:
    """A past commit's evidence: its note, or failing that, the cache entry of its tree
    (a commit made with plain `git commit` after `--no-commit`); with a ``scope``, the
    part of it that is that project's (``Evidence.of_project``)."""
    try:
        ev = read_note(repo, commit)
    except EvidenceError:
        ev = None
    if ev is None or ev.tree != tree or (phase is not None and ev.phase != phase):
        ev = cache_get(repo, tree, phase)
    return ev.of_project(scope) if ev is not None else None


def _note_pairs(repo: Repo) -> list[tuple[str, str]]:
    from tddgit.reffiles import ref_in_files

    if ref_in_files(repo.common_dir, NOTES_REF) is False:
        return []  # most audited histories were never gated: no git process for that
    proc = repo.run("notes", f"--ref={NOTES_REF}", "list", check=False)
    if proc.returncode != 0:
        return []
    pairs = []
    for line in proc.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2:
            pairs.append((parts[1], parts[0]))  # (commit, note blob)
    return pairs


def read_all_notes(
    repo: Repo, reader: BlobReader | None = None
) -> dict[str, Evidence | EvidenceError]:
    """Every commit's evidence note, read through one ``git cat-file`` (the caller's
    ``reader`` when it has one open), a slice at a time to keep memory bounded."""
    pairs = _note_pairs(repo)
    out: dict[str, Evidence | EvidenceError] = {}
    if not pairs:
        return out
    from tddgit.blobs import BlobReader

    own = reader is None
    blobs = BlobReader(repo) if reader is None else reader
    try:
        for start in range(0, len(pairs), _NOTES_PER_READ):
            chunk = pairs[start : start + _NOTES_PER_READ]
            datas = blobs.contents_many([blob for _, blob in chunk], limit=MAX_BYTES)
            for (commit, _blob), data in zip(chunk, datas, strict=True):
                out[commit] = _parsed_note(data)
    finally:
        if own:
            blobs.close()
    return out


_NOTES_PER_READ = 512


def _parsed_note(data: bytes | None) -> Evidence | EvidenceError:
    if data is None:
        return EvidenceError("note is missing or larger than the limit")
    try:
        return parse_note(data)
    except EvidenceError as exc:
        return exc
