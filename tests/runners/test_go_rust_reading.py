"""Reading Go's and cargo's output (recorded lines of both Go event formats), and the Go
and Rust targets and stubs, without a toolchain."""

from __future__ import annotations

import json

from tddgit.detectors.gostubs import non_stub_additions_go
from tddgit.detectors.ruststubs import non_stub_additions_rust
from tddgit.gocmd import packages_for
from tddgit.model import Cause, Light, Outcome
from tddgit.runners.goevents import read_events, results
from tddgit.runners.rust import read_output
from tddgit.targets_go import go_targets
from tddgit.targets_rust import rust_targets

MODULE = "example.com/calc"


def directory(import_path: str) -> str:
    rel = import_path[len(MODULE) + 1 :] if import_path.startswith(MODULE + "/") else ""
    return rel or "."


def lines(*events: dict[str, object]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def outcomes(stdout: str, stderr: str = "") -> dict[str, tuple[Outcome, Cause | None]]:
    found = results(read_events(stdout, stderr), directory)
    return {t.id: (t.outcome, t.cause) for t in found}


# Go 1.24 and later: the build failure as events (recorded from `go test -json`).
BUILD_124 = lines(
    {
        "ImportPath": "example.com/calc [example.com/calc.test]",
        "Action": "build-output",
        "Output": "# example.com/calc [example.com/calc.test]\n",
    },
    {
        "ImportPath": "example.com/calc [example.com/calc.test]",
        "Action": "build-output",
        "Output": "./calc_test.go:12:12: undefined: Mul\n",
    },
    {"ImportPath": "example.com/calc [example.com/calc.test]", "Action": "build-fail"},
    {"Time": "2026-01-01T00:00:00Z", "Action": "start", "Package": "example.com/calc"},
    {
        "Time": "2026-01-01T00:00:00Z",
        "Action": "output",
        "Package": "example.com/calc",
        "Output": "FAIL\texample.com/calc [build failed]\n",
    },
    {
        "Time": "2026-01-01T00:00:00Z",
        "Action": "fail",
        "Package": "example.com/calc",
        "Elapsed": 0,
        "FailedBuild": "example.com/calc [example.com/calc.test]",
    },
)


def test_go_124_a_missing_name_is_red() -> None:
    assert outcomes(BUILD_124) == {".": (Outcome.ERROR, Cause.NOT_IMPLEMENTED)}


def test_go_124_a_syntax_error_is_amber() -> None:
    text = BUILD_124.replace("undefined: Mul", "syntax error: unexpected newline, expected comma")
    assert outcomes(text) == {".": (Outcome.ERROR, Cause.SYNTAX)}


# Go before 1.24: compiler errors on stderr, the package's FAIL as a plain line.
STDERR_119 = (
    "# example.com/calc/sub [example.com/calc/sub.test]\n"
    "./sub_test.go:6:2: x declared but not used\n"
    "./sub_test.go:7:12: undefined: Sub\n"
)


def test_go_119_another_compile_error_is_amber() -> None:
    found = outcomes("FAIL\texample.com/calc/sub [build failed]\n", STDERR_119)
    assert found == {"sub": (Outcome.ERROR, Cause.COLLECTION)}


def test_go_119_only_missing_names_is_red() -> None:
    stderr = "# example.com/calc/sub\n./s_test.go:3:5: c.Mul undefined (type Calc has no field or method Mul)\n"
    found = outcomes("FAIL\texample.com/calc/sub [build failed]\n", stderr)
    assert found == {"sub": (Outcome.ERROR, Cause.NOT_IMPLEMENTED)}
    assert results(
        read_events("", stderr + "FAIL\texample.com/calc/sub [setup failed]\n"), directory
    )


def test_go_tests_subtests_and_panics() -> None:
    def ev(action: str, test: str, output: str = "") -> dict[str, object]:
        return {"Action": action, "Package": MODULE, "Test": test, "Output": output}

    text = lines(
        ev("run", "TestAdd"),
        ev("pass", "TestAdd"),
        ev("run", "TestMul"),
        ev("output", "TestMul", "    calc_test.go:9: Mul(2, 3) = 0, want 6\n"),
        ev("fail", "TestMul"),
        ev("run", "TestSub"),
        ev("run", "TestSub/small"),
        ev("output", "TestSub/small", "panic: not implemented [recovered]\n"),
        ev("fail", "TestSub/small"),
        ev("fail", "TestSub"),
        ev("run", "TestDiv"),
        ev("output", "TestDiv", "panic: runtime error: integer divide by zero\n"),
    )
    found = outcomes(text)
    assert found == {
        ".::TestAdd": (Outcome.PASSED, None),
        ".::TestMul": (Outcome.FAILED, Cause.ASSERTION),
        ".::TestSub/small": (Outcome.FAILED, Cause.NOT_IMPLEMENTED),
        ".::TestSub": (Outcome.FAILED, Cause.NOT_IMPLEMENTED),
        ".::TestDiv": (Outcome.FAILED, Cause.CRASH),
    }


def test_go_packages_for_a_selection() -> None:
    assert packages_for((), "") == ["./..."]
    assert packages_for(("calc_test.go", ".::TestMul", "sub/a_test.go"), "") == [".", "./sub"]
    assert packages_for(("backend/x_test.go", "other/y_test.go"), "backend") == ["."]


SUB_TEST = """package calc

import "testing"

func TestSub(t *testing.T) {
\tcases := []struct {
\t\tname       string
\t\ta, b, want int
\t}{
\t\t{"small", 3, 1, 2},
\t\t{name: "negative result", a: 1, b: 3, want: -2},
\t}
\tfor _, c := range cases {
\t\tt.Run(c.name, func(t *testing.T) {
\t\t\tif got := Sub(c.a, c.b); got != c.want {
\t\t\t\tt.Errorf("got %d", got) // { not a brace
\t\t\t}
\t\t})
\t}
}
"""


def test_go_targets() -> None:
    row = '\t\t{name: "wraps around", a: 0, b: 1, want: 1},\n'
    added = SUB_TEST.replace("\t}\n\tfor", row + "\t}\n\tfor")
    assert go_targets("pkg/sub_test.go", added, SUB_TEST) == ["pkg::TestSub/wraps_around"]
    assert go_targets("sub_test.go", SUB_TEST.replace("// {", "// }"), SUB_TEST) == []
    body = SUB_TEST.replace("got %d", "Sub = %d")
    assert go_targets("sub_test.go", body, SUB_TEST) == [".::TestSub"]
    assert go_targets("sub_test.go", SUB_TEST, None) == [".::TestSub"]
    assert go_targets("sub/helpers_test.go", "package sub\n", None) == ["sub"]


def test_go_stubs() -> None:
    old = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
    stubs = (
        '\nfunc Mul(a, b int) int {\n\tpanic("not implemented")\n}\n'
        "\nfunc Div(a, b int) (int, error) {\n\treturn 0, nil\n}\n"
        "\ntype Calc struct{ memory int }\n\nfunc (c *Calc) Reset() {}\n"
    )
    assert non_stub_additions_go(old, old + stubs, "calc.go") == []
    real = old + "\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n\nvar Zero = 0\n"
    assert non_stub_additions_go(old, real, "calc.go") == [
        "calc.go: func Mul: code in a red step, not a stub",
        "calc.go: `var Zero = 0`: code in a red step, not a declaration",
    ]


CARGO = "\n".join(
    [
        "   Compiling calc v0.1.0 (/tmp/calc)",
        json.dumps(
            {
                "reason": "compiler-message",
                "message": {
                    "level": "error",
                    "code": {"code": "E0432", "explanation": "..."},
                    "message": "unresolved import `calc::mul`",
                },
            }
        ),
        "     Running unittests src/lib.rs (target/debug/deps/calc-0123)",
        '{ "type": "test", "event": "started", "name": "tests::adds" }',
        '{ "type": "test", "name": "tests::adds", "event": "ok", "exec_time": 0.001 }',
        "     Running tests/add.rs (target/debug/deps/add-4567)",
        '{ "type": "test", "name": "adds_big", "event": "failed", "stdout": '
        + json.dumps("thread 'adds_big' panicked at tests/add.rs:5:5:\nnot yet implemented\n")
        + " }",
        '{ "type": "test", "name": "adds_neg", "event": "failed", "stdout": '
        + json.dumps(
            "thread 'adds_neg' panicked at tests/add.rs:9:5:\nassertion `left == right` failed\n"
        )
        + " }",
        '{ "type": "test", "name": "unwraps", "event": "failed", "stdout": '
        + json.dumps(
            "thread 'unwraps' panicked at tests/add.rs:12:5:\ncalled `Option::unwrap()` on a `None` value\n"
        )
        + " }",
    ]
)


def test_cargo_output() -> None:
    found = {t.id: (t.outcome, t.cause) for t in read_output(CARGO, "calc").tests}
    assert found == {
        "calc": (Outcome.ERROR, Cause.NOT_IMPLEMENTED),
        "calc::tests::adds": (Outcome.PASSED, None),
        "calc::add::adds_big": (Outcome.FAILED, Cause.NOT_IMPLEMENTED),
        "calc::add::adds_neg": (Outcome.FAILED, Cause.ASSERTION),
        "calc::add::unwraps": (Outcome.FAILED, Cause.CRASH),
    }


def test_cargo_compile_errors_by_code() -> None:
    def error(code: str | None, message: str) -> str:
        body = {"level": "error", "code": {"code": code} if code else None, "message": message}
        return json.dumps({"reason": "compiler-message", "message": body})

    (syntax,) = read_output(error(None, "expected `;`, found `}`"), "calc").tests
    assert (syntax.cause, syntax.light) == (Cause.SYNTAX, Light.AMBER)
    (mixed,) = read_output(
        error("E0425", "cannot find function `mul`") + "\n" + error("E0308", "mismatched types"),
        "calc",
    ).tests
    assert (mixed.cause, mixed.light) == (Cause.COLLECTION, Light.AMBER)
    (missing,) = read_output(error("E0599", "no method named `mul`"), "calc").tests
    assert missing.light is Light.RED


INLINE = """pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5); // '{' in a comment
    }
}
"""


def test_rust_targets() -> None:
    grown = INLINE.replace(
        "}\n}\n",
        "}\n\n    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n}\n",
    )
    assert rust_targets("src/lib.rs", "calc", grown, INLINE) == ["calc::tests::adds_zero"]
    assert rust_targets("src/ops/mul.rs", "calc", INLINE, None) == ["calc::ops::mul::tests::adds"]
    assert rust_targets("src/lib.rs", "calc", INLINE.replace("a + b", "b + a"), INLINE) == []
    test_file = "fn helper<'a>(x: &'a str) -> &'a str { x }\n#[test]\nfn multiplies() {}\n"
    assert rust_targets("tests/mul.rs", "calc", test_file, None) == ["calc::mul::multiplies"]


def test_rust_stubs() -> None:
    old = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    stub = "\npub fn mul(a: i32, b: i32) -> i32 {\n    todo!()\n}\n\npub struct Calc {\n    memory: i32,\n}\n"
    assert non_stub_additions_rust(old, old + stub, "src/lib.rs") == []
    assert non_stub_additions_rust(old, INLINE, "src/lib.rs") == []  # the test module
    real = old + "\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n"
    assert non_stub_additions_rust(old, real, "src/lib.rs") == [
        "src/lib.rs: fn mul: code in a red step, not a stub"
    ]
