"""The audit's hot modules compiled with mypyc (``setup.py``) give byte-identical reports.

The compile is the one ``setup.py`` makes (modules, flags and options read from it by
``bench/compiled.py``), into a copy of ``tddgit/``, once per session; the pure run uses the
sources of the checkout under test. Both run the real CLI in a subprocess on the same
repositories: a synthetic 1500-commit history and a small one with every awkward case.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.compiled import c_compiler, ensure_build, origins, read_spec
from bench.synth import _build, hash_seed
from tddgit import __version__
from tests.audit.helpers import Steps, note, when
from tests.conftest import GitRepo, isolated_git

pytestmark = pytest.mark.slow

SOURCES = Path(__file__).resolve().parents[1]  # the checkout under test: pure Python
BLOB_CACHE = Path(".git") / "tddgit" / "audit-test-blobs.json"  # tddgit.audit.blobcache
FORMATS = [("--format", "json"), ("--format", "text"), ("--format", "json", "--detectors")]
MOCKED_TEST = """\
from unittest import mock


@mock.patch("app.a")
@mock.patch("app.b")
@mock.patch("app.c")
@mock.patch("app.d")
def test_mocked(a, b, c, d):
    assert True
"""


@pytest.fixture(scope="session")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``tddgit/`` with the hot modules compiled next to their sources."""
    if c_compiler() is None:
        pytest.skip("no C compiler: mypyc cannot build (setup.py then installs pure Python)")
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by this session's workers: they wait for one compile
    build = ensure_build(base / "mypyc", SOURCES)
    assert_imports(build, ".so")  # or every comparison below would compare the sources
    return build


def assert_imports(pythonpath: Path, suffix: str) -> None:
    """Every hot module is imported from under ``pythonpath``, from a ``suffix`` file."""
    names = read_spec(SOURCES / "setup.py").module_names()
    assert {"tddgit.history", "tddgit.audit.engine"} <= set(names)
    for name, origin in origins(pythonpath, names).items():
        assert origin.startswith(str(pythonpath)) and origin.endswith(suffix), (name, origin)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A 1500-commit history from bench/synth.py's builder, in tmp (never bench/.cache)."""
    root = tmp_path_factory.mktemp("synth") / "repo"
    with isolated_git(tmp_path_factory.mktemp("home")):
        _build(root, 1500, seed=hash_seed("synth", 1500))
    yield root


def audit(pythonpath: Path, repo: Path, *args: str) -> tuple[int, bytes, bytes]:
    # cwd is the repo: `-m` puts the working directory first on sys.path, and no tddgit/
    # must be found there before PYTHONPATH's
    proc = subprocess.run(
        [sys.executable, "-m", "tddgit", "-C", str(repo), "audit", *args],
        cwd=repo,
        env={**natural_env(), "PYTHONPATH": str(pythonpath)},
        capture_output=True,
    )
    return proc.returncode, proc.stdout, proc.stderr


def natural_env() -> dict[str, str]:
    """The environment without the audit's test seam: each build takes its natural path
    (the JSON spooled while the reader waits for git, the rest encoded in a child)."""
    return {k: v for k, v in os.environ.items() if k != "TDDGIT_AUDIT_SPOOL"}


def assert_same_reports(compiled: Path, repo: Path) -> None:
    """Every format, pure then compiled, from a cold blob cache; then --detectors again
    with the cache each left (the same file, or the warm run would differ)."""
    for args in FORMATS:
        (repo / BLOB_CACHE).unlink(missing_ok=True)
        pure = audit(SOURCES, repo, *args)
        cache = (repo / BLOB_CACHE).read_bytes() if "--detectors" in args else b""
        (repo / BLOB_CACHE).unlink(missing_ok=True)
        assert pure[0] == 0 and pure[1], pure[2].decode()
        assert audit(compiled, repo, *args) == pure, f"{' '.join(args)} differs"
        if "--detectors" in args:
            assert (repo / BLOB_CACHE).read_bytes() == cache
            assert audit(compiled, repo, *args) == audit(SOURCES, repo, *args)


def test_the_compiled_build_imports_its_extensions(compiled: Path) -> None:
    assert_imports(compiled, ".so")
    assert_imports(SOURCES, ".py")  # the reference stays the sources
    assert list(compiled.glob("tddgit_audit__mypyc*.so")), "the group's runtime is missing"


def test_version_says_which_audit_runs(compiled: Path, tmp_path: Path) -> None:
    def version(pythonpath: Path) -> str:
        env = {**os.environ, "PYTHONPATH": str(pythonpath)}
        cmd = [sys.executable, "-m", "tddgit", "--version"]
        return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True).stdout

    assert version(compiled) == f"tddgit {__version__} (audit: compiled)\n"
    assert version(SOURCES) == f"tddgit {__version__} (audit: pure Python)\n"


def test_synthetic_history_same_reports(compiled: Path, synthetic: Path) -> None:
    assert_same_reports(compiled, synthetic)


def test_awkward_history_same_reports(compiled: Path, repo: GitRepo) -> None:
    awkward_history(repo)
    assert_same_reports(compiled, repo.root)


def awkward_history(repo: GitRepo) -> None:
    """The cases the audit's own tests build, in one history."""
    s = Steps(repo)
    docs = s.commit("Initial readme", {"README.md": "hi\n", "docs/a.md": "a\n"})
    red = s.commit(
        "parse empty input",
        {"tests/test_calc.py": "from calc import total\n\n\ndef test_empty():\n    assert 0\n"},
        phase="red",
    )
    note(repo, red, "red")
    green = s.commit("sum", {"calc.py": "def total(xs):\n    return sum(xs)\n"}, phase="green")
    note(repo, green, "green", tree="0" * 40)  # evidence for another tree
    ref = s.commit("rename", {"calc.py": "def total(v):\n    return sum(v)\n"}, phase="refactor")
    note(repo, ref, "refactor", raw="{not json")
    s.commit("green: nothing to make pass", {"src/a.py": "def a():\n    return 1\n"})
    s.commit("test: parser", {"tests/test_parser.py": "def test_p():\n    assert 0\n"})
    s.commit("feat: parse", {"src/parser.py": "def parse():\n    return 1\n"})
    s.commit("[green] 🔴 both", {"src/parser.py": "def p():\n    return 1\n", "x.md": "x\n"})
    s.commit("Refactoring the parser", {"src/parser.py": "def parse():\n    return 2 - 1\n"})
    s.commit("refactor: both", {"src/a.py": "A = 2\n", "tests/test_parser.py": "X = 1\n"})
    s.commit("red: mocks", {"tests/test_mocked.py": MOCKED_TEST})
    s.commit("add engine", {"src/engine.py": "def run():\n    return 1\n"})
    s.commit("cover engine", {"tests/test_behaviour.py": "from src.engine import run\n"})
    s.commit("stub c", {"src/c.py": "def c():\n    raise NotImplementedError\n"})
    revert(repo, s, docs)  # an earlier commit, not the last
    s.commit("red: wrong test", {"tests/test_w.py": "def test_w():\n    assert 2 == 3\n"})
    revert(repo, s, "HEAD")
    s.commit("❌ TCR - tests failing", {"w.py": "def w(:\n"})
    s.commit("⏪ TCR - revert changes", {"w.py": None})
    s.commit("✅ TCR - tests passing", {"w.py": "def w():\n    return 2 - 1\n"})
    repo.git("checkout", "-q", "-b", "feature")
    s.commit("green: on a branch", {"t.py": "def t():\n    return 0\n"})
    repo.git("checkout", "-q", "main")
    s.commit("refactor: tidy", {"tests/test_w.py": "def test_w():\n    assert 1\n"})
    s.minute += 10
    env = {"GIT_AUTHOR_DATE": when(s.minute), "GIT_COMMITTER_DATE": when(s.minute)}
    repo.git("merge", "-q", "--no-ff", "feature", "-m", "Merge branch 'feature'", env=env)
    s.commit("", {"src/my file.py": "def x():\n    return 1\n"})
    s.commit("ünïcode", {"src/ünï.py": "def u():\n    pass\n"})
    s.commit("newline in a name", {"src/new\nline.py": "X = 1\n"})
    repo.git("mv", "src/my file.py", "src/renamed file.py")
    s.commit("rename a file")
    s.commit("remove", {"src/ünï.py": None})
    s.commit("binary", {"data.bin": "\0\1\2"})
    s.commit("red: by Ada", {"tests/test_ada.py": "def test_ada():\n    assert 0\n"})
    repo.git("commit", "-q", "--amend", "--no-edit", "--author=Ada <ada@example.com>")
    s.commit("green: edits the test", {"tests/test_ada.py": "X = 2\n", "ada.py": "A = 1\n"})
    s.commit("tidy ada", {"ada.py": "A = 2 - 1\n"}, phase="refactor")  # no evidence note


def revert(repo: GitRepo, s: Steps, rev: str) -> None:
    s.minute += 1
    env = {"GIT_AUTHOR_DATE": when(s.minute), "GIT_COMMITTER_DATE": when(s.minute)}
    repo.git("revert", "--no-edit", rev, env=env)


SIZES = """
import sys
from tddgit.audit import AuditOptions, run_audit
from tddgit.config import load_config
from tddgit.git import find_repo

repo = find_repo(sys.argv[1])
report = run_audit(repo, load_config(repo.root), AuditOptions(spool=False))
for name in ("commits", "findings", "cycles", "episodes"):
    made = getattr(report, name)
    print(name, len(made), sum(sys.getsizeof(vars(x)) for x in made))
"""


def test_the_compiled_records_take_no_more_memory_than_the_pure_ones(
    compiled: Path, synthetic: Path
) -> None:
    """Every record's ``__dict__`` is as small in the compiled build as in the pure one
    (a dict display in a compiled module makes a table for any keys: 50% more per
    entry, 16 MiB more at 100k commits; ``CommitRecord.fast``)."""

    def sizes(pythonpath: Path) -> str:
        argv = [sys.executable, "-c", SIZES, str(synthetic)]
        env = {**natural_env(), "PYTHONPATH": str(pythonpath)}
        done = subprocess.run(argv, cwd=synthetic, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    pure = sizes(SOURCES)
    assert all(int(line.split()[1]) > 0 for line in pure.splitlines()), pure
    assert sizes(compiled) == pure
