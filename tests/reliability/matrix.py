"""The bad-input matrix (PRODUCT.md §10): every command against every kind of awkward
repository or input. One table drives the tests (test_bad_input.py) and the table in
docs/reliability.md (``python -m tests.reliability.matrix`` prints it)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import GitRepo
from tests.project import TEST_SUB, stage_red, start_project

NOTES_REF = "refs/notes/tddgit"


@dataclass(frozen=True)
class Command:
    name: str
    argv: tuple[str, ...]


COMMANDS = (
    Command("red", ("red", "--no-commit", "-m", "x")),
    Command("green", ("green", "--no-commit", "-m", "x")),
    Command("refactor", ("refactor", "--no-commit", "-m", "x")),
    Command("status", ("status",)),
    Command("run", ("run",)),
    Command("audit", ("audit", "--format", "json")),
    Command("detect", ("detect",)),
    Command("hooks install", ("hooks", "install")),
    Command("hooks uninstall", ("hooks", "uninstall")),
    Command("hook commit-msg", ("hook", "commit-msg", "MSGFILE")),
    Command("config", ("config",)),
)


def _init(root: Path) -> GitRepo:
    root.mkdir(parents=True)
    repo = GitRepo(root)
    repo.git("init", "-q")
    return repo


def _project(root: Path) -> GitRepo:
    repo = _init(root)
    start_project(repo)
    return repo


def not_a_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "test_x.py").write_text("def test_x():\n    assert True\n")
    return root


def empty_repo(root: Path) -> Path:
    return _init(root).root


def bare_repo(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(root)], check=True)
    return root


def detached_head(root: Path) -> Path:
    repo = _project(root)
    repo.git("checkout", "-q", "--detach")
    stage_red(repo)
    return repo.root


def shallow_clone(root: Path) -> Path:
    src = _project(root.parent / f"{root.name}-src")
    for i in range(3):
        src.commit(f"more {i}", allow_empty=True)
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{src.root}", str(root)], check=True
    )
    repo = GitRepo(root)
    stage_red(repo)
    return root


def submodules(root: Path) -> Path:
    sub = _project(root.parent / f"{root.name}-sub")
    repo = _project(root)
    repo.git("submodule", "add", "-q", str(sub.root), "vendor/sub")
    repo.commit("add a submodule")
    stage_red(repo)
    return root


def merge_conflict(root: Path) -> Path:
    repo = _project(root)
    repo.git("checkout", "-q", "-b", "other")
    repo.write("calc.py", "def add(a, b):\n    return b + a\n")
    repo.commit("other side")
    repo.git("checkout", "-q", "main")
    repo.write("calc.py", "def add(a, b):\n    return a + b + 0\n")
    repo.commit("this side")
    repo.git("merge", "-q", "other", check=False)
    return root


WEIRD_NAMES = ("tests/test with space.py", "tests/test_new\nline.py", "tests/test_'quo\"te.py")


def weird_names(root: Path) -> Path:
    repo = _project(root)
    for name in WEIRD_NAMES:
        repo.write(name, "def test_w():\n    assert 1 == 2\n")
    raw = bytes(repo.root / "tests") + b"/test_caf\xe9.py"
    Path(raw.decode("utf-8", "surrogateescape")).write_bytes(b"def test_l1():\n    assert 0\n")
    repo.add()
    return root


def binary_and_huge(root: Path) -> Path:
    repo = _project(root)
    repo.write(".gitattributes", "")
    (repo.root / "blob.bin").write_bytes(bytes(range(256)) * 64)
    with (repo.root / "huge.dat").open("wb") as fh:
        fh.truncate(100 * 1024 * 1024)  # 100 MiB (sparse on disk; git reads every byte)
    repo.commit("binary and huge files")
    stage_red(repo)
    (repo.root / "tests" / "data.bin").write_bytes(b"\x00\xff" * 1000)
    repo.add("tests/data.bin")
    return root


def _configured(root: Path, name: str, body: str) -> Path:
    repo = _project(root)
    repo.write(name, body, dedent=False)
    repo.commit("config", name)
    stage_red(repo)
    return root


def malformed_pyproject(root: Path) -> Path:
    repo = _project(root)
    repo.write("pyproject.toml", "[tool.tddgit\nmode = ", dedent=False)
    stage_red(repo)
    return root


def malformed_yaml(root: Path) -> Path:
    return _configured(root, ".tddgit.yaml", "mode: [strict\n  : :\n")


def unknown_key(root: Path) -> Path:
    return _configured(root, ".tddgit.yaml", "mode: strict\ncolour_of_the_bikeshed: blue\n")


def _hostile_note(root: Path, data: bytes) -> Path:
    repo = _project(root)
    stage_red(repo)
    repo.tddgit("red", "-m", "red step", check=True)
    subprocess.run(
        ["git", "notes", f"--ref={NOTES_REF}", "add", "-f", "-F", "-", "HEAD"],
        cwd=repo.root,
        input=data,
        check=True,
        capture_output=True,
    )
    # Only the (hostile) note is left: the cache that held the real evidence is gone, as in
    # a fresh clone that fetched refs/notes/tddgit.
    shutil.rmtree(repo.root / ".git" / "tddgit" / "evidence")
    calc = (repo.root / "calc.py").read_text()
    repo.write("calc.py", calc + "\n\ndef sub(a, b):\n    return a - b\n", dedent=False)
    repo.add("calc.py")
    return root


def note_invalid_json(root: Path) -> Path:
    return _hostile_note(root, b'{"schema": "tddgit.evidence/1", "phase": "red", "tr')


def note_huge(root: Path) -> Path:
    pad = "x" * (5 * 1024 * 1024)
    return _hostile_note(root, json.dumps({"schema": "tddgit.evidence/1", "pad": pad}).encode())


def note_wrong_schema(root: Path) -> Path:
    hostile = {
        "schema": "tddgit.evidence/1",
        "phase": "red",
        "tree": "0" * 40,
        "targets": [{"id": "tests/test_calc.py::test_sub", "outcome": "rm -rf /"}],
    }
    return _hostile_note(root, json.dumps(hostile).encode())


def missing_runner(root: Path) -> Path:
    return _configured(
        root, ".tddgit.yaml", "runner: command\ntest_command: no-such-test-runner-xyz --all\n"
    )


def missing_interpreter(root: Path) -> Path:
    return _configured(root, ".tddgit.yaml", "python: /nonexistent/bin/python3\n")


@dataclass(frozen=True)
class Fixture:
    name: str
    build: Callable[[Path], Path]
    what: str


FIXTURES = (
    Fixture("not-a-repo", not_a_repo, "a plain directory"),
    Fixture("empty-repo", empty_repo, "git init, no commit"),
    Fixture("bare-repo", bare_repo, "git init --bare"),
    Fixture("detached-head", detached_head, "HEAD detached, a red step staged"),
    Fixture("shallow-clone", shallow_clone, "git clone --depth 1, a red step staged"),
    Fixture("submodules", submodules, "a submodule, a red step staged"),
    Fixture("merge-conflict", merge_conflict, "a merge stopped on a conflict"),
    Fixture("weird-names", weird_names, "staged tests named with space, newline, quotes, Latin-1"),
    Fixture("binary-and-huge", binary_and_huge, "binary files and a 100 MiB file"),
    Fixture("malformed-pyproject", malformed_pyproject, "pyproject.toml is not TOML"),
    Fixture("malformed-yaml", malformed_yaml, ".tddgit.yaml is not YAML"),
    Fixture("unknown-config-key", unknown_key, ".tddgit.yaml with an unknown key"),
    Fixture("note-invalid-json", note_invalid_json, "HEAD's evidence note is cut-off JSON"),
    Fixture("note-huge", note_huge, "HEAD's evidence note is 5 MiB"),
    Fixture("note-wrong-schema", note_wrong_schema, "HEAD's note has bad fields"),
    Fixture("missing-runner", missing_runner, "test_command names no program"),
    Fixture("missing-interpreter", missing_interpreter, "python names no interpreter"),
)

# Extra cases that are about arguments rather than the repository.
EXTRA = (
    ("bad-range", "audit", ("audit", "nosuchrev..HEAD")),
    ("bad-range", "audit", ("audit", "HEAD~999..HEAD")),
    ("missing-msgfile", "hook commit-msg", ("hook", "commit-msg", "/nonexistent/msg")),
    ("missing-path", "detect", ("detect", "no/such/file.py")),
)

_ = TEST_SUB  # the staged red step of most fixtures adds TEST_SUB


# Expected exit code per (fixture, command); 2 always means a one-line error. Anything not
# listed: the default of the fixture (DEFAULT) and then 0.
DEFAULT = {
    "not-a-repo": 2,
    "bare-repo": 2,
    "malformed-pyproject": 2,
    "malformed-yaml": 2,
    "unknown-config-key": 2,
}
EXPECTED: dict[tuple[str, str], int] = {
    # config errors do not stop installing or removing hooks (they only copy shims)
    **{
        (f, c): 0
        for f in ("malformed-pyproject", "malformed-yaml", "unknown-config-key")
        for c in ("hooks install", "hooks uninstall")
    },
    # nothing staged / no red open: refused with the reason, exit 1
    **{("empty-repo", c): 1 for c in ("red", "green", "refactor", "hook commit-msg")},
    **{
        (f, c): 1
        for f in (
            "detached-head",
            "shallow-clone",
            "submodules",
            "weird-names",
            "binary-and-huge",
            "missing-runner",
            "missing-interpreter",
        )
        for c in ("green", "refactor")
    },
    # `run` shows the staged red test failing: exit 1
    **{
        (f, "run"): 1
        for f in (
            "detached-head",
            "shallow-clone",
            "submodules",
            "merge-conflict",
            "weird-names",
            "binary-and-huge",
        )
    },
    # a conflicted index cannot be judged
    **{("merge-conflict", c): 2 for c in ("red", "green", "refactor", "status")},
    ("merge-conflict", "hook commit-msg"): 1,  # a merge never declares a phase
    ("weird-names", "detect"): 1,  # the staged tests have no real assertions: findings
    # hostile notes: the red's own note is garbage and its cache entry is gone, so green
    # has no trustworthy red evidence and refuses; red/refactor refuse the production change
    **{
        (f, c): 1
        for f in ("note-invalid-json", "note-huge", "note-wrong-schema")
        for c in ("red", "green", "refactor", "hook commit-msg")
    },
    **{("missing-runner", c): 2 for c in ("red", "run", "hook commit-msg")},
    **{("missing-interpreter", c): 2 for c in ("red", "run", "hook commit-msg")},
}
EXTRA_EXPECTED = {"bad-range": 2, "missing-msgfile": 2, "missing-path": 2}

# Cases found wrong and not fixable in the files this campaign owns (see docs/reliability.md).
OPEN: dict[tuple[str, str], str] = {}


def expected(fixture: str, command: str) -> int:
    if fixture in EXTRA_EXPECTED:
        return EXTRA_EXPECTED[fixture]
    return EXPECTED.get((fixture, command), DEFAULT.get(fixture, 0))


def cases() -> list[tuple[str, str, tuple[str, ...]]]:
    return [(f.name, c.name, c.argv) for f in FIXTURES for c in COMMANDS] + list(EXTRA)


_MEANING = {0: "handled (0)", 1: "refused with reasons (1)", 2: "one-line error (2)"}


def markdown_table() -> str:
    """The matrix as docs/reliability.md shows it."""
    names = [c.name for c in COMMANDS]
    lines = [
        "| input | " + " | ".join(f"`{n}`" for n in names) + " |",
        "| --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for f in FIXTURES:
        cells = []
        for n in names:
            cell = str(expected(f.name, n))
            cells.append(cell + (" (open)" if (f.name, n) in OPEN else ""))
        lines.append(f"| {f.name}: {f.what} | " + " | ".join(cells) + " |")
    lines.append("")
    for fixture, command, argv in EXTRA:
        lines.append(
            f"- {fixture}: `tddgit {' '.join(argv)}` → {_MEANING[expected(fixture, command)]}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
