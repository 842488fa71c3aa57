"""What differs between the model-driven phases, as data: one loop runs them all.

A :class:`Phase` says which kinds of file the model may write, why the others are
read-only, which gate's verdict ends the run, and what the model is asked to do. Red is
built here; green and refactor are two more values of the same type.
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
    done_when: str  # what `finish` checks, in the model's words


RED = Phase(
    name="red",
    writable=frozenset({Kind.TEST}),
    read_only_reason="production code is read-only in a red step: write tests only "
    "(the implementation comes in the green step)",
    task=(
        "Write the failing tests for the specification below: the red step of test-driven "
        "development. The implementation does not exist yet, so each new test must fail for "
        "the right reason: an assertion, or the missing project feature (an ImportError or "
        "AttributeError of the project's own code) - never a syntax error, a broken fixture "
        "or a missing third-party package."
    ),
    done_when=(
        "`finish` runs tddgit's red gate on your test files: it holds when the new tests "
        "exist, fail for the right reason, and the other tests still pass. If it refuses, "
        "you get every reason with its fix: correct the tests and call `finish` again."
    ),
)

PHASES = {RED.name: RED}
