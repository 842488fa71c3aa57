"""What every phase is told alike is said once, in the system prompt's shared block: the
phases of a cycle (and the processes of `generate red`, `green`, `refactor`) read that block
from the cache, while each phase's own block is paid for by that phase alone."""

from __future__ import annotations

import re

from tddgit.agent.phases import GREEN, RED, REFACTOR
from tddgit.agent.prompt import system_prompt

GLOBS = ("tests/**", "test_*.py")
PROJECT = "Tests: runner: pytest.\n\nProject (paths relative to the repository root):\ncalc.py"


def sentences(text: str) -> set[str]:
    return {s.strip() for s in re.split(r"(?<=[.:;])\s+", text) if len(s.split()) >= 4}


def test_no_sentence_is_repeated_in_the_phases_own_blocks() -> None:
    own = {p.name: system_prompt(p, GLOBS, PROJECT)[-1] for p in (RED, GREEN, REFACTOR)}
    for a, b in (("red", "green"), ("red", "refactor"), ("green", "refactor")):
        common = sentences(own[a]) & sentences(own[b])
        assert not common, f"{a} and {b} both say (uncached across phases): {common}"
    shared = {system_prompt(p, GLOBS, PROJECT)[0] for p in (RED, GREEN, REFACTOR)}
    assert len(shared) == 1
    (block,) = shared
    assert "If the gate refuses, you get every reason with its fix" in block


def test_no_phase_asks_the_model_to_explore_what_it_was_given() -> None:
    """The map, the runner and an example test come up front: telling the model to look at
    the layout and the tests first costs it turns for what it already has."""
    for phase in (RED, GREEN, REFACTOR):
        text = "\n".join(system_prompt(phase, GLOBS, PROJECT))
        assert "look at the project's layout and existing tests first" not in text
        assert "read the code and the tests first" not in text
