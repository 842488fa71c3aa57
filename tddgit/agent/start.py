"""Where a green or refactor run starts: the lineage says whether it may, and what it is for.

A green's targets are the open red's tests, found along the lineage as ``tddgit green``
finds them (the red commits' evidence); the model is shown them with their lights now,
and the red's test files. A refactor starts from a green (or a refactor). Either refusal
happens before any request: ``green-without-red``, ``refactor-without-green``, ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tddgit.config import Config
from tddgit.errors import Refused
from tddgit.gates import FIXES
from tddgit.git import Repo
from tddgit.lineage import allowed, state_at
from tddgit.notes import evidence_for_commit
from tddgit.staged import read_blob, tree_of

if TYPE_CHECKING:
    from tddgit.evidence import Evidence
    from tddgit.projects import Scope


@dataclass(frozen=True)
class Start:
    targets: tuple[str, ...] = ()  # the open red's tests (green)
    test_files: tuple[tuple[str, str], ...] = ()  # the red's test files (path, text)
    last_step: str = ""  # the commit the step follows (refactor)
    base: str | None = None  # the commit the cycle started from (the parent of its red)
    spec: str | None = None  # the spec the cycle's red was generated from (its evidence's)


def preflight(repo: Repo, phase: str, scope: Scope | None = None) -> Start:
    """What the run starts from; :class:`Refused` when the lineage forbids ``phase``. With
    a ``scope`` (one project of several), that project's lineage and red evidence."""
    from tddgit.gates.plan import TRANSITION_TEXT

    head = repo.head()
    state = state_at(repo, head, scope)
    rule = allowed(state, phase)
    if rule is not None:
        raise Refused(f"{rule}: {TRANSITION_TEXT[rule]}", FIXES.get(rule))
    red = cycle_red(repo, head, scope)
    base = _parent(repo, red) if red else None
    if phase != "green":
        ev = evidence_for_commit(repo, red, tree_of(repo, red), "red", scope) if red else None
        return Start(last_step=state.phase_commit or "", base=base, spec=_spec_of(ev))
    targets: list[str] = []
    files: dict[str, str] = {}
    spec = None
    head_tree = tree_of(repo, head) if state.open_reds else ""
    for red in state.open_reds:
        ev = evidence_for_commit(repo, red, tree_of(repo, red), "red", scope)
        if ev is None:
            raise Refused(
                f"missing-evidence: red commit {red[:10]} has no tddgit evidence, so its "
                "target tests are unknown",
                FIXES.get("missing-evidence"),
            )
        spec = spec or _spec_of(ev)
        targets += [t for t in ev.target_ids if t not in targets]
        for path in sorted({t.split("::", 1)[0] for t in ev.target_ids}):
            data = read_blob(repo, head_tree, path)
            if data is not None:
                files[path] = data.decode("utf-8", "replace")
    return Start(tuple(targets), tuple(files.items()), base=base, spec=spec)


def _spec_of(ev: Evidence | None) -> str | None:
    """The spec a model-driven red was generated from (``agent.spec``, repo-relative)."""
    spec = (ev.agent or {}).get("spec") if ev is not None else None
    return spec if isinstance(spec, str) and spec else None


def cycle_base(repo: Repo, head: str | None, scope: Scope | None = None) -> str | None:
    """The commit the open cycle started from: the first parent of its first red (green:
    the open red's; refactor: the red its green closed). What the project looked like
    there is what every phase of the cycle is told, byte for byte, so the phases share a
    cached prefix (a red's new test file does not become the green's style example). None
    when the lineage names no red (or the red is a root commit)."""
    red = cycle_red(repo, head, scope)
    return _parent(repo, red) if red else None


def cycle_red(repo: Repo, head: str | None, scope: Scope | None = None) -> str | None:
    """The open cycle's first red commit (see :func:`cycle_base`); None when none."""
    commit = head
    for _ in range(64):  # a refactor after refactors: each step back is one lineage read
        if commit is None:
            return None
        state = state_at(repo, commit, scope)
        if state.open_reds:
            return state.open_reds[0]
        if state.phase_commit is None:
            return None
        commit = _parent(repo, state.phase_commit)  # the state before that step
    return None


def _parent(repo: Repo, commit: str) -> str | None:
    proc = repo.run("rev-parse", "-q", "--verify", f"{commit}^1", check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def green_message(repo: Repo, config: Config, start: Start) -> str:
    """The targets with their lights, causes and messages now, and the red's test files."""
    from tddgit.runners import run_work_tree

    result = run_work_tree(repo, config, start.targets)
    by_id = {t.id: t for t in result.tests}
    # targets that fail alike (a red's usually do: the code does not exist yet) are named
    # together, their light and message said once
    alike: dict[str, list[str]] = {}
    for target in start.targets:
        t = by_id.get(target)
        if t is None:
            alike.setdefault("did not run", []).append(target)
            continue
        cause = f", cause: {t.cause.value}" if t.cause else ""
        how = f"{t.light.value} ({t.outcome.value}{cause}) {t.message[:500]}"
        alike.setdefault(how, []).append(t.id)
    lines = ["The target tests of the open red step, as they run now:"]
    lines += [f"- {', '.join(ids)}: {how}" for how, ids in alike.items()]
    for path, text in start.test_files:
        lines += ["", f"Test file {path} (read-only: the specification):", "```", text, "```"]
    return "\n".join(lines)


def refactor_message(repo: Repo, start: Start, side: str) -> str:
    shown = start.last_step[:10] or "HEAD"
    changed = ""
    if start.last_step:
        out = repo.git("show", "--name-only", "--format=", start.last_step)
        changed = ", ".join(p for p in out.split("\n") if p)
    text = f"The last step is {shown}" + (f" (it changed {changed})" if changed else "") + "."
    # the rest (every test keeps passing, nothing worth improving) is the task's
    return f"{text} Refactor the {side} side only."
