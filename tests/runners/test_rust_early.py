"""The gate's early start on a real crate (issue 29: the red gate <= 1.3x plain `cargo
test`, and a red that does not compile yet fails `cargo test` in a tenth of a second):
`tddgit red` spawns the rust runner's cargo before the gate reads the index, and the run
it judges is that one only when it is exactly the run the gate would make. Real cargo
and git, seen through wrappers on PATH that log each start and then exec the real tool."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import GitRepo
from tests.runners.cycles import gate, reasons, stage, targets
from tests.runners.startlog import log_starts, spawn_order, starts, which
from tests.runners.test_process import gone
from tests.runners.toolchains import RS_MUL_TEST, rust_project

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]


@pytest.fixture
def unbuilt(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> GitRepo:
    """A committed crate never built: no `Cargo.lock`, no `target/`."""
    rust_project(repo, monkeypatch)
    tools = {name: which(name) for name in ("cargo", "git")}
    log_starts(tools, tmp_path / "bin", tmp_path, monkeypatch)
    return repo


@pytest.fixture
def rust(unbuilt: GitRepo) -> GitRepo:
    """The crate built once (as by the user's `cargo build`): the early start's case."""
    built = subprocess.run(
        ["cargo", "build", "--offline", "-q"], cwd=unbuilt.root, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    assert (unbuilt.root / "Cargo.lock").is_file() and (unbuilt.root / "target").is_dir()
    return unbuilt


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
    first_git = min(spawn_order(tmp_path, s) for s in seen if s[0] == "git")
    assert spawn_order(tmp_path, cargos[0]) < first_git, seen  # before any git call


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


def test_the_gate_asks_git_for_its_repository_and_head_once(rust: GitRepo, tmp_path: Path) -> None:
    """Where the work tree is and what HEAD is: one `git rev-parse`, not one for each
    (a process is CPU taken from the cargo beside it), and the verdict is the same."""
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    starts(tmp_path)
    proc = rust.tddgit("red", "--no-commit", "--json")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    data = json.loads(proc.stdout)
    assert targets(data) == {"calc": ("error", "not-implemented")}, data
    parses = [s[4:] for s in starts(tmp_path) if s[0] == "git" and s[3] == "rev-parse"]
    assert len(parses) == 1, parses
    assert data["evidence"]["parent"] == rust.git("rev-parse", "HEAD").strip()


def _unstaged_change(rust: GitRepo) -> None:
    """A staged red and an unstaged edit of it: the gate runs on a snapshot, elsewhere."""
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    rust.write("tests/mul.rs", RS_MUL_TEST.replace("6);", "6;"), dedent=False)


def test_a_gate_run_on_a_snapshot_leaves_no_build_in_the_work_tree(unbuilt: GitRepo) -> None:
    """Without an early start a gate that runs on a snapshot never builds in the user's
    tree: with one, it leaves no `Cargo.lock` and no `target/` there either."""
    _unstaged_change(unbuilt)
    code, data = gate(unbuilt, "red")
    assert code == 0, data["reasons"]
    assert not (unbuilt.root / "Cargo.lock").exists(), "the early run wrote Cargo.lock"
    assert not (unbuilt.root / "target").exists(), "the early run made target/"


def test_a_crate_never_built_here_gets_no_early_start(unbuilt: GitRepo, tmp_path: Path) -> None:
    starts(tmp_path)
    proc = unbuilt.tddgit("red", "--json")  # nothing staged: refused before its run
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert [s for s in starts(tmp_path) if s[0] == "cargo"] == []
    assert not (unbuilt.root / "Cargo.lock").exists()
    assert not (unbuilt.root / "target").exists()


STALE_LOCK = (
    "# This file is automatically @generated by Cargo.\n"
    "# It is not intended for manual editing.\n"
    "version = 3\n\n"
    '[[package]]\nname = "calc"\nversion = "0.0.1"\n'
)


def test_a_gate_run_on_a_snapshot_leaves_a_tracked_lock_file_as_it_was(
    rust: GitRepo, tmp_path: Path
) -> None:
    """A crate built here before (`target/` exists) whose committed `Cargo.lock` cargo
    would rewrite: the gate runs on a snapshot, so the user's `Cargo.lock` keeps its
    bytes, early start or not."""
    rust.write(".gitignore", "/target\n", dedent=False)
    rust.write("Cargo.lock", STALE_LOCK, dedent=False)
    rust.commit("a lock file")
    _unstaged_change(rust)
    starts(tmp_path)
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    assert next(s[2] for s in starts(tmp_path) if s[0] == "cargo") == str(rust.root.resolve())
    assert (rust.root / "Cargo.lock").read_text() == STALE_LOCK


def test_a_rust_red_loads_no_module_it_does_not_use(rust: GitRepo) -> None:
    """Every module a gate imports is CPU taken from the cargo beside it: what
    `tddgit.early.defer` defers stays unloaded: `inspect`'s machinery, `ast`'s parser,
    `locale`'s, and the compression modules `shutil` imports. (`typing` is loaded, on
    purpose, before the gate's first thread: see `test_gate_startup`.)"""
    from tests.hookprobe import loaded_modules

    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    loaded = loaded_modules(rust.root, ["red", "--no-commit"])
    assert loaded.code == 0, loaded.stderr
    assert "tddgit.runners.rust" in loaded.modules
    unused = ("_ast", "dis", "tokenize", "linecache", "_locale", "_bz2", "_lzma")
    assert [m for m in unused if m in loaded.modules] == []
    from tddgit.early.defer import DEFERRED

    # each still a placeholder, but what the interpreter had loaded already (a development
    # install's import finder loads pathlib, and with it ipaddress, at start-up)
    assert sorted(loaded.deferred) == sorted(set(DEFERRED) - set(loaded.started))


def test_a_rust_red_of_test_files_loads_none_of_what_it_does_not_ask(rust: GitRepo) -> None:
    """A plain `cargo test` red of a test file: nextest's module (no nextest
    configuration), the detectors' package (no production file, so no stub check), the
    comparison by id (no regression, no case list, no test configuration) are CPU taken
    from the cargo beside it, and are not loaded; nor is `tddgit.runners.rust` without
    its own module list."""
    from tests.hookprobe import loaded_modules

    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    loaded = loaded_modules(rust.root, ["red", "--no-commit"])
    assert loaded.code == 0, loaded.stderr
    assert "tddgit.runners.rust" in loaded.modules
    unused = ("tddgit.runners.nextest", "tddgit.detectors", "tddgit.gates.ids")
    assert loaded.under(unused) == []


def test_the_early_run_writes_in_the_gate_s_scratch_directory(
    rust: GitRepo, tmp_path: Path
) -> None:
    """Every directory the gate removes after cargo's exit is time on the test command's
    wall (an `rmdir` may wait on the file system's journal): the early run's output goes
    to the process's scratch directory (`tddgit-<pid>-*`, the gate's `tempfile` home,
    removed once at its end), not a directory of its own; nothing is left behind."""
    # the shell opens a redirection itself: read its stdout in a subshell first
    stdout = _red_logging(
        rust, tmp_path, "cargo", 'out=$(readlink /proc/$$/fd/1)\necho "$out" >> "{log}"'
    )
    temp = tmp_path / "scratch"  # the gate's TMPDIR (``log_starts``)
    assert Path(stdout).parent.parent == temp
    name = Path(stdout).parent.name
    assert name.split("-")[0] == "tddgit" and name.split("-")[1].isdigit(), name  # a pid
    assert list(temp.iterdir()) == []


def test_the_index_copy_is_a_file_in_the_scratch_directory(rust: GitRepo, tmp_path: Path) -> None:
    """`git write-tree` runs on a private copy of the index: a file in the gate's scratch
    directory (private already), not a directory of its own, whose removal may wait on
    the file system's journal while the tests run."""
    index = _red_logging(
        rust, tmp_path, "git", '[ "$1" = write-tree ] && echo "$GIT_INDEX_FILE" >> "{log}"'
    )
    name = Path(index).parent.name
    assert name.split("-")[0] == "tddgit" and name.split("-")[1].isdigit(), index  # a pid
    assert Path(index).parent.parent == tmp_path / "scratch"
    assert list((tmp_path / "scratch").iterdir()) == []


def _red_logging(rust: GitRepo, tmp_path: Path, tool: str, line: str) -> str:
    """A red of tests/mul.rs with ``line`` (``{log}``: a log file) run by the ``tool``
    wrapper first on PATH before it execs the real one: the one word it logged."""
    wrapper = tmp_path / "bin" / tool
    log = tmp_path / f"{tool}.log"
    wrapper.write_text(wrapper.read_text().replace("exec ", line.format(log=log) + "\nexec ", 1))
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    (word,) = log.read_text().split()
    return word
