"""One agent hook call: parse the agent's event, decide it by the rules, answer in the
agent's format — and never fail closed on tddgit's own faults.

Reached from ``tddgit.__main__`` without click (``tddgit agent hook AGENT``): the pre-write
hook runs on every edit an agent makes. A tddgit error, a missing runner, a timeout, a
crash: the action is allowed, a loud warning goes to stderr (and to the agent's user-facing
message where it has one), and a JSON line is appended to ``<common git dir>/tddgit/
hook-errors.log`` (as for the git hooks, ``hooks.on_internal_error``), hook name
``agent:<agent>:<event>``.

Test seam: ``TDDGIT_HOOK_TEST_CRASH=agent`` (or ``all``) makes the guard raise an internal
error after it has read the configuration, as the git hooks do for their names.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tddgit.guard.model import (
    ALLOW,
    BLOCK,
    DENY,
    OTHER,
    POST_WRITE,
    PRE_WRITE,
    REVERT,
    SESSION_START,
    STOP,
    Decision,
    Event,
    Reply,
)

CRASH_NAME = "agent"


def fast_path(argv: Sequence[str]) -> int | None:
    """``tddgit agent hook AGENT`` without click; None hands anything else to click."""
    from tddgit.guard.adapters import AGENTS

    if len(argv) != 1 or argv[0] not in AGENTS:
        return None
    return main(argv[0])


def main(agent: str, raw: bytes | None = None) -> int:
    """Read the event on stdin, write the agent's answer; returns the exit code."""
    from tddgit.signals import terminate_as_interrupt

    terminate_as_interrupt()
    data = sys.stdin.buffer.read() if raw is None else raw
    event, decision = handle(agent, data)
    reply = render(agent, event, decision)
    if reply.stdout:
        sys.stdout.write(reply.stdout)
        sys.stdout.flush()
    if reply.stderr:
        sys.stderr.write(reply.stderr)
    return reply.exit_code


def render(agent: str, event: Event | None, decision: Decision) -> Reply:
    from tddgit.guard.adapters import adapter

    if event is None:  # unreadable input: a warning, nothing else
        return Reply(stderr=f"tddgit: warning: {decision.warning}\n")
    return adapter(agent).render(event, decision)  # type: ignore[no-any-return]


def handle(agent: str, raw: bytes, *, dry_run: bool = False) -> tuple[Event | None, Decision]:
    """The event and its decision; every fault of ours becomes an allowing decision."""
    from tddgit.errors import NotARepoError
    from tddgit.guard.adapters import adapter

    event: Event | None = None
    ctx: Any = None
    try:
        payload = json.loads(raw.decode("utf-8", "replace") or "null")
        if not isinstance(payload, dict):
            raise ValueError("the hook's input is not a JSON object")
        event = adapter(agent).parse(payload)
        assert event is not None
        if event.kind == OTHER:
            return event, Decision(ALLOW, "not-guarded")
        from tddgit.config import load_config
        from tddgit.guard import quick
        from tddgit.hooks.context import discover

        known = quick.found(event.cwd)
        if known is not None:  # the fast path ran git status here: no `git rev-parse`
            from tddgit.git import Repo
            from tddgit.hooks.context import HookContext

            root, git_dir, common, head = known
            ctx = HookContext(Repo(Path(root), Path(git_dir), Path(common)), head)
        else:
            cwd = Path(event.cwd) if event.cwd and os.path.isdir(event.cwd) else None
            try:
                ctx = discover(cwd)
            except NotARepoError:
                return event, Decision(ALLOW, "outside-repo")
        config = load_config(ctx.repo.root, ctx.repo.tddgit_dir)
        from tddgit.guard.quick import CRASH_ENV  # = hooks.dispatch's, without its imports

        if os.environ.get(CRASH_ENV) in (CRASH_NAME, "all"):
            raise RuntimeError(f"{CRASH_ENV}={os.environ[CRASH_ENV]}: simulated internal error")
        from tddgit.guard.facts import Facts

        facts = Facts(ctx.repo, config, ctx.head)
        return event, decide(facts, event, dry_run=dry_run)
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        return event, internal_error(agent, event, exc, ctx)


def decide(facts: Any, event: Event, *, dry_run: bool = False) -> Decision:
    if event.kind == PRE_WRITE:
        decision = _pre_write(facts, event, dry_run)
        if decision.verdict == ALLOW and not dry_run:
            from tddgit.guard import inflight

            inflight.begin(facts.repo, event.session)  # the tool runs: the race rule
        return decision
    if event.kind == POST_WRITE:
        if dry_run:  # `agent check`: the named files against the index, nothing put back
            return _post_write(facts, event, dry_run)
        from tddgit.guard.aftertool import check_tree

        return check_tree(facts, event)
    if event.kind == STOP:
        return _stop(facts, event, dry_run)
    assert event.kind == SESSION_START
    if not dry_run:
        from tddgit.guard.aftertool import check_tree
        from tddgit.guard.stops import record_start

        check_tree(facts, event, baseline=True)
        record_start(facts, event.session)
    return _session_start(facts)


def _stop(facts: Any, event: Event, dry_run: bool) -> Decision:
    """What the last tools left (a failed tool fires no post-tool hook in some agents) is
    judged first; then the suite."""
    from tddgit.guard.checks import check_stop

    if not dry_run:
        from tddgit.guard.aftertool import check_tree

        tree = check_tree(facts, event)
        if tree.verdict == REVERT:
            return Decision(BLOCK, tree.rule, tree.reason, tree.warning, tree.details)
    return check_stop(facts, event.session, event.stop_hook_active)


def _pre_write(facts: Any, event: Event, dry_run: bool) -> Decision:
    from tddgit.guard.protect import NEXT_ASK, command_rule, protected
    from tddgit.guard.rules import before_write

    if event.command:
        refused = command_rule(event.command)
        if refused is not None:
            return refused
    if not dry_run:
        from tddgit.guard.aftertool import ensure_baseline

        ensure_baseline(facts)
    decision = Decision(ALLOW, "outside-repo")
    for write in event.writes:
        rel = facts.relative(write.path, event.cwd)
        what = protected(rel if rel is not None else _git_path(facts, write.path, event.cwd))
        if what is not None:
            return Decision(
                DENY,
                "guard-config-protected",
                f"{rel or write.path} is {what}; the agent's tools may not change it. {NEXT_ASK}",
            )
        if rel is None:
            continue
        here = facts.at(rel)  # its project's lineage and settings (docs/monorepo.md)
        decision = before_write(rel, here.kind(rel), here)
        if decision.verdict != ALLOW:
            return decision
        if decision.rule == "refactor-candidate" and not dry_run:
            from tddgit.guard.aftertool import accepted_blob
            from tddgit.guard.snapshots import take

            take(facts.repo, event.session, rel, accepted_blob(facts, rel))
    return decision


def _git_path(facts: Any, path: str, cwd: str | None) -> str:
    """``path`` as ``.git/...`` when it is inside the repository's git directory."""
    p = Path(path) if os.path.isabs(path) else Path(cwd or facts.repo.root) / path
    p = Path(os.path.normpath(p))
    for base in (facts.repo.common_dir, facts.repo.git_dir):
        try:
            return ".git/" + p.relative_to(base).as_posix()
        except ValueError:
            continue
    return ""


def _post_write(facts: Any, event: Event, dry_run: bool) -> Decision:
    from tddgit.guard import snapshots
    from tddgit.guard.checks import check_write

    result = Decision(ALLOW, "not-code")
    warnings: list[str] = []
    for write in event.writes:
        rel = facts.relative(write.path, event.cwd)
        if rel is None:
            continue
        here = facts.at(rel)  # its project's lineage, runner and directory
        if here.kind(rel) != "production":
            continue
        if here.open_red or here.uncommitted_red:
            snapshots.drop(facts.repo, event.session, rel)
            result = Decision(ALLOW, "implementing")
            continue
        snap = snapshots.load(facts.repo, event.session, rel)
        if snap is None and dry_run:
            snap = snapshots.staged(facts.repo, rel)  # `agent check`: against the index
        if snap is None:
            warnings.append(
                f"{rel} was written with no snapshot from before the write (was the "
                "pre-write hook skipped?): it was not checked"
            )
            continue
        decision = check_write(here, snap)
        if decision.warning:
            warnings.append(decision.warning)
        if not dry_run:
            if decision.verdict == REVERT:
                snapshots.restore(facts.repo, snap)
            snapshots.drop(facts.repo, event.session, rel)
        if decision.verdict == REVERT or result.verdict != REVERT:
            result = decision
    if warnings:
        return Decision(
            result.verdict, result.rule, result.reason, "; ".join(warnings), result.details
        )
    return result


def _session_start(facts: Any) -> Decision:
    from tddgit.guard.rules import NEXT_RED, session_context

    state = facts.state
    if state.phase_commit:
        line = f"tddgit state: last step {state.phase} ({state.phase_commit[:10]})"
    else:
        line = "tddgit state: no red/green/refactor step on this branch yet"
    parts = facts.each()
    if len(parts) > 1:  # each project's own lineage (docs/monorepo.md)
        line += "; per project: " + ", ".join(
            f"{f.scope.label if f.scope else '.'} "
            + ("red open" if f.state.open_reds else (f.state.phase or "no step yet"))
            for f in parts
        )
    if state.open_reds:
        line += f"; {len(state.open_reds)} red(s) open"
        step = "make the open red's failing tests pass with production code, then `tddgit green`"
    elif facts.uncommitted_red:
        step = "commit the failing test that was judged red: `tddgit red`"
    elif state.phase in ("green", "refactor"):
        step = (
            "refactor with every test green (`tddgit refactor`), or start the next cycle: "
            + NEXT_RED
        )
    else:
        step = NEXT_RED
    return session_context(line, step)


def internal_error(agent: str, event: Event | None, exc: Exception, ctx: Any) -> Decision:
    """Allow, loudly, and record it for the audit: never a refusal worded as a TDD rule."""
    from tddgit.hooks.dispatch import log_error

    if os.environ.get("TDDGIT_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exception(exc)
    what = f"{type(exc).__name__}: {exc}"
    name = f"agent:{agent}:{event.native if event else '?'}"
    logged = log_error(ctx, name, what, "allow") if ctx is not None else None
    where = f" (recorded in {logged})" if logged else ""
    return Decision(
        ALLOW,
        "guard-internal-error",
        warning=(
            f"tddgit failed inside the {agent} hook ({what}); the action was allowed "
            f"UNVERIFIED{where}. Rerun with TDDGIT_DEBUG=1 and report it."
        ),
    )
