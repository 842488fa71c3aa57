"""The phase state of a lineage: declared ``GSD-Phase`` trailers along first parents.

The state after a commit is a function of its first parent's state and the commit, so
branches and merges are followed. States are cached per commit id in the git dir, so
asking for HEAD's state walks back only to the nearest cached ancestor (usually one
commit), never the whole history.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Generator
from dataclasses import dataclass, replace
from pathlib import Path

from tddgit import faults
from tddgit.git import Repo
from tddgit.reverts import reverted_commit

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.projects.scope import Scope

PHASES = ("red", "green", "refactor")
TRAILER = "GSD-Phase"
_VERSION = 2  # 2: reverts understood (states cached before that are read again)


@dataclass(frozen=True)
class State:
    """Where the cycle stands after a commit."""

    phase: str | None = None  # the last declared phase on the lineage
    phase_commit: str | None = None  # the commit that declared it
    open_reds: tuple[str, ...] = ()  # red commits not yet followed by a green (oldest first)
    cycles: int = 0  # reds seen on the lineage

    def to_json(self) -> dict[str, object]:
        return {
            "v": _VERSION,
            "phase": self.phase,
            "phase_commit": self.phase_commit,
            "open_reds": list(self.open_reds),
            "cycles": self.cycles,
        }


def step(state: State, commit: str, declared: str | None) -> State:
    """The state after ``commit`` given its first parent's state and its declared phase."""
    if declared not in PHASES:
        return state
    if declared == "red":
        return State("red", commit, (*state.open_reds, commit), state.cycles + 1)
    if declared == "green":
        return replace(state, phase="green", phase_commit=commit, open_reds=())
    return replace(state, phase="refactor", phase_commit=commit)


def allowed(state: State, phase: str) -> str | None:
    """None when ``phase`` may follow ``state``; else the rule id that forbids it."""
    if phase == "green" and not state.open_reds:
        return "green-without-red"
    if phase == "refactor" and state.phase not in ("green", "refactor"):
        return "refactor-while-red" if state.open_reds else "refactor-without-green"
    return None


def _cache_file(repo: Repo, commit: str, scope: Scope | None = None) -> Path:
    base = repo.tddgit_dir / "lineage"
    if scope is not None:
        base = base / f"p-{scope.key}"  # one project's lineage: its own states
    return base / commit[:2] / commit[2:]


def _load(repo: Repo, commit: str, scope: Scope | None = None) -> State | None:
    try:
        raw = json.loads(_cache_file(repo, commit, scope).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("v") != _VERSION:
        return None
    try:
        return State(
            phase=raw["phase"],
            phase_commit=raw["phase_commit"],
            open_reds=tuple(raw["open_reds"]),
            cycles=int(raw["cycles"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _store(repo: Repo, commit: str, state: State, scope: Scope | None = None) -> None:
    path = _cache_file(repo, commit, scope)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # lazily: the hook fast path only reads states

        fd, tmp = tempfile.mkstemp(prefix=f".tmp-{os.getpid()}-", dir=path.parent)
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(state.to_json(), fh)
            faults.point("lineage.write")
            os.replace(tmp, path)  # readers see no state or the whole one
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass  # a cache: failing to write it only costs speed


def state_at(repo: Repo, commit: str | None, scope: Scope | None = None) -> State:
    """The lineage state after ``commit`` (the empty state for an unborn branch). With a
    ``scope`` (one project of several), only the steps that touched that project count:
    a backend red is never closed by a frontend green."""
    if commit is None:
        return State()
    cached = _load(repo, commit, scope)
    if cached is not None:
        return cached
    # Walk first parents back to a cached state (or the root), streaming, then fold forward.
    chain: list[tuple[str, str | None, str | None]] = []
    base, base_sha = State(), None
    records = _first_parents(repo, commit, scope)
    try:
        for sha, declared, reverted in records:
            found = _load(repo, sha, scope) if chain else None
            if found is not None:
                base, base_sha = found, sha
                break
            chain.append((sha, declared, reverted))
    finally:
        records.close()
    state, prev = base, base_sha
    before: dict[str, State] = {}  # sha -> the state before it, for an immediate revert
    for sha, declared, reverted in reversed(chain):
        before[sha] = state
        if reverted and prev and prev.startswith(reverted):
            # an immediate revert (reverts.py): back to the state before the reverted step
            state = before[prev] if prev in before else _state_before(repo, prev, scope)
        else:
            state = step(state, sha, declared)
        prev = sha
    _store(repo, commit, state, scope)
    return state


def _state_before(repo: Repo, commit: str, scope: Scope | None) -> State:
    proc = repo.run("rev-parse", "-q", "--verify", f"{commit}^1", check=False)
    if proc.returncode != 0:
        return State()
    return state_at(repo, proc.stdout.decode().strip() or None, scope)


def _first_parents(
    repo: Repo, commit: str, scope: Scope | None = None
) -> Generator[tuple[str, str | None, str | None], None, None]:
    """(sha, declared phase, the commit it reverts) from ``commit`` back along first
    parents, one git process; with a ``scope``, a commit touching none of its paths
    declares nothing there."""
    header = f"%H%x01%(trailers:key={TRAILER},valueonly,separator=%x02)%x01%B"
    if scope is not None:
        yield from _scoped(repo, commit, scope, header)
        return
    args = ["git", "log", "--first-parent", "-z", f"--format={header}", commit]
    for rec in _records(repo, args, b"\0"):
        yield _record(rec)


def _scoped(
    repo: Repo, commit: str, scope: Scope, header: str
) -> Generator[tuple[str, str | None, str | None], None, None]:
    args = ["git", "log", "--first-parent", "--diff-merges=first-parent", "-z", "--name-only"]
    for rec in _records(repo, [*args, f"--format=%x1e{header}", commit], b"\x1e"):
        head, _, rest = rec.partition(b"\0")
        sha, declared, reverted = _record(head)
        files = rest.lstrip(b"\n").decode("utf-8", "surrogateescape").split("\0")
        mine = declared is not None and any(f and scope.owns(f) for f in files)
        yield sha, declared if mine else None, reverted


def _records(repo: Repo, args: list[str], sep: bytes) -> Generator[bytes, None, None]:
    """The non-empty records of one git process's output split at ``sep``, streamed (a long
    history is never held whole); the process is ended when the reader stops early."""
    proc = subprocess.Popen(args, cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stream = proc.stdout
    assert stream is not None
    try:
        buf = b""
        while True:
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            *done, buf = buf.split(sep)
            yield from (rec for rec in done if rec)
        if buf.strip():
            yield buf
    finally:
        stream.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _record(rec: bytes) -> tuple[str, str | None, str | None]:
    sha, _, rest = rec.decode("utf-8", "replace").partition("\x01")
    values, _, body = rest.partition("\x01")
    vals = [v.strip().lower() for v in values.split("\x02") if v.strip()]
    return sha.strip(), (vals[-1] if vals else None), reverted_commit(body)
