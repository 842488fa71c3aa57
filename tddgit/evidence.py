"""Evidence (PRODUCT.md §6): the gate's machine-readable record of what ran and why a step holds.

Kept in two places: a cache keyed by tree id inside the git dir (atomic writes, safe under
concurrent processes), so hooks can check a tree without re-running tests; and a git note
on the commit under ``refs/notes/tddgit``, which travels with push/fetch of that ref. This
module holds the record, its validation and the cache; the notes are in ``tddgit.notes``.

Evidence read back (notes above all: anyone can push one) is untrusted input: size-limited,
schema-validated, never executed.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tddgit import faults
from tddgit.git import Repo
from tddgit.model import Cause, Outcome, TestResult

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any

    from tddgit.projects.scope import Scope

# 2: a step of a repository of several projects records each touched project's evidence
# under `projects` (docs/evidence.md); notes of schema 1 are still read.
SCHEMA = "tddgit.evidence/2"
SCHEMAS = ("tddgit.evidence/1", SCHEMA)
MAX_BYTES = 4 * 1024 * 1024
PHASES = ("red", "green", "refactor")


class EvidenceError(ValueError):
    """Evidence that cannot be trusted: malformed, too large, or of the wrong schema."""


@dataclass(frozen=True)
class Evidence:
    """What a gate saw: the tree it judged, the run, each target's outcome (a git note)."""

    phase: str
    tree: str
    parent: str | None
    runner: str
    command: tuple[str, ...]
    started: float
    duration: float
    tddgit_version: str
    scope: str
    targets: tuple[TestResult, ...]
    suite: Mapping[str, int]
    test_ids: tuple[str, ...] = ()
    changes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    findings: tuple[Mapping[str, Any], ...] = ()
    coarse: bool = False
    # Outcomes of every test in scope that is not a target: green's "no regression" check
    # compares against the red commit's outcomes.
    others: tuple[TestResult, ...] = ()
    # A model-driven step's agent (provider, model, turns, tokens, session...): absent for a
    # person's step, so evidence written before it existed reads the same.
    agent: Mapping[str, Any] | None = None
    # A test-side refactor: the previous step's test ids it removed and the ids it added.
    removed: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    # A repository of several projects: each project the step touched -> its own record
    # (the fields above then hold all of them together).
    projects: Mapping[str, Evidence] = field(default_factory=dict)

    @property
    def target_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.targets)

    def of_project(self, scope: Scope | None) -> Evidence | None:
        """This step's record for one project (``scope`` None: the whole repository). A
        record without per-project parts (schema 1, a one-project repository) is cut down
        to the ids and paths the project owns; None when the step did not touch it."""
        if scope is None:
            return self
        if self.projects:
            return self.projects.get(scope.dir)
        from dataclasses import replace

        def ids(items: tuple[TestResult, ...]) -> tuple[TestResult, ...]:
            return tuple(t for t in items if scope.owns(t.id))

        return replace(
            self,
            targets=ids(self.targets),
            others=ids(self.others),
            test_ids=scope.keep(self.test_ids),
            removed=scope.keep(self.removed),
            added=scope.keep(self.added),
            changes={k: scope.keep(v) for k, v in self.changes.items()},
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "phase": self.phase,
            "tree": self.tree,
            "parent": self.parent,
            "runner": self.runner,
            "command": list(self.command),
            "started": self.started,
            "duration": round(self.duration, 3),
            "tddgit_version": self.tddgit_version,
            "scope": self.scope,
            "targets": [t.to_json() for t in self.targets],
            "others": [t.to_json() for t in self.others],
            "suite": dict(self.suite),
            "test_ids": list(self.test_ids),
            "changes": {k: list(v) for k, v in self.changes.items()},
            "findings": [dict(f) for f in self.findings],
            "coarse": self.coarse,
            **({"removed": list(self.removed)} if self.removed else {}),
            **({"added": list(self.added)} if self.added else {}),
        }
        if self.agent is not None:
            data["agent"] = dict(self.agent)
        if self.projects:
            data["projects"] = {d: _part(ev) for d, ev in self.projects.items()}
        return data

    def dumps(self) -> str:
        text = json.dumps(self.to_json(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        # A file name that is not UTF-8 reaches us surrogate-escaped; `backslashreplace`
        # turns each lone surrogate into its JSON escape (``\udce9``), which parses back
        # to the same path, so the record stays valid UTF-8 and exact.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


_SHARED = ("schema", "phase", "tree", "parent", "tddgit_version", "agent")


def _part(ev: Evidence) -> dict[str, Any]:
    """One project's record inside a step's: the fields the step does not share."""
    return {k: v for k, v in ev.to_json().items() if k not in _SHARED}


def _req(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in data:
        raise EvidenceError(f"missing field `{key}`")
    value = data[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise EvidenceError(f"field `{key}` has the wrong type")
    return value


def _sha(value: Any, key: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if (
        not isinstance(value, str)
        or not (4 <= len(value) <= 64)
        or not all(c in "0123456789abcdef" for c in value)
    ):
        raise EvidenceError(f"field `{key}` is not an object id")
    return value


def _results(items: Any, key: str) -> tuple[TestResult, ...]:
    if not isinstance(items, list):
        raise EvidenceError(f"field `{key}` must be a list")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise EvidenceError(f"an entry of `{key}` is not a test outcome")
        try:
            out.append(
                TestResult(
                    id=item["id"],
                    outcome=Outcome(item.get("outcome")),
                    cause=Cause(item["cause"]) if item.get("cause") else None,
                    message=str(item.get("message", ""))[:2000],
                )
            )
        except ValueError as exc:
            raise EvidenceError(f"an entry of `{key}` has an unknown outcome or cause") from exc
    return tuple(out)


def parse_evidence(data: bytes | str) -> Evidence:
    """Parse and validate untrusted evidence JSON."""
    if len(data) > MAX_BYTES:
        raise EvidenceError(f"evidence is larger than {MAX_BYTES // (1024 * 1024)} MiB")
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise EvidenceError("evidence is not valid JSON") from exc
    if not isinstance(raw, dict):
        raise EvidenceError("evidence is not a JSON object")
    if raw.get("schema") not in SCHEMAS:
        raise EvidenceError(f"unknown evidence schema {str(raw.get('schema'))[:40]!r}")
    return _evidence(raw, nested=True)


def _evidence(raw: dict[str, Any], *, nested: bool) -> Evidence:
    phase = _req(raw, "phase", str)
    if phase not in PHASES:
        raise EvidenceError(f"unknown phase {phase[:20]!r}")
    suite = raw.get("suite", {})
    if not isinstance(suite, dict) or not all(
        isinstance(k, str) and isinstance(v, int) for k, v in suite.items()
    ):
        raise EvidenceError("field `suite` must map names to counts")
    changes = raw.get("changes", {})
    if not isinstance(changes, dict) or not all(
        isinstance(v, list) and all(isinstance(p, str) for p in v) for v in changes.values()
    ):
        raise EvidenceError("field `changes` must map kinds to lists of paths")
    test_ids = raw.get("test_ids", [])
    if not isinstance(test_ids, list) or not all(isinstance(t, str) for t in test_ids):
        raise EvidenceError("field `test_ids` must be a list of strings")
    moved = {key: raw.get(key, []) for key in ("removed", "added")}
    for key, ids in moved.items():
        if not isinstance(ids, list) or not all(isinstance(t, str) for t in ids):
            raise EvidenceError(f"field `{key}` must be a list of strings")
    command = raw.get("command", [])
    if not isinstance(command, list):
        raise EvidenceError("field `command` must be a list")
    findings = raw.get("findings", [])
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        raise EvidenceError("field `findings` must be a list of objects")
    started = raw.get("started", 0.0)
    duration = raw.get("duration", 0.0)
    if not isinstance(started, (int, float)) or not isinstance(duration, (int, float)):
        raise EvidenceError("fields `started`/`duration` must be numbers")
    agent = raw.get("agent")
    if agent is not None and not isinstance(agent, dict):
        raise EvidenceError("field `agent` must be an object")
    tree = _sha(raw.get("tree"), "tree")
    assert tree is not None
    parts = raw.get("projects", {})
    if not isinstance(parts, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) for k, v in parts.items()
    ):
        raise EvidenceError("field `projects` must map directories to records")
    if parts and not nested:
        raise EvidenceError("a project's record holds no `projects`")
    shared = {k: raw[k] for k in _SHARED if k in raw}
    projects = {d: _evidence({**part, **shared}, nested=False) for d, part in parts.items()}
    return Evidence(
        phase=phase,
        tree=tree,
        parent=_sha(raw.get("parent"), "parent", optional=True),
        runner=str(raw.get("runner", "")),
        command=tuple(str(c) for c in command),
        started=float(started),
        duration=float(duration),
        tddgit_version=str(raw.get("tddgit_version", "")),
        scope=str(raw.get("scope", "")),
        targets=_results(raw.get("targets", []), "targets"),
        others=_results(raw.get("others", []), "others"),
        suite=dict(suite),
        test_ids=tuple(test_ids),
        changes={str(k): tuple(v) for k, v in changes.items()},
        findings=tuple(findings),
        coarse=bool(raw.get("coarse", False)),
        agent=agent,
        removed=tuple(moved["removed"]),
        added=tuple(moved["added"]),
        projects=projects,
    )


# --- the tree-keyed cache -------------------------------------------------------------


def _cache_dir(repo: Repo) -> Path:
    return repo.tddgit_dir / "evidence"


def _cache_path(repo: Repo, tree: str, phase: str) -> Path:
    return _cache_dir(repo) / tree[:2] / f"{tree[2:]}.{phase}.json"


def cache_put(repo: Repo, evidence: Evidence) -> Path:
    """Store evidence for its tree atomically: write a temp file, rename it over.

    No ``fsync``: the rename is atomic for every reader and against a kill, and what an
    operating-system crash could cost is a cache entry (ignored unless it validates; the
    hooks then run the gate again). The sync took 1-8 ms between the test command's exit
    and the verdict, on the gate's critical path (issue 29)."""
    path = _cache_path(repo, evidence.tree, evidence.phase)
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # lazily: hooks that only read evidence never need it

    fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{os.getpid()}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(evidence.dumps())
        faults.point("evidence.write")
        os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    sweep_stale_temps(path.parent)
    return path


TMP_PREFIX = ".tmp-"


def sweep_stale_temps(directory: Path) -> None:
    """Remove temp files a killed writer left (``.tmp-<pid>-*`` of a dead pid). Readers
    never look at them; this only keeps the git dir tidy after a kill -9."""
    from tddgit.snapshot import pid_alive

    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if not entry.name.startswith(TMP_PREFIX):
                continue
            pid = entry.name[len(TMP_PREFIX) :].split("-", 1)[0]
            if pid.isdigit() and not pid_alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def cache_get(repo: Repo, tree: str, phase: str | None = None) -> Evidence | None:
    """Evidence cached for ``tree`` (for ``phase``, or the newest of any phase)."""
    phases = (phase,) if phase else PHASES
    best: Evidence | None = None
    for ph in phases:
        path = _cache_path(repo, tree, ph)
        try:
            with path.open("rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            continue
        try:
            ev = parse_evidence(data)
        except EvidenceError:
            continue  # half-written or tampered: never valid
        if ev.tree != tree or ev.phase != ph:
            continue
        if best is None or ev.started > best.started:
            best = ev
    return best


def cached_keys(repo: Repo) -> set[tuple[str, str]]:
    """(tree, phase) of every evidence in the cache, from directory listings only: a long
    history asks for the few trees there are instead of opening a file per commit."""
    keys: set[tuple[str, str]] = set()
    with contextlib.suppress(OSError):
        for sub in os.scandir(_cache_dir(repo)):
            if len(sub.name) != 2 or not sub.is_dir():
                continue
            with contextlib.suppress(OSError):
                for entry in os.scandir(sub.path):
                    rest, _, phase = entry.name.removesuffix(".json").rpartition(".")
                    if rest and phase in PHASES and entry.name.endswith(".json"):
                        keys.add((sub.name + rest, phase))
    return keys


def cache_discard(repo: Repo, tree: str, phase: str) -> None:
    with contextlib.suppress(OSError):
        _cache_path(repo, tree, phase).unlink()
