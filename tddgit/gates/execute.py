"""The run: the configured runner on exactly the staged tree, in place or on a snapshot."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tddgit.config import Config
from tddgit.gates.records import Plan
from tddgit.git import Repo
from tddgit.model import RunResult
from tddgit.paths import Classifier, Kind, matches
from tddgit.staged import DirtyScan, StagedChange

# Files that are "other" by kind but still steer a test run: a dirty one forces a snapshot.
_RUN_CONFIG_FILES = frozenset(
    {
        "pyproject.toml",
        "setup.cfg",
        "tox.ini",
        "pytest.ini",
        "conftest.py",
        "package.json",
        "go.mod",
        "go.sum",
        "Cargo.toml",
        "nextest.toml",
    }
)


def _needs_snapshot(classifier: Classifier, dirty: DirtyScan) -> list[str]:
    """Dirty paths that could change a run in the work tree (empty: run in place)."""
    risky = []
    for path in dirty.paths():
        name = path.rsplit("/", 1)[-1]
        if classifier.kind(path) is not Kind.OTHER or name in _RUN_CONFIG_FILES:
            risky.append(path)
    return risky


@contextmanager
def _run_root(repo: Repo, tree: str, use_snapshot: bool) -> Iterator[tuple[Path, dict[str, str]]]:
    """The directory to run in and the variables to add: the same import path rules in
    place and on a snapshot (``src/`` and the root first), so the same staged tree gets
    the same verdict wherever it runs."""
    from tddgit.importpaths import import_env

    if not use_snapshot:
        yield repo.root, import_env(repo.root)
        return
    from tddgit.snapshot import snapshot

    with snapshot(repo, tree) as root:
        _link_installed_packages(repo.root, root)
        yield root, import_env(root)


def _link_installed_packages(work_tree: Path, snapshot_root: Path) -> None:
    """The snapshot holds only tracked files: a JS project's ``node_modules`` (never
    tracked) is linked from the work tree, so ``./node_modules/.bin/jest`` and the
    project's imports resolve as they do there. Removing the snapshot removes the link,
    not the packages."""
    installed = work_tree / "node_modules"
    link = snapshot_root / "node_modules"
    if installed.is_dir() and not os.path.lexists(link):
        os.symlink(installed, link)


def early_selection(
    config: Config,
    phase: str,
    change: StagedChange,
    tests: Sequence[str],
    *,
    everything: bool = False,
) -> tuple[str, ...] | None:
    """The tests to run when they are known before the plan's checks, else None.

    ``all`` (or ``everything``: a red that changes test configuration) runs everything;
    a red with scope ``changed`` runs the staged test files (its targets, found later by
    AST, lie inside them) plus any tests named."""
    scope = str(config.get(f"{phase}.scope"))
    if scope == "all" or everything:
        return ()
    if phase == "red" and scope == "changed":
        chosen = _selection(config, phase, Plan(targets=list(tests)), change)
        return chosen or None  # nothing to select: the plan refuses; don't run everything
    return None


class BackgroundRun:
    """The test run, started in a thread while the gate's checks before the run go on, so
    their cost hides behind the tests; cancelled (its process group killed) when a check
    refuses. ``result`` re-raises what the run raised."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pgid: int | None = None
        self._cancelled = False
        self._thread: threading.Thread | None = None
        self._outcome: tuple[RunResult, list[str]] | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._spawned = threading.Event()

    def start(self, run: Callable[[Callable[[int], None]], tuple[RunResult, list[str]]]) -> None:
        def target() -> None:
            try:
                self._outcome = run(self._started)
            except BaseException as exc:  # handed to the caller by result()
                self._error = exc
            finally:
                with self._lock:
                    self._pgid = None  # reaped: never signal a reused pgid
                self._done.set()
                self._spawned.set()

        self._thread = threading.Thread(target=target, name="tddgit-gate-run", daemon=True)
        self._thread.start()

    def _join(self) -> None:
        # Wait in short slices: a process-directed SIGINT/SIGTERM may be delivered to the
        # run's thread, and a main thread blocked in one long wait would never run the
        # Python handler (Ctrl-C would wait for the whole test run); a finished run still
        # returns at once. An Event, not Thread.join(): on CPython 3.11 a join()
        # interrupted by KeyboardInterrupt marks the still-running thread as stopped
        # (bpo-45274's handler releases its state lock), and the cleanup wait would be
        # skipped.
        if self._thread is None:
            return
        while not self._done.wait(0.05):
            pass

    @property
    def started(self) -> bool:
        return self._thread is not None

    def _started(self, pgid: int) -> None:
        with self._lock:
            self._pgid = pgid
            cancelled = self._cancelled
        self._spawned.set()
        if cancelled:
            _kill_group(pgid)

    def wait_spawned(self) -> None:
        """Until the test command has started (or the run ended without one). The caller's
        own work holds the GIL the run's thread needs to get there: the test command's
        start is the critical path, the checks that run beside it are not."""
        if self._thread is None:
            return
        while not self._spawned.wait(0.05):
            pass

    def cancel(self) -> None:
        """Kill the run (if any) and wait until it has cleaned up (snapshot removed)."""
        with self._lock:
            self._cancelled = True
            pgid = self._pgid
        if pgid is not None:
            _kill_group(pgid)
        self._join()

    def result(self) -> tuple[RunResult, list[str]]:
        assert self._thread is not None
        self._join()
        if self._error is not None:
            raise self._error
        assert self._outcome is not None
        return self._outcome


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _selection(config: Config, phase: str, plan: Plan, change: StagedChange) -> tuple[str, ...]:
    scope = str(config.get(f"{phase}.scope"))
    if scope == "all" or (phase == "red" and plan.test_config):
        return ()
    chosen = list(plan.targets)
    if scope == "changed":
        code = config.globs("source_globs")
        for path in change.paths(Kind.TEST, include_deleted=False):
            name = path.rsplit("/", 1)[-1]
            if name in ("conftest.py", "__init__.py") or path in chosen:
                continue
            if matches(path, code):  # test data under tests/ holds nothing to run
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
    *,
    selection: tuple[str, ...] | None = None,
    on_start: Callable[[int], None] | None = None,
    dirty: DirtyScan,
) -> tuple[RunResult, list[str]]:
    """Run the tests on the staged tree; ``cover``: repo-relative files whose line coverage
    the run should measure (the same paths exist in a snapshot). ``selection`` overrides
    the one derived from the plan (an early start knows it before the plan is done)."""
    from tddgit.runners import RunRequest, get_runner

    classifier = Classifier.from_config(config)
    risky = _needs_snapshot(classifier, dirty)
    notes = []
    if risky:
        shown = ", ".join(risky[:5]) + (" …" if len(risky) > 5 else "")
        notes.append(f"ran on a snapshot of the index (unstaged or untracked: {shown})")
    runner = get_runner(config, repo.root / config.project)
    if selection is None:
        selection = _selection(config, phase, plan, change)
    if selection and not runner.selects_tests:
        notes.append(f"the {runner.name} runner runs its whole command; results filtered")
    with _run_root(repo, change.tree, bool(risky)) as (root, env_extra):
        env = {**os.environ, **env_extra} if env_extra else None
        request = RunRequest(
            root=root,
            subdir=config.project,
            tests=selection if runner.selects_tests else (),
            timeout=config.timeout,
            env=env,
            project_root=repo.root,
            bytecode_cache=None if risky else repo.tddgit_dir / "pycache",
            cover=tuple(cover),
            on_start=on_start,
            on_tests=_so_far(on_progress, f"{phase} gate: running {runner.name}"),
        )
        if on_progress:
            on_progress(f"{phase} gate: running {runner.name} on tree {change.tree[:10]}")
        result = runner.run(request)
    return result, notes


def _so_far(
    on_progress: Callable[[str], None] | None, doing: str
) -> Callable[[int, int], None] | None:
    """The progress line's counts of a running test suite: tests done, failed so far."""
    if on_progress is None:
        return None
    show = on_progress

    def tests(done: int, failed: int) -> None:
        show(f"{doing}: {done} test{'' if done == 1 else 's'} done, {failed} failed")

    return tests


def collect_at(
    repo: Repo, config: Config, commit: str | None, files: Sequence[str] | None
) -> tuple[str, ...] | None:
    """The test ids the configured runner collects in ``files`` (None: everything its
    configuration collects) at ``commit`` (on a snapshot of its tree; nothing is run), or
    None when it cannot tell."""
    if commit is None:
        return ()
    from tddgit.importpaths import import_env
    from tddgit.runners import RunRequest, collect, get_runner
    from tddgit.snapshot import snapshot
    from tddgit.staged import tree_of

    runner = get_runner(config, repo.root / config.project)
    if getattr(runner, "collect", None) is None:
        return None
    with snapshot(repo, tree_of(repo, commit)) as root:
        present = tuple(f for f in files if (root / f).exists()) if files is not None else ()
        if files is not None and not present:
            return ()
        request = RunRequest(
            root=root,
            tests=present,
            subdir=config.project,
            timeout=config.timeout,
            env={**os.environ, **import_env(root)},
            project_root=repo.root,
        )
        return collect(runner, request)
