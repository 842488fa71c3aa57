"""Runner detection and per-ecosystem defaults, from the files of real directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddgit.runners import detect_runner
from tddgit.runners.detect import (
    JEST_COMMAND,
    JEST_ESM_COMMAND,
    MAVEN_COMMAND,
    MAVEN_REPORTS,
    NODE_COMMAND,
    VITEST_COMMAND,
    default_command,
    default_junit_xml,
    detect,
)


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "runner"),
    [
        ({}, "pytest"),
        ({"README.md": "hi"}, "pytest"),
        ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"}, "pytest"),
        ({"pytest.ini": "[pytest]\n"}, "pytest"),
        ({"setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\n"}, "pytest"),
        ({"tox.ini": "[tox]\n\n[pytest]\naddopts = -q\n"}, "pytest"),
        ({"conftest.py": ""}, "pytest"),
        ({"tests/test_calc.py": ""}, "pytest"),
        ({"test/calc_test.py": ""}, "pytest"),
        ({"test_calc.py": ""}, "pytest"),
        ({"package.json": "{}"}, "junit"),
        ({"pom.xml": "<project/>"}, "junit"),
        ({"go.mod": "module example.com/calc\n"}, "go"),
        ({"Cargo.toml": "[package]\nname = 'calc'\n"}, "rust"),
        ({"Makefile": "all:\n\techo\n\ntest: all\n\t./run\n"}, "command"),
        # Python config wins over the others; a pyproject without pytest config does not.
        ({"pytest.ini": "", "package.json": "{}"}, "pytest"),
        ({"pyproject.toml": "[project]\nname = 'x'\n", "package.json": "{}"}, "junit"),
        ({"tox.ini": "[tox]\nenvlist = py311\n", "go.mod": "module x\n"}, "go"),
        # Node wins over Maven and Go; Maven over Go.
        ({"package.json": "{}", "go.mod": "module x\n"}, "junit"),
        ({"pom.xml": "<project/>", "Makefile": "test:\n\ttrue\n"}, "junit"),
        # A Makefile without a test rule is no reason to pick the command runner.
        ({"Makefile": "TEST := 1\ntest := 2\nbuild:\n\tcc x.c\n"}, "pytest"),
        ({"Makefile": "test:\n\ttrue\n", "tests/helper.txt": ""}, "command"),
    ],
)
def test_detect(tmp_path: Path, files: dict[str, str], runner: str) -> None:
    root = tree(tmp_path, files)
    assert detect(root) == runner
    assert detect_runner(root) == runner


def test_gnu_make_reads_gnumakefile_first(tmp_path: Path) -> None:
    tree(tmp_path, {"GNUmakefile": "build:\n\ttrue\n", "Makefile": "test:\n\ttrue\n"})
    assert detect(tmp_path) == "pytest"


def test_a_directory_named_like_a_config_file_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "package.json").mkdir()
    (tmp_path / "pyproject.toml").mkdir()
    assert detect(tmp_path) == "pytest"


@pytest.mark.parametrize(
    ("files", "runner", "command", "reports"),
    [
        ({"package.json": "{}"}, "junit", NODE_COMMAND, None),
        (
            {"package.json": '{"devDependencies": {"vitest": "^1.6.0"}}'},
            "junit",
            VITEST_COMMAND,
            None,
        ),
        (
            {"package.json": '{"devDependencies": {"jest": "^29", "jest-junit": "^16"}}'},
            "junit",
            JEST_COMMAND,
            None,
        ),
        # jest writes its own JSON account: jest-junit is not needed.
        ({"package.json": '{"devDependencies": {"jest": "^29"}}'}, "junit", JEST_COMMAND, None),
        # An ES module project's jest runs with node's VM modules.
        (
            {"package.json": '{"type": "module", "devDependencies": {"jest": "^29"}}'},
            "junit",
            JEST_ESM_COMMAND,
            None,
        ),
        ({"package.json": "not json"}, "junit", NODE_COMMAND, None),
        ({"package.json": "[1, 2]"}, "junit", NODE_COMMAND, None),
        ({"pom.xml": "<project/>"}, "junit", MAVEN_COMMAND, MAVEN_REPORTS),
        ({"go.mod": "module x\n"}, "junit", None, None),
        ({"go.mod": "module x\n"}, "command", "go test ./...", None),
        ({"Cargo.toml": ""}, "command", "cargo test", None),
        ({"Makefile": "test:\n\ttrue\n"}, "command", "make test", None),
        ({"package.json": "{}"}, "command", "npm test", None),
        ({"pom.xml": "<project/>"}, "command", MAVEN_COMMAND, None),
        ({}, "command", None, None),
        ({"pyproject.toml": "[tool.pytest.ini_options]\n"}, "pytest", None, None),
    ],
)
def test_defaults(
    tmp_path: Path,
    files: dict[str, str],
    runner: str,
    command: str | None,
    reports: str | None,
) -> None:
    root = tree(tmp_path, files)
    assert default_command(root, runner) == command
    assert default_junit_xml(root, runner) == reports


def test_every_junit_default_says_where_its_report_goes(tmp_path: Path) -> None:
    for command in (NODE_COMMAND, VITEST_COMMAND, JEST_COMMAND):
        assert "{junit}" in command or "{junit_dir}" in command
    tree(tmp_path, {"pom.xml": "<project/>"})
    assert default_junit_xml(tmp_path, "junit") == "target/surefire-reports/*.xml"


def test_only_the_start_of_a_huge_file_is_read(tmp_path: Path) -> None:
    # Hooks detect on every commit: a rule far down a huge Makefile is not looked for.
    padding = "# " + "x" * 1000 + "\n"
    tree(tmp_path, {"Makefile": padding * 300 + "test:\n\ttrue\n"})
    assert detect(tmp_path) == "pytest"
    tree(tmp_path, {"Makefile": padding * 10 + "test:\n\ttrue\n"})
    assert detect(tmp_path) == "command"
