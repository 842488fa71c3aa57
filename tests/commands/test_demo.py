"""`tddgit demo` walks a whole cycle, one refused step included, in a real repository."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import GitRepo


def test_demo_walks_a_cycle(repo: GitRepo, tmp_path: Path) -> None:
    target = tmp_path / "demo"
    proc = repo.tddgit("demo", str(target))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "✓ red holds" in out
    assert "✗ green refused" in out and "regression" in out
    assert "✓ green holds" in out
    assert "✓ refactor holds" in out
    demo = GitRepo(target)
    phases = demo.git("log", "--format=%(trailers:key=GSD-Phase,valueonly)").split()
    assert phases == ["refactor", "green", "red", "refactor", "green", "red"]
    # the last cycle is the scripted model's: generate red, green and refactor through the
    # replay provider
    assert "SCRIPTED MODEL" in out and "spec coverage: 1/1" in out
    agents = demo.git("log", "-3", "--format=%(trailers:key=GSD-Agent,valueonly)").split()
    assert agents == ["scripted", "scripted", "scripted"]
    assert "len(text.replace" in (target / "textstats.py").read_text()
    assert len(demo.git("notes", "--ref=tddgit", "list").splitlines()) == 6
    assert demo.git("status", "--porcelain").strip() == ""


def test_demo_refuses_a_non_empty_directory(repo: GitRepo, tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    proc = repo.tddgit("demo", str(tmp_path / "full"))
    assert proc.returncode == 2
    assert "not empty" in proc.stderr


def test_demo_in_a_new_temporary_directory_outlives_tddgit(repo: GitRepo, tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = repo.tddgit("demo", env={"TMPDIR": str(tmp)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("The demo repository stays in ")
    where = Path(last.removeprefix("The demo repository stays in ").split(":")[0])
    assert where.parent == tmp.resolve()
    assert (where / ".git").is_dir()  # still there after tddgit exited
