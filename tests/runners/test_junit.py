"""The junit runner: real node test runs end to end, and the other ecosystems' real-shaped
reports written by a shell test_command, so the whole path (command, placeholders, report
discovery, parsing, cause table) runs every time."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from tddgit.config import load_config
from tddgit.errors import ConfigError, RunnerError
from tddgit.model import Cause, Light, Outcome, RunResult
from tddgit.runners import RunRequest, get_runner, junit
from tddgit.runners.junit import JunitRunner
from tddgit.runners.junitcauses import classify
from tddgit.runners.junitxml import parse_report


def project(root: Path, files: dict[str, str], **config: object) -> JunitRunner:
    """Write ``files`` and a .tddgit.yaml with ``config`` into ``root``; the runner for it."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if config:
        # JSON is YAML: commands with braces and colons need no YAML quoting rules.
        (root / ".tddgit.yaml").write_text(json.dumps({"runner": "junit", **config}))
    runner = get_runner(load_config(root), root)
    assert isinstance(runner, JunitRunner)
    return runner


def outcomes(result: RunResult) -> dict[str, tuple[str, str | None, str]]:
    return {
        t.id: (t.outcome.value, t.cause.value if t.cause else None, t.light.value)
        for t in result.tests
    }


# --- node, for real ------------------------------------------------------------------

NODE_PROJECT = {
    "package.json": '{"name": "calc", "type": "module"}\n',
    "src/add.js": "export function add(a, b) { return a + b; }\n",
    "test/add.test.js": """\
        import { describe, it, test } from 'node:test';
        import assert from 'node:assert';
        import { add } from '../src/add.js';

        test('adds', () => { assert.strictEqual(add(1, 2), 3); });
        test('adds wrongly', () => { assert.strictEqual(add(1, 2), 4); });
        test('throws', () => { throw new TypeError('boom'); });
        test('stub', () => { throw new Error('not implemented'); });
        test('later', { skip: 'not now' }, () => {});
        test('someday', { todo: true }, () => {});
        describe('outer', () => {
          describe('inner', () => {
            it('works', () => {});
            it('breaks', () => { assert.ok(add(1, 1) === 3); });
          });
        });
        """,
    "test/mul.test.js": """\
        import { test } from 'node:test';
        import assert from 'node:assert';
        import { mul } from '../src/mul.js';
        test('multiplies', () => { assert.strictEqual(mul(2, 3), 6); });
        """,
    "test/sub.test.cjs": """\
        const { test } = require('node:test');
        const assert = require('node:assert');
        const { sub } = require('../src/sub');
        test('subtracts', () => { assert.strictEqual(sub(3, 1), 2); });
        """,
    "test/broken.test.js": "import { test } from 'node:test';\ntest('x', () => {\n",
    "test/dep.test.js": """\
        import { test } from 'node:test';
        import leftPad from 'left-pad';
        test('pads', () => {});
        """,
}


@pytest.fixture(scope="module")
def node_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """One real `node --test` run over every kind of outcome (the default command)."""
    root = tmp_path_factory.mktemp("node") / "repo"
    runner = project(root, NODE_PROJECT)  # no config at all: detected and defaulted
    return runner.run(RunRequest(root=root, timeout=60))


@pytest.mark.parametrize(
    ("test_id", "outcome", "cause", "light"),
    [
        ("test/add.test.js::adds", "passed", None, "green"),
        ("test/add.test.js::adds wrongly", "failed", "assertion", "red"),
        ("test/add.test.js::throws", "failed", "other", "amber"),
        ("test/add.test.js::stub", "failed", "not-implemented", "red"),
        ("test/add.test.js::later", "skipped", None, "amber"),
        ("test/add.test.js::someday", "skipped", None, "amber"),
        ("test/add.test.js::outer > inner > works", "passed", None, "green"),
        ("test/add.test.js::outer > inner > breaks", "failed", "assertion", "red"),
        # A test file that never reached its tests: its own import decides.
        ("test/mul.test.js", "error", "not-implemented", "red"),
        ("test/sub.test.cjs", "error", "not-implemented", "red"),
        ("test/broken.test.js", "error", "syntax", "amber"),
        ("test/dep.test.js", "error", "environment", "amber"),
    ],
)
def test_node_outcomes_and_causes(
    node_run: RunResult, test_id: str, outcome: str, cause: str | None, light: str
) -> None:
    assert outcomes(node_run)[test_id] == (outcome, cause, light)


def test_node_run_has_exactly_the_tests_written(node_run: RunResult) -> None:
    assert len(node_run.tests) == 12
    assert node_run.runner == "junit"
    assert node_run.exit_code == 1
    assert not node_run.coarse and not node_run.timed_out
    assert node_run.notes == ()
    # The command is recorded as configured: no temporary paths in evidence.
    assert node_run.command == (
        "node --test --test-reporter={node_reporter} --test-reporter-destination={junit}",
    )


def test_node_results_know_their_file_line_and_message(node_run: RunResult) -> None:
    tests = node_run.by_id()
    wrong = tests["test/add.test.js::adds wrongly"]
    assert wrong.file == "test/add.test.js"
    assert wrong.line == 6
    assert "3 !== 4" in wrong.message
    assert "\n" not in wrong.message
    assert tests["test/mul.test.js"].message.startswith("Cannot find module")
    assert tests["test/broken.test.js"].message.startswith("SyntaxError")
    assert tests["test/add.test.js::later"].message == "not now"


def test_node_results_can_be_selected_by_file(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = project(root, NODE_PROJECT)
    result = runner.run(RunRequest(root=root, tests=("test/mul.test.js",), timeout=60))
    assert [t.id for t in result.tests] == ["test/mul.test.js"]


def test_nodes_own_junit_reporter_is_read_too(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    files = {k: v for k, v in NODE_PROJECT.items() if k in ("package.json", "src/add.js")}
    files["test/add.test.js"] = NODE_PROJECT["test/add.test.js"]
    cmd = "node --test --test-reporter=junit --test-reporter-destination={junit}"
    result = project(root, files, test_command=cmd).run(RunRequest(root=root, timeout=60))
    got = outcomes(result)
    # Node's reporter names no file: ids are the describe path and the test name.
    assert got["adds"] == ("passed", None, "green")
    assert got["adds wrongly"] == ("failed", "assertion", "red")
    assert got["stub"] == ("failed", "not-implemented", "red")
    assert got["throws"] == ("failed", "other", "amber")
    assert got["outer > inner > breaks"] == ("failed", "assertion", "red")
    assert got["later"][0] == "skipped"


# --- other ecosystems: real-shaped reports written by the test command --------------

SUREFIRE = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuite version="3.0" name="com.example.CalcTest" time="0.051" tests="6" errors="2" skipped="1" failures="2">
  <properties>
    <property name="java.version" value="17.0.10"/>
  </properties>
  <testcase name="adds" classname="com.example.CalcTest" time="0.012"/>
  <testcase name="subtracts" classname="com.example.CalcTest" time="0.004">
    <failure message="expected: &lt;2&gt; but was: &lt;4&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <2> but was: <4>
\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)
\tat com.example.CalcTest.subtracts(CalcTest.java:17)
]]></failure>
  </testcase>
  <testcase name="divides" classname="com.example.CalcTest" time="0.001">
    <error message="Not implemented yet" type="java.lang.UnsupportedOperationException"><![CDATA[java.lang.UnsupportedOperationException: Not implemented yet
\tat com.example.Calc.divide(Calc.java:12)
]]></error>
  </testcase>
  <testcase name="powers" classname="com.example.CalcTest" time="0.001">
    <error message="An operation is not implemented: pow" type="kotlin.NotImplementedError"/>
  </testcase>
  <testcase name="parses" classname="com.example.CalcTest" time="0.002">
    <error message="Cannot invoke &quot;String.length()&quot; because &quot;s&quot; is null" type="java.lang.NullPointerException"><![CDATA[java.lang.NullPointerException
\tat com.example.Calc.parse(Calc.java:20)
]]></error>
  </testcase>
  <testcase name="roots" classname="com.example.CalcTest" time="0">
    <skipped message="later"/>
  </testcase>
</testsuite>
"""

GO_JUNIT_REPORT = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" failures="3" errors="1">
\t<testsuite name="example.com/calc" tests="4" failures="3" errors="0" id="0" hostname="ci" time="0.004" timestamp="2024-05-01T10:00:00Z">
\t\t<properties>
\t\t\t<property name="go.version" value="go1.22.2 linux/amd64"></property>
\t\t</properties>
\t\t<testcase name="TestAdd" classname="example.com/calc" time="0.000"></testcase>
\t\t<testcase name="TestSub" classname="example.com/calc" time="0.000">
\t\t\t<failure message="Failed"><![CDATA[    calc_test.go:12: Sub(3, 1) = 4, want 2]]></failure>
\t\t</testcase>
\t\t<testcase name="TestDiv" classname="example.com/calc" time="0.000">
\t\t\t<failure message="Failed"><![CDATA[panic: not implemented [recovered]
\tpanic: not implemented

goroutine 7 [running]:
testing.tRunner.func1.2({0x5140e0, 0x57e2a8})]]></failure>
\t\t</testcase>
\t\t<testcase name="TestNil" classname="example.com/calc" time="0.000">
\t\t\t<failure message="Failed"><![CDATA[panic: runtime error: invalid memory address or nil pointer dereference [recovered]]]></failure>
\t\t</testcase>
\t</testsuite>
\t<testsuite name="example.com/calc/parse" tests="1" failures="0" errors="1" id="1" hostname="ci" time="0.000" timestamp="2024-05-01T10:00:00Z">
\t\t<testcase name="[build failed]" classname="example.com/calc/parse" time="0.000">
\t\t\t<error message="Build error"><![CDATA[parse/parse_test.go:9:9: undefined: Parse]]></error>
\t\t</testcase>
\t</testsuite>
</testsuites>
"""

NEXTEST = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="5" failures="2" errors="1" uuid="45c50ec5-3e6d-4ad4-9d4c-5d11b3a0b0f1" timestamp="2024-05-01T10:00:00.000+00:00" time="0.031">
    <testsuite name="calc" tests="4" disabled="1" errors="0" failures="2">
        <testcase name="tests::adds" classname="calc" timestamp="2024-05-01T10:00:00.001+00:00" time="0.001">
        </testcase>
        <testcase name="tests::subtracts" classname="calc" timestamp="2024-05-01T10:00:00.001+00:00" time="0.002">
            <failure type="test failure">thread &apos;tests::subtracts&apos; panicked at src/lib.rs:17:9:
assertion `left == right` failed
  left: 4
 right: 2
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace</failure>
            <system-out>running 1 test</system-out>
        </testcase>
        <testcase name="tests::divides" classname="calc" timestamp="2024-05-01T10:00:00.001+00:00" time="0.001">
            <failure type="test failure">thread &apos;tests::divides&apos; panicked at src/lib.rs:9:5:
not yet implemented</failure>
        </testcase>
        <testcase name="tests::slow" classname="calc"><skipped/></testcase>
    </testsuite>
    <testsuite name="calc::integration" tests="1" disabled="0" errors="1" failures="0">
        <testcase name="crashes" classname="calc::integration" time="0.004">
            <error type="test abort" message="process aborted with signal 6 (SIGABRT)"/>
        </testcase>
    </testsuite>
</testsuites>
"""

JEST_JUNIT = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="2" errors="0" time="0.812">
  <testsuite name="calc" errors="0" failures="1" skipped="0" timestamp="2024-05-01T10:00:00" time="0.41" tests="2">
    <testcase classname="calc adds" name="calc adds" time="0.002">
    </testcase>
    <testcase classname="calc subtracts" name="calc subtracts" time="0.003">
      <failure>Error: expect(received).toBe(expected) // Object.is equality

Expected: 2
Received: 4
    at Object.toBe (/repo/test/calc.test.js:9:22)</failure>
    </testcase>
  </testsuite>
  <testsuite name="test/mul.test.js" errors="0" failures="1" skipped="0" timestamp="2024-05-01T10:00:00" time="0" tests="1">
    <testcase classname="Test suite failed to run" name="test/mul.test.js" time="0">
      <failure>  ● Test suite failed to run

    Cannot find module &apos;../src/mul&apos; from &apos;test/mul.test.js&apos;</failure>
    </testcase>
  </testsuite>
</testsuites>
"""

VITEST = """\
<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="4" failures="1" errors="1" time="0.52">
    <testsuite name="test/calc.test.ts" timestamp="2024-05-01T10:00:00.000Z" hostname="ci" tests="3" failures="1" errors="0" skipped="1" time="0.004">
        <testcase classname="test/calc.test.ts" name="calc &gt; adds" time="0.001">
        </testcase>
        <testcase classname="test/calc.test.ts" name="calc &gt; subtracts" time="0.002">
            <failure message="expected 4 to be 2 // Object.is equality" type="AssertionError">
AssertionError: expected 4 to be 2 // Object.is equality
 ❯ test/calc.test.ts:9:22
            </failure>
        </testcase>
        <testcase classname="test/calc.test.ts" name="calc &gt; divides" time="0">
            <skipped/>
        </testcase>
    </testsuite>
    <testsuite name="test/mul.test.ts" timestamp="2024-05-01T10:00:00.000Z" hostname="ci" tests="1" failures="0" errors="1" skipped="0" time="0">
        <testcase classname="test/mul.test.ts" name="test/mul.test.ts" time="0">
            <error message="Failed to load url ../src/mul (resolved id: ../src/mul) in /repo/test/mul.test.ts. Does the file exist?" type="Error">
Error: Failed to load url ../src/mul (resolved id: ../src/mul) in /repo/test/mul.test.ts. Does the file exist?
            </error>
        </testcase>
    </testsuite>
</testsuites>
"""

PYTEST_JUNIT = """\
<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="2" skipped="2" tests="5" time="0.051" timestamp="2024-05-01T10:00:00.000000" hostname="ci"><testcase classname="tests.test_calc" name="test_adds" time="0.001" /><testcase classname="tests.test_calc" name="test_subtracts" time="0.001"><failure message="assert 4 == 2&#10; +  where 4 = sub(3, 1)">def test_subtracts():
&gt;       assert sub(3, 1) == 2
E       assert 4 == 2</failure></testcase><testcase classname="tests.test_calc" name="test_divides" time="0.001"><failure message="NotImplementedError">tests/test_calc.py:14: NotImplementedError</failure></testcase><testcase classname="tests.test_calc" name="test_pow" time="0.000"><skipped type="pytest.xfail" message="not yet" /></testcase><testcase classname="tests.test_calc" name="test_root" time="0.000"><skipped type="pytest.skip" message="later">tests/test_calc.py:20: later</skipped></testcase></testsuite></testsuites>
"""


def write_report(root: Path, name: str, xml: str) -> str:
    """Keep a fixture in the repo; the test command copies it where the report goes."""
    fixture = root / "fixtures" / name
    fixture.parent.mkdir(parents=True, exist_ok=True)
    fixture.write_text(xml)
    return f"fixtures/{name}"


def run_with_report(
    root: Path, xml: str, *, exit_code: int = 1, files: dict[str, str] | None = None
) -> RunResult:
    root.mkdir(parents=True, exist_ok=True)
    src = write_report(root, "report.xml", xml)
    runner = project(root, files or {}, test_command=f"cp {src} {{junit}}; exit {exit_code}")
    return runner.run(RunRequest(root=root, timeout=30))


def test_maven_surefire_reports_by_glob_read_only_fresh_ones(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    reports = root / "target" / "surefire-reports"
    reports.mkdir(parents=True)
    stale = reports / "TEST-com.example.OldTest.xml"
    stale.write_text(SUREFIRE.replace("CalcTest", "OldTest"))
    os.utime(stale, (1_000_000_000, 1_000_000_000))
    src = write_report(root, "surefire.xml", SUREFIRE)
    (root / "pom.xml").write_text("<project/>\n")
    # The default junit_xml for a Maven project is target/surefire-reports/*.xml.
    cmd = f"cp {src} target/surefire-reports/TEST-com.example.CalcTest.xml; exit 1"
    result = project(root, {}, test_command=cmd).run(RunRequest(root=root, timeout=30))
    assert outcomes(result) == {
        "com.example.CalcTest::adds": ("passed", None, "green"),
        "com.example.CalcTest::subtracts": ("failed", "assertion", "red"),
        "com.example.CalcTest::divides": ("error", "not-implemented", "red"),
        "com.example.CalcTest::powers": ("error", "not-implemented", "red"),
        "com.example.CalcTest::parses": ("error", "other", "amber"),
        "com.example.CalcTest::roots": ("skipped", None, "amber"),
    }
    assert stale.exists(), "user files are never deleted"
    assert result.by_id()["com.example.CalcTest::subtracts"].message == (
        "expected: <2> but was: <4>"
    )


def test_go_junit_report(tmp_path: Path) -> None:
    result = run_with_report(tmp_path / "repo", GO_JUNIT_REPORT)
    assert outcomes(result) == {
        "example.com/calc::TestAdd": ("passed", None, "green"),
        "example.com/calc::TestSub": ("failed", "assertion", "red"),
        "example.com/calc::TestDiv": ("failed", "not-implemented", "red"),
        "example.com/calc::TestNil": ("failed", "other", "amber"),
        # A compile error is not taken as a missing implementation: amber, with why.
        "example.com/calc/parse::[build failed]": ("error", "other", "amber"),
    }
    assert "undefined: Parse" not in result.by_id()["example.com/calc::TestAdd"].message


def test_cargo_nextest(tmp_path: Path) -> None:
    result = run_with_report(tmp_path / "repo", NEXTEST)
    assert outcomes(result) == {
        "calc::tests::adds": ("passed", None, "green"),
        "calc::tests::subtracts": ("failed", "assertion", "red"),
        "calc::tests::divides": ("failed", "not-implemented", "red"),
        "calc::tests::slow": ("skipped", None, "amber"),
        "calc::integration::crashes": ("error", "crash", "amber"),
    }
    subtracts = result.by_id()["calc::tests::subtracts"]
    assert subtracts.message == "assertion `left == right` failed"


def test_jest_junit(tmp_path: Path) -> None:
    result = run_with_report(tmp_path / "repo", JEST_JUNIT)
    assert outcomes(result) == {
        "calc adds": ("passed", None, "green"),
        "calc subtracts": ("failed", "assertion", "red"),
        "Test suite failed to run::test/mul.test.js": ("failed", "not-implemented", "red"),
    }


def test_vitest_classname_is_the_file(tmp_path: Path) -> None:
    files = {"test/calc.test.ts": "// tests\n", "test/mul.test.ts": "// tests\n"}
    result = run_with_report(tmp_path / "repo", VITEST, files=files)
    assert outcomes(result) == {
        "test/calc.test.ts::calc > adds": ("passed", None, "green"),
        "test/calc.test.ts::calc > subtracts": ("failed", "assertion", "red"),
        "test/calc.test.ts::calc > divides": ("skipped", None, "amber"),
        "test/mul.test.ts": ("error", "not-implemented", "red"),
    }
    assert {t.file for t in result.tests} == {"test/calc.test.ts", "test/mul.test.ts"}


def test_pytest_junitxml(tmp_path: Path) -> None:
    result = run_with_report(tmp_path / "repo", PYTEST_JUNIT)
    assert outcomes(result) == {
        "tests.test_calc::test_adds": ("passed", None, "green"),
        "tests.test_calc::test_subtracts": ("failed", "assertion", "red"),
        "tests.test_calc::test_divides": ("failed", "not-implemented", "red"),
        "tests.test_calc::test_pow": ("xfailed", None, "green"),
        "tests.test_calc::test_root": ("skipped", None, "amber"),
    }


def test_junit_dir_placeholder_reads_every_report_written_there(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    a = write_report(root, "a.xml", SUREFIRE)
    b = write_report(root, "b.xml", NEXTEST)
    cmd = f"mkdir -p {{junit_dir}}/nested && cp {a} {{junit_dir}} && cp {b} {{junit_dir}}/nested"
    result = project(root, {}, test_command=cmd).run(RunRequest(root=root, timeout=30))
    assert len(result.tests) == 11
    assert result.exit_code == 0


# --- when things go wrong ------------------------------------------------------------


def test_no_report_gives_no_tests_a_note_and_the_exit_code(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = project(root, {}, test_command="echo compiling; exit 3", junit_xml="out/*.xml")
    result = runner.run(RunRequest(root=root, timeout=30))
    assert result.tests == ()
    assert result.exit_code == 3
    assert "wrote no JUnit report" in result.notes[0]
    assert "compiling" in result.output_tail


def test_a_stale_report_matching_the_glob_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "out").mkdir(parents=True)
    (root / "out" / "old.xml").write_text(SUREFIRE)
    runner = project(root, {}, test_command="true", junit_xml="out/*.xml")
    result = runner.run(RunRequest(root=root, timeout=30))
    assert result.tests == ()
    assert (root / "out" / "old.xml").read_text() == SUREFIRE


def test_a_report_rewritten_by_the_run_is_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "out").mkdir(parents=True)
    (root / "out" / "r.xml").write_text(SUREFIRE)
    src = write_report(root, "nextest.xml", NEXTEST)
    runner = project(root, {}, test_command=f"cp {src} out/r.xml", junit_xml="out/**/*.xml")
    result = runner.run(RunRequest(root=root, timeout=30))
    assert "calc::tests::adds" in result.by_id()
    assert "com.example.CalcTest::adds" not in result.by_id()


@pytest.mark.parametrize(
    ("xml", "note"),
    [
        ("<testsuites><testsuite><testcase name='a'>", "not well-formed XML"),
        ("", "not well-formed XML"),
        ("\x00\x01garbage", "not well-formed XML"),
        ("<html><body>500</body></html>", "not a JUnit report"),
        (
            '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]>'
            "<testsuite><testcase name='&b;'/></testsuite>",
            "declares XML entities",
        ),
    ],
)
def test_a_malformed_report_is_a_note_never_a_traceback(
    tmp_path: Path, xml: str, note: str
) -> None:
    result = run_with_report(tmp_path / "repo", xml)
    assert result.tests == ()
    assert any(note in n for n in result.notes), result.notes
    assert result.exit_code == 1


def test_control_characters_in_a_report_are_tolerated(tmp_path: Path) -> None:
    xml = SUREFIRE.replace("expected: &lt;2&gt;", "\x1b[31mexpected: &lt;2&gt;")
    result = run_with_report(tmp_path / "repo", xml)
    assert result.by_id()["com.example.CalcTest::subtracts"].cause is Cause.ASSERTION


def test_a_report_over_the_cap_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(junit, "MAX_REPORT_BYTES", 1024)
    result = run_with_report(tmp_path / "repo", SUREFIRE)
    assert result.tests == ()
    assert any("ignored" in n and "report" in n for n in result.notes)


def test_a_timeout_is_reported_and_the_group_killed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = project(root, {}, test_command="sleep 30 > {junit}")
    result = runner.run(RunRequest(root=root, timeout=0.5))
    assert result.timed_out
    assert any("timed out after 0.5s" in n for n in result.notes)
    assert result.duration < 5


def test_a_missing_tool_is_a_runner_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = project(root, {}, test_command="tddgit-no-such-tool --out {junit}")
    with pytest.raises(RunnerError, match="could not run"):
        runner.run(RunRequest(root=root, timeout=30))


def test_no_command_and_nothing_to_guess_is_a_config_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".tddgit.yaml").write_text("runner: junit\n")
    runner = get_runner(load_config(root), root)
    with pytest.raises(ConfigError, match="test_command"):
        runner.run(RunRequest(root=root, timeout=30))


def test_a_command_without_a_report_location_is_a_config_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = project(root, {}, test_command="make check")
    with pytest.raises(ConfigError, match="where the test command writes") as info:
        runner.run(RunRequest(root=root, timeout=30))
    assert "{junit}" in info.value.one_line()
    assert "junit_xml" in info.value.one_line()


def test_the_temporary_report_directory_is_removed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    runner = project(root, {}, test_command="echo {junit_dir} > where.txt; exit 0")
    runner.run(RunRequest(root=root, timeout=30))
    where = Path((root / "where.txt").read_text().strip())
    assert where.name.startswith("tddgit-junit-")
    assert not where.exists()


# --- the cause table -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "message", "text", "cause"),
    [
        ("AssertionError [ERR_ASSERTION]", "1 == 2", "", Cause.ASSERTION),
        ("org.opentest4j.AssertionFailedError", "expected: <1>", "", Cause.ASSERTION),
        ("junit.framework.ComparisonFailure", "x", "", Cause.ASSERTION),
        ("Xunit.Sdk.EqualException", "Assert.Equal() Failure", "", Cause.ASSERTION),
        ("", "assert 4 == 2", "", Cause.ASSERTION),
        ("", "Error: expect(received).toBe(expected)", "", Cause.ASSERTION),
        ("testCodeFailure", "x", "cause: AssertionError [ERR_ASSERTION]: x", Cause.ASSERTION),
        ("", "Failed", "    calc_test.go:12: got 4", Cause.ASSERTION),
        ("", "Failed", "panic: boom", Cause.OTHER),
        (
            "System.NotImplementedException",
            "The method is not implemented.",
            "",
            Cause.NOT_IMPLEMENTED,
        ),
        ("NotImplementedError", "", "", Cause.NOT_IMPLEMENTED),
        ("Error", "not implemented", "", Cause.NOT_IMPLEMENTED),
        ("", "panicked", "not yet implemented", Cause.NOT_IMPLEMENTED),
        ("", "x", "Error: Cannot find module './calc' from 'a.test.js'", Cause.NOT_IMPLEMENTED),
        ("", "x", "Cannot find module '/repo/src/calc.js' imported from", Cause.NOT_IMPLEMENTED),
        ("", "x", "Cannot find module '/repo/node_modules/x/y.js'", Cause.ENVIRONMENT),
        ("", "x", "Error: Cannot find module 'lodash'", Cause.ENVIRONMENT),
        ("", "x", "Cannot find package 'lodash' imported from /repo/a.js", Cause.ENVIRONMENT),
        ("", 'Failed to resolve import "../src/x" from "a.ts"', "", Cause.NOT_IMPLEMENTED),
        ("SyntaxError", "Unexpected token", "", Cause.SYNTAX),
        ("", "test file failed", "\nSyntaxError: Unexpected end of input\n", Cause.SYNTAX),
        ("TestTimeoutFailure", "test timed out after 50ms", "", Cause.TIMEOUT),
        ("", "Exceeded timeout of 5000 ms for a test.", "", Cause.TIMEOUT),
        ("HookFailed", "db down", "", Cause.FIXTURE),
        ("TypeError", "x is not a function", "", Cause.OTHER),
        ("java.lang.NullPointerException", "", "", Cause.OTHER),
        ("java.lang.UnsupportedOperationException", "", "", Cause.OTHER),
        ("", "", "", Cause.OTHER),
        ("", "NotImplementedError", "", Cause.NOT_IMPLEMENTED),
        ("", "process aborted", "", Cause.OTHER),
        ("", "killed by SIGSEGV", "", Cause.CRASH),
    ],
)
def test_cause_table(kind: str, message: str, text: str, cause: Cause) -> None:
    assert classify(kind, message, text)[0] is cause


def test_parse_report_keeps_unknown_dialect_ids_stable() -> None:
    xml = b"<testsuite name='suite'><testcase name='only'/><testcase/></testsuite>"
    tests, notes = parse_report(xml)
    assert notes == ()
    assert [t.id for t in tests] == ["suite::only", "suite::(unnamed)"]
    assert all(t.light is Light.GREEN and t.outcome is Outcome.PASSED for t in tests)


def test_parse_report_survives_deep_nesting() -> None:
    xml = b"<testsuites>" + b"<testsuite name='s'>" * 5000 + b"<testcase name='t'/>"
    xml += b"</testsuite>" * 5000 + b"</testsuites>"
    tests, _ = parse_report(xml)
    assert [t.id for t in tests] == ["s::t"]
