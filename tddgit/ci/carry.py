"""`tddgit notes carry BASE..HEAD`: give the commits a rebase or squash merge made the
evidence of the commits they replace.

A rebase merge (GitHub's "rebase and merge") makes a new commit per pull request commit,
same change, new id, no note: each new commit is matched to an original with a note by
``git patch-id --stable`` (the change, whitespace and line numbers aside) and gets its
note. The audit then reads it as ``evidence-rebased`` (the order of work holds; `audit
--verify` re-runs the step on the new tree). A squash merge makes one commit whose message
lists the steps (``tddgit.audit.squash``): its originals are the pull request's commits
whose change, taken together from where they branched, is the squash's change (same patch
id); it gets one note holding their records, in order.

The originals must be in the clone (the pull request's branch fetched) with their notes.
"""

from __future__ import annotations

from dataclasses import dataclass

from tddgit.audit.squash import squashed_steps
from tddgit.errors import UsageError
from tddgit.git import Repo
from tddgit.noterecords import concat
from tddgit.notes import NOTES_REF, _note_pairs, write_note_data


@dataclass(frozen=True)
class Carried:
    commit: str
    originals: tuple[str, ...]
    how: str  # rebase | squash

    def to_json(self) -> dict[str, object]:
        return {"commit": self.commit, "originals": list(self.originals), "how": self.how}


def carry(repo: Repo, rng: str) -> list[Carried]:
    """Attach the originals' notes to the new commits of ``rng`` that have none."""
    new = _rev_list(repo, rng)
    noted = {commit for commit, _ in _note_pairs(repo)}
    fresh = set(new)
    originals = [c for c in noted if c not in fresh and _exists(repo, c)]
    by_patch = _patch_ids(repo, originals)
    done: list[Carried] = []
    for commit in new:
        if commit in noted:
            continue
        message = repo.git("show", "-s", "--format=%B", commit)
        if squashed_steps(message):
            sources = _squashed_from(repo, commit, originals)
            how = "squash"
        else:
            pid = _patch_ids(repo, [commit])
            found = by_patch.get(next(iter(pid), ""))
            sources = (found,) if found else ()
            how = "rebase"
        if not sources:
            continue
        data = concat(*(_note(repo, s) for s in sources)).encode("utf-8")
        write_note_data(repo, commit, data)
        done.append(Carried(commit, sources, how))
    return done


def _squashed_from(repo: Repo, squash: str, originals: list[str]) -> tuple[str, ...]:
    """The pull request's commits a squash commit is made of: a noted commit off this
    history whose change from the fork point equals the squash's change."""
    parent = _first_parent(repo, squash)
    target = next(iter(_patch_ids(repo, [squash])), None)
    if parent is None or target is None:
        return ()
    for tip in originals:
        base = repo.run("merge-base", parent, tip, check=False).stdout.decode().strip()
        if not base or _reachable(repo, tip, parent):
            continue
        diff = repo.run("diff", "-p", "--no-color", base, tip).stdout
        pid = repo.run("patch-id", "--stable", input=diff).stdout.decode().split()
        if pid and pid[0] == target:
            chain = _rev_list(repo, f"{base}..{tip}")
            noted = {c for c, _ in _note_pairs(repo)}
            return tuple(c for c in chain if c in noted)
    return ()


def _patch_ids(repo: Repo, commits: list[str]) -> dict[str, str]:
    """patch id -> commit, for the commits that change something."""
    if not commits:
        return {}
    diffs = repo.run(
        "diff-tree", "--stdin", "-p", "-r", "--root", "--no-color",
        input="\n".join(commits).encode() + b"\n",
    ).stdout  # fmt: skip
    out = repo.run("patch-id", "--stable", input=diffs).stdout.decode()
    pairs = (line.split() for line in out.splitlines())
    return {p[0]: p[1] for p in pairs if len(p) == 2}


def _rev_list(repo: Repo, rng: str) -> list[str]:
    proc = repo.run("rev-list", "--reverse", "--no-merges", rng, "--", check=False)
    if proc.returncode != 0:
        raise UsageError(
            f"bad range {rng!r} for notes carry",
            "give the merge's range, e.g. BEFORE..AFTER of the push to the main branch",
        )
    return proc.stdout.decode().split()


def _note(repo: Repo, commit: str) -> bytes:
    return repo.run("notes", f"--ref={NOTES_REF}", "show", commit).stdout


def _exists(repo: Repo, commit: str) -> bool:
    return repo.run("cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode == 0


def _first_parent(repo: Repo, commit: str) -> str | None:
    proc = repo.run("rev-parse", "-q", "--verify", f"{commit}^1", check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def _reachable(repo: Repo, commit: str, tip: str) -> bool:
    return repo.run("merge-base", "--is-ancestor", commit, tip, check=False).returncode == 0
