"""The sandbox's rules, one by one, on a real repository (no model, no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddgit.agent.coverage import spec_coverage
from tddgit.agent.prices import estimate_cost
from tddgit.agent.providers import Usage
from tddgit.agent.sandbox import Denied, Sandbox, find_secret, redact
from tddgit.config import DEFAULT_SECRET_GLOBS, default_config
from tddgit.paths import Classifier, Kind
from tddgit.spec import load_spec
from tests.agent.conftest import SPEC
from tests.conftest import GitRepo


@pytest.fixture
def sandbox(repo: GitRepo) -> Sandbox:
    repo.write(".gitignore", "build/\n")
    repo.write("src/app.py", "x = 1\n")
    repo.write("build/out.txt", "generated\n")
    repo.commit("start", "src/app.py", ".gitignore")
    return Sandbox(
        root=repo.root,
        classifier=Classifier.from_config(default_config()),
        writable=frozenset({Kind.TEST}),
        read_only_reason="production code is read-only in a red step",
        secret_globs=DEFAULT_SECRET_GLOBS,
        max_file_bytes=1000,
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../x", "outside the repository"),
        ("/etc/passwd", "absolute paths are refused"),
        ("~/.ssh/id_rsa", "absolute paths are refused"),
        ("src/../../x", "outside the repository"),
        (".git/config", "nothing under .git/"),
        ("src/../.git/HEAD", "nothing under .git/"),
        ("", "empty"),
    ],
)
def test_paths_must_stay_inside_the_repository(sandbox: Sandbox, path: str, why: str) -> None:
    with pytest.raises(Denied, match=why):
        sandbox.resolve(path)


def test_a_symlink_is_followed_before_the_check(sandbox: Sandbox, tmp_path: Path) -> None:
    (sandbox.root / "tests").mkdir()
    (sandbox.root / "tests" / "out").symlink_to(tmp_path)
    with pytest.raises(Denied, match="outside the repository"):
        sandbox.writable_path("tests/out/test_x.py", "")
    (sandbox.root / "tests" / "test_link.py").symlink_to(sandbox.root / "tests" / "real.py")
    with pytest.raises(Denied, match="symbolic link"):
        sandbox.writable_path("tests/test_link.py", "")


@pytest.mark.parametrize(
    ("name", "denied"),
    [
        (".env", True),
        (".env.production", True),
        ("deploy/server.pem", True),
        ("id_rsa.pub", True),
        ("config/credentials.json", True),
        ("MY_SECRETS.txt", True),
        ("cert.p12", True),
        (".npmrc", True),
        ("src/app.py", False),
    ],
)
def test_secret_names_are_never_read(sandbox: Sandbox, name: str, denied: bool) -> None:
    (sandbox.root / name).parent.mkdir(parents=True, exist_ok=True)
    (sandbox.root / name).write_text("x = 1\n")
    if denied:
        with pytest.raises(Denied, match="named like secrets"):
            sandbox.read_text(name)
    else:
        assert sandbox.read_text(name) == (name, "x = 1\n")


@pytest.mark.parametrize(
    "content",
    [
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
        "key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'\n",
        "AWS = 'AKIAABCDEFGHIJKLMNOP'\n",
        "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
        "STRIPE_API_KEY=abcdefghijklmnop1234\n",
        "GITLAB_TOKEN: glpat-abcdefghijklmnopqrstu\n",
    ],
)
def test_secret_content_is_never_read_and_is_redacted(sandbox: Sandbox, content: str) -> None:
    (sandbox.root / "notes.txt").write_text("harmless\n" + content)
    with pytest.raises(Denied, match="holds"):
        sandbox.read_text("notes.txt")
    assert find_secret(content) is not None
    assert "[redacted: " in redact(content)


def test_short_or_harmless_assignments_are_not_secrets() -> None:
    assert find_secret("MAX_TOKENS = 8192\nprimary_key = id\nTOKEN_URL=/auth\n") is None


def test_ignored_files_size_and_writable_kinds(sandbox: Sandbox) -> None:
    with pytest.raises(Denied, match="git ignores it"):
        sandbox.read_text("build/out.txt")
    sandbox.context = frozenset({"build/out.txt"})
    assert sandbox.read_text("build/out.txt")[1] == "generated\n"
    (sandbox.root / "big.txt").write_text("x" * 1001)
    with pytest.raises(Denied, match="over the 0 KB limit"):
        sandbox.read_text("big.txt")
    with pytest.raises(Denied, match="production code is read-only in a red step"):
        sandbox.writable_path("src/app.py", "x = 2\n")
    assert (
        sandbox.writable_path("tests/test_app.py", "def test(): pass\n")[0] == "tests/test_app.py"
    )
    with pytest.raises(Denied, match="over the 0 KB limit"):
        sandbox.writable_path("tests/test_app.py", "#" * 1001)
    assert list(sandbox.listable(["src/app.py", "build/out.txt", ".env", ".git/x"])) == [
        "src/app.py",
        "build/out.txt",
    ]


def test_spec_coverage_matches_whole_ids(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SPEC.replace("  - id: TC-2", "  - id: TC-10"))
    spec = load_spec(path)
    cov = spec_coverage(spec, ["def test_tc_10_x(): ..."])
    assert (cov.covered, cov.missing) == (("TC-10",), ("TC-1",))
    cov = spec_coverage(spec, ['def test_sub():\n    """TC-1 and tc 10"""'])
    assert (cov.covered, cov.missing) == (("TC-1", "TC-10"), ())


def test_cost_estimates_come_from_the_dated_price_table() -> None:
    usage = Usage(input=1_000_000, output=100_000, cache_read=1_000_000)
    assert estimate_cost("claude-sonnet-4-5-20250929", usage) == 3.0 + 1.5 + 0.3
    assert estimate_cost("some-unknown-model", usage) is None
    # a dated id costs as the longest alias it starts with, not a shorter family name
    assert estimate_cost("claude-sonnet-5-5-20260930", usage) == 2.0 + 1.0 + 0.2
    assert estimate_cost("claude-sonnet-5-20260630", usage) == 2.0 + 1.0 + 0.2
