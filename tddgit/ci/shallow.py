"""Make a CI clone hold the range to audit: fetch the base and head when they are missing,
deepen a shallow clone until they meet, and fetch the evidence notes.

actions/checkout fetches one commit (depth 1) and no notes; GitLab fetches 20 (GIT_DEPTH).
The range needs the pull request's commits and their merge base with the base branch, so
the clone is deepened in growing steps, then unshallowed; when even that does not join
them, the error names the setting to change.
"""

from __future__ import annotations

from collections.abc import Callable

from tddgit.ci.providers import CiRun
from tddgit.errors import TddgitError, UsageError
from tddgit.git import Repo

DEEPEN_STEPS = (50, 200, 1000)
_FULL_FIX = {
    "github": "give actions/checkout `fetch-depth: 0` (or fetch the base branch before `tddgit ci`)",
    "gitlab": "set `GIT_DEPTH: 0` in the job's variables (or fetch the base branch before `tddgit ci`)",
}


def prepare(repo: Repo, run: CiRun, remote: str, say: Callable[[str], None]) -> str:
    """The range to audit, once this clone holds it (fetching what is missing)."""
    specs = [s for s in (run.head, run.base) if s and s != "HEAD"]
    wanted = [_fetch_spec(s, run) for s in specs]
    for rev, spec in zip(specs, wanted, strict=True):
        if not _has(repo, rev):
            say(f"fetching {rev[:12] if len(rev) >= 40 else rev} from {remote}")
            # a complete clone stays complete; a shallow one fetches a little history
            first = f"--depth={DEEPEN_STEPS[0]}" if repo.is_shallow() else "--quiet"
            _fetch(repo, remote, first, spec)
    if run.base is None:
        if repo.is_shallow():  # the whole history is asked for
            say("shallow clone: fetching the whole history (git fetch --unshallow)")
            _fetch(repo, remote, "--unshallow")
        return run.head
    for depth in DEEPEN_STEPS:
        if _joined(repo, run.base, run.head) or not repo.is_shallow():
            break
        say(f"shallow clone: deepening by {depth} commits to reach the merge base")
        _fetch(repo, remote, f"--deepen={depth}", *wanted)
    if not _joined(repo, run.base, run.head) and repo.is_shallow():
        say("shallow clone: fetching the whole history (git fetch --unshallow)")
        _fetch(repo, remote, "--unshallow", *wanted)
    if not _joined(repo, run.base, run.head):
        raise UsageError(
            f"{run.base[:12]} and {run.head[:12]} share no history in this clone",
            _FULL_FIX.get(run.provider, "fetch the whole history (`git fetch --unshallow`)"),
        )
    return run.range


def fetch_notes(repo: Repo, remote: str, say: Callable[[str], None]) -> bool:
    """Bring the remote's evidence notes in (merged with any local ones, nothing pushed);
    False, with a warning said, when they cannot be had."""
    from tddgit.ci.notes_sync import fetch_side, merge_side, side_ref
    from tddgit.notes import notes_lock

    try:
        with notes_lock(repo):
            if not fetch_side(repo, remote):
                say(f"{remote} has no tddgit evidence notes (refs/notes/tddgit)")
                return False
            merge_side(repo, side_ref(remote))
    except TddgitError as exc:
        say(f"the evidence notes were not fetched: {exc.one_line()}")
        return False
    return True


def _fetch_spec(rev: str, run: CiRun) -> str:
    if rev.startswith("origin/"):
        branch = rev.removeprefix("origin/")
        return f"+refs/heads/{branch}:refs/remotes/origin/{branch}"
    return rev


def _fetch(repo: Repo, remote: str, option: str, *specs: str) -> None:
    proc = repo.run("fetch", "--quiet", "--no-tags", option, remote, *specs, check=False)
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0 and "on a complete repository" not in err:
        last = err.strip().splitlines()
        raise UsageError(
            f"git fetch {option} {remote} failed: {last[-1] if last else proc.returncode}",
            "check that the CI job can read the remote (its token and address)",
        )


def _has(repo: Repo, rev: str) -> bool:
    return repo.run("rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False).returncode == 0


def _joined(repo: Repo, base: str, head: str) -> bool:
    """Base and head are both here and have a merge base."""
    if not (_has(repo, base) and _has(repo, head)):
        return False
    proc = repo.run("merge-base", base, head, check=False)
    # a merge base on the shallow boundary is still a common ancestor, and everything
    # after it (the range) is here
    return proc.returncode == 0
