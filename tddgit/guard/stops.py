"""Stops with failing tests: blocked again and again, up to a bound, unless those same tests
already failed when the session started (not the agent's doing).

At session start the work tree is recorded as a tree object (a temporary index, ``git add
-A``, ``git write-tree``: the person's own uncommitted work included, nothing of theirs
touched). When a stop meets failing tests that the session did not bring in, it is blocked;
from the second blocked stop on, the failing tests are run once more on that start tree
(materialised in a temporary directory) and a stop whose failures all failed there too is
allowed. After ``MAX_BLOCKS`` blocked stops in a row the stop goes through, with a final
message for the person: the agent left failing tests.
"""

from __future__ import annotations

import json
from typing import Any

from tddgit.guard import snapshots

MAX_BLOCKS = 4


def _state_file(facts: Any, session: str) -> Any:
    return snapshots.session_dir(facts.repo, session) / "stops.json"


def read_state(facts: Any, session: str) -> dict[str, Any]:
    try:
        data = json.loads(_state_file(facts, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_state(facts: Any, session: str, data: dict[str, Any]) -> None:
    path = _state_file(facts, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def record_start(facts: Any, session: str) -> None:
    """The work tree at session start, as a tree object."""
    from tddgit.staged import work_tree_tree

    tree = work_tree_tree(facts.repo)
    if tree is not None:
        data = read_state(facts, session)
        data["start_tree"] = tree
        data["blocked"] = 0
        write_state(facts, session, data)


def failed_at_start(facts: Any, session: str, ids: list[str]) -> bool:
    """Whether every test of ``ids`` fails (or is broken) on the session's start tree (HEAD's
    tree when the session's start was not seen)."""
    from tddgit.guard.checks import broken
    from tddgit.runners import RunRequest, get_runner
    from tddgit.snapshot import snapshot

    tree = read_state(facts, session).get("start_tree") or (
        f"{facts.head}^{{tree}}" if facts.head else None
    )
    if not tree or not ids:
        return False
    files = sorted({i.split("::", 1)[0] for i in ids})
    still: set[str] = set()
    with snapshot(facts.repo, tree) as root:
        # each project's files with its runner in its directory (docs/monorepo.md)
        for part in facts.each():
            mine = [f for f in files if part.scope is None or part.scope.owns(f)]
            if not mine:
                continue
            subdir = part.config.project
            result = get_runner(part.config, root / subdir).run(
                RunRequest(
                    root=root,
                    subdir=subdir,
                    tests=tuple(mine),
                    timeout=part.config.timeout,
                    project_root=root,
                    bytecode_cache=facts.repo.tddgit_dir / "pycache",
                )
            )
            if result.timed_out:
                return False
            still |= {t.id for t in broken(result)}
    return all(i in still for i in ids)
