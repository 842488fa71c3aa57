"""The gate's early start on a real crate (issue 29: the red gate <= 1.3x plain `cargo
test`, and a red that does not compile yet fails `cargo test` in a tenth of a second):
`tddgit red` spawns the rust runner's cargo before the gate reads the index, and the run
it judges is that one only when it is exactly the run the gate would make. Real cargo
and git, seen through wrappers on PATH that log each start and then exec the real tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.runners.cycles import gate, reasons, stage, targets
from tests.runners.startlog import log_starts, starts, which
from tests.runners.test_process import gone
from tests.runners.toolchains import RS_MUL_TEST, rust_project

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]


@pytest.fixture
def rust(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> GitRepo:
    rust_project(repo, monkeypatch)
    tools = {name: which(name) for name in ("cargo", "git")}
    log_starts(tools, tmp_path / "bin", tmp_path, monkeypatch)
    return repo


def test_cargo_starts_before_the_gate_reads_the_index(rust: GitRepo, tmp_path: Path) -> None:
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    starts(tmp_path)
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {"calc": ("error", "not-implemented")}, data
    seen = starts(tmp_path)
    cargos = [s for s in seen if s[0] == "cargo"]
    assert len(cargos) == 1, seen  # the early run is the gate's run: cargo once
    assert Path(cargos[0][2]) == rust.root.resolve(), cargos
    first_git = next(i for i, s in enumerate(seen) if s[0] == "git")
    assert seen.index(cargos[0]) < first_git, seen  # before any git call of the gate


def test_a_work_tree_unlike_the_index_is_judged_on_the_staged_tree(
    rust: GitRepo, tmp_path: Path
) -> None:
    """The early run compiles the work tree; where that differs from the index the gate
    runs on a snapshot, and the early run is not its evidence."""
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    rust.write("tests/mul.rs", RS_MUL_TEST.replace("6);", "6;"), dedent=False)  # unstaged
    starts(tmp_path)
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {"calc": ("error", "not-implemented")}, data
    cargos = [s for s in starts(tmp_path) if s[0] == "cargo"]
    assert len(cargos) == 2, cargos
    assert Path(cargos[0][2]) == rust.root.resolve()
    assert Path(cargos[1][2]) != rust.root.resolve(), cargos  # the snapshot's


def test_a_gate_that_refuses_before_its_run_ends_the_early_run(
    rust: GitRepo, tmp_path: Path
) -> None:
    starts(tmp_path)
    proc = rust.tddgit("red", "--json")  # nothing staged
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "nothing is staged" in proc.stderr
    cargos = [s for s in starts(tmp_path) if s[0] == "cargo"]
    assert len(cargos) == 1, cargos  # it did start early
    assert gone([int(cargos[0][1])], within=10.0)  # SIGKILLed; a busy machine reaps late
    assert not list((tmp_path / "scratch").glob("tddgit-*")), "the early run's files stay"


def test_another_configured_runner_gets_no_early_start(rust: GitRepo, tmp_path: Path) -> None:
    rust.write(".tddgit.yaml", "runner: command\ntest_command: cargo test\n", dedent=False)
    rust.commit("the command runner")
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    starts(tmp_path)
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    cargos = [s for s in starts(tmp_path) if s[0] == "cargo"]
    assert [c[3:] for c in cargos] == [["test"]], cargos


def test_a_red_with_a_syntax_error_is_still_amber(rust: GitRepo) -> None:
    stage(rust, {"tests/mul.rs": RS_MUL_TEST.replace("6);", "6;")})
    code, data = gate(rust, "red")
    assert code == 1, data
    assert ("target-amber", "syntax") in reasons(data), data


def test_the_targets_blobs_come_through_one_git_process(rust: GitRepo, tmp_path: Path) -> None:
    """The manifests above the test file, its staged and its earlier text: one `git
    cat-file`, not one per blob (each process is CPU the gate adds to the run)."""
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    starts(tmp_path)
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {"calc": ("error", "not-implemented")}, data
    reads = [s for s in starts(tmp_path) if s[0] == "git" and s[3] == "cat-file"]
    assert [r[4:] for r in reads] == [["--batch"]], reads
