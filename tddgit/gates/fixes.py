"""What to do about a refusal: one fix line per rule, made specific to the cause where the
cause decides it (an amber environment says what to install, a syntax error says to fix the
test, a module that exists but is not importable says how to put it on the path)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tddgit.gates.records import Reason

FIXES = {
    "no-test-change": "stage a new or changed test (`git add tests/...`)",
    "no-targets": "stage a new or changed test function, or name the tests: tddgit red TEST...",
    "pre-test-code": "commit the test first; production code may only be stubs in a red step",
    "target-passes": "the test must fail before the code exists: test something not yet built",
    "target-amber": "fix the test itself (syntax, imports of third-party modules, fixtures) "
    "so it fails on an assertion or a missing project feature",
    "target-not-run": "check the test id (`tddgit run`), or name the tests explicitly",
    "regression": "fix what broke before committing this step",
    "test-failing": "make the whole suite pass before committing this step",
    "timeout": "speed the tests up or raise `timeout` in the configuration",
    "green-without-red": "commit a failing test first: `tddgit red`",
    "refactor-while-red": "make the red pass first: `tddgit green`",
    "refactor-without-green": "a refactor follows a green: `tddgit green` first",
    "missing-evidence": "name the red's tests: tddgit green TEST...",
    "test-edited-in-green": "leave the red's tests as they were (or set "
    "green.allow_test_edits = true)",
    "no-production-change": "a test that passes without implementation was not red; "
    "stage the production change",
    "target-fails": "keep implementing until the red tests pass",
    "refactor-changes-tests": "refactor one side at a time: unstage the tests or the code",
    "test-ids-changed": "a refactor keeps the same tests; add new tests in a red step",
    "tests-removed": "restore the tests (unskip, reselect or bring them back); tests are "
    "renamed, merged or deleted in a test-side refactor, where everything passes",
    "test-config-changed": "change test configuration (settings, conftest.py, plugins, "
    "setup files) in a red or a test-side refactor, not beside production code",
    "report-tampered": "remove the hook that rewrites test reports; the gate judges what "
    "each test call did",
    "untested-code": "remove the untested lines, or write the test that needs them in a new red",
    "unpinned-green-line": "add a test that fails for this change, or remove the line "
    "(green.mutation = warn only records it)",
    "yagni": "remove the code no test needs, or write the test that needs it in a new red "
    "(green.yagni = warn only records it)",
}

# Compiled by ``re`` at their first use: most verdicts never read a missing module.
_NO_MODULE = r"No module named '([^']+)'"
_THIRD_PARTY = r"\(third-party ([^,)]+)"


def fix_for(reason: Reason) -> str:
    """The fix line of one refusal: its own when it carries one, else by cause, else the
    rule's."""
    if reason.fix:
        return reason.fix
    if reason.rule in ("target-amber", "regression", "test-failing"):
        by_cause = _fix_by_cause(reason.cause, reason.detail or reason.message)
        if by_cause:
            return by_cause
    if reason.cause == "not-implemented" and reason.rule != "target-fails":
        from tddgit.gates.stubs import stub_hint

        hint = stub_hint(reason.detail or reason.message)
        if hint:
            return f"{FIXES.get(reason.rule, 'fix it')}; in a red, {hint}"
    return FIXES.get(reason.rule, "")


def _fix_by_cause(cause: str | None, text: str) -> str:
    if cause == "snapshot-missing":
        return (
            "commit the snapshot with the red (its expected value in __snapshots__/….snap) "
            "or write the expected value inline (toMatchInlineSnapshot(`…`)); a gate never "
            "writes snapshots"
        )
    if cause == "syntax":
        return "fix the syntax error in the test (the file must parse before it can fail)"
    if cause != "environment":
        return ""
    if "exists but is not importable" in text:
        return (
            "put the module's directory on the import path: pytest `pythonpath` "
            '(e.g. pythonpath = ["src"]) or install the project (`pip install -e .`)'
        )
    missing = re.search(_NO_MODULE, text)
    if missing is None:
        return "fix the test environment (see the message), then run the gate again"
    module = missing.group(1).split(".")[0]
    if "standard-library" in text:
        return f"use a Python that includes the standard-library module {module}"
    dist = re.search(_THIRD_PARTY, text)
    name = dist.group(1) if dist else module
    if "declared dependency" in text:
        return f"install the declared dependency {name} in the test environment"
    return f"install {name} (or declare it)"


def next_line(reasons: Sequence[Reason]) -> str:
    """Every distinct fix of ``reasons``, in order, as one line."""
    seen: list[str] = []
    for r in reasons:
        fix = fix_for(r)
        if fix and fix not in seen:
            seen.append(fix)
    return "; ".join(seen)
