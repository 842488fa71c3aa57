"""Evidence a rebase or cherry-pick carried onto another base.

``tddgit hooks install`` makes git copy a step's evidence note to the commit a rebase
rewrites it into, and the post-commit hook copies it to a cherry-picked commit. On a new
base the commit's tree is not the tree the gate judged, which the pass reports as an
``evidence-contradiction``. When that is the only difference, and the commit makes the same
change as the one judged (git's patch id of the judged parent tree → judged tree equals
that of the commit's parent → the commit), the step is what its evidence says, only its
tests have not run on this tree: the finding becomes ``evidence-rebased`` (a note, not a
fault of the order of work; ``tddgit audit --verify`` re-runs the step here).

Only the commits whose evidence disagrees with them on the tree alone cost anything: three
git processes in all (trees, diffs, patch ids), none when there is no such commit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from tddgit.audit.checkview import finding
from tddgit.audit.rules import evidence_problems

if TYPE_CHECKING:
    from tddgit.audit.model import CommitRecord, Finding
    from tddgit.evidence import Evidence, EvidenceError
    from tddgit.git import Repo

_FAKE = "{:040x}"  # patch-id names each patch by the id on the line before it


Move = tuple[str, str, "Evidence"]  # (commit, its first parent, the evidence on it)


def tree_alone(ev: Evidence, phase: str | None) -> bool:
    """Whether the evidence would support a commit of ``phase`` but for its tree (and
    names the parent it was judged on, to compare the change with)."""
    return bool(ev.parent) and not evidence_problems(ev, ev.tree, phase)


def moved_unchanged(repo: Repo, moves: Sequence[Move]) -> set[str]:
    """The commits of ``moves`` (each one whose evidence disagrees with it on the tree
    alone, see ``tree_alone``) that make the very change their evidence judged."""
    if not moves:
        return set()
    trees = _trees(repo, [x for c, p, ev in moves for x in (ev.parent or "", c, p)])
    changes = [
        ((trees.get(ev.parent or ""), ev.tree), (trees.get(parent), trees.get(commit)))
        for commit, parent, ev in moves
    ]
    known = {p: None for pair in changes for p in pair if p[0] and p[1]}
    ids = _patch_ids(repo, list(known))  # type: ignore[arg-type]  # None filtered out
    return {
        commit
        for (commit, _, _), (judged, made) in zip(moves, changes, strict=True)
        # another change, or the judged base is gone: not moved unchanged
        if ids.get(judged) is not None and ids.get(judged) == ids.get(made)  # type: ignore[arg-type]
    }


def rejudge(
    repo: Repo,
    findings: list[Finding],
    notes: Mapping[str, Evidence | EvidenceError],
    record_of: Callable[[str], CommitRecord | None],
) -> list[Finding]:
    """``findings`` with each ``evidence-contradiction`` of a step moved unchanged onto
    another base replaced by ``evidence-rebased`` (the same list when there is none)."""
    from tddgit.evidence import Evidence

    moves: dict[int, Move] = {}  # finding index -> its commit's move
    for i, f in enumerate(findings):
        if f.rule != "evidence-contradiction":
            continue
        ev = notes.get(f.commit)
        record = record_of(f.commit)
        if (
            isinstance(ev, Evidence)
            and record is not None
            and record.parents
            and tree_alone(ev, record.phase)
        ):
            moves[i] = (f.commit, record.parents[0], ev)
    moved = moved_unchanged(repo, list(moves.values()))
    if not moved:
        return findings
    out = list(findings)
    for i, (commit, _, ev) in moves.items():
        if commit in moved:
            out[i] = finding(
                "evidence-rebased",
                commit,
                f"{ev.phase} evidence judged on another base (tree {ev.tree[:12]}, parent "
                f"{(ev.parent or '?')[:12]}): the commit makes the same change, but its "
                "tests have not run on this tree",
                files=findings[i].files,
                data={"judged_tree": ev.tree, "judged_parent": ev.parent},
            )
    return out


def _trees(repo: Repo, commits: Sequence[str]) -> dict[str, str]:
    """commit -> its tree, for the commits that exist (one ``git cat-file``)."""
    wanted = list(dict.fromkeys(c for c in commits if c))
    request = "".join(f"{c}^{{tree}}\n" for c in wanted).encode()
    proc = repo.run("cat-file", "--batch-check", input=request, check=False)
    out: dict[str, str] = {}
    for commit, line in zip(wanted, proc.stdout.decode().splitlines(), strict=False):
        oid, _, kind = line.partition(" ")
        if kind.startswith("tree"):
            out[commit] = oid
    return out


def _patch_ids(repo: Repo, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(tree, tree) -> the patch id of the change between them ("" for none), for the
    pairs git could diff."""
    if not pairs:
        return {}
    request = "".join(f"{a} {b}\n" for a, b in pairs).encode()
    # -U0: the lines a change removes and adds, not its context (which a new base moves)
    args = ("diff-tree", "--stdin", "-r", "-p", "-U0", "--no-color")
    diff = repo.run(*args, input=request, check=False)
    if diff.returncode != 0:
        return {}  # a tree git cannot read: nothing is known
    # diff-tree heads each non-empty diff with the line "A B"; an empty one prints nothing
    heads = {f"{a} {b}": n for n, (a, b) in enumerate(pairs)}
    bodies: dict[int, list[str]] = {}
    current: list[str] | None = None
    for line in diff.stdout.decode("utf-8", "surrogateescape").splitlines(keepends=True):
        n = heads.get(line.rstrip("\n"))
        if n is not None:
            current = bodies.setdefault(n, [])
            current.append(f"commit {_FAKE.format(n)}\n")
        elif current is not None:
            current.append(line)
    ids = {pair: "" for pair in pairs}  # no diff: the empty change
    if not bodies:
        return ids
    text = "".join(line for n in sorted(bodies) for line in bodies[n])
    proc = repo.run(
        "patch-id", "--stable", input=text.encode("utf-8", "surrogateescape"), check=False
    )
    if proc.returncode != 0:
        return {}
    for line in proc.stdout.decode().splitlines():
        pid, _, name = line.partition(" ")
        ids[pairs[int(name, 16)]] = pid
    return ids
