"""`tddgit notes sync`: share refs/notes/tddgit with a remote without losing anyone's note.

The plain refspecs do not work for a team: ``git fetch origin refs/notes/tddgit:...`` and
``git push origin refs/notes/tddgit`` are refused as soon as two people have added notes
(the notes histories diverged), and a forced ``+refs/notes/...`` fetch silently drops the
local notes not pushed yet. So a sync:

1. fetches the remote's notes into a side ref of our own, ``refs/notes/tddgit-remote/<remote>``
   (forced: nobody else writes it);
2. merges it into refs/notes/tddgit with ``git notes merge``; a commit both sides annotated
   gets one note holding both records (``tddgit.noterecords``: the earliest is the evidence);
3. pushes refs/notes/tddgit (never forced); when the remote moved meanwhile (someone else
   synced), the push is refused and the sync starts again at 1.

Running it again with nothing new changes nothing; several people syncing at once each end
with every note, because a push only lands on top of what it merged.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from tddgit.errors import GitError, UsageError
from tddgit.git import Repo
from tddgit.noterecords import combine
from tddgit.notes import NOTES_REF, notes_lock

SIDE_PREFIX = "refs/notes/tddgit-remote/"
SYNC_ATTEMPTS = 30

# What a refused notes push says when the remote moved (or is being moved) under us.
_RACE = (
    "fetch first",
    "non-fast-forward",
    "rejected",
    "cannot lock ref",
    "failed to update ref",
    "stale info",
    "incorrect old value",
)


@dataclass(frozen=True)
class SyncResult:
    remote: str
    combined: int  # notes both sides had for one commit, now holding both records
    pushed: bool  # False when the remote already had everything
    attempts: int
    notes: int  # notes in refs/notes/tddgit afterwards

    def to_json(self) -> dict[str, object]:
        return {
            "remote": self.remote,
            "combined": self.combined,
            "pushed": self.pushed,
            "attempts": self.attempts,
            "notes": self.notes,
        }


def side_ref(remote: str) -> str:
    return SIDE_PREFIX + remote


def sync(repo: Repo, remote: str = "origin", *, attempts: int = SYNC_ATTEMPTS) -> SyncResult:
    """Fetch, merge and push the notes until the push lands (module docstring)."""
    check_remote(repo, remote)
    combined = 0
    for attempt in range(1, attempts + 1):
        with notes_lock(repo):
            if fetch_side(repo, remote):
                combined += merge_side(repo, side_ref(remote))
        outcome = _push(repo, remote)
        if outcome != "retry":
            return SyncResult(remote, combined, outcome == "pushed", attempt, _count(repo))
        time.sleep(min(1.0, 0.05 * attempt) * (0.5 + random.random()))
    raise GitError(
        f"the notes push to {remote} was refused {attempts} times (others kept pushing)",
        "run `tddgit notes sync` again",
    )


def check_remote(repo: Repo, remote: str) -> None:
    if repo.run("remote", "get-url", remote, check=False).returncode != 0:
        raise UsageError(
            f"no git remote named {remote!r}", "name one of `git remote` (default: origin)"
        )


def fetch_side(repo: Repo, remote: str) -> bool:
    """Fetch the remote's notes into our side ref; False when the remote has none."""
    proc = repo.run(
        "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
        f"+{NOTES_REF}:{side_ref(remote)}",
        check=False,
    )  # fmt: skip
    if proc.returncode == 0:
        return True
    err = proc.stderr.decode("utf-8", "replace")
    if "couldn't find remote ref" in err:
        repo.run("update-ref", "-d", side_ref(remote), check=False)
        return False
    raise GitError(
        f"could not fetch the notes from {remote}: {_last_line(err)}",
        "check the remote's address and your access (`git fetch " + remote + "`)",
    )


def merge_side(repo: Repo, side: str) -> int:
    """Merge notes ref ``side`` into refs/notes/tddgit; returns how many notes held a
    record on both sides (combined, not chosen). The caller holds the notes lock."""
    if _has(repo, "NOTES_MERGE_PARTIAL"):  # a sync killed mid-merge: start that merge over
        repo.run("notes", f"--ref={NOTES_REF}", "merge", "--abort", check=False)
    env = _identity_env(repo)
    proc = repo.run(
        "notes", f"--ref={NOTES_REF}", "merge", "--quiet", "-s", "manual", side,
        env=env, check=False,
    )  # fmt: skip
    if proc.returncode == 0:
        return 0
    worktree = _git_path(repo, "NOTES_MERGE_WORKTREE")
    if not worktree.is_dir():
        raise GitError(f"git notes merge failed: {_last_line(proc.stderr.decode())}")
    try:
        conflicted = sorted(p for p in worktree.iterdir() if p.is_file())
        for path in conflicted:
            obj = path.name.replace("/", "")
            ours = _show(repo, NOTES_REF, obj)
            theirs = _show(repo, side, obj)
            path.write_text(combine(ours, theirs), encoding="utf-8")
        repo.run("notes", f"--ref={NOTES_REF}", "merge", "--commit", env=env)
    except BaseException:
        repo.run("notes", f"--ref={NOTES_REF}", "merge", "--abort", check=False)
        raise
    return len(conflicted)


def _push(repo: Repo, remote: str) -> str:
    """'pushed', 'same' (nothing to push), or 'retry' (the remote moved)."""
    if not _has(repo, NOTES_REF):
        return "same"
    # --no-verify: the pre-push hook that runs this sync must not run again for it
    proc = repo.run(
        "push", "--no-verify", "--porcelain", remote, f"{NOTES_REF}:{NOTES_REF}", check=False
    )
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    if proc.returncode == 0:
        return "same" if "[up to date]" in out else "pushed"
    if any(marker in out for marker in _RACE):
        return "retry"
    raise GitError(
        f"could not push the notes to {remote}: {_last_line(proc.stderr.decode())}",
        "push rights to the remote are needed to share notes (a fork's CI only reads them)",
    )


def _show(repo: Repo, ref: str, obj: str) -> bytes:
    proc = repo.run("notes", f"--ref={ref}", "show", obj, check=False)
    return proc.stdout if proc.returncode == 0 else b""


def _has(repo: Repo, ref: str) -> bool:
    return repo.run("rev-parse", "-q", "--verify", ref, check=False).returncode == 0


def _count(repo: Repo) -> int:
    proc = repo.run("notes", f"--ref={NOTES_REF}", "list", check=False)
    return len(proc.stdout.splitlines()) if proc.returncode == 0 else 0


def _git_path(repo: Repo, name: str) -> Path:
    rel = repo.git("rev-parse", "--git-path", name).strip()
    return Path(rel) if os.path.isabs(rel) else repo.root / rel


def _identity_env(repo: Repo) -> dict[str, str] | None:
    """A notes merge commits; a CI runner often has no identity configured."""
    if repo.run("var", "GIT_COMMITTER_IDENT", check=False).returncode == 0:
        return None
    env = dict(os.environ)
    for role in ("AUTHOR", "COMMITTER"):
        env.setdefault(f"GIT_{role}_NAME", "tddgit notes sync")
        env.setdefault(f"GIT_{role}_EMAIL", "tddgit@localhost")
    return env


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no message"
