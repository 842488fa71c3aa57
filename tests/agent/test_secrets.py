"""What counts as a secret: by path (any directory of it), by shape (the patterns) and by
value (what secret files and secret-named variables hold). Tables, checked both ways."""

from __future__ import annotations

import pytest

from tddgit.agent.sandbox import Denied, Sandbox, find_secret
from tddgit.agent.secrets import redact_values, secret_values
from tddgit.config import DEFAULT_SECRET_GLOBS, default_config
from tddgit.paths import Classifier, Kind
from tests.conftest import GitRepo

SECRET_PATHS = [
    ".env",
    ".env.production",
    "secrets/db.txt",
    "config/secrets/prod/db.yaml",
    "deploy/credentials/aws.json",
    "certs/server.pem",
    "src/client_secret.json",
]
PLAIN_PATHS = ["src/app.py", "tests/test_env.py", "docs/environment.md", "src/keys.py"]

SECRET_TEXTS = [
    ('{"api_key": "sk_live_abcdef12"}', "a quoted key with a secret value"),
    ("config = {'password': 'hunter2hunter2'}", "a quoted key with a secret value"),
    ('"auth_token": "0123456789abcdef"', "a quoted key with a secret value"),
    ("DB = 'postgres://user:password@host/db'", "a URL with a password"),
    ("url: https://bob:hunter22@example.com/x", "a URL with a password"),
    ("redis://:s3cr3tpass@cache:6379/0", "a URL with a password"),
    ("API_TOKEN=abcdefghijklmnop1234", "a *_KEY/*_TOKEN/*_SECRET assignment"),
    ("-----BEGIN RSA PRIVATE KEY-----", "a private key block"),
]
PLAIN_TEXTS = [
    "DB = 'postgres://db.internal/shop'",
    "see https://example.com/a:b@c",  # no user:password before the host
    '{"api_key": key}',  # not a literal
    '{"api_key": "short"}',
    '"primary_key": True',
    "def password_ok(p): return len(p) > 8",
]


@pytest.fixture
def sandbox(repo: GitRepo) -> Sandbox:
    repo.write("README.md", "x\n")
    repo.commit("start", "README.md")
    return Sandbox(
        root=repo.root,
        classifier=Classifier.from_config(default_config()),
        writable=frozenset({Kind.TEST}),
        read_only_reason="production code is read-only in a red step",
        secret_globs=DEFAULT_SECRET_GLOBS,
        max_file_bytes=100_000,
    )


@pytest.mark.parametrize("path", SECRET_PATHS)
def test_a_path_named_like_a_secret_by_any_part_is_never_read(sandbox: Sandbox, path: str) -> None:
    (sandbox.root / path).parent.mkdir(parents=True, exist_ok=True)
    (sandbox.root / path).write_text("harmless\n")
    assert sandbox.is_secret_name(path)
    with pytest.raises(Denied, match="named like secrets"):
        sandbox.read_text(path)
    assert list(sandbox.listable([path])) == []


@pytest.mark.parametrize("path", PLAIN_PATHS)
def test_a_plain_path_is_not_a_secret(sandbox: Sandbox, path: str) -> None:
    assert not sandbox.is_secret_name(path)


@pytest.mark.parametrize(("text", "kind"), SECRET_TEXTS)
def test_a_secret_in_a_text_is_found_and_redacted(sandbox: Sandbox, text: str, kind: str) -> None:
    assert find_secret(text) == kind
    (sandbox.root / "src").mkdir(exist_ok=True)
    (sandbox.root / "src" / "settings.py").write_text(f"# settings\n{text}\n")
    with pytest.raises(Denied, match="holds"):
        sandbox.read_text("src/settings.py")
    assert "[redacted: " in sandbox.scrub(text)


@pytest.mark.parametrize("text", PLAIN_TEXTS)
def test_a_text_without_a_secret_passes(sandbox: Sandbox, text: str) -> None:
    assert find_secret(text) is None
    assert sandbox.scrub(text) == text


def test_values_of_secret_files_and_variables_are_redacted_wherever_they_appear(
    sandbox: Sandbox,
) -> None:
    (sandbox.root / ".env").write_text('export SHOP_DB="shoppw-8c7d6e"\nPORT=8080\n')
    (sandbox.root / "secrets").mkdir()
    (sandbox.root / "secrets" / "db.txt").write_text("rawpassword-19af\n")
    env = {"MY_SERVICE_TOKEN": "tok-77aa88bb", "PATH": "/usr/bin", "HOME": "/home/u"}
    values = secret_values(sandbox.root, DEFAULT_SECRET_GLOBS, env)
    assert values == {"shoppw-8c7d6e", "rawpassword-19af", "tok-77aa88bb"}
    sandbox.secret_values = values
    said = 'AssertionError: got "shoppw-8c7d6e" and rawpassword-19af, tok-77aa88bb on 8080'
    assert sandbox.scrub(said) == (
        'AssertionError: got "[redacted: a secret value]" and [redacted: a secret value], '
        "[redacted: a secret value] on 8080"
    )
    assert redact_values('{"m": "a\\"shoppw-8c7d6e"}', values) == (
        '{"m": "a\\"[redacted: a secret value]"}'
    )
