"""A commit-graph of tddgit's own, for the audit's walk of the history.

The audit needs the commits parents first (``git rev-list --topo-order --reverse``), and
that order exists only once git has walked the whole history: every commit object read
and inflated, before the first commit can be judged (0.1 s of a pytest audit, 0.3 s of
numpy's). Git's commit-graph file holds each commit's parents and generation number, and
walks from it are about ten times faster; ``git gc`` writes one into many repositories,
but a fresh clone has none, and tddgit does not write into the repository's own object
directory.

So the graph is written in git's own format, by git (``git commit-graph write
--reachable``), into an object directory of tddgit's (``.git/tddgit/graph/``, holding
only ``info/commit-graph``), which the walk's git reads as an alternate object directory
(``GIT_ALTERNATE_OBJECT_DIRECTORIES``). A repository that has a commit-graph of its own
uses that one: git reads the first graph of its object directories. The order is git's
either way (its walk with generation numbers gives the order of the walk without them).

The graph is written in the background, by a detached git, after an audit finds it
missing or missing many of the commits it walked; until then (and for commits newer than
the graph) git walks the objects as before. Git writes it through a lock file and renames
it into place, so a walk never sees half a graph, and two writers never mix theirs.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tddgit.git import Repo, clean_env

_DIR = "graph"
_FILE = ("info", "commit-graph")
# Rewritten when it lacks more of the commits walked than this share (or count): a few new
# commits are walked from their objects at little cost, a rewrite costs a walk of all.
_STALE_SHARE = 0.05
_STALE_MIN = 256


def object_dir(repo: Repo) -> Path:
    return repo.tddgit_dir / _DIR


def walk_env(repo: Repo) -> dict[str, str]:
    """What the walk's git needs in its environment to read the graph (nothing when there
    is none yet)."""
    odb = object_dir(repo)
    if not odb.joinpath(*_FILE).is_file():
        return {}
    return {"GIT_ALTERNATE_OBJECT_DIRECTORIES": _alternates(odb)}


def commits_in(repo: Repo) -> int:
    """How many commits the graph holds (0: no graph, or not one git wrote)."""
    try:
        with open(object_dir(repo).joinpath(*_FILE), "rb") as f:
            head = f.read(8)
            if head[:4] != b"CGPH" or head[4] != 1:
                return 0
            chunks = head[6]
            table = f.read(12 * (chunks + 1))
            for i in range(chunks):
                entry = table[12 * i : 12 * i + 12]
                if entry[:4] == b"OIDF":  # the fanout: its last entry counts every commit
                    f.seek(int.from_bytes(entry[4:], "big") + 255 * 4)
                    return int.from_bytes(f.read(4), "big")
    except (OSError, IndexError):
        pass
    return 0


def stale(repo: Repo, walked: int) -> bool:
    """Whether the graph lacks enough of the ``walked`` commits to be written again."""
    missing = walked - commits_in(repo)
    return missing > max(_STALE_MIN, int(walked * _STALE_SHARE))


def write_in_background(repo: Repo) -> subprocess.Popen[bytes] | None:
    """Start a detached ``git commit-graph write`` of every commit the refs reach; None
    when it could not start (a read-only git directory: the walk reads the objects)."""
    odb = object_dir(repo)
    try:
        odb.joinpath("info").mkdir(parents=True, exist_ok=True)
        odb.joinpath("pack").mkdir(exist_ok=True)  # an object directory's shape
        return subprocess.Popen(
            ["git", "commit-graph", "write", "--reachable", f"--object-dir={odb}"],
            cwd=repo.root,
            env=clean_env({"GIT_ALTERNATE_OBJECT_DIRECTORIES": _alternates(odb)}),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # outlives the audit, untouched by the terminal's ^C
        )
    except OSError:
        return None


def _alternates(odb: Path) -> str:
    """The user's alternate object directories, if any, then ours."""
    theirs = os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
    return os.pathsep.join([theirs, str(odb)]) if theirs else str(odb)
