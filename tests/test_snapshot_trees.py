"""Snapshots of any tracked tree (issue 24, item 7): symbolic links (absolute, relative,
dangling, pointing outside), submodules, executable bits and unusual names are laid down as
a checkout lays them, and nothing outside the snapshot is written or followed."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tddgit.git import find_repo
from tddgit.snapshot import snapshot
from tests.conftest import GitRepo
from tests.project import rules, start_project, verdict

ODD_NAMES = ("sp ace.txt", "ünïcödé.txt", "-dash.txt", "tab\there.txt", "quote'\".txt")


def _git_in(repo: GitRepo, text: str, *args: str) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo.root, input=text, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def _tricky_repo(repo: GitRepo, tmp_path: Path) -> Path:
    """A committed project with every kind of entry a checkout knows; returns the file
    the outward links point at (it must never be written)."""
    start_project(repo)
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    os.symlink("/etc/hostname", repo.root / "abs_link")
    os.symlink(str(outside), repo.root / "abs_outside")
    (repo.root / "docs").mkdir()
    os.symlink("../calc.py", repo.root / "docs" / "rel_link")
    os.symlink("no/such/target", repo.root / "dangling")
    os.symlink("../../outside.txt", repo.root / "up_link")
    os.symlink("docs", repo.root / "dir_link")
    tool = repo.write("bin/tool.sh", "#!/bin/sh\necho hi\n")
    tool.chmod(0o755)
    for name in ODD_NAMES:
        repo.write(f"odd/{name}", name + "\n")
    sub = GitRepo(tmp_path / "sub")
    sub.root.mkdir()
    sub.git("init", "-q")
    sub.write("lib.txt", "sub\n")
    sub.commit("sub")
    repo.git("submodule", "add", "-q", str(sub.root), "vendor/sub")
    repo.commit("links, a submodule, odd names")
    return outside


def _check_laid_down(root: Path) -> None:
    assert os.readlink(root / "abs_link") == "/etc/hostname"
    assert os.readlink(root / "docs" / "rel_link") == "../calc.py"
    assert (root / "docs" / "rel_link").read_text() == (root / "calc.py").read_text()
    assert os.readlink(root / "dangling") == "no/such/target"
    assert os.readlink(root / "up_link") == "../../outside.txt"
    assert os.readlink(root / "dir_link") == "docs"
    assert os.stat(root / "bin" / "tool.sh").st_mode & stat.S_IXUSR
    assert not os.stat(root / "calc.py").st_mode & stat.S_IXUSR
    for name in ODD_NAMES:
        assert (root / "odd" / name).read_text() == name + "\n"
    assert (root / "vendor" / "sub").is_dir()  # a gitlink: an empty directory, as a checkout
    assert (root / ".gitmodules").is_file()


def test_snapshot_lays_down_links_submodules_modes_and_odd_names(
    repo: GitRepo, tmp_path: Path
) -> None:
    outside = _tricky_repo(repo, tmp_path)
    before = outside.stat()
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    with snapshot(find_repo(repo.root), tree) as root:
        _check_laid_down(root)
    assert not root.exists()
    assert outside.read_text() == "outside\n"
    assert outside.stat().st_mtime_ns == before.st_mtime_ns


def test_snapshot_never_writes_through_a_link_in_a_crafted_tree(
    repo: GitRepo, tmp_path: Path
) -> None:
    """A tree (made with plumbing, as no checkout would make it) holding a link ``d`` to a
    directory outside and a file ``d/x`` behind it: the file never lands outside."""
    start_project(repo)
    target = tmp_path / "victim"
    target.mkdir()
    link = _git_in(repo, str(target), "hash-object", "-w", "--stdin")
    blob = _git_in(repo, "pwned\n", "hash-object", "-w", "--stdin")
    sub = _git_in(repo, f"100644 blob {blob}\tx\n", "mktree")
    head_tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    entries = repo.git("ls-tree", head_tree)
    crafted = _git_in(repo, entries + f"120000 blob {link}\td\n040000 tree {sub}\td\n", "mktree")
    with snapshot(find_repo(repo.root), crafted) as root:
        assert not (root / "d").is_symlink()
    assert list(target.iterdir()) == []


def test_red_with_links_and_a_submodule_reads_the_previous_ids(
    repo: GitRepo, tmp_path: Path
) -> None:
    """A red whose target already passes needs the previous commit's test ids: a snapshot
    of HEAD (no evidence there). Its tree holds every kind of entry."""
    outside = _tricky_repo(repo, tmp_path)
    repo.write(
        "tests/test_calc.py",
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n\n"
        "def test_add_zero():\n    assert calc.add(0, 0) == 0\n",
        dedent=False,
    )
    repo.add("tests/test_calc.py")
    code, data = verdict(repo, "red", "--no-commit")
    assert code == 1, data
    assert rules(data) == ["target-passes"], data
    assert outside.read_text() == "outside\n"


def test_gate_on_a_snapshot_sees_links_as_a_checkout(repo: GitRepo, tmp_path: Path) -> None:
    """An unstaged change forces the run onto a snapshot of the index; the red's own test
    looks at the snapshot it runs in."""
    _tricky_repo(repo, tmp_path)
    repo.write(
        "tests/test_tree.py",
        "import os\nimport stat\nfrom pathlib import Path\n\nROOT = Path(__file__).parent.parent\n\n\n"
        "def test_tree():\n"
        "    assert os.readlink(ROOT / 'abs_link') == '/etc/hostname'\n"
        "    assert os.readlink(ROOT / 'dangling') == 'no/such/target'\n"
        "    assert os.stat(ROOT / 'bin' / 'tool.sh').st_mode & stat.S_IXUSR\n"
        "    assert (ROOT / 'vendor' / 'sub').is_dir()\n"
        "    assert (ROOT / 'docs' / 'rel_link').read_text() == 'not yet'\n",
        dedent=False,
    )
    repo.add("tests/test_tree.py")
    repo.write("calc.py", "# unstaged\n", dedent=False)
    code, data = verdict(repo, "red", "--no-commit")
    assert code == 0, data
    [target] = data["evidence"]["targets"]
    assert target["cause"] == "assertion", target
    assert "not yet" in target["message"]
