"""Which phase a commit declares: the ``GSD-Phase`` trailer, else its message, else files.

The message rules are data: one table (``MESSAGE_RULES``), each row with its id, pattern,
phase, confidence and an example that its test checks. They are deliberately
conservative: a wrong phase is worse than none. So "Redis", "greenfield", "Fred" never
match (whole words only), and a loose phrase that also names a different phase
("refactored the red button") is ambiguous and gives no phase. Explicit markers
(``[red]``, ``Red:``, ``-red-``, emoji, conventional prefixes) are trusted as written.

Some rows give a conditional phase, resolved with the lineage state and the files:

- ``red-if-tests``: red when the commit changes test files (``test: add case for x``);
- ``green-if-red``: green when a red is open on the lineage (``feat: ...`` after a red);
- ``tcr-pass`` / ``tcr-fail`` / ``tcr-revert``: TCR's own commits, attempts, not phases.

A commit undone by its own later revert is decided by the engine, which sees both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tddgit.reverts import reverted_commit as reverted_commit  # the audit's and the gates'

TRAILER_KEY = "GSD-Phase"
AGENT_KEY = "GSD-Agent"  # the model that made the step (tddgit generate)
_PHASE_OF_WORD = {"red": "red", "green": "green", "refactor": "refactor"}


@dataclass(frozen=True)
class MessageRule:
    """A commit-message pattern and the phase it says."""

    id: str
    pattern: str
    phase: str  # red | green | refactor | red-if-tests | green-if-red | tcr-*
    confidence: str  # high: an explicit marker; medium: loose phrasing
    example: str
    case_sensitive: bool = False

    @property
    def loose(self) -> bool:
        return self.confidence != "high"


_W = r"(red|green|refactor(?:ing)?)"  # a phase word, captured
_CC = r"(?:\([^)\n]*\))?!?:"  # conventional-commit scope, breaking mark and colon

# Order matters: the first rule that matches decides. TCR first (its messages carry ✅/❌).
MESSAGE_RULES: tuple[MessageRule, ...] = (
    MessageRule("tcr-pass", r"^\s*✅\s*TCR\b", "tcr-pass", "high", "✅ TCR - tests passing"),
    MessageRule("tcr-fail", r"^\s*❌\s*TCR\b", "tcr-fail", "high", "❌ TCR - tests failing"),
    MessageRule("tcr-revert", r"^\s*⏪\s*TCR\b", "tcr-revert", "high", "⏪ TCR - revert changes"),
    MessageRule("tcr-bare", r"^\s*\[?TCR\]?\s*$", "tcr-pass", "high", "TCR"),
    MessageRule(
        "cc-refactor", rf"^\s*refactor{_CC}", "refactor", "high", "refactor(parser): extract"
    ),
    MessageRule("word-alone", rf"^\s*{_W}\s*[.!]?\s*$", "word", "high", "Green"),
    MessageRule("word-colon", rf"^\s*{_W}\s*[:|>]", "word", "high", "Red: parse empty input"),
    MessageRule(
        "word-dash-prefix", rf"^\s*{_W}\s+[-–—]+\s", "word", "high", "GREEN - handle empty input"
    ),
    MessageRule("word-bracket", rf"[\[(]{_W}[\])]", "word", "high", "[red] parse empty input"),
    MessageRule("word-dashed", rf"(?:^|\s)-{_W}-(?:\s|$)", "word", "high", "-red- parse input"),
    MessageRule(
        "word-caps",
        r"^\s*(RED|GREEN|REFACTOR)\b",
        "word",
        "high",
        "RED parse empty input",
        case_sensitive=True,
    ),
    MessageRule("emoji-red", r"🔴", "red", "high", "🔴 parse empty input"),
    MessageRule("emoji-green", r"🟢", "green", "high", "🟢 handle empty input"),
    MessageRule("emoji-refactor", r"🔵|♻", "refactor", "high", "♻️ extract parser"),
    MessageRule("cc-test", rf"^\s*tests?{_CC}", "red-if-tests", "high", "test: empty input"),
    MessageRule("cc-feat-fix", rf"^\s*(?:feat|fix){_CC}", "green-if-red", "high", "feat: parse"),
    MessageRule(
        "phase-noun",
        r"\b(red|green|refactor(?:ing)?)\s+(?:phase|step|bar)\b",
        "word",
        "medium",
        "green bar for the parser",
    ),
    MessageRule(
        "test-is-red",
        r"\btests?\s+(?:(?:is|are|now|goes|going|still)\s+)*red\s*(?:$|[.,;:!)]|now\b)",
        "red",
        "medium",
        "first test red",
    ),
    MessageRule(
        "failing-test",
        r"\b(?:a\s+|new\s+)?failing\s+(?:unit\s+|spec\s+)?(?:tests?|specs?)\b",
        "red",
        "medium",
        "failing test for empty input",
    ),
    MessageRule(
        "test-is-green",
        r"\btests?\s+(?:(?:is|are|now|goes|going|all)\s+)*(?:green|passing)\s*(?:$|[.,;:!)]|now\b)",
        "green",
        "medium",
        "test is green now",
    ),
    MessageRule(
        "make-it-pass",
        r"\bmak(?:e|es|ing)\s+(?:it|them|(?:the\s+)?(?:new\s+)?(?:tests?|specs?))\s+pass\b",
        "green",
        "medium",
        "make it pass",
    ),
    MessageRule(
        "refactor-word",
        r"^\s*refactor(?:ing|ed|s)?\b",
        "refactor",
        "medium",
        "refactoring the parser",
    ),
)

_ANY_PHASE_WORD = re.compile(r"\b(red|green|refactor(?:ing|ed|s)?)\b", re.IGNORECASE)
# Pre-filter of non-ASCII subjects: a subject without any of these cannot match a rule.
_PREFILTER = re.compile(
    r"red|green|refactor|tcr|test|spec|feat|fix|pass|fail|🔴|🟢|🔵|♻|✅|❌|⏪", re.IGNORECASE
)
_COMPILED: tuple[tuple[MessageRule, re.Pattern[str]], ...] = tuple(
    (r, re.compile(r.pattern, 0 if r.case_sensitive else re.IGNORECASE)) for r in MESSAGE_RULES
)
_EMOJI = {"🔴": "red", "🟢": "green", "🔵": "refactor", "♻": "refactor"}

# Per rule, words one of which a lower-cased ASCII subject must contain for the rule's
# pattern to match (each pattern spells one of them out). Most subjects of a history
# match no rule, and a substring test is far cheaper than a regex search. Only for ASCII
# subjects: IGNORECASE also folds a few non-ASCII letters onto ASCII ones ("K" -> "k").
_PHASE_WORDS = ("red", "green", "refactor")
_NEEDS: dict[str, tuple[str, ...]] = {
    "tcr-pass": ("tcr",),
    "tcr-fail": ("tcr",),
    "tcr-revert": ("tcr",),
    "tcr-bare": ("tcr",),
    "cc-refactor": ("refactor",),
    "word-alone": _PHASE_WORDS,
    "word-colon": _PHASE_WORDS,
    "word-dash-prefix": _PHASE_WORDS,
    "word-bracket": _PHASE_WORDS,
    "word-dashed": _PHASE_WORDS,
    "word-caps": _PHASE_WORDS,
    "emoji-red": ("\U0001f534",),
    "emoji-green": ("\U0001f7e2",),
    "emoji-refactor": ("\U0001f535", "\u267b"),
    "cc-test": ("test",),
    "cc-feat-fix": ("feat", "fix"),
    "phase-noun": _PHASE_WORDS,
    "test-is-red": ("red",),
    "failing-test": ("failing",),
    "test-is-green": ("green", "passing"),
    "make-it-pass": ("pass",),
    "refactor-word": ("refactor",),
}
_NEEDLES = tuple(sorted({w for needs in _NEEDS.values() for w in needs if w.isascii()}))
_BY_NEEDLES: dict[tuple[bool, ...], tuple[tuple[MessageRule, re.Pattern[str]], ...]] = {}


def _candidates(low: str) -> tuple[tuple[MessageRule, re.Pattern[str]], ...]:
    """The rules that may match an ASCII subject (lower-cased), in order; the few
    combinations of words that occur are worked out once each."""
    key = tuple([w in low for w in _NEEDLES])
    found = _BY_NEEDLES.get(key)
    if found is None:
        present = {w for w, hit in zip(_NEEDLES, key, strict=True) if hit}
        found = tuple((r, rx) for r, rx in _COMPILED if present.intersection(_NEEDS[r.id]))
        _BY_NEEDLES[key] = found
    return found


@dataclass(frozen=True)
class MessageMatch:
    """The message rule that matched a subject, and its phase."""

    rule: str
    phase: str  # a phase, or a conditional one (see module docstring)


def _word_phase(word: str) -> str:
    return _PHASE_OF_WORD.get(word.lower()[:8], "refactor")


def match_message(subject: str) -> MessageMatch | None:
    """The first message rule that matches ``subject`` (its first line), or None."""
    if subject.isascii():  # nearly always: a few substring tests choose the rules
        rules = _candidates(subject.lower())
    elif _PREFILTER.search(subject):
        rules = _COMPILED
    else:
        return None
    for rule, rx in rules:
        m = rx.search(subject)
        if m is None:
            continue
        phase = _word_phase(m.group(1)) if rule.phase == "word" else rule.phase
        if rule.loose and _conflicts(subject, phase):
            return None  # names two phases: ambiguous, so no phase at all
        if rule.id.startswith("emoji-") and _emoji_conflicts(subject, phase):
            return None
        return MessageMatch(rule.id, phase)
    return None


def _conflicts(subject: str, phase: str) -> bool:
    return any(_word_phase(w) != phase for w in _ANY_PHASE_WORD.findall(subject))


def _emoji_conflicts(subject: str, phase: str) -> bool:
    return any(e in subject and p != phase for e, p in _EMOJI.items())


# A message that says its tests were written after the code, or already pass: "add tests
# for the parser", "Added test", "Added test and updated README", "finished the view
# tests", "76 passing tests". A message that says the test fails ("add failing test for
# ...") is a red and never matches.
_TESTS_AFTER = re.compile(
    r"\b(?:add(?:ed|s|ing)?|writ(?:e|es|ten|ing)|finish(?:ed|es)?|complet(?:e|ed|es))\s+"
    r"(?:\w+\s+){0,3}?(?:unit\s+)?(?:tests?|specs?)\s+(?:for|to\s+cover|covering)\b"
    # "Added test", alone or with other work done ("Added test and updated README")
    r"|^\s*(?:added|adds)\s+(?:a\s+|some\s+|more\s+)?(?:tests?|specs?)\s*(?:[.!]?\s*$|,?\s+and\b)"
    r"|\b(?:finish(?:ed)?|complet(?:e|ed))\b.*\b(?:tests?|specs?)(?:_\w+)?\b"
    r"|\b\d+\s+passing\s+(?:tests?|specs?)\b"
    r"|\b(?:more|missing|remaining)\s+(?:tests?|specs?)\b"
    # the same in Chinese: "finished / wrote (the) tests" (完成了test_views, 写完了…的测试)
    r"|(?:完成|写完|补充|补全)了?.{0,20}?(?:tests?|specs?|测试)",
    re.IGNORECASE,
)
_FAILS = re.compile(r"\bfail(?:s|ing|ed)?\b|\bred\b|\bbroken\b|失败", re.IGNORECASE)


def leading_mark(subject: str) -> str | None:
    """``cross`` or ``check`` for a subject led by ❌ or ✅ (not TCR's): weaker than the
    message rules, they only make a test change red (❌) or a passing test-only change
    tests-after (✅); the engine decides with the files."""
    s = subject.lstrip()
    if s.startswith("\u274c"):
        return "cross"
    if s.startswith("\u2705"):
        return "check"
    return None


def says_tests_after(subject: str) -> bool:
    """Does a test-only commit's subject say its tests came after the code (tests-after)?"""
    return bool(_TESTS_AFTER.search(subject)) and not _FAILS.search(subject)


def trailer_phase(value: str | None) -> str | None:
    """The phase a ``GSD-Phase`` trailer value declares (None when absent or unknown)."""
    if value is None:
        return None
    v = value.strip().lower()
    return v if v in _PHASE_OF_WORD else None
