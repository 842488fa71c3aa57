"""`tddgit red|green|refactor`: the click commands. The step itself (gate, commit, note)
is ``tddgit.commands.phase_step``, which ``tddgit.__main__`` also reaches without click
for plain arguments (``tddgit.commands.phase_fast``)."""

from __future__ import annotations

from typing import Any

import click

from tddgit.cli import app
from tddgit.commands.phase_step import (
    PHASE_ENV,
    STEP_NOUN,
    CommitFailed,
    attach_evidence,
    commit_model_step,
    commit_step,
    render_findings,
    render_verdict,
    run_phase,
    task_trailer,
)

_HELP = {
    "red": """Run the red gate on the staged change, then commit it with `GSD-Phase: red`.

    Holds when the staged change adds or changes tests, those tests fail for the right
    reason (an assertion, or a project feature that does not exist yet — not a syntax
    error or a missing third-party module), production code is at most stubs, and the
    other tests in scope still pass. TESTS name the targets; by default they are the
    tests defined or changed in the staged test files.

    \b
    Examples:
      git add tests/test_calc.py && tddgit red -m "add: two numbers"
      tddgit red tests/test_calc.py::test_add --no-commit
    """,
    "green": """Run the green gate on the staged change, then commit it with `GSD-Phase: green`.

    Holds when every target of the open red now passes, nothing that passed at the red
    fails, the red's test files are unchanged, and the change contains production code.
    Added production lines that no test executed are recorded as `yagni` findings
    (`green.yagni`: warn, block or off).

    \b
    Examples:
      git add src/calc.py && tddgit green -m "add: implement"
      tddgit green --json --no-commit
    """,
    "refactor": """Run the refactor gate on the staged change, then commit it with
    `GSD-Phase: refactor`.

    Holds after a green or refactor when every test passes, the set of test ids is the
    same as at the previous phase, and only one side (tests or production) changes.

    \b
    Examples:
      git add src/calc.py && tddgit refactor -m "extract parser"
    """,
}


def _phase_command(phase: str) -> click.Command:
    @click.command(phase, help=_HELP[phase])
    @click.argument("tests", nargs=-1)
    @click.option(
        "-m",
        "--message",
        "messages",
        multiple=True,
        help="Commit message (repeatable: one paragraph each, as with git commit).",
    )
    @click.option(
        "-F",
        "--file",
        "msg_file",
        type=click.Path(dir_okay=False, allow_dash=True),
        help="Take the commit message from FILE (- for stdin).",
    )
    @click.option(
        "--no-commit",
        is_flag=True,
        help="Run the gate and store the evidence only; a later plain `git commit` picks it up.",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
    @click.option("--author", help="Override the commit author (as git commit --author).")
    @click.option("-s", "--signoff", is_flag=True, help="Add a Signed-off-by trailer.")
    @click.option("--no-edit", is_flag=True, help="Use the message as given, no editor.")
    @click.option("-e", "--edit", is_flag=True, help="Edit the message in the editor.")
    @click.option("--amend", is_flag=True, help="Refused: a phase is a new commit.")
    @click.option(
        "--task",
        metavar="ID",
        help="The plan task this step belongs to: adds a `GSD-Task: ID` trailer (plan status).",
    )
    @click.pass_context
    def command(ctx: click.Context, **options: Any) -> int:
        # The options' names are run_phase's parameters (tests, messages, msg_file, ...).
        return run_phase(phase, app(ctx).cwd, **options)

    return command


red = _phase_command("red")
green = _phase_command("green")
refactor = _phase_command("refactor")

__all__ = [
    "PHASE_ENV",
    "STEP_NOUN",
    "CommitFailed",
    "attach_evidence",
    "commit_model_step",
    "commit_step",
    "green",
    "red",
    "refactor",
    "render_findings",
    "render_verdict",
    "task_trailer",
]
