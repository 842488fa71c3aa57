"""Rust TDD end to end: a real crate, real `cargo test` (offline, its build directory in
the test's repository), the real `tddgit` CLI and hooks, the runner detected from
Cargo.toml."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo
from tests.runners.cycles import gate, hooked_commit, note, reasons, stage, targets
from tests.runners.toolchains import (
    RS_LIB,
    RS_MUL,
    RS_MUL_TEST,
    need,
    rust_project,
    with_venv_tools,
)

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

MUL_STUB = "\npub fn mul(a: i32, b: i32) -> i32 {\n    todo!()\n}\n"
INLINE = (
    "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn doubles() {\n        assert_eq!(double(4), 8);\n    }\n}\n"
)
DOUBLE = "\npub fn double(a: i32) -> i32 {\n    a * 2\n}\n"


@pytest.fixture
def rust(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    rust_project(repo, monkeypatch)
    return repo


def test_a_whole_cycle_from_a_red_that_does_not_compile(rust: GitRepo) -> None:
    stage(rust, {"tests/mul.rs": RS_MUL_TEST})
    code, data = gate(rust, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc": ("error", "not-implemented")}, data
    assert note(rust)["runner"] == "rust"
    stage(rust, {"src/lib.rs": RS_LIB + RS_MUL})
    code, data = gate(rust, "green")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc::mul::multiplies": ("passed", None)}
    stage(rust, {"src/lib.rs": RS_LIB + RS_MUL.replace("a * b", "b * a")})
    code, data = gate(rust, "refactor")
    assert code == 0, (data["reasons"], data.get("evidence"))
    audit = json.loads(rust.tddgit("audit", "--format", "json").stdout)
    assert [c["phase"] for c in audit["commits"]][-3:] == ["red", "green", "refactor"]
    assert not [f for f in audit["findings"] if f["severity"] == "error"], audit


def _cycle_through_the_hooks(repo: GitRepo) -> list[str]:
    """Red (does not compile yet), green, refactor, each a plain `git commit` judged by
    the installed hooks; the notes' commands."""
    repo.tddgit("hooks", "install", check=True)
    commands: list[str] = []
    for phase, files in (
        ("red", {"tests/mul.rs": RS_MUL_TEST}),
        ("green", {"src/lib.rs": RS_LIB + RS_MUL}),
        ("refactor", {"src/lib.rs": RS_LIB + RS_MUL.replace("a * b", "b * a")}),
    ):
        stage(repo, files)
        proc = hooked_commit(repo, phase)
        assert proc.returncode == 0, proc.stderr
        evidence = note(repo)
        assert evidence["phase"] == phase, evidence
        commands.append(str(evidence["command"]))
    return commands


def test_a_whole_cycle_through_the_hooks(rust: GitRepo) -> None:
    assert all("cargo test" in c for c in _cycle_through_the_hooks(rust))


def test_a_red_with_a_syntax_error_is_amber(rust: GitRepo) -> None:
    stage(rust, {"tests/mul.rs": RS_MUL_TEST.replace("6);", "6;")})
    code, data = gate(rust, "red")
    assert code == 1, data
    assert ("target-amber", "syntax") in reasons(data), data


def test_a_red_with_a_stub(rust: GitRepo) -> None:
    stage(rust, {"tests/mul.rs": RS_MUL_TEST, "src/lib.rs": RS_LIB + MUL_STUB})
    code, data = gate(rust, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc::mul::multiplies": ("failed", "not-implemented")}


def test_inline_tests_are_the_targets(rust: GitRepo) -> None:
    stage(rust, {"src/lib.rs": RS_LIB + INLINE})
    code, data = gate(rust, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc": ("error", "not-implemented")}
    stage(rust, {"src/lib.rs": RS_LIB + DOUBLE + INLINE})
    code, data = gate(rust, "green")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc::tests::doubles": ("passed", None)}
    audit = json.loads(rust.tddgit("audit", "--format", "json").stdout)
    assert not [f for f in audit["findings"] if f["severity"] == "error"], audit["findings"]


NEXTEST_TOML = '[profile.default.junit]\npath = "junit.xml"\n'


@pytest.fixture
def nextest(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    with_venv_tools(monkeypatch)
    need("cargo-nextest")
    repo.write(".config/nextest.toml", NEXTEST_TOML, dedent=False)
    rust_project(repo, monkeypatch)
    return repo


def test_a_whole_cycle_through_nextest(nextest: GitRepo) -> None:
    shown = json.loads(nextest.tddgit("config", "--json", check=True).stdout)["gate"]
    assert (shown["runner"], shown["command"].split(" (")[0]) == (
        "rust",
        "cargo nextest run --no-fail-fast --cargo-message-format json --profile default --offline",
    )
    stage(nextest, {"tests/mul.rs": RS_MUL_TEST})
    code, data = gate(nextest, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc": ("error", "not-implemented")}, data
    assert "cargo nextest run" in str(note(nextest)["command"])
    stage(nextest, {"src/lib.rs": RS_LIB + RS_MUL})
    code, data = gate(nextest, "green")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {"calc::mul::multiplies": ("passed", None)}
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    assert [t["id"] for t in evidence["others"]] == ["calc::add::adds"]
    stage(nextest, {"src/lib.rs": RS_LIB + RS_MUL.replace("a * b", "b * a")})
    code, data = gate(nextest, "refactor")
    assert code == 0, (data["reasons"], data.get("evidence"))


def test_a_whole_nextest_cycle_through_the_hooks(nextest: GitRepo) -> None:
    assert all("cargo nextest run" in c for c in _cycle_through_the_hooks(nextest))


def test_nextest_a_stub_and_inline_tests(nextest: GitRepo) -> None:
    stub = DOUBLE.replace("a * 2", "todo!()")
    stage(nextest, {"tests/mul.rs": RS_MUL_TEST, "src/lib.rs": RS_LIB + MUL_STUB + stub + INLINE})
    code, data = gate(nextest, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {
        "calc::mul::multiplies": ("failed", "not-implemented"),
        "calc::tests::doubles": ("failed", "not-implemented"),
    }


def test_a_refactor_of_production_code_and_inline_tests_is_two_sided(rust: GitRepo) -> None:
    stage(rust, {"src/lib.rs": RS_LIB + INLINE})
    assert gate(rust, "red")[0] == 0
    stage(rust, {"src/lib.rs": RS_LIB + DOUBLE + INLINE})
    assert gate(rust, "green")[0] == 0
    renamed = INLINE.replace("fn doubles()", "fn doubles_four()")
    stage(rust, {"src/lib.rs": RS_LIB + DOUBLE.replace("a * 2", "2 * a") + renamed})
    code, data = gate(rust, "refactor")
    assert code == 1, data
    assert ("refactor-changes-tests", None) in reasons(data), data


DOC_TEST = "/// ```\n/// assert_eq!(calc::add(1, 1), 2);\n/// ```\n"
# a red that compiles (a wrong expectation): every test binary builds and runs
ADD_RED = "#[test]\nfn multiplies() {\n    assert_eq!(calc::add(2, 3), 6);\n}\n"


def test_doc_tests_run_where_the_crate_has_some(rust: GitRepo) -> None:
    rust.write("src/lib.rs", DOC_TEST + RS_LIB, dedent=False)
    rust.commit("a doc test")
    stage(rust, {"tests/mul.rs": ADD_RED})
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    assert any(i.startswith("calc::doc::") for i in evidence["test_ids"]), evidence["test_ids"]


def test_no_rustdoc_build_where_the_crate_has_no_doc_tests(rust: GitRepo) -> None:
    """A crate without doc tests: plain `cargo test` on a failing test stops before them;
    the gate (`--no-fail-fast`) would build the crate with rustdoc for nothing (issue 29:
    a quarter of a second here, the gate's main cost over the plain run)."""
    rust.write("src/lib.rs", "/// Adds.\n" + RS_LIB, dedent=False)  # a doc comment, no code
    rust.commit("documented")
    stage(
        rust,
        {"tests/mul.rs": "#[test]\nfn multiplies() {\n    assert_eq!(calc::add(2, 3), 6);\n}\n"},
    )
    code, data = gate(rust, "red")
    assert code == 0, data["reasons"]
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    (command,) = evidence["command"]
    assert " --tests --examples " in f" {command} ", command
    assert "calc::mul::multiplies" in evidence["test_ids"]
