"""The gate's early start on a real Go module (issue 29: the red gate <= 1.3x plain `go
test`, and a red that does not compile yet fails `go test` in a tenth of a second): `tddgit
red` spawns the go runner's `go test -json` on the staged test files' packages before the
gate reads the index itself, and the run it judges is that one only when it is exactly the
run the gate would make. Real go and git, seen through wrappers on PATH that log each start
and then exec the real tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.runners.cycles import gate, reasons, stage, targets
from tests.runners.startlog import log_starts, spawn_order, starts, which
from tests.runners.test_process import gone
from tests.runners.toolchains import GO_CALC, GO_CALC_TEST, GO_MUL, GO_MUL_TEST, go_project

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]


SHAPES_TEST = (
    'package shapes\n\nimport "testing"\n\n'
    "func TestArea(t *testing.T) {\n\tif Area(2, 3) != 6 {\n\t\tt.Fatal(Area(2, 3))\n\t}\n}\n"
)


@pytest.fixture
def go(
    repo: GitRepo,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    # One build cache for the session: the tests' HOME is fresh, and Go 1.19 compiles
    # the standard library into it.
    monkeypatch.setenv("GOCACHE", str(tmp_path_factory.getbasetemp() / "gocache"))
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    monkeypatch.setenv("GOPROXY", "off")
    go_project(repo)
    tools = {name: which(name) for name in ("go", "git")}
    log_starts(tools, tmp_path / "bin", tmp_path, monkeypatch)
    return repo


def test_go_starts_before_the_gate_reads_the_index(go: GitRepo, tmp_path: Path) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {".": ("error", "not-implemented")}, data
    seen = starts(tmp_path)
    gos = [s for s in seen if s[0] == "go"]
    assert [g[3:] for g in gos] == [["test", "-json", "."]], seen  # the early run is the gate's
    assert Path(gos[0][2]) == go.root.resolve(), gos
    go_at = spawn_order(tmp_path, gos[0])
    before = [s[3] for s in seen if s[0] == "git" and spawn_order(tmp_path, s) < go_at]
    assert before == ["diff-index"], seen  # only the early start's own look at the index


def test_a_green_starts_the_whole_module_before_any_git_call(go: GitRepo, tmp_path: Path) -> None:
    """A green's scope is the whole suite: `./...`, known without asking git."""
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    stage(go, {"calc.go": GO_CALC + GO_MUL})
    starts(tmp_path)
    code, data = gate(go, "green")
    assert code == 0, data["reasons"]
    assert targets(data) == {".::TestMul": ("passed", None)}, data
    seen = starts(tmp_path)
    gos = [s for s in seen if s[0] == "go"]
    assert [g[3:] for g in gos] == [["test", "-json", "./..."]], seen
    first_git = min(spawn_order(tmp_path, s) for s in seen if s[0] == "git")
    assert spawn_order(tmp_path, gos[0]) < first_git, seen


def test_the_staged_test_files_packages_are_run(go: GitRepo, tmp_path: Path) -> None:
    """Test files in two packages, one of them new: both packages, in the gate's order."""
    go.write("shapes/shapes.go", "package shapes\n", dedent=False)
    go.commit("shapes")
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST, "shapes/area_test.go": SHAPES_TEST})
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {
        ".": ("error", "not-implemented"),
        "shapes": ("error", "not-implemented"),
    }, data
    gos = [s for s in starts(tmp_path) if s[0] == "go"]
    assert [g[3:] for g in gos] == [["test", "-json", ".", "./shapes"]], gos


def test_a_work_tree_unlike_the_index_is_judged_on_the_staged_tree(
    go: GitRepo, tmp_path: Path
) -> None:
    """The early run compiles the work tree; where that differs from the index the gate
    runs on a snapshot, and the early run is not its evidence."""
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    go.write("calc_test.go", GO_CALC_TEST + GO_MUL_TEST.replace("6 {", "6 {{"), dedent=False)
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {".": ("error", "not-implemented")}, data  # not the syntax error
    gos = [s for s in starts(tmp_path) if s[0] == "go"]
    assert len(gos) == 2, gos
    assert Path(gos[0][2]) == go.root.resolve()
    assert Path(gos[1][2]) != go.root.resolve(), gos  # the snapshot's


def test_a_gate_that_refuses_ends_the_early_run(go: GitRepo, tmp_path: Path) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + "// only a comment\n"})
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 1, data
    assert ("no-targets", None) in reasons(data), data
    gos = [s for s in starts(tmp_path) if s[0] == "go"]
    assert len(gos) == 1, gos  # it did start early
    assert gone([int(gos[0][1])], within=10.0)  # SIGKILLed; a busy machine reaps late
    assert not list((tmp_path / "scratch").glob("tddgit-*")), "the early run's files stay"


def test_a_gate_that_runs_another_command_ends_the_early_run(go: GitRepo, tmp_path: Path) -> None:
    """A red scoped to the whole suite runs `./...`: the early guess is killed, its
    files removed, and the gate's own run judged."""
    go.write(".tddgit.yaml", "red:\n  scope: all\n", dedent=False)
    go.commit("the whole suite on a red")
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    gos = [s for s in starts(tmp_path) if s[0] == "go"]
    assert [g[3:] for g in gos][-1] == ["test", "-json", "./..."], gos
    assert gone([int(g[1]) for g in gos], within=10.0)
    assert not list((tmp_path / "scratch").glob("tddgit-*")), "the early run's files stay"


def test_another_configured_runner_gets_no_early_start(go: GitRepo, tmp_path: Path) -> None:
    go.write(".tddgit.yaml", "runner: command\ntest_command: go test ./...\n", dedent=False)
    go.commit("the command runner")
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    gos = [s for s in starts(tmp_path) if s[0] == "go"]
    assert [g[3:] for g in gos] == [["test", "./..."]], gos


def test_no_early_start_when_turned_off(
    go: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TDDGIT_NO_EARLY", "1")
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    starts(tmp_path)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    seen = starts(tmp_path)
    assert not [s for s in seen if s[0] == "git" and s[3] == "diff-index"], seen
    assert [s[3:] for s in seen if s[0] == "go"] == [["test", "-json", "."]], seen


def test_a_red_with_a_syntax_error_is_still_amber(go: GitRepo) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST.replace("6 {", "6 {{")})
    code, data = gate(go, "red")
    assert code == 1, data
    assert ("target-amber", "syntax") in reasons(data), data


def test_a_production_change_in_the_work_tree_is_not_seen(go: GitRepo, tmp_path: Path) -> None:
    """`Mul` written but not staged: the early run would pass it; the gate's red, on the
    staged tree, still does not compile."""
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    go.write("calc.go", GO_CALC + "\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n", dedent=False)
    code, data = gate(go, "red")
    assert code == 0, data["reasons"]
    assert targets(data) == {".": ("error", "not-implemented")}, data
