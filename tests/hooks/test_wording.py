"""Small things users hit: no false strict-mode warning when the message carries a phase,
refusals that keep a path's case, and plural forms that agree with their counts."""

from __future__ import annotations

from tests.conftest import GitRepo
from tests.hooks.conftest import git_commit, write_config
from tests.project import CALC_SUB, stage_green, stage_red


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_strict_no_warning_when_the_message_declares_a_phase(hooked: GitRepo) -> None:
    write_config(hooked, "mode: strict\n")
    stage_red(hooked)
    hooked.tddgit("red", "-m", "test sub", check=True)
    stage_green(hooked)
    hooked.tddgit("green", "-m", "implement sub", check=True)
    # a production-only refactor, committed with -a and the phase in a trailer
    hooked.write("calc.py", CALC_SUB.replace("return a - b", "return a + -b"), dedent=False)
    proc = git_commit(hooked, "-a", "-m", "subtract by adding", "--trailer", "GSD-Phase: refactor")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr, proc.stderr


def test_strict_without_a_phase_is_refused_with_the_red_hint(hooked: GitRepo) -> None:
    write_config(hooked, "mode: strict\n")
    stage_green(hooked)  # production only, no open red
    proc = git_commit(hooked, "-m", "add sub")
    assert proc.returncode == 1
    said = one_line(proc.stderr)
    assert "without a GSD-Phase trailer" in said
    assert "no test change and no open red" in said and "tddgit red" in said
    assert said.count("calc.py") == 1  # said once, in the refusal: no pre-commit warning


def test_refusal_keeps_the_case_of_a_path(hooked: GitRepo) -> None:
    hooked.write(
        "tests/test_calc.py",
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n\n"
        "def test_add_zero():\n    assert calc.add(0, 3) == 3\n",
        dedent=False,
    )
    hooked.add("tests/test_calc.py")
    proc = git_commit(hooked, "-m", "more tests", "--trailer", "GSD-Phase: red")
    assert proc.returncode == 1
    said = one_line(proc.stderr)
    assert "tests/test_calc.py::test_add_zero" in said
    assert "Tests/test_calc.py" not in said


def test_plural_forms_in_a_hook_refusal(hooked: GitRepo) -> None:
    write_config(hooked, "hooks:\n  detectors: block\n")
    hooked.write("tests/test_more.py", "def test_nothing():\n    pass\n")
    hooked.add("tests/test_more.py")
    proc = git_commit(hooked, "-m", "a test that asserts nothing")
    assert proc.returncode == 1
    said = one_line(proc.stderr)
    assert "1 test anti-pattern finding in" in said, said
    assert "(s)" not in said


def test_plural_forms_in_run_output(repo: GitRepo) -> None:
    repo.write("tests/test_one.py", "def test_ok():\n    pass\n")
    repo.commit("one test")
    out = repo.tddgit("run").stdout
    assert "1 test:" in out, out
    assert "1 tests" not in out
    repo.write(
        "tests/test_two.py",
        "import pytest\n\n\n@pytest.fixture\ndef broken():\n    raise RuntimeError('x')\n\n\n"
        "def test_a(broken):\n    pass\n\n\ndef test_b(broken):\n    pass\n",
    )
    repo.commit("two errors")
    out = repo.tddgit("run").stdout
    assert "3 tests:" in out and "2 errors" in out, out
