"""The pytest runner: the project's own pytest in a subprocess, observed by the probe plugin.

pytest runs with ``-p tddgit_probe`` (``runners/_probe`` first on PYTHONPATH), which writes
every collection and test report as JSON lines to a temporary file; ``probelog`` reads
those records back, ``pyresults`` turns them into outcomes and ``pycauses`` names the
causes. Nothing is read from pytest's human output except the one-line diagnostics shown
in notes.

Selection: pytest refuses the whole run when one command-line node id matches nothing,
so the runner passes the *files* of the requested ids and the probe deselects everything
else, reporting the ids that matched nothing (they become "not collected" entries).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tddgit.config import Config
from tddgit.early import claim, pending
from tddgit.errors import RunnerError
from tddgit.model import RunResult
from tddgit.projects.scope import to_project
from tddgit.pytestcmd import (
    PROBE_PLUGIN,
    auto_python,
    pytest_argv,
    run_argv,
    run_env,
    venv_python,
)
from tddgit.runners import RunRequest, in_repo
from tddgit.runners.process import ProcResult, active_jail, run_command

if TYPE_CHECKING:
    from tddgit.runners.probelog import ProbeLog

# The probe's records and the cause rules (tddgit.runners.probelog, pyresults, pycauses)
# are imported only once the tests have started, while they run: the tests start that
# much sooner, and the verdict waits for no import after them (the gate overhead target
# is 1.3x plain pytest).

OUTPUT_TAIL_CHARS = 16 * 1024
NO_TESTS_COLLECTED = 5


def resolve_python(config: Config, project_root: Path) -> str:
    """The interpreter that runs the project's pytest (see ``find_python``)."""
    return find_python(config, project_root)[0]


def find_python(config: Config, project_root: Path) -> tuple[str, str]:
    """The interpreter that runs the project's pytest (config key ``python``), and where
    it came from (``tddgit config`` shows it).

    ``auto``: ``$VIRTUAL_ENV``, then ``<project_root>/.venv``, ``<project_root>/venv``, then
    the interpreter running tddgit. A path is taken relative to the project root; a bare
    name is looked up on PATH. The path is returned unresolved: resolving a venv's
    ``bin/python`` symlink would step out of the venv.
    """
    value = config.python
    if value != "auto":
        return _configured_python(value, project_root), "python in the configuration"
    return auto_python(project_root)


def _configured_python(value: str, project_root: Path) -> str:
    expanded = os.path.expanduser(value)
    # A name that exists in the project (`python = ".venv"`) is a path, as users mean it;
    # only a bare name that does not is looked up on PATH.
    if "/" in expanded or os.sep in expanded or (project_root / expanded).exists():
        p = Path(expanded)
        if not p.is_absolute():
            p = project_root / p
        if p.is_dir():
            found = venv_python(p)  # `python = .venv` is a natural thing to write
            if found is not None:
                return str(found)
        if p.is_file():
            return str(p)
        raise RunnerError(
            f"configured python {value!r} does not exist ({p})",
            "fix `python` in the configuration, or set it to auto",
        )
    found_on_path = shutil.which(expanded)
    if found_on_path is None:
        raise RunnerError(
            f"configured python {value!r} is not on PATH",
            "fix `python` in the configuration, or set it to auto",
        )
    return found_on_path


def _normalise(test: str, root: Path) -> str:
    """A requested id relative to ``root`` with ``/`` separators and no leading ``./``."""
    path, sep, rest = test.partition("::")
    p = Path(path)
    if p.is_absolute():
        try:
            path = p.relative_to(root).as_posix()
        except ValueError:
            return test
    path = path.replace(os.sep, "/")
    while path.startswith("./"):
        path = path[2:]
    path = path.rstrip("/") if len(path) > 1 else path
    return (path or ".") + sep + rest


def plan_args(root: Path, tests: Sequence[str]) -> tuple[list[str], list[str]]:
    """(paths to give pytest, requested ids whose path does not exist)."""
    paths: dict[str, None] = {}
    absent: list[str] = []
    for test in tests:
        path = test.split("::", 1)[0]
        if (root / path).exists():
            paths[path] = None
        else:
            absent.append(test)
    dirs = [p for p in paths if (root / p).is_dir()]

    def inside_other(p: str) -> bool:
        return any(d != p and (d == "." or p.startswith(d + "/")) for d in dirs)

    # pytest may collect a file twice when it is also inside a directory argument
    return [p for p in paths if not inside_other(p)], absent


class PytestRunner:
    """Runs pytest with the probe; every test gets an outcome, a cause and a light."""

    name = "pytest"
    selects_tests = True

    def __init__(self, config: Config) -> None:
        self.config = config

    def run(self, request: RunRequest) -> RunResult:
        """Run in the project's directory (``request.subdir``), ids relative to ``root``."""
        return in_repo(self._run(request), request.subdir)

    def _run(self, request: RunRequest) -> RunResult:
        top = request.root
        root = top / request.subdir if request.subdir else top
        project_root = request.project_root or top
        own = project_root / request.subdir
        mine = (".venv", "venv") if self.config.python == "auto" else (self.config.python,)
        if request.subdir and any((own / d).exists() for d in mine):
            project_root = own  # the project's own virtualenv, before the repository's
        python = resolve_python(self.config, project_root)
        requested = tuple(
            dict.fromkeys(to_project(_normalise(t, top), request.subdir) for t in request.tests)
        )
        args, absent = plan_args(root, requested)
        base = pytest_argv(python)
        if requested and not args:
            return self._nothing_to_run(base, root, requested, absent)
        early = pending(self.name) if active_jail() is None else None  # never unjailed
        if early is None:
            _drop_stale(request)  # the early start did before its spawn
        tmp = early if early is not None else Path(tempfile.mkdtemp(prefix="tddgit-pytest-"))
        try:
            argv, env, asked = self._prepare(
                request, tmp, root, project_root, python, requested, args
            )
            started = claim(argv, root, env, merge=True) if early is not None else None
            if early is not None and started is None:  # not this run: killed, files gone
                _drop_stale(request)
                tmp = Path(tempfile.mkdtemp(prefix="tddgit-pytest-"))
                argv, env, asked = self._prepare(
                    request, tmp, root, project_root, python, requested, args
                )
            out = Path(tmp, "probe.jsonl")
            from tddgit.runners.watch import follow_probe

            with follow_probe(out, request.on_tests):
                proc = run_command(
                    argv,
                    root,
                    timeout=request.timeout,
                    env=env,
                    on_start=_then_load_readers(request.on_start),
                    started=started.group if started is not None else None,
                )
            from tddgit.runners.probelog import read_probe

            log = read_probe(out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if _pytest_missing(proc, log):
            raise RunnerError(
                f"pytest is not installed for {python}",
                _install_advice(python, project_root),
            )
        from tddgit.runners.probelog import merge_coverage
        from tddgit.runners.pydeps import Project
        from tddgit.runners.pyresults import Ending, build_results, tampered

        ending = Ending(proc.exit_code, proc.timed_out, request.timeout, proc.output_tail)
        tests, notes = build_results(
            log, ending, project=Project(root), requested=requested, absent=absent
        )
        coverage, coverage_note = merge_coverage(log, asked) if asked else (None, "")
        return RunResult(
            runner=self.name,
            command=(*base, "-o", "cache_dir=<temporary>", *args),
            exit_code=proc.exit_code,
            tests=tests,
            duration=proc.duration,
            timed_out=proc.timed_out,
            output_tail=proc.output_tail[-OUTPUT_TAIL_CHARS:],
            notes=notes,
            coverage=coverage,
            coverage_note=coverage_note,
            tampered=tampered(log),
        )

    def collect(self, request: RunRequest) -> tuple[str, ...] | None:
        """The test ids pytest collects for ``request.tests`` (nothing is run), or None
        when collection did not finish."""
        root = request.root
        python = resolve_python(self.config, request.project_root or root)
        requested = tuple(dict.fromkeys(_normalise(t, root) for t in request.tests))
        args, _absent = plan_args(root, requested)
        if requested and not args:
            return ()
        _drop_stale(request)
        with tempfile.TemporaryDirectory(prefix="tddgit-pytest-") as tmp:
            out = Path(tmp, "probe.jsonl")
            out.touch()
            argv = [python, "-m", "pytest", "-p", PROBE_PLUGIN, "--collect-only", "-q"]
            argv += ["--continue-on-collection-errors", "-o", f"cache_dir={Path(tmp, 'c')}"]
            env = self._env(request, request.project_root or root, out, None)
            run_command([*argv, *args], root, timeout=request.timeout, env=env)
            from tddgit.runners.probelog import read_probe

            log = read_probe(out)
        return log.collected if log.collection_done else None

    def _prepare(
        self,
        request: RunRequest,
        tmp: Path,
        root: Path,
        project_root: Path,
        python: str,
        requested: tuple[str, ...],
        args: list[str],
    ) -> tuple[list[str], dict[str, str], dict[str, str]]:
        """The run's command line and environment, its files in ``tmp`` (the probe's
        report, the selection, the coverage request); and the files coverage is asked of."""
        out = Path(tmp, "probe.jsonl")
        out.touch()
        select = None
        if requested:
            select = Path(tmp, "select.json")
            select.write_text(json.dumps(list(requested)), encoding="utf-8")
        env = self._env(request, project_root, out, select)
        asked = _cover_request(request, Path(tmp, "cover.json"), env)
        return run_argv(python, tmp, args), env, asked

    def _env(
        self, request: RunRequest, project_root: Path, out: Path, select: Path | None
    ) -> dict[str, str]:
        return run_env(request.env, request.root, project_root, out, select, request.bytecode_cache)

    def _nothing_to_run(
        self, base: list[str], root: Path, requested: tuple[str, ...], absent: list[str]
    ) -> RunResult:
        from tddgit.runners.probelog import ProbeLog
        from tddgit.runners.pydeps import Project
        from tddgit.runners.pyresults import Ending, build_results

        log = ProbeLog(session={}, exitstatus=NO_TESTS_COLLECTED, collection_done=True)
        ending = Ending(NO_TESTS_COLLECTED)
        tests, notes = build_results(
            log, ending, project=Project(root), requested=requested, absent=absent
        )
        return RunResult(
            runner=self.name,
            command=tuple(base),
            exit_code=NO_TESTS_COLLECTED,
            tests=tests,
            notes=notes,
        )


def _drop_stale(request: RunRequest) -> None:
    """No stale ``.pyc`` judged: those of sources changed since (``tddgit.bytecache``)."""
    if request.bytecode_cache is not None:
        from tddgit.bytecache import drop_stale

        drop_stale(request.bytecode_cache, request.root)


def _then_load_readers(
    on_start: Callable[[int], None] | None,
) -> Callable[[int], None]:
    """``on_start``, then the imports of the probe's readers: done while the tests run,
    they cost no wait once pytest has exited."""

    def started(pgid: int) -> None:
        if on_start is not None:
            on_start(pgid)
        import tddgit.runners.pyresults  # noqa: F401  (probelog, pydeps, pycauses with it)

    return started


def _cover_request(request: RunRequest, path: Path, env: dict[str, str]) -> dict[str, str]:
    """Ask the probe to measure ``request.cover``; returns probe path -> requested name.

    Paths are resolved so they match the file names coverage.py records (it resolves
    symlinks), whichever directory the run happens in (the repo or a snapshot)."""
    asked = {os.path.realpath(request.root / rel): rel for rel in request.cover}
    if asked:
        path.write_text(json.dumps(sorted(asked)), encoding="utf-8")
        env["TDDGIT_PROBE_COVER"] = str(path)
    return asked


# A project that manages its environment with a tool adds pytest with that tool.
_PROJECT_TOOLS = (
    ("uv.lock", "uv add --dev pytest"),
    ("poetry.lock", "poetry add --group dev pytest"),
    ("pdm.lock", "pdm add --dev pytest"),
    ("Pipfile.lock", "pipenv install --dev pytest"),
)


def _install_advice(python: str, project_root: Path) -> str:
    """How to get pytest into ``python``'s environment, in a way that works there."""
    for lock, command in _PROJECT_TOOLS:
        if (project_root / lock).is_file():
            return f"run `{command}` (the project's tool), or set `python` in the configuration"
    if _has_pip(python):
        return f"run `{python} -m pip install pytest`, or set `python` in the configuration"
    return (
        f"it has no pip: run `{python} -m ensurepip`, then `{python} -m pip install pytest`; "
        "or add pytest with the tool that made the environment; or set `python` in the "
        "configuration"
    )


def _has_pip(python: str) -> bool:
    try:
        proc = subprocess.run([python, "-c", "import pip"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


def _pytest_missing(proc: ProcResult, log: ProbeLog) -> bool:
    """The interpreter has no pytest: it failed before pytest (and the probe) started."""
    started = log.session is not None or bool(log.conftests)
    return not started and proc.exit_code == 1 and "No module named pytest" in proc.output_tail
