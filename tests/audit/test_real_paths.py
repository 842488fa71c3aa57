"""Test and vendored paths of the common ecosystems, as the audit reads them (issue 27).

Each case is a real repository: the kind of every file of a commit decides its phase, so a
test file read as production (or a vendored copy read as the project's tests) changes what
the audit says about the whole history.
"""

from __future__ import annotations

import pytest

from tests.audit.helpers import Steps, audit, by_subject


@pytest.mark.parametrize(
    "path",
    [
        "lists/tests.py",  # Django's app tests module
        "functional_tests.py",  # the TDD book's first functional test
        "functional_tests/test_login.py",
        "cypress/e2e/app.cy.js",
        "src/app.cy.tsx",
        "e2e/login.spec.ts",
        "web/e2e/login.ts",  # Playwright's directory
        "src/__tests__/sum.js",
        "test.js",  # a single test file at the root (many small npm packages)
        "index.test-d.ts",  # tsd type tests
        "pkg/sum_test.go",
        "tests/integration.rs",
        "src/test/java/SumTest.java",
    ],
)
def test_a_test_file_of_a_common_ecosystem_is_a_test(repo, path):
    steps = Steps(repo)
    steps.commit("scaffold", {"README.md": "x\n"})
    steps.commit("add a check", {path: "check('sum', () => expect(sum(1, 2)).toBe(3))\n"})
    rec = by_subject(audit(repo))["add a check"]
    assert rec.file_kinds == ("test",)


@pytest.mark.parametrize(
    "path",
    [
        "third_party/six/tests/test_six.py",  # a vendored library with its own tests
        "vendor/github.com/x/y/y.go",
        "node_modules/left-pad/index.js",
        "venv/lib/python3.11/site-packages/requests/api.py",  # a committed virtualenv
        "lists/static/tests/qunit-2.9.2.js",  # a bundled test framework
        "lists/static/jquery-3.3.1.min.js",
    ],
)
def test_a_vendored_copy_is_neither_test_nor_production(repo, path):
    steps = Steps(repo)
    steps.commit("scaffold", {"README.md": "x\n"})
    steps.commit("vendor it", {path: "def f():\n    return 1\n"})
    report = audit(repo)
    rec = by_subject(report)["vendor it"]
    assert rec.file_kinds == ("other",)
    assert rec.phase is None
    assert not [f for f in report.findings if f.commit == rec.sha]


def test_gitattributes_linguist_marks_vendored_and_generated_paths(repo):
    steps = Steps(repo)
    steps.commit(
        "attributes",
        {
            ".gitattributes": "libs/** linguist-vendored\n"
            "gen/ linguist-generated=true\n"
            "src/** linguist-vendored=false\n"
        },
    )
    steps.commit("bundle a library", {"libs/tests/test_lib.py": "def test_x():\n    pass\n"})
    steps.commit("generate", {"gen/api.py": "def api():\n    return 1\n"})
    steps.commit("real code", {"src/app.py": "def app():\n    return 2\n"})
    recs = by_subject(audit(repo))
    assert recs["bundle a library"].file_kinds == ("other",)
    assert recs["generate"].file_kinds == ("other",)
    assert recs["real code"].file_kinds == ("production",)


def test_vendored_globs_are_configurable(repo):
    steps = Steps(repo)
    steps.commit(
        "config",
        {".tddgit.yml": "vendored_globs:\n  - 'ext/**'\n"},
    )
    steps.commit("copy", {"ext/lib.py": "def f():\n    return 1\n"})
    assert by_subject(audit(repo))["copy"].file_kinds == ("other",)
