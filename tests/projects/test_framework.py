"""The pre-commit framework's hooks (tddgit pip-installed by pre-commit from this
repository's HEAD) on the backend + frontend repository: commits from each project judged
in their own project, the backend's tests run with `python = ".venv"` as hooks.md says."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.hooks.test_framework import (  # noqa: F401 (a fixture)
    STAGES,
    _pre_commit,
    _published_config,
    framework,
)
from tests.projects.shop import (
    CART_COUNT,
    CART_TEST_COUNT,
    NEG_TEST_TWICE,
    git_in,
    note,
    ok,
    shop,
)

pytestmark = pytest.mark.slow


def test_framework_hooks_judge_each_project_from_its_directory(
    repo: GitRepo,
    framework: tuple[Path, str, Path],  # noqa: F811 (the fixture imported above)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clone, sha, home = framework
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    repo.write(
        ".tddgit.yaml", "projects:\n  - dir: backend\n    python: .venv\n  - dir: frontend\n"
    )
    repo.write(".pre-commit-config.yaml", _published_config(clone, sha))
    shop(repo)
    # the backend's own venv: a link to the interpreter running these tests (it has pytest)
    os.symlink(Path(sys.executable).parent.parent, repo.root / "backend" / ".venv")
    args = ["install"] + [a for s in STAGES for a in ("--hook-type", s)]
    ok(_pre_commit(repo.root, home, *args))  # type: ignore[arg-type]

    def commit(where: str, phase: str) -> None:
        repo.add()
        ok(git_in(repo, where, "commit", "-q", "-m", phase, "--trailer", f"GSD-Phase: {phase}"))
        assert note(repo)["phase"] == phase

    repo.write("backend/tests/test_cart.py", CART_TEST_COUNT, dedent=False)
    commit("backend", "red")
    repo.write("frontend/test/neg.test.ts", NEG_TEST_TWICE, dedent=False)
    commit("frontend/src", "red")
    repo.write("backend/src/shop/cart.py", CART_COUNT, dedent=False)
    commit("backend/tests", "green")
    assert [t["id"] for t in note(repo)["targets"]] == ["backend/tests/test_cart.py::test_count"]  # type: ignore[attr-defined]
