"""The phase step without the command line: run the gate on the staged tree, then commit
with the ``GSD-Phase`` trailer and attach the evidence as a git note.

Click-free, so ``tddgit red|green|refactor`` can reach it from ``tddgit.__main__``
without loading click (``tddgit.commands.phase_fast``); the click commands
(``tddgit.commands.phase``) call the same ``run_phase``. Modules needed only after the
gate's tests have started are imported where they are used: until the test command is
running, every import is start-up time the user waits for.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tddgit import console, faults
from tddgit.errors import UsageError

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from tddgit.evidence import Evidence
    from tddgit.gates import Verdict
    from tddgit.git import Repo

PHASE_ENV = "TDDGIT_PHASE_COMMIT"  # set while tddgit itself runs `git commit`

_LIGHT_MARK = {"red": "✗ RED  ", "amber": "! AMBER", "green": "✓ GREEN"}


def run_phase(
    phase: str,
    cwd: Path,
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
    """``tddgit PHASE``: the gate, then (unless ``no_commit``) the commit and its note."""
    if amend:
        raise UsageError(
            f"--amend is refused: a {phase} step is a new commit with its own evidence",
            "make a new commit (plain `git commit --amend` stays available outside tddgit)",
        )
    if messages and msg_file:
        raise UsageError("-m and -F cannot be combined", "use one of them")
    trailers = [f"GSD-Phase: {phase}", *_task_trailer(task, no_commit)]
    from tddgit.git import find_repo_at_head
    from tddgit.project import load_project_config, repo_projects
    from tddgit.projects.gate import run_step
    from tddgit.projects.names import repo_test_id

    repo, head = find_repo_at_head(cwd)
    config = load_project_config(repo, cwd)
    named = tuple(repo_test_id(t, repo.root, cwd, config.project) for t in tests)
    faults.point("phase.before-gate")
    with console.progress(f"{phase} gate", lines=True) as bar:
        verdict = run_step(
            repo, repo_projects(repo), phase, named, on_progress=bar.update, head=head
        )
    if not verdict.holds or no_commit or not as_json:
        _emit(verdict, as_json)
    if not verdict.holds:
        return 1
    assert verdict.evidence is not None
    from tddgit.evidence import cache_put

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
        import json

        payload = verdict.to_json()
        payload["commit"] = commit
        console.out(json.dumps(payload, indent=2))
    else:
        from tddgit.notes import NOTES_REF

        console.out(f"  evidence: git note on {commit[:10]} ({NOTES_REF})")
        console.out(f"  {verdict.next_step}")
    return 0


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
    from tddgit.plans import TASK_TRAILER

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
    from tddgit.notes import write_note

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
        import json

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
            light = t.light.value
            mark = console.paint(_LIGHT_MARK[light], light)
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
            console.outcome_count(suite[k], k)
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
