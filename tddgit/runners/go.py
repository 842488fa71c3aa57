"""The ``go`` runner: ``go test -json`` on the packages concerned, one outcome per test
and subtest (ids ``dir::TestName/subtest``), build failures read for their cause
(``goevents``, ``gocauses``).

The command line and the packages a selection runs are ``tddgit.gocmd``'s (the gate's
early start spawns the same). The module's path comes from ``go.mod`` in the project
directory, to turn import paths back into directories.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from tddgit.config import Config
from tddgit.errors import ConfigError
from tddgit.gocmd import go_argv, packages_for
from tddgit.model import RunResult
from tddgit.runners import RunRequest
from tddgit.runners.captured import run_captured, run_result
from tddgit.runners.goevents import read_events, results

_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)


class GoRunner:
    """Runs ``go test -json`` in the project directory."""

    name = "go"
    selects_tests = True

    def __init__(self, config: Config) -> None:
        self.config = config

    def run(self, request: RunRequest) -> RunResult:
        project = request.root / request.subdir
        module = _module_path(project)
        packages = packages_for(request.tests, request.subdir)
        argv = go_argv(packages)
        install = "install Go (Debian: apt-get install golang-go) or choose another runner"
        captured = run_captured(
            self.name, argv, project, request, request.env, merge=False, install=install
        )
        events = read_events(captured.stdout, captured.stderr)
        tests = results(events, lambda p: _directory(p, module, request.subdir))
        code = captured.proc.exit_code
        silent = None
        if code not in (0, 1) and not tests:
            silent = f"go test exited {code} and reported no test: {captured.stderr[-500:]}"
        return run_result(
            self.name,
            argv,
            captured,
            tests,
            events.problems,
            request.timeout,
            silent_failure=silent,
        )


def _module_path(project: Path) -> str:
    try:
        text = (project / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(
            f"the go runner needs go.mod in {project} ({exc.strerror})",
            "run tddgit in a Go module, or set `project` to the module's directory",
        ) from exc
    m = _MODULE.search(text)
    if m is None:
        raise ConfigError(f"{project / 'go.mod'} names no module", "add a `module` line to go.mod")
    return m.group(1)


def _directory(import_path: str, module: str, subdir: str) -> str:
    """An import path's directory relative to the repository (``.`` for its root)."""
    if import_path == module:
        rel = ""
    elif import_path.startswith(module + "/"):
        rel = import_path[len(module) + 1 :]
    else:
        rel = import_path  # not this module's (should not happen): keep it recognisable
    return posixpath.normpath(posixpath.join(subdir, rel)) if (subdir or rel) else "."
