"""What differs between the model-driven phases, as data: one loop runs them all.

A :class:`Phase` says which kinds of file the model may write, why the others are
read-only, which gate's verdict ends the run, and what the model is asked to do. Red,
green and refactor (one value per side) are built here.
"""

from __future__ import annotations

from dataclasses import dataclass

from tddgit.paths import Kind


@dataclass(frozen=True)
class Phase:
    name: str  # also the gate that judges `finish`: red | green | refactor
    writable: frozenset[Kind]  # the kinds of file write_file / edit_file may touch
    read_only_reason: str  # the refusal the model reads for any other file
    task: str  # the system prompt's account of the step
    # what `finish` checks, in the model's words (what a refusal brings is the shared
    # block's: every phase says it alike, so it is cached across phases)
    done_when: str
    recovers: bool = False  # stuck once: back to the best state and go on (green, refactor)
    may_end_unchanged: bool = False  # ending without a change is "nothing to do" (refactor)
    # kinds of file writable with stubs only (red: the names a new test needs, bodies that
    # do nothing yet, judged by detectors.stubs / jsstubs), when red.allow_stubs is on
    stubs: frozenset[Kind] = frozenset()


RED = Phase(
    name="red",
    writable=frozenset({Kind.TEST}),
    read_only_reason="production code is read-only in a red step, but for stubs: write "
    "tests (the implementation comes in the green step)",
    stubs=frozenset({Kind.PRODUCTION}),
    task=(
        "Write the failing tests for the specification above: the red step of test-driven "
        "development. The implementation does not exist yet, so each new test must fail for "
        "the right reason: an assertion, or the missing project feature (an ImportError or "
        "AttributeError of the project's own code) - never a syntax error, a broken fixture "
        "or a missing third-party package. You may add production stubs (a function or "
        "class the tests need, its body `raise NotImplementedError` or `pass`) so that "
        "each test fails on its own assertion instead of one import error for all; "
        "nothing that behaves."
    ),
    done_when=(
        "`finish` runs tddgit's red gate on your test files: it holds when the new tests "
        "exist, fail for the right reason, and the other tests still pass."
    ),
)

GREEN = Phase(
    name="green",
    writable=frozenset({Kind.PRODUCTION, Kind.OTHER}),
    read_only_reason="tests are the specification in a green step: change the production "
    "code until they pass, never the tests",
    task=(
        "Make the failing tests below pass: the green step of test-driven development. "
        "Change production code only, and only as much as the tests need: the simplest "
        "implementation that makes them pass, without breaking any other test."
    ),
    done_when=(
        "`finish` runs tddgit's green gate: it holds when every target test passes, no "
        "other test regressed, no test was removed or edited, and production code changed."
    ),
    recovers=True,
)

REFACTOR = Phase(
    name="refactor",
    writable=frozenset({Kind.PRODUCTION, Kind.OTHER}),
    read_only_reason="a refactor changes one side only, and this one is the production "
    "code: the tests are read-only",
    task=(
        "Improve the production code's design without changing its behaviour: the refactor "
        "step of test-driven development. Every test must keep passing; add no code that "
        "no test executes. If there is nothing worth improving, say so and change nothing."
    ),
    done_when=(
        "`finish` runs tddgit's refactor gate: it holds when the same tests exist and all "
        "pass, and every added production line is executed by a test."
    ),
    recovers=True,
    may_end_unchanged=True,
)

REFACTOR_TESTS = Phase(
    name="refactor",
    writable=frozenset({Kind.TEST}),
    read_only_reason="a refactor changes one side only, and this one is the tests: the "
    "production code is read-only",
    task=(
        "Improve the tests' design (names, duplication, fixtures) without changing what "
        "they check: the refactor step of test-driven development, on the test side. The "
        "same tests must exist and all pass. If there is nothing worth improving, say so "
        "and change nothing."
    ),
    done_when=(
        "`finish` runs tddgit's refactor gate: it holds when the same tests exist and all pass."
    ),
    recovers=True,
    may_end_unchanged=True,
)

PHASES = {RED.name: RED, GREEN.name: GREEN, REFACTOR.name: REFACTOR}
SIDES = {"production": REFACTOR, "tests": REFACTOR_TESTS}
