"""The workspace's snapshots: a best state restored never loses a file the user had."""

from __future__ import annotations

from tddgit.agent.workspace import Workspace
from tddgit.git import find_repo
from tests.conftest import GitRepo
from tests.project import start_project


def test_restoring_a_snapshot_puts_back_files_first_written_after_it(repo: GitRepo) -> None:
    start_project(repo)
    workspace = Workspace(find_repo(repo.root))
    workspace.write("calc.py", "# best\n")
    best = workspace.snapshot()
    workspace.write("tests/test_calc.py", "# worse\n")  # a user's file, first written now
    workspace.write("new.py", "x = 1\n")  # created after the snapshot
    workspace.restore(best)
    assert (repo.root / "calc.py").read_text() == "# best\n"
    assert (repo.root / "tests" / "test_calc.py").read_text().startswith("import calc")
    assert not (repo.root / "new.py").exists()
