"""Outcomes nobody can rewrite, for jest and vitest (issue 24, item 2): a module the test
configuration loads that turns a failed test into a passed one -- a jest
``testResultsProcessor``, a vitest setup file's ``afterEach`` -- is seen by tddgit's own
record of each test and refused ``report-tampered``, naming the module. Real repositories,
real jest and vitest, the real CLI; the configuration change itself is allowed
(``green.allow_test_config``) so that only the rewrite can refuse the green."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GitRepo
from tests.runners.test_js_gates import (
    CALC,
    FLAVOURS,
    gate,
    open_red,
    stage,
    start,
    targets,
)

BROKEN_MUL = CALC + "\nexport function mul(a, b) {\n  return a + b;\n}\n"
MUL = CALC + "\nexport function mul(a, b) {\n  return a * b;\n}\n"
ALLOW = "green:\n  allow_test_config: true\n"

# jest: runs in the main process after every worker reported, before the JSON is written.
JEST_PROCESSOR = """\
module.exports = (results) => {
  for (const file of results.testResults) {
    for (const t of file.testResults) {
      if (t.status === 'failed') {
        t.status = 'passed';
        t.failureMessages = [];
      }
    }
    file.numFailingTests = 0;
    file.failureMessage = null;
  }
  results.numFailedTests = 0;
  results.numFailedTestSuites = 0;
  results.success = true;
  return results;
};
"""
JEST_HONEST_PROCESSOR = "module.exports = (results) => results;\n"

# vitest: runs in the worker after the test threw, before its result leaves the worker.
VITEST_SETUP = """\
import { afterEach } from 'vitest';

afterEach(({ task }) => {
  if (task.result?.state === 'fail') {
    task.result.state = 'pass';
    task.result.errors = undefined;
  }
});
"""
VITEST_HONEST_SETUP = "import { afterEach } from 'vitest';\n\nafterEach(() => {});\n"


def _configured(repo: GitRepo, name: str, module: str) -> dict[str, str]:
    """The staged files that make the runner load ``module`` (as test/compat.*)."""
    if name == "jest":
        package = dict(FLAVOURS["jest"].package)
        package["jest"] = {"testResultsProcessor": "./test/compat.cjs"}
        return {"package.json": json.dumps(package), "test/compat.cjs": module}
    config = "export default { test: { setupFiles: ['./test/compat.js'] } };\n"
    return {"vitest.config.js": config, "test/compat.js": module}


@pytest.fixture(params=["jest", "vitest"])
def red(request: pytest.FixtureRequest, repo: GitRepo) -> tuple[GitRepo, str]:
    start(repo, FLAVOURS[request.param])
    open_red(repo, FLAVOURS[request.param])
    return repo, request.param


def _tampered(data: dict[str, object]) -> list[str]:
    found = data["reasons"]
    assert isinstance(found, list)
    return [str(r["message"]) for r in found if r["rule"] == "report-tampered"]


def test_a_module_rewriting_failures_as_passes_is_refused(red: tuple[GitRepo, str]) -> None:
    repo, name = red
    module = JEST_PROCESSOR if name == "jest" else VITEST_SETUP
    files = _configured(repo, name, module)
    stage(repo, {"src/calc.js": BROKEN_MUL, ".tddgit.yaml": ALLOW, **files})
    code, data = gate(repo, "green", "--no-commit")
    assert code == 1, data
    tampered = _tampered(data)
    compat = "test/compat.cjs" if name == "jest" else "test/compat.js"
    assert tampered, data
    assert all(compat in m for m in tampered), tampered
    assert any(m.startswith("test/calc.test.js::multiplies: ") for m in tampered), tampered
    # Judged as what the test did: the target failed, on its assertion.
    assert targets(data)["test/calc.test.js::multiplies"] == ("failed", "assertion"), data


def test_an_honest_module_in_the_same_place_changes_nothing(red: tuple[GitRepo, str]) -> None:
    repo, name = red
    module = JEST_HONEST_PROCESSOR if name == "jest" else VITEST_HONEST_SETUP
    files = _configured(repo, name, module)
    stage(repo, {"src/calc.js": MUL, ".tddgit.yaml": ALLOW, **files})
    code, data = gate(repo, "green", "--no-commit")
    assert code == 0, data
    assert not _tampered(data)
    assert targets(data) == {"test/calc.test.js::multiplies": ("passed", None)}


def test_a_broken_green_with_an_honest_module_is_refused_as_failing(
    red: tuple[GitRepo, str],
) -> None:
    """The record adds nothing when the report is right: the target's own failure."""
    repo, name = red
    module = JEST_HONEST_PROCESSOR if name == "jest" else VITEST_HONEST_SETUP
    stage(
        repo, {"src/calc.js": BROKEN_MUL, ".tddgit.yaml": ALLOW, **_configured(repo, name, module)}
    )
    code, data = gate(repo, "green", "--no-commit")
    assert code == 1, data
    assert not _tampered(data)
    assert targets(data)["test/calc.test.js::multiplies"] == ("failed", "assertion"), data


EXTRA = {
    "jest": """\
import { jest } from '@jest/globals';

jest.retryTimes(1);
let calls = 0;

test.failing('is known to be broken', () => {
  expect(1).toBe(2);
});

test('fails once, then passes', () => {
  calls += 1;
  expect(calls).toBe(2);
});
""",
    "vitest": """\
import { test, expect } from 'vitest';

let calls = 0;

test.fails('is known to be broken', () => {
  expect(1).toBe(2);
});

test('fails once, then passes', { retry: 1 }, () => {
  calls += 1;
  expect(calls).toBe(2);
});
""",
}


@pytest.mark.parametrize("name", ["jest", "vitest"])
def test_expected_failures_and_passing_retries_are_no_tampering(repo: GitRepo, name: str) -> None:
    """What the runner itself turns around (an expected failure, a retry that passed) is
    what the record expects too."""
    start(repo, FLAVOURS[name])
    repo.write("test/extra.test.js", EXTRA[name], dedent=False)
    repo.commit("known failures and a flaky test")
    open_red(repo, FLAVOURS[name])
    stage(repo, {"src/calc.js": MUL})
    code, data = gate(repo, "green", "--no-commit")
    assert code == 0, data
    assert not _tampered(data)
