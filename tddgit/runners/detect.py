"""Which runner a repository uses, from its files (PRODUCT.md §3), and the per-ecosystem
defaults for ``test_command`` / ``junit_xml`` that the configuration leaves unset.

Order (first match wins; documented in docs/runners.md):

1. pytest configuration (``[tool.pytest.ini_options]`` in pyproject.toml, ``pytest.ini``,
   ``[tool:pytest]`` in setup.cfg, ``[pytest]`` in tox.ini), a ``conftest.py``, or Python
   test files at the top or in ``tests/`` / ``test/`` -> ``pytest``
2. ``package.json`` -> ``junit`` (vitest, jest -- both writing their JSON report -- else
   node's own runner)
3. ``pom.xml`` -> ``junit`` (Maven Surefire reports)
4. ``go.mod`` -> ``go`` (``go test -json``)
5. ``Cargo.toml`` -> ``rust`` (cargo's libtest JSON; nextest's JUnit when configured)
6. a Makefile with a ``test`` target -> ``command``
7. nothing -> ``pytest``

Detection runs on every gate and inside hooks, so it only stats a few paths and reads a
few small files: no subprocesses, no walk of the tree.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MAX_READ = 256 * 1024  # bytes read from any one file; config files are far smaller

# The node default runs node's own test runner with tddgit's reporter, which writes JUnit
# XML like node's `--test-reporter=junit` plus the file of every test (see junit.py).
NODE_COMMAND = "node --test --test-reporter={node_reporter} --test-reporter-destination={junit}"
# jest and vitest write their own JSON account of the run (the junit runner reads a
# report ending in .json as that): unlike their JUnit reporters it keeps a test file that
# failed to load. An ES module project's jest needs node's VM modules.
VITEST_COMMAND = (
    "./node_modules/.bin/vitest run --reporter=json --outputFile={junit_dir}/vitest.json"
)
JEST_COMMAND = "./node_modules/.bin/jest --ci --json --outputFile={junit_dir}/jest.json"
JEST_ESM_COMMAND = (
    'NODE_OPTIONS="--experimental-vm-modules $NODE_OPTIONS" '
    "./node_modules/.bin/jest --ci --json --outputFile={junit_dir}/jest.json"
)
MAVEN_COMMAND = "mvn -q test"
MAVEN_REPORTS = "target/surefire-reports/*.xml"

_PYTEST_SECTIONS = (
    ("pyproject.toml", re.compile(r"^\s*\[tool\.pytest\.ini_options\]", re.M)),
    ("setup.cfg", re.compile(r"^\s*\[tool:pytest\]", re.M)),
    ("tox.ini", re.compile(r"^\s*\[pytest\]", re.M)),
)
_MAKE_TEST = re.compile(r"^test\s*:(?![=:]?=)", re.M)  # a `test:` rule, not `test := x`
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_READ).decode("utf-8", "replace")
    except OSError:
        return ""


def _is_py_test(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _has_python_tests(root: Path) -> bool:
    for where in (root, root / "tests", root / "test"):
        try:
            if any(_is_py_test(p.name) for p in where.iterdir() if p.is_file()):
                return True
        except OSError:
            continue
    return False


def uses_pytest(root: Path) -> bool:
    return _pytest_evidence(root) is not None


def _pytest_evidence(root: Path) -> str | None:
    """What says ``root`` uses pytest (for ``tddgit config``), or ``None``."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():
            return name
    for name, section in _PYTEST_SECTIONS:
        path = root / name
        if path.is_file() and section.search(_read(path)):
            return f"pytest configuration in {name}"
    if (root / "conftest.py").is_file():
        return "conftest.py"
    return "Python test files" if _has_python_tests(root) else None


def has_make_test(root: Path) -> bool:
    for name in _MAKEFILES:
        path = root / name
        if path.is_file():
            # make reads GNUmakefile, makefile, Makefile in that order: the first one counts.
            return bool(_MAKE_TEST.search(_read(path)))
    return False


def detect(root: Path) -> str:
    """``"pytest"``, ``"junit"``, ``"go"``, ``"rust"`` or ``"command"``: the runner ``root``
    most likely uses."""
    return detection(root)[0]


def detection(root: Path) -> tuple[str, str]:
    """(the runner ``root`` most likely uses, the file or fact that says so)."""
    evidence = _pytest_evidence(root)
    if evidence is not None:
        return "pytest", evidence
    for name in ("package.json", "pom.xml"):
        if (root / name).is_file():
            return "junit", name
    if (root / "go.mod").is_file():
        return "go", "go.mod"
    if (root / "Cargo.toml").is_file():
        return "rust", "Cargo.toml"
    if has_make_test(root):
        return "command", "a Makefile with a test target"
    return "pytest", "nothing else found: the default"


def _package(root: Path) -> dict[str, object]:
    try:
        data = json.loads(_read(root / "package.json"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _node_dependencies(data: dict[str, object]) -> set[str]:
    deps: set[str] = set()
    for key in ("dependencies", "devDependencies"):
        table = data.get(key)
        if isinstance(table, dict):
            deps.update(str(k) for k in table)
    return deps


def _node_command(root: Path) -> tuple[str, str]:
    package = _package(root)
    deps = _node_dependencies(package)
    if "vitest" in deps:
        return VITEST_COMMAND, "package.json depends on vitest"
    if "jest" in deps:
        if package.get("type") == "module":
            return JEST_ESM_COMMAND, "package.json depends on jest; an ES module package"
        return JEST_COMMAND, "package.json depends on jest"
    return NODE_COMMAND, "package.json: node's own test runner (no vitest, no jest)"


def default_command(root: Path, runner: str) -> str | None:
    """The test command for ``runner`` in ``root`` when ``test_command`` is unset; ``None``
    when tddgit cannot guess one (the pytest runner builds its own)."""
    found = command_default(root, runner)
    return found[0] if found else None


def command_default(root: Path, runner: str) -> tuple[str, str] | None:
    """``default_command`` and the file it was guessed from (for ``tddgit config``)."""
    if runner == "junit":
        if (root / "package.json").is_file():
            return _node_command(root)
        if (root / "pom.xml").is_file():
            return MAVEN_COMMAND, "pom.xml"
        return None
    if runner == "go":
        return "go test -json <the packages concerned, or ./...>", "the go runner"
    if runner == "rust":
        from tddgit.cargocmd import cargo_argv, offline
        from tddgit.runners.nextest import configured

        nextest = configured(root)
        if nextest is not None:
            shown = " ".join(nextest.argv(offline()))
            return f"{shown} (JUnit: {nextest.report})", "the rust runner, .config/nextest.toml"
        return "RUSTC_BOOTSTRAP=1 " + " ".join(cargo_argv()), "the rust runner"
    if runner == "command":
        if (root / "go.mod").is_file():
            return "go test ./...", "go.mod"
        if (root / "Cargo.toml").is_file():
            return "cargo test", "Cargo.toml"
        if has_make_test(root):
            return "make test", "the Makefile's test target"
        if (root / "package.json").is_file():
            return "npm test", "package.json"
        if (root / "pom.xml").is_file():
            return MAVEN_COMMAND, "pom.xml"
    return None


def default_junit_xml(root: Path, runner: str) -> str | None:
    """Where ``runner`` finds its reports in ``root`` when ``junit_xml`` is unset; ``None``
    when the command itself says (the ``{junit}`` placeholder)."""
    if runner == "junit" and not (root / "package.json").is_file() and (root / "pom.xml").is_file():
        return MAVEN_REPORTS
    return None
