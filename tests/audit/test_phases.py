"""The message rules, one test per row of the table, and the words that must not match."""

from __future__ import annotations

import re

import pytest

from tddgit.audit import phases
from tddgit.audit.phases import (
    MESSAGE_RULES,
    match_message,
    reverted_commit,
    trailer_phase,
)


@pytest.mark.parametrize("rule", MESSAGE_RULES, ids=lambda r: r.id)
def test_every_rule_matches_its_own_example(rule):
    m = match_message(rule.example)
    assert m is not None
    assert m.rule == rule.id
    expected = rule.phase
    if expected == "word":
        expected = {"re": "red", "gr": "green"}.get(rule.example.lower().strip("[-(")[:2])
        expected = expected or "refactor"
    assert m.phase == expected


def test_rule_ids_are_unique():
    ids = [r.id for r in MESSAGE_RULES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("subject", "rule", "phase"),
    [
        ("RED: parse empty input", "word-colon", "red"),
        ("green: handle empty input", "word-colon", "green"),
        ("Refactoring: extract method", "word-colon", "refactor"),
        ("Parse empty input (green)", "word-bracket", "green"),
        ("parser [REFACTOR] rename", "word-bracket", "refactor"),
        ("parser -green- done", "word-dashed", "green"),
        ("REFACTOR extract helper", "word-caps", "refactor"),
        ("red", "word-alone", "red"),
        ("Refactor.", "word-alone", "refactor"),
        ("🔴 add test for total", "emoji-red", "red"),
        ("total works 🟢", "emoji-green", "green"),
        ("🔵 tidy total", "emoji-refactor", "refactor"),
        ("♻ tidy total", "emoji-refactor", "refactor"),
        ("refactor(core)!: drop alias", "cc-refactor", "refactor"),
        ("test(parser): empty input", "cc-test", "red-if-tests"),
        ("tests: empty input", "cc-test", "red-if-tests"),
        ("fix(parser): empty input", "cc-feat-fix", "green-if-red"),
        ("feat!: new API", "cc-feat-fix", "green-if-red"),
        ("Red bar for the totals", "phase-noun", "red"),
        ("refactoring step: inline temp", "phase-noun", "refactor"),
        ("first test red", "test-is-red", "red"),
        ("the tests are red now", "test-is-red", "red"),
        ("Add failing test for empty input", "failing-test", "red"),
        ("failing spec for totals", "failing-test", "red"),
        ("test is green now", "test-is-green", "green"),
        ("all tests passing.", "test-is-green", "green"),
        ("Make it pass", "make-it-pass", "green"),
        ("making the new test pass", "make-it-pass", "green"),
        ("Refactored parser internals", "refactor-word", "refactor"),
        ("refactoring", "word-alone", "refactor"),
        ("✅ TCR - tests passing", "tcr-pass", "tcr-pass"),
        ("❌ TCR - tests failing", "tcr-fail", "tcr-fail"),
        ("⏪ TCR - revert changes", "tcr-revert", "tcr-revert"),
        ("[TCR]", "tcr-bare", "tcr-pass"),
    ],
)
def test_how_people_really_write(subject, rule, phase):
    m = match_message(subject)
    assert m is not None, subject
    assert (m.rule, m.phase) == (rule, phase)


@pytest.mark.parametrize(
    "subject",
    [
        "Redis client upgrade",
        "greenfield project setup",
        "Fred fixed the build",
        "refactored the red button",
        "Make the green button bigger",
        "test red button colour",
        "Add tests for parser",
        "Reduce memory",
        "redundant code removed",
        "Greenwich time zone",
        "update readme",
        "",
        "✅ done",
        "❌ remove feature",
        "🔴→🟢 both at once",
        "green and red lights in the UI",
        "fixed the bug",
        "tests pass on windows now? no",
        "Bump version",
    ],
)
def test_words_that_are_not_phases(subject):
    assert match_message(subject) is None


def test_trailer_values():
    assert trailer_phase("red") == "red"
    assert trailer_phase(" Green ") == "green"
    assert trailer_phase("REFACTOR") == "refactor"
    assert trailer_phase("blue") is None
    assert trailer_phase(None) is None


def test_revert_messages():
    sha = "0123456789abcdef0123456789abcdef01234567"
    msg = f'Revert "red: x"\n\nThis reverts commit {sha}.\n'
    assert reverted_commit(msg) == sha
    assert reverted_commit("Revert the revert of nothing") is None


def test_the_word_index_only_skips_rules_that_cannot_match(monkeypatch):
    """Which rules are tried is chosen from the subject's words (speed); the result must
    be what trying every rule in order gives, whatever the case and wherever a word sits
    (``refactored`` holds ``red``, ``passing`` holds ``pass``)."""
    subjects = [r.example for r in MESSAGE_RULES] + [
        "Fix typo in capture plugin",
        "Refactored the RED button",
        "tests PASSING now",
        "TCRed: green",
        "prefix: tested feature fixes",
        "Xfail monkeypatch fixture session",
        "make them pass; refactoring step",
        "Revert red: failing tests",
        "GREEN",
        "  refactor(core): x",
        "Ünïcode red: täst",
        "Kelvin \u212a sign",  # IGNORECASE folds the Kelvin sign onto "k"
    ]
    subjects += [f(s) for s in list(subjects) for f in (str.upper, str.lower, str.title)]
    fast = [match_message(s) for s in subjects]
    monkeypatch.setattr(phases, "_candidates", lambda low: phases._COMPILED)
    monkeypatch.setattr(phases, "_PREFILTER", re.compile(""))
    assert [match_message(s) for s in subjects] == fast
