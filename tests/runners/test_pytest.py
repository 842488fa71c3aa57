"""PytestRunner end to end: real projects in tmp_path, the real pytest in a subprocess with
the probe, every cause of PRODUCT.md §4 asserted per test id."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tddgit.config import Config, default_config
from tddgit.errors import RunnerError
from tddgit.model import Cause, Light, Outcome, RunResult, TestResult
from tddgit.runners import RunRequest, get_runner
from tddgit.runners.pytest import PytestRunner, plan_args, resolve_python
from tests.procs import alive


def make_project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def run(
    root: Path, *tests: str, timeout: float = 60, env: dict[str, str] | None = None
) -> RunResult:
    request = RunRequest(root=root, tests=tests, timeout=timeout, env=env)
    return PytestRunner(default_config()).run(request)


# -- one project with (almost) every cause --------------------------------------------------

CAUSES_PROJECT = {
    "pyproject.toml": """
        [project]
        name = "demo"
        version = "0"
        dependencies = ["frobnicator-lib>=1.0"]
        """,
    "calc/__init__.py": """
        def add(a, b):
            return a + b

        class Calc:
            pass

        def stub():
            raise NotImplementedError("stub")
        """,
    "tests/test_syntax.py": """
        def test_broken(:
            pass
        """,
    "tests/test_new_module.py": """
        from shapes import Circle

        def test_circle():
            assert Circle(1).area() > 3
        """,
    "tests/test_new_name.py": """
        from calc import mul

        def test_mul():
            assert mul(2, 3) == 6
        """,
    "tests/test_thirdparty.py": """
        import frobnicator_lib

        def test_frob():
            assert frobnicator_lib.frob()
        """,
    "tests/broken/conftest.py": """
        raise RuntimeError("this conftest is broken")
        """,
    "tests/broken/test_under_broken.py": """
        def test_never():
            pass
        """,
    "tests/test_calc.py": """
        import pytest
        import calc

        def test_passes():
            assert calc.add(1, 2) == 3

        def test_assertion():
            assert calc.add(1, 1) == 3

        def test_module_attribute():
            assert calc.mul(2, 3) == 6

        def test_object_attribute():
            assert calc.Calc().total() == 0

        def test_raises_did_not_raise():
            with pytest.raises(ValueError):
                calc.add(1, 2)

        def test_pytest_fail():
            pytest.fail("explicitly failed")

        def test_not_implemented():
            calc.stub()

        def test_submodule_missing():
            import calc.parser

        @pytest.fixture
        def broken_fixture():
            raise RuntimeError("fixture exploded")

        def test_fixture_error(broken_fixture):
            pass

        def test_fixture_missing(no_such_fixture):
            pass

        def test_name_error():
            assert undefined_helper() == 1

        def test_attribute_on_none():
            None.value

        @pytest.fixture
        def bad_teardown():
            yield
            raise RuntimeError("teardown exploded")

        def test_teardown_error(bad_teardown):
            pass

        @pytest.mark.skip(reason="not today")
        def test_skipped():
            pass

        @pytest.mark.xfail(reason="known bug")
        def test_xfailed():
            assert False

        @pytest.mark.xfail(reason="maybe fixed")
        def test_xpassed():
            pass

        @pytest.mark.parametrize("value", ["a b", "ünï", "[x]", "a::b"])
        def test_odd_ids(value):
            assert value
        """,
}

C = "tests/test_calc.py::"
# id -> (outcome, cause, light, a fragment of the message)
EXPECTED: dict[str, tuple[Outcome, Cause | None, Light, str]] = {
    "tests/test_syntax.py": (Outcome.ERROR, Cause.SYNTAX, Light.AMBER, "test_syntax.py:1"),
    "tests/test_new_module.py": (
        Outcome.ERROR,
        Cause.NOT_IMPLEMENTED,
        Light.RED,
        "No module named 'shapes'",
    ),
    "tests/test_new_name.py": (
        Outcome.ERROR,
        Cause.NOT_IMPLEMENTED,
        Light.RED,
        "cannot import name 'mul' from 'calc'",
    ),
    "tests/test_thirdparty.py": (
        Outcome.ERROR,
        Cause.ENVIRONMENT,
        Light.AMBER,
        "declared dependency",
    ),
    "tests/broken": (Outcome.ERROR, Cause.COLLECTION, Light.AMBER, "this conftest is broken"),
    C + "test_passes": (Outcome.PASSED, None, Light.GREEN, ""),
    C + "test_assertion": (Outcome.FAILED, Cause.ASSERTION, Light.RED, "assert 2 == 3"),
    C + "test_module_attribute": (
        Outcome.FAILED,
        Cause.NOT_IMPLEMENTED,
        Light.RED,
        "has no attribute 'mul'",
    ),
    C + "test_object_attribute": (
        Outcome.FAILED,
        Cause.NOT_IMPLEMENTED,
        Light.RED,
        "'Calc' object has no attribute 'total'",
    ),
    C + "test_raises_did_not_raise": (Outcome.FAILED, Cause.ASSERTION, Light.RED, "DID NOT RAISE"),
    C + "test_pytest_fail": (Outcome.FAILED, Cause.ASSERTION, Light.RED, "explicitly failed"),
    C + "test_not_implemented": (Outcome.FAILED, Cause.NOT_IMPLEMENTED, Light.RED, "stub"),
    C + "test_submodule_missing": (
        Outcome.FAILED,
        Cause.NOT_IMPLEMENTED,
        Light.RED,
        "calc.parser",
    ),
    C + "test_fixture_error": (Outcome.ERROR, Cause.FIXTURE, Light.AMBER, "fixture exploded"),
    C + "test_fixture_missing": (
        Outcome.ERROR,
        Cause.FIXTURE,
        Light.AMBER,
        "fixture 'no_such_fixture' not found",
    ),
    C + "test_name_error": (Outcome.FAILED, Cause.OTHER, Light.AMBER, "NameError in the test file"),
    C + "test_attribute_on_none": (Outcome.FAILED, Cause.OTHER, Light.AMBER, "NoneType"),
    C + "test_teardown_error": (Outcome.ERROR, Cause.FIXTURE, Light.AMBER, "teardown exploded"),
    C + "test_skipped": (Outcome.SKIPPED, None, Light.AMBER, "not today"),
    C + "test_xfailed": (Outcome.XFAILED, None, Light.GREEN, "known bug"),
    C + "test_xpassed": (Outcome.XPASSED, None, Light.GREEN, ""),
    C + "test_odd_ids[a b]": (Outcome.PASSED, None, Light.GREEN, ""),
    C + "test_odd_ids[\\xfcn\\xef]": (Outcome.PASSED, None, Light.GREEN, ""),
    C + "test_odd_ids[[x]]": (Outcome.PASSED, None, Light.GREEN, ""),
    C + "test_odd_ids[a::b]": (Outcome.PASSED, None, Light.GREEN, ""),
}


@pytest.fixture(scope="module")
def causes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunResult]:
    root = make_project(tmp_path_factory.mktemp("causes"), CAUSES_PROJECT)
    return root, run(root)


@pytest.mark.parametrize("test_id", list(EXPECTED))
def test_each_cause_is_decided_per_test(causes: tuple[Path, RunResult], test_id: str) -> None:
    _, result = causes
    got = result.by_id().get(test_id)
    assert got is not None, sorted(result.by_id())
    outcome, cause, light, fragment = EXPECTED[test_id]
    assert (got.outcome, got.cause, got.light) == (outcome, cause, light), got
    assert fragment in got.message, got.message


def test_the_whole_run_is_accounted_for(causes: tuple[Path, RunResult]) -> None:
    root, result = causes
    assert set(result.by_id()) == set(EXPECTED)
    assert result.exit_code == 1 and not result.timed_out and result.runner == "pytest"
    calc = result.by_id()["tests/test_calc.py::test_assertion"]
    assert calc.file == "tests/test_calc.py" and calc.line == 8  # the failing line
    assert result.by_id()["tests/test_syntax.py"].file == "tests/test_syntax.py"
    # a gate must leave nothing in the user's tree
    left = [p for p in root.rglob("*") if p.name in ("__pycache__", ".pytest_cache")]
    assert left == []


def test_root_conftest_that_fails_to_import(tmp_path: Path) -> None:
    root = make_project(
        tmp_path,
        {
            "conftest.py": "import missing_plugin_module\n",
            "tests/test_a.py": "def test_a(): pass\n",
        },
    )
    result = run(root, "tests/test_a.py::test_a")
    assert result.exit_code == 4
    only = result.by_id()["tests/test_a.py::test_a"]
    assert (only.outcome, only.cause) == (Outcome.ERROR, Cause.COLLECTION)
    assert "missing_plugin_module" in only.message
    assert any("conftest.py could not be imported" in n for n in result.notes)


def test_no_tests_and_usage_errors_are_notes_with_the_exit_code(tmp_path: Path) -> None:
    empty = make_project(tmp_path / "empty", {"src/app.py": "X = 1\n"})
    result = run(empty)
    assert (result.exit_code, result.tests, result.notes) == (5, (), ("no tests collected",))

    bad = make_project(
        tmp_path / "bad",
        {
            "pytest.ini": "[pytest]\naddopts = --no-such-option\n",
            "test_a.py": "def test_a(): pass\n",
        },
    )
    result = run(bad)
    assert result.exit_code == 4 and result.tests == ()
    assert "no-such-option" in " ".join(result.notes)


def test_selection_runs_only_the_given_ids_and_reports_the_missing(tmp_path: Path) -> None:
    root = make_project(
        tmp_path,
        {
            "tests/test_sel.py": """
                import pytest

                def test_a():
                    pass

                def test_b():
                    raise AssertionError("must not run")

                @pytest.mark.parametrize("v", ["a::b", "x y"])
                def test_p(v):
                    pass
                """,
            "tests/test_other.py": "def test_other():\n    raise AssertionError('no')\n",
        },
    )
    result = run(
        root,
        "tests/test_sel.py::test_a",
        "./tests/test_sel.py::test_p[a::b]",
        "tests/test_sel.py::test_removed",
        "tests/test_deleted.py::test_x",
    )
    by_id = result.by_id()
    assert set(by_id) == {
        "tests/test_sel.py::test_a",
        "tests/test_sel.py::test_p[a::b]",
        "tests/test_sel.py::test_removed",
        "tests/test_deleted.py::test_x",
    }
    assert by_id["tests/test_sel.py::test_a"].outcome is Outcome.PASSED
    assert by_id["tests/test_sel.py::test_p[a::b]"].outcome is Outcome.PASSED
    for gone in ("tests/test_sel.py::test_removed", "tests/test_deleted.py::test_x"):
        t = by_id[gone]
        assert (t.outcome, t.cause, t.light) == (Outcome.ERROR, Cause.COLLECTION, Light.AMBER)
        assert t.message.startswith("not collected")
    assert "does not exist" in by_id["tests/test_deleted.py::test_x"].message


def test_a_selected_test_in_a_file_that_cannot_import_gets_the_files_cause(
    tmp_path: Path,
) -> None:
    root = make_project(
        tmp_path,
        {
            "tests/test_new.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
        },
    )
    result = run(root, "tests/test_new.py::test_add")
    (only,) = result.tests
    assert only.id == "tests/test_new.py::test_add"
    assert (only.outcome, only.cause, only.light) == (
        Outcome.ERROR,
        Cause.NOT_IMPLEMENTED,
        Light.RED,
    )


def test_only_deleted_files_requested_runs_nothing(tmp_path: Path) -> None:
    result = run(make_project(tmp_path, {"x.py": ""}), "tests/test_gone.py")
    (only,) = result.tests
    assert (only.id, only.outcome, only.cause) == (
        "tests/test_gone.py",
        Outcome.ERROR,
        Cause.COLLECTION,
    )
    assert result.exit_code == 5


def test_timeout_kills_the_hanging_test_and_its_forked_child(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    root = make_project(
        tmp_path / "proj",
        {
            "tests/test_hang.py": """
                import os, subprocess, time

                def test_first():
                    pass

                def test_hangs():
                    child = subprocess.Popen(["sleep", "300"])
                    with open(os.environ["CHILD_PIDFILE"], "w") as fh:
                        fh.write(str(child.pid))
                    time.sleep(300)

                def test_never_started():
                    pass
                """,
        },
    )
    start = time.monotonic()
    # long enough for pytest to start on a loaded machine; the hanging test waits 300 s
    result = run(root, timeout=6, env={"CHILD_PIDFILE": str(pidfile)})
    assert time.monotonic() - start < 30
    assert result.timed_out
    by_id = result.by_id()
    assert by_id["tests/test_hang.py::test_first"].outcome is Outcome.PASSED
    hung = by_id["tests/test_hang.py::test_hangs"]
    assert (hung.cause, hung.light) == (Cause.TIMEOUT, Light.AMBER)
    assert "while this test was running" in hung.message
    later = by_id["tests/test_hang.py::test_never_started"]
    assert (later.outcome, later.cause) == (Outcome.ERROR, Cause.TIMEOUT)
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_an_interpreter_killed_mid_test_is_a_crash(tmp_path: Path) -> None:
    root = make_project(
        tmp_path,
        {
            "test_die.py": """
                import os, signal

                def test_ok():
                    pass

                def test_dies():
                    os.kill(os.getpid(), signal.SIGKILL)

                def test_after():
                    pass
                """,
        },
    )
    result = run(root)
    by_id = result.by_id()
    assert result.exit_code == -9
    assert by_id["test_die.py::test_ok"].outcome is Outcome.PASSED
    died = by_id["test_die.py::test_dies"]
    assert (died.cause, died.light) == (Cause.CRASH, Light.AMBER)
    assert "signal 9" in died.message
    assert by_id["test_die.py::test_after"].cause is Cause.CRASH


def test_user_config_applies_and_pythonpath_from_the_request_is_honoured(tmp_path: Path) -> None:
    lib = make_project(tmp_path / "lib", {"helperlib.py": "VALUE = 42\n"})
    root = make_project(
        tmp_path / "proj",
        {
            "pyproject.toml": """
                [tool.pytest.ini_options]
                addopts = "-x --ff -q -p no:doctest"
                python_files = ["check_*.py"]
                testpaths = ["checks"]
                """,
            "checks/check_things.py": """
                import helperlib

                def test_uses_the_request_pythonpath():
                    assert helperlib.VALUE == 42

                def test_environment_is_clean():
                    import os
                    assert "GIT_INDEX_FILE" not in os.environ  # a hook's index must not leak
                    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"

                def test_fails():
                    assert helperlib.VALUE == 0

                def test_not_run_because_of_x():
                    pass
                """,
            "tests/test_ignored.py": "def test_ignored():\n    pass\n",
        },
    )
    result = run(root, env={"PYTHONPATH": str(lib), "GIT_INDEX_FILE": str(tmp_path / "idx")})
    by_id = result.by_id()
    assert by_id["checks/check_things.py::test_environment_is_clean"].light is Light.GREEN
    assert set(by_id) == {
        "checks/check_things.py::test_environment_is_clean",
        "checks/check_things.py::test_uses_the_request_pythonpath",
        "checks/check_things.py::test_fails",
        "checks/check_things.py::test_not_run_because_of_x",
    }
    assert by_id["checks/check_things.py::test_uses_the_request_pythonpath"].light is Light.GREEN
    assert by_id["checks/check_things.py::test_fails"].cause is Cause.ASSERTION
    stopped = by_id["checks/check_things.py::test_not_run_because_of_x"]
    assert stopped.outcome is Outcome.ERROR and "not run" in stopped.message


def test_works_under_xdist_from_the_users_addopts(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    root = make_project(
        tmp_path,
        {
            "pytest.ini": "[pytest]\naddopts = -n 1\n",  # one worker: still controller + worker
            "calc.py": "def add(a, b):\n    raise NotImplementedError\n",
            "test_x.py": """
                import calc

                def test_ok():
                    pass

                def test_red():
                    assert calc.add(1, 2) == 3

                def test_missing():
                    calc.mul
                """,
        },
    )
    by_id = run(root).by_id()
    assert set(by_id) == {"test_x.py::test_ok", "test_x.py::test_red", "test_x.py::test_missing"}
    assert by_id["test_x.py::test_ok"].light is Light.GREEN
    assert by_id["test_x.py::test_red"].cause is Cause.NOT_IMPLEMENTED
    assert by_id["test_x.py::test_missing"].cause is Cause.NOT_IMPLEMENTED


def test_ids_are_relative_to_the_run_root_when_pytest_rootdir_differs(tmp_path: Path) -> None:
    # no ini file: pytest would take the test file's directory as rootdir
    root = make_project(tmp_path, {"tests/unit/test_u.py": "def test_u():\n    pass\n"})
    result = run(root, "tests/unit/test_u.py")
    assert [t.id for t in result.tests] == ["tests/unit/test_u.py::test_u"]
    result = run(root, ".", "tests/unit")  # directories select everything under them
    assert [t.id for t in result.tests] == ["tests/unit/test_u.py::test_u"]


# -- interpreter ------------------------------------------------------------------------------


def config_with(**values: object) -> Config:
    base = default_config()
    return Config(values={**base.values, **values}, sources=base.sources)


def fake_python(env_dir: Path) -> Path:
    p = env_dir / "bin" / "python"
    p.parent.mkdir(parents=True)
    p.write_text("#!/bin/sh\n")
    p.chmod(0o755)
    return p


def test_resolve_python_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    cfg = default_config()
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    assert resolve_python(cfg, project) == sys.executable
    venv = fake_python(project / "venv")
    assert resolve_python(cfg, project) == str(venv)
    dot_venv = fake_python(project / ".venv")
    assert resolve_python(cfg, project) == str(dot_venv)
    active = fake_python(tmp_path / "active")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "active"))
    assert resolve_python(cfg, project) == str(active)


def test_resolve_python_configured(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    interp = fake_python(project / "envs" / "py")
    assert resolve_python(config_with(python="envs/py/bin/python"), project) == str(interp)
    assert resolve_python(config_with(python="envs/py"), project) == str(interp)
    assert resolve_python(config_with(python="sh"), project).endswith("/sh")
    with pytest.raises(RunnerError, match="does not exist"):
        resolve_python(config_with(python="envs/nope/bin/python"), project)
    with pytest.raises(RunnerError, match="not on PATH"):
        resolve_python(config_with(python="no-such-python-3.99"), project)


def test_an_interpreter_without_pytest_is_a_runner_error(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"test_a.py": "def test_a():\n    pass\n"})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    with pytest.raises(RunnerError) as err:
        PytestRunner(default_config()).run(RunRequest(root=root, timeout=60, env=env))
    assert "pytest is not installed" in err.value.one_line()
    assert str(root / ".venv" / "bin" / "python") in err.value.one_line()


def test_get_runner_gives_the_pytest_runner(tmp_path: Path) -> None:
    runner = get_runner(config_with(runner="pytest"), tmp_path)
    assert isinstance(runner, PytestRunner)
    assert runner.name == "pytest" and runner.selects_tests


def test_plan_args_passes_files_and_skips_the_absent(tmp_path: Path) -> None:
    make_project(tmp_path, {"tests/test_a.py": "", "tests/sub/test_b.py": ""})
    args, absent = plan_args(
        tmp_path,
        [
            "tests/test_a.py::t[x::y]",
            "tests/test_a.py::u",
            "tests/sub/test_b.py",
            "tests",
            "t.py::z",
        ],
    )
    assert args == ["tests"]
    assert absent == ["t.py::z"]


def test_results_are_test_results(causes: tuple[Path, RunResult]) -> None:
    _, result = causes
    assert all(isinstance(t, TestResult) for t in result.tests)
    assert "-p" in result.command and "tddgit_probe" in result.command


def test_the_probe_imports_alone_without_tddgit() -> None:
    from tddgit.pytestcmd import PROBE_DIR

    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import tddgit_probe; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'tddgit'))"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code, str(PROBE_DIR)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_a_source_rewritten_within_its_seconds_bytecode_is_never_run_stale(
    tmp_path: Path,
) -> None:
    """Python trusts a cached .pyc while the source's whole-second mtime and size match
    the ones it recorded. A model (or an editor's save-all) that rewrites a module twice
    within one second with the same length would be judged on the first version. Here:
    the wrong module is compiled into the cache; the right one, of the same length, is
    written after that compile but within the same second of mtime."""
    wrong = "def sub(a, b):\n    return a + b\n"
    right = "def sub(a, b):\n    return a - b\n"
    assert len(wrong) == len(right)
    root = make_project(
        tmp_path / "p",
        {
            "calc.py": wrong,
            "tests/test_calc.py": "import calc\n\ndef test_sub():\n"
            "    assert calc.sub(5, 3) == 2\n",
        },
    )
    cache = tmp_path / "pycache"
    second = int(time.time()) + 30  # a whole second later than the compile
    os.utime(root / "calc.py", (second, second))

    def gate() -> Outcome:
        request = RunRequest(
            root=root, tests=("tests/test_calc.py::test_sub",), timeout=60, bytecode_cache=cache
        )
        return (
            PytestRunner(default_config())
            .run(request)
            .by_id()["tests/test_calc.py::test_sub"]
            .outcome
        )

    assert gate() is Outcome.FAILED
    assert list(cache.rglob("calc.*.pyc"))  # compiled, cached
    (root / "calc.py").write_text(right)
    os.utime(root / "calc.py", (second + 0.5, second + 0.5))  # same second, same size
    assert gate() is Outcome.PASSED
