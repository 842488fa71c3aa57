"""`tddgit red|green|refactor` parse plain arguments without click (the gate's start-up is
overhead on its test run, issue 29): what the fast path hands to the step must be exactly
what the click command would, and anything it does not handle goes to click."""

from __future__ import annotations

import pytest

from tddgit.commands.phase import red
from tddgit.commands.phase_fast import parse

SAME = [
    [],
    ["--no-commit"],
    ["--json", "--no-commit", "tests/test_calc.py::test_add", "tests/test_sub.py"],
    ["-m", "add: two numbers", "-m", "second paragraph", "-s", "--no-edit"],
    ["-madd", "--message=more", "--message="],
    ["--author", "A U Thor <a@example.com>", "--task=IMPL-3", "-e", "--edit"],
    ["--amend", "--signoff", "x.py", "--json", "y.py"],
]

TO_CLICK = [
    ["-h"],
    ["--help"],
    ["--debug"],
    ["-m"],
    ["-m", "--json"],
    ["-m=x"],
    ["--", "-x.py"],
    ["-F", "msg.txt"],
    ["--file=msg.txt"],
    ["-se"],
    ["--no-such-option"],
    ["-"],
]


@pytest.mark.parametrize("argv", SAME, ids=lambda a: " ".join(a) or "none")
def test_fast_path_gives_the_step_what_click_would(argv: list[str]) -> None:
    clicked = red.make_context("red", list(argv)).params
    assert parse(argv) == clicked


@pytest.mark.parametrize("argv", TO_CLICK, ids=lambda a: " ".join(a))
def test_what_the_fast_path_does_not_handle_goes_to_click(argv: list[str]) -> None:
    assert parse(argv) is None
