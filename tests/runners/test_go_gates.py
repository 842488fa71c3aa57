"""Go TDD end to end: a real module, real `go test -json`, the real `tddgit` CLI and
hooks, the runner detected from go.mod."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo
from tests.runners.cycles import gate, hooked_commit, note, reasons, stage, targets
from tests.runners.toolchains import GO_CALC, GO_CALC_TEST, GO_MUL, GO_MUL_TEST, go_project

pytestmark = [pytest.mark.slow, pytest.mark.toolchain]

MUL_STUB = '\nfunc Mul(a, b int) int {\n\tpanic("not implemented")\n}\n'

SUB = "package calc\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"


def sub_test(*rows: str) -> str:
    return (
        'package calc\n\nimport "testing"\n\n'
        "func TestSub(t *testing.T) {\n"
        "\tcases := []struct {\n\t\tname       string\n\t\ta, b, want int\n\t}{\n"
        + "".join(f"\t\t{row},\n" for row in rows)
        + "\t}\n\tfor _, c := range cases {\n"
        "\t\tt.Run(c.name, func(t *testing.T) {\n"
        "\t\t\tif got := Sub(c.a, c.b); got != c.want {\n"
        '\t\t\t\tt.Errorf("Sub(%d, %d) = %d, want %d", c.a, c.b, got, c.want)\n'
        "\t\t\t}\n\t\t})\n\t}\n}\n"
    )


@pytest.fixture
def go(
    repo: GitRepo, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> GitRepo:
    # One build cache for the session: the tests' HOME is fresh, and Go 1.19 compiles
    # the standard library into it.
    monkeypatch.setenv("GOCACHE", str(tmp_path_factory.getbasetemp() / "gocache"))
    monkeypatch.setenv("GOFLAGS", "-mod=mod")
    monkeypatch.setenv("GOPROXY", "off")
    go_project(repo)
    return repo


def test_a_whole_cycle_from_a_red_that_does_not_compile(go: GitRepo) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    code, data = gate(go, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {".": ("error", "not-implemented")}, data
    assert note(go)["runner"] == "go"
    stage(go, {"calc.go": GO_CALC + GO_MUL})
    code, data = gate(go, "green")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {".::TestMul": ("passed", None)}
    stage(go, {"calc.go": GO_CALC + GO_MUL.replace("a * b", "b * a")})
    code, data = gate(go, "refactor")
    assert code == 0, (data["reasons"], data.get("evidence"))
    audit = json.loads(go.tddgit("audit", "--format", "json").stdout)
    assert [c["phase"] for c in audit["commits"]][-3:] == ["red", "green", "refactor"]
    assert not [f for f in audit["findings"] if f["severity"] == "error"], audit


def test_a_whole_cycle_through_the_hooks(go: GitRepo) -> None:
    go.tddgit("hooks", "install", check=True)
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST})
    proc = hooked_commit(go, "red")
    assert proc.returncode == 0, proc.stderr
    assert note(go)["phase"] == "red"
    stage(go, {"calc.go": GO_CALC + GO_MUL})
    proc = hooked_commit(go, "green")
    assert proc.returncode == 0, proc.stderr
    stage(go, {"calc.go": GO_CALC + GO_MUL.replace("a * b", "b * a")})
    proc = hooked_commit(go, "refactor")
    assert proc.returncode == 0, proc.stderr
    assert note(go)["phase"] == "refactor"


def test_a_red_with_a_syntax_error_is_amber(go: GitRepo) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST.replace("6 {", "6 {{")})
    code, data = gate(go, "red")
    assert code == 1, data
    assert ("target-amber", "syntax") in reasons(data), data


def test_a_red_with_another_compile_error_is_amber(go: GitRepo) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST.replace("Mul(2, 3)", 'Add(2, "3")')})
    code, data = gate(go, "red")
    assert code == 1, data
    assert ("target-amber", "collection") in reasons(data), data


def test_a_red_with_a_stub(go: GitRepo) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST, "calc.go": GO_CALC + MUL_STUB})
    code, data = gate(go, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    assert targets(data) == {".::TestMul": ("failed", "not-implemented")}


def test_a_red_with_real_code_is_refused(go: GitRepo) -> None:
    stage(go, {"calc_test.go": GO_CALC_TEST + GO_MUL_TEST, "calc.go": GO_CALC + GO_MUL})
    code, data = gate(go, "red")
    assert code == 1
    assert ("pre-test-code", None) in reasons(data), data


def test_a_new_table_row_is_the_only_target(go: GitRepo) -> None:
    rows = ('{"small", 3, 1, 2}', '{name: "negative result", a: 1, b: 3, want: -2}')
    stage(go, {"sub.go": SUB, "sub_test.go": sub_test(*rows)})
    go.commit("sub")
    stage(go, {"sub_test.go": sub_test(*rows, '{name: "wraps around", a: 0, b: 1, want: 1}')})
    code, data = gate(go, "red")
    assert code == 0, (data["reasons"], data.get("evidence"))
    # The subtest is the target; its parent fails with it, so it is reported with it.
    assert targets(data) == {
        ".::TestSub/wraps_around": ("failed", "assertion"),
        ".::TestSub": ("failed", "assertion"),
    }
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    others = {t["id"]: t["outcome"] for t in evidence["others"]}
    assert others[".::TestSub/small"] == "passed"
    assert others[".::TestAdd"] == "passed"
