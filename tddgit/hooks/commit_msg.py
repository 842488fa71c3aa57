"""The commit-msg hook: a commit that declares a phase must be that phase (PRODUCT.md §7).

The fast path (fresh evidence in the cache) costs one ``rev-parse``, one ``write-tree``,
two small file reads (the lineage state of the parent, the evidence) and no heavy import.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tddgit.config import Config
from tddgit.hooks.context import (
    PHASE_ENV,
    PHASES,
    HookContext,
    comment_char,
    first_parent,
    index_tree,
    is_amend,
    phase_trailers,
    read_message,
)
from tddgit.hooks.report import HookRefusal, note, warn

HOOK = "commit-msg"
_EXEMPT_SUBJECTS = ("fixup!", "squash!", "amend!")


def run(ctx: HookContext, config: Config, args: Sequence[str]) -> int:
    text = read_message(args[0])
    comment = comment_char(ctx, text)
    values = phase_trailers(text, comment)
    if os.environ.get(PHASE_ENV):
        return _confirm_phase_command(ctx, os.environ[PHASE_ENV], values)
    if not values:
        if config.strict:
            _check_strict(ctx, config, text, comment)
        return 0
    phase = _declared_phase(values)
    if ctx.merging:
        raise HookRefusal(
            f"this merge commit declares `GSD-Phase: {values[-1]}`",
            "a merge joins two lineages and is never a phase step of its own",
            "remove the GSD-Phase trailer from the merge message",
        )
    amend = is_amend(ctx)
    parent = first_parent(ctx, amend)
    from tddgit.project import repo_projects

    if not repo_projects(ctx.repo).multi:
        # Several projects: each has its own lineage, so the transition is checked per
        # project, by the gate (fresh evidence was judged on this parent already).
        _check_transition(ctx, parent, phase)
    _check_evidence(ctx, config, phase, parent, amend)
    return 0


def _declared_phase(values: list[str]) -> str:
    phases = {v.strip().lower() for v in values}
    bad = [v for v in values if v.strip().lower() not in PHASES]
    if bad:
        raise HookRefusal(
            f"`GSD-Phase: {bad[0]}` is not a phase",
            "the GSD-Phase trailer must say red, green or refactor",
            "correct the trailer's value, or remove the trailer",
        )
    if len(phases) > 1:
        raise HookRefusal(
            f"the message declares several phases ({', '.join(values)})",
            "one commit is one step of the cycle",
            "keep one GSD-Phase trailer",
        )
    return phases.pop()


def _check_transition(ctx: HookContext, parent: str | None, phase: str) -> None:
    from tddgit.lineage import allowed, state_at

    state = state_at(ctx.repo, parent)
    rule = allowed(state, phase)
    if rule is None:
        return
    from tddgit.gates import FIXES

    last = state.phase or "no phase yet"
    where = f" (at {state.phase_commit[:10]})" if state.phase_commit else ""
    raise HookRefusal(
        f"`GSD-Phase: {phase}` cannot follow {last}{where} on this branch [{rule}]",
        _TRANSITION_WHY.get(rule, "the cycle is red -> green -> refactor*"),
        FIXES.get(rule, "commit the phase the cycle expects next (`tddgit status`)"),
    )


_TRANSITION_WHY = {
    "green-without-red": "a green makes a failing test pass, and no red is open on this branch",
    "refactor-while-red": "a refactor needs every test passing, and a red is still open",
    "refactor-without-green": "a refactor follows a green (or another refactor)",
}


def _check_evidence(
    ctx: HookContext, config: Config, phase: str, parent: str | None, amend: bool
) -> None:
    from tddgit.evidence import cache_get

    tree = index_tree(ctx)
    evidence = cache_get(ctx.repo, tree, phase)
    if evidence is not None and evidence.parent == parent:
        note(HOOK, f"{phase} step verified by stored evidence (tree {tree[:10]})")
        return
    if amend and _amended_note_holds(ctx, tree, phase, parent):
        return
    if amend and not config.flag("hooks.run_gate"):
        raise HookRefusal(
            f"this amend declares `GSD-Phase: {phase}` but no {phase} evidence exists for "
            f"its tree {tree[:10]} on top of {parent[:10] if parent else 'the root'}",
            "hooks.run_gate is false, so the hook does not judge the amended step against "
            "the commit before it itself",
            f"`git reset --soft HEAD~1`, then `tddgit {phase}` (or keep the commit as it was)",
        )
    if not config.flag("hooks.run_gate"):
        raise HookRefusal(
            f"no fresh {phase} evidence for the staged tree {tree[:10]} [missing-evidence]",
            "hooks.run_gate is false, so the hook does not run the tests itself",
            f"run `tddgit {phase} --no-commit` first, then commit again (or commit with "
            f"`tddgit {phase}`)",
        )
    _run_gate_now(ctx, config, phase, amend)


def _amended_note_holds(ctx: HookContext, tree: str, phase: str, parent: str | None) -> bool:
    """An amend that keeps HEAD's tree (a new message, author or date) is the step HEAD's
    note already proves; caching that evidence lets post-commit attach it to the new
    commit even where git is not set up to copy notes."""
    from tddgit.evidence import EvidenceError, cache_put
    from tddgit.notes import read_note

    assert ctx.head is not None
    try:
        evidence = read_note(ctx.repo, ctx.head)
    except EvidenceError:
        return False
    if evidence is None or evidence.tree != tree or evidence.phase != phase:
        return False
    if evidence.parent != parent:
        return False
    cache_put(ctx.repo, evidence)
    note(HOOK, f"{phase} step verified by the evidence of the commit it amends ({ctx.head[:10]})")
    return True


def _run_gate_now(ctx: HookContext, config: Config, phase: str, amend: bool) -> None:
    """No stored evidence: run the gate on the index now (an amend against the commit it
    amends' parent, as if HEAD were not there yet); cache its evidence so post-commit can
    attach it as the note."""
    import sys

    from tddgit.commands.phase_step import render_findings, render_verdict
    from tddgit.evidence import cache_put
    from tddgit.project import repo_projects
    from tddgit.projects.gate import run_step
    from tddgit.snapshot import use_scratch_dir

    note(HOOK, f"no stored {phase} evidence for this tree: running the {phase} gate now")
    with use_scratch_dir():  # each project the change touches, judged in its own
        verdict = run_step(ctx.repo, repo_projects(ctx.repo), phase, amend=amend)

    def write(line: str) -> None:
        sys.stderr.write(line + "\n")

    if verdict.holds:
        assert verdict.evidence is not None
        cache_put(ctx.repo, verdict.evidence)
        note(HOOK, f"{phase} holds; evidence stored (post-commit attaches it as a note)")
        render_findings(verdict, write)  # its warnings (yagni ...), as `tddgit green` shows
        return

    render_verdict(verdict, write)
    first = verdict.reasons[0] if verdict.reasons else None
    raise HookRefusal(
        f"the staged change is not a valid {phase} step" + (f" [{first.rule}]" if first else ""),
        first.message if first else "the gate did not hold",
        verdict.next_step or f"fix what the {phase} gate reported above",
    )


def _confirm_phase_command(ctx: HookContext, phase: str, values: list[str]) -> int:
    """``tddgit red|green|refactor`` is committing: it judged this tree just before and
    stored the evidence; only confirm nothing changed in between."""
    from tddgit.evidence import cache_get

    if [v.strip().lower() for v in values][-1:] != [phase]:
        raise HookRefusal(
            f"tddgit {phase} is committing but the message declares "
            f"{', '.join(values) or 'no phase'}",
            "the phase command adds its own GSD-Phase trailer",
            "remove GSD-Phase trailers from the message you pass to tddgit",
        )
    tree = index_tree(ctx)
    if cache_get(ctx.repo, tree, phase) is None:
        raise HookRefusal(
            f"the tree being committed ({tree[:10]}) is not the tree the {phase} gate judged",
            "the index changed while tddgit was committing (another hook or process staged files)",
            f"rerun `tddgit {phase}`",
        )
    return 0


# --- strict mode -------------------------------------------------------------------------


def _check_strict(ctx: HookContext, config: Config, text: str, comment: str) -> None:
    from tddgit.trailers import cleanup_message

    subject = cleanup_message(text, comment).split("\n", 1)[0]
    if ctx.merging or ctx.reverting or subject.startswith('Revert "'):
        return
    from tddgit.paths import Classifier

    parent = first_parent(ctx, is_amend(ctx))
    classifier = Classifier.from_config(config)
    paths = _changed_paths(ctx, parent)
    production = [p for p in paths if classifier.is_production(p) and not classifier.is_exempt(p)]
    if not production:
        return
    shown = ", ".join(production[:5]) + (
        f" and {len(production) - 5} more" if len(production) > 5 else ""
    )
    untested = not any(classifier.is_test(p) for p in paths) and _no_open_red(ctx, parent)
    if subject.startswith(_EXEMPT_SUBJECTS):
        if untested:
            warn(
                HOOK,
                f"production code ({shown}) with no test change and no open red: exempt as "
                f"{subject.split(' ', 1)[0]}, but the step it joins needs a failing test first",
            )
        return
    fix = (
        "commit with `tddgit red|green|refactor`, or add `GSD-Phase: <phase>` after running "
        "`tddgit <phase> --no-commit`"
    )
    if untested:
        fix = (
            "there is no test change and no open red: start with a failing test "
            f"(`tddgit red`); or {fix}"
        )
    raise HookRefusal(
        f"this commit changes production code ({shown}) without a GSD-Phase trailer",
        "mode = strict: production changes must be a red, green or refactor step; exempt are "
        "merges, reverts, fixup!/squash!/amend! commits and paths matching `exempt`",
        fix,
    )


def _no_open_red(ctx: HookContext, parent: str | None) -> bool:
    """No red is open: with no test change either, the commit is probably a step without a
    test (what the pre-commit hook warned about when it could not read the message)."""
    from tddgit.lineage import state_at

    return not state_at(ctx.repo, parent).open_reds


def _changed_paths(ctx: HookContext, parent: str | None) -> list[str]:
    from tddgit.git import EMPTY_TREE, zsplit

    base = parent or EMPTY_TREE
    args = ("diff-tree", "-r", "-z", "--no-renames", "--name-only", base, index_tree(ctx))
    return zsplit(ctx.repo.run(*args).stdout.decode("utf-8", "surrogateescape"))
