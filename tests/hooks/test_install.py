"""`tddgit hooks install|uninstall`: where hooks go, chaining, restoring, and the shims."""

from __future__ import annotations

import json
from pathlib import Path

from tddgit.hooks.install import HOOK_TYPES, render_shim
from tests.conftest import REPO_ROOT, GitRepo
from tests.hooks.conftest import git_commit
from tests.project import stage_green, stage_red, start_project, trailer

REJECT_WIP = '#!/bin/sh\nif grep -q WIP "$1"; then echo "no WIP commits" >&2; exit 1; fi\n'


def install(repo: GitRepo, *args: str) -> dict[str, object]:
    proc = repo.tddgit("hooks", "install", "--json", *args, check=True)
    return dict(json.loads(proc.stdout))


def test_install_all_four_and_idempotent(repo: GitRepo) -> None:
    start_project(repo)
    first = install(repo)
    assert [h["action"] for h in first["hooks"]] == ["installed"] * 4  # type: ignore[index,union-attr]
    hooks_dir = Path(str(first["hooks_dir"]))
    assert hooks_dir == repo.root / ".git" / "hooks"
    for name in HOOK_TYPES:
        assert (hooks_dir / name).stat().st_mode & 0o111
    again = install(repo)
    assert [h["action"] for h in again["hooks"]] == ["unchanged"] * 4  # type: ignore[index,union-attr]


def test_existing_hook_is_chained_still_blocks_and_is_restored(repo: GitRepo) -> None:
    start_project(repo)
    old = repo.root / ".git" / "hooks" / "commit-msg"
    old.write_text(REJECT_WIP)
    old.chmod(0o755)
    out = install(repo, "--hook-type", "commit-msg")
    assert out["hooks"][0]["action"] == "chained"  # type: ignore[index]
    repo.write("README.md", "# calc\n")
    repo.add("README.md")
    assert git_commit(repo, "-m", "WIP readme").returncode != 0  # the old hook still blocks
    stage_green(repo)
    refused = git_commit(repo, "-m", "sub", "--trailer", "GSD-Phase: green")
    assert "green-without-red" in refused.stderr  # and tddgit runs after it
    repo.tddgit("hooks", "uninstall", check=True)
    assert old.read_text() == REJECT_WIP
    assert not old.with_name("commit-msg.tddgit-chained").exists()
    again = repo.tddgit("hooks", "uninstall", "--json", check=True)
    assert {h["action"] for h in json.loads(again.stdout)["hooks"]} == {"foreign", "absent"}


def test_core_hooks_path_is_honoured(repo: GitRepo) -> None:
    start_project(repo)
    repo.git("config", "core.hooksPath", ".githooks")
    out = install(repo)
    assert Path(str(out["hooks_dir"])) == repo.root / ".githooks"
    assert (repo.root / ".githooks" / "commit-msg").exists()
    assert not (repo.root / ".git" / "hooks" / "commit-msg").exists()
    stage_green(repo)
    assert git_commit(repo, "-m", "x", "--trailer", "GSD-Phase: green").returncode != 0


def test_linked_worktree_uses_the_shared_hooks(repo: GitRepo, tmp_path: Path) -> None:
    start_project(repo)
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(wt), "-b", "feature")
    worktree = GitRepo(wt)
    out = worktree.tddgit("hooks", "install", "--json", check=True)
    assert Path(json.loads(out.stdout)["hooks_dir"]) == repo.root / ".git" / "hooks"
    stage_green(worktree)
    proc = git_commit(worktree, "-m", "x", "--trailer", "GSD-Phase: green")
    assert proc.returncode != 0 and "green-without-red" in proc.stderr
    # a valid red from the worktree: the lineage and evidence caches live in the common dir
    worktree.git("reset", "-q", "calc.py")
    worktree.git("checkout", "-q", "--", "calc.py")
    stage_red(worktree)
    proc = git_commit(worktree, "-m", "test sub", "--trailer", "GSD-Phase: red")
    assert proc.returncode == 0, proc.stderr
    assert trailer(worktree) == "red"


def test_top_level_shims_match_the_installer() -> None:
    for name in HOOK_TYPES:
        shim = REPO_ROOT / "hooks" / name
        assert shim.read_text() == render_shim(name)
        assert shim.stat().st_mode & 0o111


def test_hook_help_goes_through_click(repo: GitRepo) -> None:
    start_project(repo)
    proc = repo.tddgit("hook", "--help", check=True)
    assert "commit-msg" in proc.stdout and "Examples" in proc.stdout
    proc = repo.tddgit("hook", "commit-msg", "--help", check=True)
    assert "MSGFILE" in proc.stdout
    assert repo.tddgit("hook", "commit-msg").returncode == 2  # missing MSGFILE: usage error
