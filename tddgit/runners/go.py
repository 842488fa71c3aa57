"""The ``go`` runner: ``go test -json`` on the packages concerned, one outcome per test
and subtest (ids ``dir::TestName/subtest``), build failures read for their cause
(``goevents``, ``gocauses``).

A selection (test files or ids) runs the packages they lie in, whole: Go compiles a
package's tests together, so a test that does not build yet breaks its package anyway.
No selection runs ``./...``. The module's path comes from ``go.mod`` in the project
directory, to turn import paths back into directories.
"""

from __future__ import annotations

import posixpath
import re
import shlex
import shutil
import tempfile
from pathlib import Path

from tddgit.config import Config
from tddgit.errors import ConfigError, RunnerError
from tddgit.model import RunResult
from tddgit.runners import RunRequest
from tddgit.runners.goevents import read_events, results
from tddgit.runners.process import run_command

_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)
MAX_OUTPUT = 64 * 1024 * 1024  # bytes of events read; an event stream is untrusted input


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
        argv = ["go", "test", "-json", *packages]
        workdir = Path(tempfile.mkdtemp(prefix="tddgit-go-"))
        out, err = workdir / "events.json", workdir / "stderr.txt"
        try:
            command = f"{shlex.join(argv)} >{shlex.quote(str(out))} 2>{shlex.quote(str(err))}"
            proc = run_command(
                command,
                project,
                timeout=request.timeout,
                env=request.env,
                on_start=request.on_start,
            )
            stdout, stderr = _read(out), _read(err)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        if proc.exit_code == 127 and not proc.timed_out:
            raise RunnerError(
                "the go runner could not start `go` (not found)",
                "install Go (Debian: apt-get install golang-go) or choose another runner",
            )
        events = read_events(stdout, stderr)
        tests = results(events, lambda p: _directory(p, module, request.subdir))
        notes = list(events.problems)
        if proc.timed_out:
            notes.append(
                f"go test timed out after {request.timeout:g}s; its process group was killed"
            )
        elif proc.exit_code not in (0, 1) and not tests:
            notes.append(f"go test exited {proc.exit_code} and reported no test: {stderr[-500:]}")
        return RunResult(
            runner=self.name,
            command=(shlex.join(argv),),
            exit_code=proc.exit_code,
            tests=tests,
            duration=proc.duration,
            timed_out=proc.timed_out,
            output_tail=(stderr + stdout)[-8192:],
            notes=tuple(notes),
        )


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_OUTPUT).decode("utf-8", "replace")
    except OSError:
        return ""


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


def packages_for(tests: tuple[str, ...], subdir: str) -> list[str]:
    """The package arguments for a selection of test files or ids (relative to the
    repository root); ``./...`` for none."""
    dirs: list[str] = []
    for test in tests:
        path = test.split("::", 1)[0]
        if "::" not in test and path.endswith(".go"):
            path = posixpath.dirname(path)
        path = posixpath.normpath(path or ".")
        if subdir:
            inner = posixpath.relpath(path, posixpath.normpath(subdir))
            if inner.startswith(".."):
                continue  # outside the project: not a package of this module
            path = inner
        package = "." if path == "." else "./" + path
        if package not in dirs:
            dirs.append(package)
    return dirs or ["./..."]
