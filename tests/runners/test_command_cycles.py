"""The command runner on real Go and Rust projects: a whole cycle goes through, and a red
without per-test outcomes says what it proves (the gate and the audit agree)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo
from tests.runners.toolchains import (
    GO_CALC,
    GO_CALC_TEST,
    GO_MUL,
    GO_MUL_TEST,
    RS_LIB,
    RS_MUL,
    RS_MUL_TEST,
    go_project,
    rust_project,
)

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

COMMAND = "runner: command\n"


def gate(repo: GitRepo, phase: str) -> tuple[int, dict[str, object]]:
    proc = repo.tddgit(phase, "--json", "-m", f"{phase} step")
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def rules(data: dict[str, object]) -> list[str]:
    found = data["reasons"]
    assert isinstance(found, list)
    return [r["rule"] for r in found]


def cycle(repo: GitRepo, red: dict[str, str], green: dict[str, str]) -> None:
    for path, text in red.items():
        repo.write(path, text, dedent=False)
    repo.add()
    code, data = gate(repo, "red")
    assert code == 0, data
    notes = data["notes"]
    assert isinstance(notes, list)
    assert any("proves only that the test command fails" in n for n in notes), notes
    for path, text in green.items():
        repo.write(path, text, dedent=False)
    repo.add()
    code, data = gate(repo, "green")
    assert code == 0, (data["reasons"], data["notes"])
    audit = json.loads(repo.tddgit("audit", "--format", "json").stdout)
    assert [c["phase"] for c in audit["commits"]][-2:] == ["red", "green"]
    assert not [f for f in audit["findings"] if f["rule"] == "evidence-contradiction"], audit


def test_a_go_cycle_through_the_command_runner(repo: GitRepo) -> None:
    go_project(repo, COMMAND)
    cycle(repo, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST}, {"calc.go": GO_CALC + GO_MUL})


def test_a_rust_cycle_through_the_command_runner(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    rust_project(repo, monkeypatch, COMMAND)
    cycle(repo, {"tests/mul.rs": RS_MUL_TEST}, {"src/lib.rs": RS_LIB + RS_MUL})


def test_editing_the_reds_test_file_in_green_is_still_refused(repo: GitRepo) -> None:
    go_project(repo, COMMAND)
    repo.write("calc_test.go", GO_CALC_TEST + GO_MUL_TEST, dedent=False)
    repo.add()
    assert gate(repo, "red")[0] == 0
    repo.write("calc.go", GO_CALC + GO_MUL, dedent=False)
    repo.write("calc_test.go", GO_CALC_TEST + GO_MUL_TEST + "\n// edited\n", dedent=False)
    repo.add()
    code, data = gate(repo, "green")
    assert code == 1
    assert rules(data) == ["test-edited-in-green"], data
