"""The run: the configured runner on exactly the staged tree, in place or on a snapshot."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tddgit.config import Config
from tddgit.gates.records import Plan
from tddgit.git import Repo
from tddgit.model import RunResult
from tddgit.paths import Classifier, Kind
from tddgit.staged import StagedChange, dirty_paths

# Files that are "other" by kind but still steer a test run: a dirty one forces a snapshot.
_RUN_CONFIG_FILES = frozenset(
    {"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "conftest.py", "package.json"}
)


def _needs_snapshot(repo: Repo, classifier: Classifier) -> list[str]:
    """Dirty paths that could change a run in the work tree (empty: run in place)."""
    risky = []
    for path in dirty_paths(repo):
        name = path.rsplit("/", 1)[-1]
        if classifier.kind(path) is not Kind.OTHER or name in _RUN_CONFIG_FILES:
            risky.append(path)
    return risky


@contextmanager
def _run_root(repo: Repo, tree: str, use_snapshot: bool) -> Iterator[tuple[Path, dict[str, str]]]:
    if not use_snapshot:
        yield repo.root, {}
        return
    from tddgit.snapshot import import_paths, snapshot

    with snapshot(repo, tree) as root:
        paths = import_paths(root)
        if os.environ.get("PYTHONPATH"):
            paths.append(os.environ["PYTHONPATH"])
        yield root, {"PYTHONPATH": os.pathsep.join(paths)}


def _selection(config: Config, phase: str, plan: Plan, change: StagedChange) -> tuple[str, ...]:
    scope = str(config.get(f"{phase}.scope"))
    if scope == "all":
        return ()
    chosen = list(plan.targets)
    if scope == "changed":
        for path in change.paths(Kind.TEST, include_deleted=False):
            name = path.rsplit("/", 1)[-1]
            if name not in ("conftest.py", "__init__.py") and path not in chosen:
                chosen.append(path)
    # A file in the selection already covers its tests: keep pytest from running them twice.
    files = {c for c in chosen if "::" not in c}
    return tuple(c for c in chosen if "::" not in c or c.split("::", 1)[0] not in files)


def execute(
    repo: Repo,
    config: Config,
    phase: str,
    plan: Plan,
    change: StagedChange,
    on_progress: Callable[[str], None] | None,
    cover: Sequence[str] = (),
) -> tuple[RunResult, list[str]]:
    """Run the tests on the staged tree; ``cover``: repo-relative files whose line coverage
    the run should measure (the same paths exist in a snapshot)."""
    from tddgit.runners import RunRequest, get_runner

    classifier = Classifier.from_config(config)
    risky = _needs_snapshot(repo, classifier)
    notes = []
    if risky:
        shown = ", ".join(risky[:5]) + (" …" if len(risky) > 5 else "")
        notes.append(f"ran on a snapshot of the index (unstaged or untracked: {shown})")
    runner = get_runner(config, repo.root)
    selection = _selection(config, phase, plan, change)
    if selection and not runner.selects_tests:
        notes.append(f"the {runner.name} runner runs its whole command; results filtered")
    with _run_root(repo, change.tree, bool(risky)) as (root, env_extra):
        env = {**os.environ, **env_extra} if env_extra else None
        request = RunRequest(
            root=root,
            tests=selection if runner.selects_tests else (),
            timeout=config.timeout,
            env=env,
            project_root=repo.root,
            bytecode_cache=None if risky else repo.tddgit_dir / "pycache",
            cover=tuple(cover),
        )
        if on_progress:
            on_progress(f"{phase} gate: running {runner.name} on tree {change.tree[:10]}")
        result = runner.run(request)
    return result, notes
