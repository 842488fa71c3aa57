"""Test runners behind one interface: ``pytest`` (probe plugin), ``junit`` (XML reports),
``go`` (``go test -json``), ``rust`` (cargo's libtest JSON, or nextest's JUnit),
``command`` (exit code only). ``get_runner`` picks the configured or detected one."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tddgit.config import Config
from tddgit.model import RunResult

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Protocol

    from tddgit.git import Repo

    class Runner(Protocol):
        name: str
        # True when the runner can run a subset of tests by id (pytest); junit/command run
        # their whole command and results are filtered afterwards.
        selects_tests: bool

        def run(self, request: RunRequest) -> RunResult: ...


@dataclass(frozen=True)
class RunRequest:
    """What to run: in which directory (the repo root or a snapshot of the index), which
    tests (runner-native ids or test file paths; empty = all), and for how long.

    ``env`` holds variables added on top of the current environment."""

    root: Path
    tests: tuple[str, ...] = ()
    # The project's directory inside ``root`` (key ``root``, tddgit.project): the runner
    # works there; ``tests`` and the results' ids stay relative to ``root``.
    subdir: str = ""
    timeout: float = 300.0
    env: Mapping[str, str] | None = None
    # The repo root of the user's work tree (for `python = auto` discovery of .venv etc.);
    # differs from ``root`` when running on a snapshot.
    project_root: Path | None = None
    # A directory tddgit owns (inside the git dir) where the runner may cache compiled
    # bytecode, so repeated runs stay as fast as plain pytest without writing __pycache__
    # into the user's tree. None: write no bytecode at all (e.g. on a throwaway snapshot).
    bytecode_cache: Path | None = None
    # Receives the test process group id when the run starts, so the caller can cancel it.
    on_start: Callable[[int], None] | None = None
    # Files (relative to ``root``) whose line coverage the run should measure, for the green
    # gate's yagni check. Runners that cannot measure leave ``RunResult.coverage`` None.
    cover: tuple[str, ...] = ()
    # Told (tests done, tests failed) as the run goes, by runners that know (pytest).
    on_tests: Callable[[int, int], None] | None = None

    def in_project(self) -> RunRequest:
        """The request with the project's directory as its root, for runners that run
        there and name tests relative to it; ``in_repo`` maps their result back."""
        if not self.subdir:
            return self
        import dataclasses

        from tddgit.projects.scope import to_project

        tests = tuple(to_project(t, self.subdir) for t in self.tests)
        return dataclasses.replace(self, root=self.root / self.subdir, subdir="", tests=tests)


def in_repo(result: RunResult, subdir: str) -> RunResult:
    """A result whose ids and files are relative to the project directory ``subdir``, with
    them relative to the repository: the one place a runner's own ids are mapped (docs/
    monorepo.md, "one way to write a test id")."""
    if not subdir:
        return result
    from tddgit.projects.scope import to_repo

    tests = tuple(
        replace(t, id=to_repo(t.id, subdir), file=to_repo(t.file, subdir) if t.file else t.file)
        for t in result.tests
    )
    coverage = result.coverage
    if coverage:  # which tests ran each line (the mutation check) are ids too
        coverage = {
            name: replace(
                cov,
                tests={
                    n: frozenset(to_repo(i, subdir) for i in ids) for n, ids in cov.tests.items()
                },
            )
            for name, cov in coverage.items()
        }
    tampered = tuple(  # "id: what happened", the id first
        f"{to_repo(tid, subdir)}: {rest}" if rest else line
        for line in result.tampered
        for tid, _, rest in [line.partition(": ")]
    )
    return replace(result, tests=tests, coverage=coverage, tampered=tampered)


def collect(runner: Runner, request: RunRequest) -> tuple[str, ...] | None:
    """The test ids ``runner`` would run for ``request`` without running them, or None when
    the runner cannot list them (it has no ``collect``) or the listing failed."""
    method = getattr(runner, "collect", None)
    if method is None:
        return None
    ids: tuple[str, ...] | None = method(request)
    return ids


def detect_runner(root: Path) -> str:
    """The runner a repo most likely uses, from its files (PRODUCT.md §3)."""
    from tddgit.runners.detect import detect

    return detect(root)


def get_runner(config: Config, root: Path) -> Runner:
    name = config.runner
    if name == "auto":
        name = detect_runner(root)
    if name == "pytest":
        from tddgit.runners.pytest import PytestRunner

        return PytestRunner(config)
    if name == "junit":
        from tddgit.runners.junit import JunitRunner

        return JunitRunner(config)
    if name == "go":
        from tddgit.runners.go import GoRunner

        return GoRunner(config)
    if name == "rust":
        from tddgit.runners.rust import RustRunner

        return RustRunner(config)
    from tddgit.runners.command import CommandRunner

    return CommandRunner(config)


def run_work_tree(
    repo: Repo, config: Config, tests: Sequence[str], runner: Runner | None = None
) -> RunResult:
    """Run ``tests`` (all when empty) on the work tree as it is (``tddgit run``, the model's
    ``run_tests``); a runner that cannot select runs the whole suite, filtered after."""
    runner = runner or get_runner(config, repo.root / config.project)
    wanted = tuple(tests)
    request = RunRequest(
        root=repo.root,
        subdir=config.project,
        tests=wanted if runner.selects_tests else (),
        timeout=config.timeout,
        project_root=repo.root,
        bytecode_cache=repo.tddgit_dir / "pycache",
    )
    result = runner.run(request)
    return select(result, wanted) if wanted and not runner.selects_tests else result


def select(result: RunResult, tests: Sequence[str]) -> RunResult:
    """Keep only the results whose id is one of ``tests`` or lies in one of those files."""
    if not tests:
        return result
    wanted = set(tests)

    def keep(test_id: str, file: str | None) -> bool:
        if test_id in wanted or (file is not None and file in wanted):
            return True
        return any(test_id.startswith(w + "::") for w in wanted)

    kept = tuple(t for t in result.tests if keep(t.id, t.file))
    return replace(result, tests=kept)
