"""A hook that runs a gate shows the gate's warnings as `tddgit green` does."""

from __future__ import annotations

from tests.conftest import GitRepo
from tests.hooks.conftest import git_commit
from tests.project import stage_red
from tests.test_yagni import CALC_SUB_BRANCH


def test_commit_msg_gate_shows_the_yagni_warning(hooked: GitRepo) -> None:
    stage_red(hooked)
    hooked.tddgit("red", "-m", "test sub", check=True)
    hooked.write("calc.py", CALC_SUB_BRANCH, dedent=False)
    hooked.add("calc.py")
    proc = git_commit(hooked, "-m", "implement sub", "--trailer", "GSD-Phase: green")
    assert proc.returncode == 0, proc.stderr
    assert "green holds" in proc.stderr
    assert "warning yagni: calc.py:11: 1 added line no test executed" in proc.stderr
