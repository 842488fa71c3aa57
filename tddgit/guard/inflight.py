"""Which sessions have a tool call running: the race rule between parallel sessions.

Two sessions in one work tree share the accepted state (tree.py), so a change on disk is
judged by the first check that sees it. When another session's tool call was already
running when the change was made, that change may be its: the check leaves it to that
session's own post-tool check instead of judging it (and maybe blaming the wrong session).
When the calls of both sessions span the change, the tree cannot say which made it: it
goes to the call that began first (typically the one the other session waits on).

Each session's pre-tool hook (an allowed write or shell command) records when its call
began (``<common git dir>/tddgit/guard/call-<key>``); its post-tool check (or its stop,
or the fast path) ends it. A changed path is claimed by another session when its ctime is
not older than that session's call began (less ``CLOCK_SLACK``: file times come from the
kernel's coarse clock, which lags the one read here by up to a tick) and that call began
before the checking session's own call. A deleted path has no ctime: any such call claims
it.

A call whose post-tool hook never comes (a failed tool in Codex, a killed agent) stops
claiming when the session's next call begins or ends, or after ``STALE_SECONDS``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tddgit.git import Repo
from tddgit.guard import quick

STALE_SECONDS = 900  # as a pre-write snapshot (aftertool.IN_FLIGHT_SECONDS)
CLOCK_SLACK_NS = 50_000_000  # > a coarse kernel clock tick (1-10 ms)


def guard_dir(repo: Repo) -> Path:
    return repo.tddgit_dir / "guard"


def begin(repo: Repo, session: str) -> None:
    """The session's tool call begins now (the latest call of the session counts)."""
    if not session:
        return
    path = Path(quick.call_marker(str(guard_dir(repo)), session))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tddgit-{os.getpid()}-{path.name}")
    tmp.write_text(f"{time.time_ns()}\n{session}", encoding="utf-8")
    os.replace(tmp, path)


def end(repo: Repo, session: str) -> None:
    """The session's call is over (its post-tool check, its stop, its start)."""
    quick.end_call(str(guard_dir(repo)), session)


def _read(path: Path) -> tuple[int, str]:
    when, _, session = path.read_text(encoding="utf-8").partition("\n")
    return int(when), session


def others(repo: Repo, session: str) -> list[int]:
    """When each other session's running call began (ns)."""
    try:
        paths = list(guard_dir(repo).glob("call-*"))
    except OSError:
        return []
    oldest = time.time_ns() - STALE_SECONDS * 1_000_000_000
    out = []
    for path in paths:
        try:
            when, who = _read(path)
        except (OSError, ValueError):
            continue
        if who != session and when >= oldest:
            out.append(when)
    return out


def started(repo: Repo, session: str) -> int | None:
    """When the session's own running call began (None: no pre-tool hook recorded one)."""
    try:
        when, who = _read(Path(quick.call_marker(str(guard_dir(repo)), session)))
    except (OSError, ValueError):
        return None
    return when if who == session else None


def claimed(repo: Repo, path: str, begun: list[int], mine: int | None) -> bool:
    """Whether a change to ``path`` belongs to another session's running call: one that
    began before the change (``begun``: ``others``) and before this session's own call
    (``mine``; None: unknown, as late as can be)."""
    earlier = [when for when in begun if mine is None or when < mine]
    if not earlier:
        return False
    try:
        st = os.lstat(repo.root / path)
    except OSError:
        return True
    # ctime: any write or rename sets it, and no tool can set it back
    return any(st.st_ctime_ns >= when - CLOCK_SLACK_NS for when in earlier)
