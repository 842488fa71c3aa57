"""`tddgit red|green|refactor`: run the gate on the staged tree, then commit with the
`GSD-Phase` trailer and attach the evidence as a git note."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable

import click

from tddgit import console, faults
from tddgit.cli import app
from tddgit.console import outcome_count
from tddgit.errors import UsageError
from tddgit.evidence import Evidence, cache_put
from tddgit.gates import Verdict
from tddgit.git import Repo
from tddgit.model import Light
from tddgit.notes import NOTES_REF, write_note
from tddgit.plans import TASK_TRAILER

PHASE_ENV = "TDDGIT_PHASE_COMMIT"  # set while tddgit itself runs `git commit`

_LIGHT_MARK = {Light.RED: "✗ RED  ", Light.AMBER: "! AMBER", Light.GREEN: "✓ GREEN"}
_LIGHT_COLOUR = {Light.RED: "red", Light.AMBER: "amber", Light.GREEN: "green"}

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
    def command(
        ctx: click.Context,
        tests: tuple[str, ...],
        messages: tuple[str, ...],
        msg_file: str | None,
        no_commit: bool,
        as_json: bool,
        author: str | None,
        signoff: bool,
        no_edit: bool,
        edit: bool,
        amend: bool,
        task: str | None,
    ) -> int:
        if amend:
            raise UsageError(
                f"--amend is refused: a {phase} step is a new commit with its own evidence",
                "make a new commit (plain `git commit --amend` stays available outside tddgit)",
            )
        if messages and msg_file:
            raise UsageError("-m and -F cannot be combined", "use one of them")
        trailers = [f"GSD-Phase: {phase}", *_task_trailer(task, no_commit)]
        a = app(ctx)
        repo, config = a.repo, a.config
        from tddgit.project import repo_projects
        from tddgit.projects.gate import run_step
        from tddgit.projects.names import repo_test_id

        named = tuple(repo_test_id(t, repo.root, a.cwd, config.project) for t in tests)
        faults.point("phase.before-gate")
        with console.progress(f"{phase} gate", lines=True) as bar:
            verdict = run_step(repo, repo_projects(repo), phase, named, on_progress=bar.update)
        if not verdict.holds or no_commit or not as_json:
            _emit(verdict, as_json)
        if not verdict.holds:
            return 1
        assert verdict.evidence is not None
        cache_put(repo, verdict.evidence)
        if no_commit:
            if not as_json:
                console.out(
                    f"  evidence stored for tree {verdict.change.tree[:10]}; commit it with "
                    "plain `git commit` (the hooks add the trailer) or rerun without --no-commit"
                )
            return 0
        faults.point("phase.before-commit")
        commit = commit_step(
            repo, phase, trailers, messages, msg_file, author, signoff, no_edit, edit, as_json
        )
        if commit is None:
            raise CommitFailed(verdict.change.tree)
        faults.point("phase.after-commit")
        attach_evidence(repo, commit, verdict.evidence)
        if as_json:
            payload = verdict.to_json()
            payload["commit"] = commit
            console.out(json.dumps(payload, indent=2))
        else:
            console.out(f"  evidence: git note on {commit[:10]} ({NOTES_REF})")
            console.out(f"  {verdict.next_step}")
        return 0

    return command


class CommitFailed(UsageError):
    def __init__(self, tree: str) -> None:
        super().__init__(
            "the gate held but `git commit` did not create a commit",
            f"fix what git said above, then `git commit` (evidence for tree {tree[:10]} "
            "is stored; the hooks add the trailer)",
        )
        self.exit_code = 1


_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def task_trailer(task: str | None) -> list[str]:
    """The ``GSD-Task`` trailer of ``--task`` (none without it); the phase commands,
    ``generate`` and ``cycle`` add it to the commits they make."""
    if task is None:
        return []
    if not _TASK_ID.fullmatch(task):
        raise UsageError(
            f"--task {task!r} is not a task id",
            "give the id of a plan task, such as IMPL-3 (letters, digits, '.', '_', '-')",
        )
    return [f"{TASK_TRAILER}: {task}"]


def _task_trailer(task: str | None, no_commit: bool) -> list[str]:
    trailers = task_trailer(task)
    if trailers and no_commit:
        raise UsageError(
            "--task needs the commit: with --no-commit tddgit makes none",
            f"drop --no-commit, or add `--trailer 'GSD-Task: {task}'` to your `git commit`",
        )
    return trailers


def commit_step(
    repo: Repo,
    phase: str,
    trailers: list[str],
    messages: tuple[str, ...],
    msg_file: str | None,
    author: str | None,
    signoff: bool,
    no_edit: bool,
    edit: bool,
    quiet_stdout: bool,
) -> str | None:
    """`git commit` with ``trailers`` (`GSD-Phase`, and `GSD-Task`, `GSD-Agent` when
    they apply); the new commit, or None when git made none."""
    before = repo.head()
    args = ["git", "commit"]
    for trailer in trailers:
        args += ["--trailer", trailer]
    for m in messages:
        args += ["-m", m]
    if msg_file:
        args += ["-F", msg_file]
    if author:
        args += ["--author", author]
    if signoff:
        args.append("--signoff")
    if no_edit:
        args.append("--no-edit")
    if edit:
        args.append("--edit")
    env = {**os.environ, PHASE_ENV: phase}
    if edit or not (messages or msg_file):
        env.update(_editor_env(repo))
    subprocess.run(
        args, cwd=repo.root, env=env, stdout=sys.stderr if quiet_stdout else None, check=False
    )
    # git's exit code is not the answer: killed by SIGPIPE while printing its summary
    # (`tddgit red | head -1`), it has already made the commit and run post-commit.
    after = repo.head()
    if after is None or after == before or _first_parent(repo, after) != before:
        return None
    return after


def _editor_env(repo: Repo) -> dict[str, str]:
    """git opens the user's editor through tddgit.editmsg, which aborts the commit when
    the message is left with nothing but the GSD-Phase trailer."""
    import shlex

    from tddgit.editmsg import EDITOR_ENV

    editor = repo.run("var", "GIT_EDITOR", check=False).stdout.decode().strip() or "vi"
    wrapper = f"{shlex.quote(sys.executable)} -m tddgit.editmsg"
    return {"GIT_EDITOR": wrapper, EDITOR_ENV: editor}


def _first_parent(repo: Repo, commit: str) -> str | None:
    proc = repo.run("rev-parse", "-q", "--verify", f"{commit}^1", check=False)
    return proc.stdout.decode().strip() or None


def attach_evidence(repo: Repo, commit: str, evidence: Evidence | None) -> None:
    assert evidence is not None
    tree = repo.git("rev-parse", f"{commit}^{{tree}}").strip()
    if tree != evidence.tree:
        console.warn(
            f"the commit's tree {tree[:10]} is not the tree the gate judged "
            f"({evidence.tree[:10]}): the index changed meanwhile; no evidence attached"
        )
        return
    write_note(repo, commit, evidence)


# How the subject of a model's commit names its step (``generate --commit``, ``cycle``).
STEP_NOUN = {"red": "tests", "green": "implementation", "refactor": "refactor"}


def commit_model_step(
    repo: Repo,
    phase: str,
    model: str,
    evidence: Evidence,
    message: tuple[str, ...],
    task: list[str],
    quiet_stdout: bool,
) -> str:
    """Commit a step a model made through the same `git commit` as a person's, with the
    `GSD-Phase`, `GSD-Agent` and (``task``) `GSD-Task` trailers, and attach its evidence."""
    trailers = [f"GSD-Phase: {phase}", f"GSD-Agent: {model}", *task]
    commit = commit_step(
        repo, phase, trailers, message, None, None, False, True, False, quiet_stdout
    )
    if commit is None:
        raise CommitFailed(evidence.tree)
    attach_evidence(repo, commit, evidence)
    return commit


def _emit(verdict: Verdict, as_json: bool) -> None:
    if as_json:
        payload = verdict.to_json()
        payload["commit"] = None
        console.out(json.dumps(payload, indent=2))
    else:
        render_verdict(verdict, console.out)


def render_verdict(verdict: Verdict, write: Callable[[str], None]) -> None:
    """The human account of a verdict: what held or failed, per test, and what to do."""
    phase = verdict.phase
    run = verdict.run
    timing = f" ({run.runner}, {run.duration:.1f} s)" if run else ""
    if verdict.holds:
        write(
            console.paint(f"✓ {phase} holds", "green")
            + f" on tree {verdict.change.tree[:10]}"
            + timing
        )
    else:
        write(
            console.paint(f"✗ {phase} refused", "red") + f": the staged change is not a "
            f"valid {phase} step" + timing
        )
    if verdict.evidence is not None:
        for t in verdict.evidence.targets:
            mark = console.paint(_LIGHT_MARK[t.light], _LIGHT_COLOUR[t.light])
            cause = f" ({t.cause.value})" if t.cause else ""
            msg = f": {_short(t.message)}" if t.message else ""
            write(f"  {mark}  {t.id}  {t.outcome.value}{cause}{msg}")
    for r in verdict.reasons:
        write(f"  {console.paint(r.rule, 'red')}: {r.message}")
        if r.detail:
            write(f"      {_short(r.detail, 300)}")
    render_findings(verdict, write)
    if verdict.evidence is not None:
        suite = verdict.evidence.suite
        parts = [
            outcome_count(suite[k], k)
            for k in ("passed", "failed", "error", "skipped")
            if suite.get(k)
        ]
        if parts:
            write(f"  suite: {', '.join(parts)}")
    for note in verdict.notes:
        write(f"  note: {note}")
    if not verdict.holds:
        write(f"  fix: {verdict.next_step}")
        write("  nothing was committed; no file was changed.")


def render_findings(verdict: Verdict, write: Callable[[str], None]) -> None:
    """Warnings the gate recorded in the evidence (e.g. yagni); those that refused the step
    are already shown as reasons."""
    if verdict.evidence is None:
        return
    refused = {r.rule for r in verdict.reasons}
    for f in verdict.evidence.findings:
        rule = str(f.get("rule", "?"))
        if rule in refused:
            continue
        severity = str(f.get("severity", "warning"))
        label = console.paint(f"{severity} {rule}", "yellow")
        write(f"  {label}: {_short(str(f.get('message', '')), 300)}")


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


red = _phase_command("red")
green = _phase_command("green")
refactor = _phase_command("refactor")

__all__ = [
    "PHASE_ENV",
    "CommitFailed",
    "attach_evidence",
    "commit_step",
    "green",
    "red",
    "refactor",
    "render_verdict",
]
