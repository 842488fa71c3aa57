"""Every rule of the agent guard, with its id, its explanation and the step it asks for.

The rules read facts (``facts.Facts``: the lineage state, evidence for the index, test
outcomes and coverage from ``checks``) and return a ``Decision``; they never run anything
themselves, so each can be tested from plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from tddgit.guard.model import ALLOW, BLOCK, CONTEXT, DENY, REVERT, Decision


@dataclass(frozen=True)
class Rule:
    id: str
    verdict: str
    explanation: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        # before a write
        Rule("test-first", ALLOW, "a test file may always be written"),
        Rule("not-code", ALLOW, "files that are neither tests nor production code are free"),
        Rule("outside-repo", ALLOW, "paths outside the repository are not tddgit's to judge"),
        Rule("implementing", ALLOW, "a red is open: production code may be written to pass it"),
        Rule(
            "refactor-candidate",
            ALLOW,
            "every test passed at the last green/refactor step: the write is allowed and "
            "checked after it (all tests green, no untested lines) or undone",
        ),
        Rule(
            "write-needs-red",
            DENY,
            "production code needs a failing test first: no red is open and the last step "
            "is not green or refactor",
        ),
        Rule(
            "test-edited-in-green",
            DENY,
            "an open red's target tests may not change while it is implemented "
            "(green.allow_test_edits is false)",
        ),
        # after a write
        Rule("kept", ALLOW, "the write keeps every affected test green and adds no untested line"),
        Rule(
            "write-breaks-tests",
            REVERT,
            "a production write outside an open red made a test fail: it was undone",
        ),
        Rule(
            "untested-code",
            REVERT,
            "a production write outside an open red added lines no test executes: it was "
            "undone (untested behaviour needs a failing test first)",
        ),
        Rule(
            "refactor-unpinned",
            CONTEXT,
            "a refactor candidate changed a line whose behaviour no test pins (a mutant of "
            "what the change wrote survives the tests where the previous version's was "
            "killed, or the code is new): told to the agent and kept (guard.mutation = "
            "warn), undone (refuse)",
        ),
        # before a stop
        Rule("stop-ok", ALLOW, "no test outside an open red's targets fails or is amber"),
        Rule(
            "stop-failed-before-session",
            ALLOW,
            "the tests that fail already failed on the tree the session started from (not "
            "the agent's doing); from the second blocked stop on, with a message for the "
            "person",
        ),
        Rule(
            "stop-limit-reached",
            ALLOW,
            "the stop was blocked four times in a row: it goes through, with a final "
            "message for the person naming what is left broken",
        ),
        Rule(
            "guard-config-protected",
            DENY,
            "tddgit's configuration, the agent's hook configuration and the git hooks are "
            "not the agent's to change: refused before, put back after any tool",
        ),
        Rule(
            "hook-bypass",
            DENY,
            "a command that skips the git hooks (`--no-verify`, `-n`, core.hooksPath, "
            "HUSKY=0 and the like) is refused",
        ),
        Rule(
            "stop-with-failing-tests",
            BLOCK,
            "tests that are not an open red's targets fail or are amber",
        ),
        Rule(
            "red-not-committed",
            BLOCK,
            "a red was judged for the index but not committed: the failing test is not in "
            "the history yet",
        ),
        # session start
        Rule("session-context", CONTEXT, "the tddgit state and the rules, told at session start"),
        # our own faults
        Rule(
            "guard-internal-error",
            ALLOW,
            "tddgit failed inside the hook: the action is allowed unverified, with a loud "
            "warning and a record in hook-errors.log (never a refusal)",
        ),
    )
}


def decide(rule: str, reason: str = "", **details: object) -> Decision:
    return Decision(RULES[rule].verdict, rule, reason, details=dict(details))


class WriteFacts(Protocol):
    """What the pre-write rules read (computed lazily: most writes need one or two)."""

    @property
    def phase(self) -> str | None: ...
    @property
    def open_red(self) -> bool: ...
    @property
    def uncommitted_red(self) -> bool: ...
    @property
    def red_target_files(self) -> frozenset[str]: ...
    @property
    def allow_test_edits(self) -> bool: ...


NEXT_RED = (
    "write a failing test first: add or change a test in a test file that shows the "
    "behaviour you want, run `tddgit red` to commit it, then implement"
)


def before_write(path: str, kind: str, facts: WriteFacts) -> Decision:
    """May the agent write ``path`` (repo-relative; ``kind`` test/production/other)?"""
    if kind == "test":
        if facts.open_red and not facts.allow_test_edits and path in facts.red_target_files:
            return decide(
                "test-edited-in-green",
                f"{path} holds the open red's target tests, which may not change while the "
                "red is implemented. Next step: make them pass with production code "
                "(`tddgit green`), or set green.allow_test_edits",
            )
        return decide("test-first")
    if kind != "production":
        return decide("not-code")
    if facts.open_red or facts.uncommitted_red:
        return decide("implementing")
    if facts.phase in ("green", "refactor"):
        return decide("refactor-candidate")
    last = f"the last step is {facts.phase}" if facts.phase else "no tddgit step yet"
    return decide(
        "write-needs-red",
        f"{path} is production code, no red is open and {last}. Next step: {NEXT_RED}",
    )


def after_write(path: str, failing: Sequence[str], untested: Sequence[int]) -> Decision:
    """The post-write verdict from the affected tests' outcomes and the added lines'
    coverage (``failing``: '<test id> (<cause>)' lines; ``untested``: line numbers)."""
    if failing:
        shown = _some(failing)
        return decide(
            "write-breaks-tests",
            f"your write to {path} was undone: with it, {shown}. No red is open, so a "
            "production change must keep every test passing (a refactor). Next step: "
            f"refactor in smaller steps, or {NEXT_RED}",
            failing=list(failing),
        )
    if untested:
        return decide(
            "untested-code",
            f"your write to {path} was undone: it added {_lines(untested)} that no test "
            f"executes. Untested behaviour needs a failing test first. Next step: {NEXT_RED}",
            lines=list(untested),
        )
    return decide("kept")


def behaviour_change(path: str, survivors: Sequence[str], refuse: bool) -> Decision:
    """A kept refactor candidate whose changed lines have mutants no test kills
    (``survivors``: 'file:line: no test fails when ...' lines)."""
    done = (
        "It was undone"
        if refuse
        else "It was kept (guard.mutation = warn), but a refactor must not change behaviour"
    )
    text = (
        f"your write to {path} changes behaviour no test pins: {_some(survivors)}. {done}. "
        "Next step: if the behaviour is wanted, take the change out and "
        f"{NEXT_RED}; if not, write the refactor without it"
    )
    if refuse:
        return Decision(REVERT, "refactor-unpinned", text, details={"unpinned": list(survivors)})
    # told as context (the model reads it; nothing is put back): the rule id is in the text
    return Decision(
        CONTEXT,
        "refactor-unpinned",
        f"tddgit [refactor-unpinned]: {text}",
        details={"unpinned": list(survivors)},
    )


def _lines(numbers: Sequence[int]) -> str:
    spans: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        spans.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    word = "line" if len(numbers) == 1 else "lines"
    return f"{word} {', '.join(spans)}"


def before_stop(
    stop_hook_active: bool, uncommitted: Sequence[str], broken: Sequence[str]
) -> Decision:
    """May the agent stop? ``broken``: tests that fail or are amber and are no open red's
    targets; ``uncommitted``: the targets of a red judged for the index but not committed.
    ``stop_hook_active`` no longer lets a stop through (``checks.check_stop`` counts)."""
    if broken:
        return decide(
            "stop-with-failing-tests",
            f"do not stop yet: {_some(broken)}. These tests are not the targets of an open "
            "red. Next step: make them pass; if one is a new failing test, commit it with "
            "`tddgit red` first",
            broken=list(broken),
        )
    if uncommitted:
        return decide(
            "red-not-committed",
            f"do not stop yet: the red for {_some(uncommitted)} was judged "
            "(`tddgit red --no-commit`) but not committed, so the failing test is not in the "
            "history. Next step: commit it with `tddgit red` (or `git commit`)",
            targets=list(uncommitted),
        )
    return decide("stop-ok")


def _some(items: Sequence[str]) -> str:
    more = f"; and {len(items) - 5} more" if len(items) > 5 else ""
    return "; ".join(items[:5]) + more


RULES_TEXT = (
    "tddgit guards this session (test-first, decided from test outcomes, never a model):\n"
    "- a test file may always be written;\n"
    "- production code needs an open red: write a failing test and commit it with "
    "`tddgit red`, then implement and commit with `tddgit green`;\n"
    "- after a green/refactor step, production writes are allowed as refactors but are "
    "undone if a test fails or a line they add is not executed by any test, and a changed "
    "line whose behaviour no test pins is reported;\n"
    "- you cannot stop while tests (other than an open red's targets) fail or are broken."
)


def session_context(state_line: str, next_step: str) -> Decision:
    return decide("session-context", f"{state_line}\nNext step: {next_step}\n{RULES_TEXT}")
