"""`tddgit config` shows the runner a gate uses and the exact command it runs, each with
where it came from: for every runner (pytest, junit for node/jest/vitest/maven, go, rust, command for
make, and a configured command)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo

VITEST = '{"devDependencies": {"vitest": "^1.0.0"}}'
JEST = '{"devDependencies": {"jest": "^29.0.0"}}'
JEST_ESM = '{"type": "module", "devDependencies": {"jest": "^29.0.0"}}'

CASES = [
    # files, runner, its source, start of the command, its source
    ({"tests/test_a.py": "def test_a():\n    pass\n"}, "pytest", "Python test files", None, None),
    ({"package.json": VITEST}, "junit", "package.json", "./node_modules/.bin/vitest run", "vitest"),
    ({"package.json": JEST}, "junit", "package.json", "./node_modules/.bin/jest --ci", "jest"),
    ({"package.json": JEST_ESM}, "junit", "package.json", "NODE_OPTIONS=", "an ES module"),
    ({"package.json": "{}"}, "junit", "package.json", "node --test", "node's own test runner"),
    ({"pom.xml": "<project/>"}, "junit", "pom.xml", "mvn -q test", "pom.xml"),
    ({"go.mod": "module x\n"}, "go", "go.mod", "go test -json", "the go runner"),
    (
        {"Cargo.toml": "[package]\n"},
        "rust",
        "Cargo.toml",
        "RUSTC_BOOTSTRAP=1 cargo test --no-fail-fast --message-format json",
        "the rust runner",
    ),
    ({"Makefile": "test:\n\ttrue\n"}, "command", "Makefile", "make test", "Makefile"),
]


def gate(repo: GitRepo) -> dict[str, str]:
    data = json.loads(repo.tddgit("config", "--json", check=True).stdout)
    return data["gate"]


@pytest.mark.parametrize(("files", "runner", "why", "command", "command_why"), CASES)
def test_the_detected_runner_and_its_command(repo, files, runner, why, command, command_why):
    for path, text in files.items():
        repo.write(path, text, dedent=False)
    shown = gate(repo)
    assert shown["runner"] == runner
    assert "detected" in shown["runner_source"] and why in shown["runner_source"]
    if command is None:  # pytest: the runner builds its command with the probe
        assert " -m pytest -p tddgit_probe --continue-on-collection-errors" in shown["command"]
        assert "python" in shown["command_source"]
    else:
        assert shown["command"].startswith(command)
        assert "default" in shown["command_source"] and command_why in shown["command_source"]
    text = repo.tddgit("config", check=True).stdout
    assert f"runner (gate)  {runner}  ({shown['runner_source']})" in text
    assert f"command (gate)  {shown['command']}  ({shown['command_source']})" in text


def test_a_configured_runner_and_command_say_so(repo):
    repo.write(".tddgit.yaml", "runner: command\ntest_command: ./check.sh --fast\n")
    shown = gate(repo)
    assert shown == {
        "runner": "command",
        "runner_source": "runner in .tddgit.yaml",
        "command": "./check.sh --fast",
        "command_source": "test_command in .tddgit.yaml",
    }


def test_the_pytest_command_names_the_projects_venv(repo):
    repo.write("tests/test_a.py", "def test_a():\n    pass\n")
    (repo.root / ".venv" / "bin").mkdir(parents=True)
    python = repo.root / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    shown = gate(repo)
    assert shown["command"].startswith(f"{python} -m pytest ")
    assert shown["command_source"] == "python: the project's .venv (python = auto)"


def test_a_runner_without_a_command_says_what_to_set(repo):
    repo.write(".tddgit.yaml", "runner: command\n")
    shown = gate(repo)
    assert shown["command"] is None
    assert "set `test_command`" in shown["command_source"]
