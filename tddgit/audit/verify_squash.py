"""``audit --verify`` of a squash merge whose note ``tddgit notes carry`` composed: each
carried step re-proved on the main branch, not taken on trust.

A carried note holds the records of the pull request's commits in the order they were made
(red, green, refactor...), each naming its tree; the first names the commit the pull request
branched from (``parent``). Step *i* is rebuilt as main had it: the squash's parent plus the
pull request's change up to that step (``git diff BASE TREE_i``, applied in a throwaway
worktree). There the step's own targets are run: a red's must fail for the right reason, a
green's must pass. This proves more than re-running the original commits would: the claim
is checked against the code main actually received, with whatever main gained since the
pull request branched, and it needs no branch still pointing at the originals, only their
objects (the pull request's commits fetched, as ``notes carry`` needs them too).

Before any run, the steps must add up to the squash: the squash's parent plus the change to
the last step's tree must be the squash's tree. If not, the note is not this commit's
history and every step claim is contradicted without running anything.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tddgit.audit.model import CommitRecord
from tddgit.errors import TddgitError
from tddgit.evidence import Evidence, EvidenceError
from tddgit.git import Repo, clean_env
from tddgit.noterecords import parse_records
from tddgit.notes import NOTES_REF

FETCH = "fetch the pull request's commits (e.g. git fetch origin 'refs/pull/*/head:refs/pr/*')"


def carried_steps(repo: Repo, c: CommitRecord) -> list[Evidence] | None:
    """The records a squash commit's note carries, in order; None when ``c`` is not a
    squash with a carried note (two or more records)."""
    if c.rule != "squash" or not c.parents:
        return None
    proc = repo.run("notes", f"--ref={NOTES_REF}", "show", c.sha, check=False)
    if proc.returncode != 0:
        return None
    try:
        records = parse_records(proc.stdout)
    except EvidenceError:
        return None
    return records if len(records) >= 2 else None


def mismatch(repo: Repo, c: CommitRecord, steps: list[Evidence]) -> tuple[str, str] | None:
    """Why the carried steps cannot be re-proved on this squash, as (verdict, problem):
    inconclusive when objects are missing here, a contradiction when the steps do not add
    up to the squash's change; None when they can be re-run."""
    base = steps[0].parent
    if base is None or not _exists(repo, base):
        return "inconclusive", f"the pull request's base commit is not in this clone: {FETCH}"
    missing = [s.tree[:10] for s in steps if not _exists(repo, s.tree)]
    if missing:
        return "inconclusive", (
            f"the trees of carried steps {', '.join(missing)} are not in this clone: {FETCH}"
        )
    try:
        built = _built_tree(repo, c.parents[0], base, steps[-1].tree)
    except TddgitError as exc:
        return "contradiction", (
            f"the pull request's change does not apply to the squash's parent: {exc}"
        )
    squash = repo.git("rev-parse", f"{c.sha}^{{tree}}").strip()
    if built != squash:
        return "contradiction", (
            "the carried steps do not add up to this squash: its parent plus the pull "
            f"request's change is tree {built[:10]}, the squash's is {squash[:10]}"
        )
    return None


@contextmanager
def step_tree(repo: Repo, root: Path, base: str, tree: str) -> Iterator[Path]:
    """Turn the worktree at ``root`` (checked out at the squash's parent) into that parent
    plus the change from ``base`` to ``tree``; TddgitError when it does not apply."""
    diff = repo.run("diff", "--binary", "--no-color", base, tree, env=clean_env()).stdout
    if diff:
        proc = repo.run("-C", str(root), "apply", "--index", "--whitespace=nowarn", input=diff,
                        env=clean_env(), check=False)  # fmt: skip
        if proc.returncode != 0:
            why = proc.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
            raise TddgitError(
                "the step does not apply to the squash's parent" + (f": {why[0]}" if why else "")
            )
    yield root


def _built_tree(repo: Repo, parent: str, base: str, tree: str) -> str:
    """The tree of ``parent`` plus the change ``base``..``tree``, built in a throwaway
    index (no work tree, no ref)."""
    with tempfile.TemporaryDirectory(prefix="tddgit-squash-") as tmp:
        env = clean_env({"GIT_INDEX_FILE": os.path.join(tmp, "index")})
        repo.run("read-tree", parent, env=env)
        diff = repo.run("diff", "--binary", "--no-color", base, tree, env=env).stdout
        if diff:
            proc = repo.run("apply", "--cached", input=diff, env=env, check=False)
            if proc.returncode != 0:
                raise TddgitError(proc.stderr.decode("utf-8", "replace").strip()[:200])
        return repo.run("write-tree", env=env).stdout.decode().strip()


def _exists(repo: Repo, obj: str) -> bool:
    return repo.run("cat-file", "-e", obj, check=False).returncode == 0
