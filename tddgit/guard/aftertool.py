"""The tree check after every tool call: judge the tree, not the tool.

Whatever changed a file — a file tool, a shell command (``sed -i``, ``cp``, a heredoc, a
Python one-liner), ``git checkout other -- f``, ``git stash pop``, an MCP server — the next
hook of the session compares the work tree with the state the guard last accepted
(``tree``) and applies the write rules to every path that changed:

- production code with no red open: put back exactly (``write-needs-red``);
- an open red's target tests while the red is implemented: put back
  (``test-edited-in-green``);
- tddgit's configuration, the agent's hook configuration, pyproject's ``[tool.tddgit]``,
  the git hooks: put back (``guard-config-protected``);
- after a green or refactor step, production changes are refactor candidates, judged as
  the file tools' writes are (``checks.check_write``) and undone when a test fails or an
  added line is untested;
- anything else is accepted.

Per change, not per file: the base of a session's change is the last accepted state (which
holds other sessions' kept changes), or the content its own pre-write hook saw; a revert
takes out only the judged change (``tree.put_back``: three-way where the file moved on);
and a path another session is writing right now (its pre-write snapshot is there, its
post-write check not yet), or changed while another session's earlier call was running
(``inflight``: the race rule), is left for that session's check.

A check that leaves nothing outstanding records the tree for the fast path (``quick``),
which answers the next "nothing changed" without this module.
"""

from __future__ import annotations

import time
from typing import Any

from tddgit.guard import inflight, tree
from tddgit.guard.model import ALLOW, CONTEXT, REVERT, Decision, Event

IN_FLIGHT_SECONDS = 900  # a pre-write snapshot older than this is a tool that failed
FREE_LIMIT = 200  # more listed paths than this: none is free (classifying them costs)


def check_tree(facts: Any, event: Event, *, baseline: bool = False) -> Decision:
    """Judge every change since the accepted state; ``baseline``: accept the tree as it is
    (a session starts: the person's own uncommitted work is not the agent's)."""
    repo = facts.repo
    mine = inflight.started(repo, event.session)
    inflight.end(repo, event.session)  # this session's tool call is over
    with tree.locked(repo):
        scan = tree.scan(repo, facts.head)
        if baseline or scan.fresh:
            tree.accept(scan)
            tree.save(repo, scan)
            tree.remember(repo, scan, lambda paths: free_paths(facts, paths))
            return Decision(ALLOW, "tree-accepted")
        own = {p for w in event.writes if (p := facts.relative(w.path, event.cwd))}
        begun = inflight.others(repo, event.session)
        decisions: list[Decision] = []
        warnings: list[str] = []  # a kept change the check could not fully measure
        keep: list[str] = []
        told: list[Decision] = []
        left = 0  # changes left to another session's check
        for change in scan.changes:
            elsewhere = _in_flight_elsewhere(repo, event.session, change.path)
            if change.path not in own and (
                elsewhere or inflight.claimed(repo, change.path, begun, mine)
            ):
                left += 1
                continue  # another session's running call may have made it: its check judges
            verdict = _judge(facts, event, change, elsewhere)
            if verdict.rule == "deferred":
                left += 1
                continue  # the file holds another session's unjudged change: judged with it
            _drop_pending_elsewhere(repo, event.session, change.path)
            if verdict.verdict == REVERT:
                decisions.append(verdict)
            else:
                keep.append(change.path)
                if verdict.warning:
                    warnings.append(verdict.warning)
                if verdict.verdict == CONTEXT:  # kept, with words for the agent
                    told.append(verdict)
        tree.accept(scan, keep)
        tree.save(repo, scan)
        if not decisions and not left:
            tree.remember(repo, scan, lambda paths: free_paths(facts, paths))
    if own:
        from tddgit.guard import snapshots

        for path in own:
            snapshots.drop(repo, event.session, path)
    warnings.extend(d.warning for d in decisions if d.warning)
    if not decisions and told:
        first = told[0]
        reason = "\n".join(d.reason for d in told)
        return Decision(CONTEXT, first.rule, reason, "; ".join(warnings), first.details)
    if not decisions:
        return Decision(
            ALLOW, "kept" if scan.changes else "tree-unchanged", warning="; ".join(warnings)
        )
    first = decisions[0]
    reason = "\n".join(d.reason for d in [*decisions, *told])
    return Decision(first.verdict, first.rule, reason, "; ".join(warnings), first.details)


def free_paths(facts: Any, paths: list[str]) -> set[str]:
    """The paths of which ``_judge`` keeps every change, whatever the content, for as long
    as HEAD, the index and the top's configuration stay as they are: the fast path answers
    for their changes without a look (quick.py). A subset of ``_judge``'s verdicts, read
    from HEAD's lineage and the configuration only (not the open red's notes, the index's
    red evidence or a snapshot): not code; a test file with no red open; production code
    while a red is open. Never a protected path or pyproject.toml (its [tool.tddgit]), nor
    a path of a project of its own (its configuration is not the top's)."""
    from tddgit.guard.protect import protected

    if len(paths) > FREE_LIMIT:
        return set()
    out = set()
    for path in paths:
        if protected(path) is not None or path == "pyproject.toml" or facts.at(path) is not facts:
            continue
        kind = facts.kind(path)
        if kind == "test" and facts.open_red:
            continue  # the open red's target tests may not change: judged each time
        if kind == "production" and not facts.open_red:
            continue  # a refactor candidate, or a write that needs a red: judged each time
        out.add(path)
    return out


def ensure_baseline(facts: Any) -> None:
    """Before a tool runs: with no accepted state yet (or HEAD moved: a commit, a checkout),
    the tree as it is now is the accepted state, so the tool's changes are judged after it.
    Reads one small file in the usual case."""
    data = tree.load(facts.repo)
    if data is not None and data.get("head") == facts.head:
        return
    with tree.locked(facts.repo):
        scan = tree.scan(facts.repo, facts.head)
        if scan.fresh:
            tree.accept(scan)
            tree.save(facts.repo, scan)


def accepted_blob(facts: Any, path: str) -> str | None:
    """The blob the tree check accepts for ``path`` now (None: absent)."""
    data = tree.load(facts.repo)
    row = data["paths"].get(path) if data is not None else None
    if isinstance(row, list) and row:
        return row[0] if isinstance(row[0], str) else None
    return tree.head_blobs(facts.repo, facts.head, [path]).get(path)


def _defer(facts: Any, event: Event, change: tree.Change) -> bool:
    """Our write landed on another session's unjudged change (the content our pre-write
    hook saw is not the accepted one): record our change as pending, for that session's
    check to take out of the file before judging its own, and judge nothing now."""
    import json

    from tddgit.guard import snapshots

    repo = facts.repo
    own = snapshots.load(repo, event.session, change.path)
    if own is None or own.content is None or change.blob is None:
        return False
    if own.content == tree.blob_bytes(repo, change.before.blob):
        return False
    pre = tree.hash_files_bytes(repo, own.content)
    record = snapshots._base(repo, event.session, change.path).with_suffix(".pending")
    record.write_text(json.dumps({"path": change.path, "pre": pre, "post": change.blob}))
    return True


def _pending_elsewhere(repo: Any, session: str, path: str) -> list[tuple[bytes, bytes]]:
    """Other sessions' deferred changes to ``path``: (before, after) contents."""
    import json

    from tddgit.guard import snapshots

    mine = snapshots.session_dir(repo, session)
    name = snapshots._base(repo, session, path).name + ".pending"
    out = []
    for d in [d for d in mine.parent.glob("*") if d.is_dir() and d != mine]:
        try:
            data = json.loads((d / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        pre, post = tree.blob_bytes(repo, data.get("pre")), tree.blob_bytes(repo, data.get("post"))
        if data.get("path") == path and pre is not None and post is not None:
            out.append((pre, post))
    return out


def _drop_pending_elsewhere(repo: Any, session: str, path: str) -> None:
    from tddgit.guard import snapshots

    mine = snapshots.session_dir(repo, session)
    name = snapshots._base(repo, session, path).name + ".pending"
    for d in [d for d in mine.parent.glob("*") if d.is_dir() and d != mine]:
        (d / name).unlink(missing_ok=True)


def _in_flight_elsewhere(repo: Any, session: str, path: str) -> bool:
    from tddgit.guard import snapshots

    mine = snapshots.session_dir(repo, session)
    name = snapshots._base(repo, session, path).name + ".json"
    root = mine.parent
    try:
        dirs = [d for d in root.iterdir() if d.is_dir() and d != mine]
    except OSError:
        return False
    now = time.time()
    for d in dirs:
        try:
            if now - (d / name).stat().st_mtime < IN_FLIGHT_SECONDS:
                return True
        except OSError:
            continue
    return False


def _judge(facts: Any, event: Event, change: tree.Change, elsewhere: bool = False) -> Decision:
    """One changed path: accepted (ALLOW) or put back (REVERT, with the reason)."""
    from tddgit.guard import snapshots
    from tddgit.guard.protect import NEXT_ASK, protected, tddgit_table

    repo = facts.repo
    path = change.path
    base_blob = change.before.blob
    what = protected(path)
    if what is None and path == "pyproject.toml":
        old = tree.blob_bytes(repo, base_blob) or b""
        new = (repo.root / path).read_bytes() if change.blob else b""
        if tddgit_table(old.decode("utf-8", "replace")) != tddgit_table(
            new.decode("utf-8", "replace")
        ):
            what = "tddgit's configuration (pyproject.toml's [tool.tddgit])"
    via = f" (by {event.tool})" if event.tool else ""
    if what is not None:
        return _revert(
            facts,
            event,
            change,
            None,
            Decision(
                REVERT,
                "guard-config-protected",
                f"{path} is {what}; the agent's tools may not change it, and the change"
                f"{via} was put back. {NEXT_ASK}",
            ),
        )
    facts = facts.at(path)  # its project's lineage, runner and directory (docs/monorepo.md)
    kind = facts.kind(path)
    if kind == "test":
        if facts.open_red and not facts.allow_test_edits and path in facts.red_target_files:
            return _revert(
                facts,
                event,
                change,
                None,
                Decision(
                    REVERT,
                    "test-edited-in-green",
                    f"{path} holds the open red's target tests, which may not change while "
                    f"the red is implemented: the change{via} was put back. Next step: make "
                    "them pass with production code (`tddgit green`)",
                ),
            )
        return Decision(ALLOW, "test-first")
    if kind != "production":
        return Decision(ALLOW, "not-code")
    if facts.open_red or facts.uncommitted_red:
        return Decision(ALLOW, "implementing")
    own = snapshots.load(repo, event.session, path)
    if facts.phase in ("green", "refactor"):
        from tddgit.guard.checks import check_write

        base = (
            own
            if own is not None
            else snapshots.Snapshot(path, tree.blob_bytes(repo, base_blob), None)
        )
        decision = check_write(facts, base)
        if decision.verdict != REVERT:
            return decision
        if decision.rule == "write-breaks-tests" and elsewhere and _defer(facts, event, change):
            # a test fails, but the file also holds another session's unjudged change: that
            # session's check judges both, taking ours out first (no blame on a guess)
            return Decision(ALLOW, "deferred")
        return _revert(facts, event, change, own, decision)
    from tddgit.guard.rules import NEXT_RED  # only for this refusal (not on the hot path)

    last = f"the last step is {facts.phase}" if facts.phase else "there is no tddgit step yet"
    return _revert(
        facts,
        event,
        change,
        own,
        Decision(
            REVERT,
            "write-needs-red",
            f"{path} is production code and it changed{via} with no red open ({last}): "
            f"the change was put back. Next step: {NEXT_RED}",
        ),
    )


def _revert(
    facts: Any, event: Event, change: tree.Change, own: Any, decision: Decision
) -> Decision:
    """Take the change out: back to the content the session's own pre-write hook saw when
    it has one (another session's change stays), else to the accepted content."""
    repo = facts.repo
    target = tree.blob_bytes(repo, change.before.blob)
    if own is not None and own.accepted != "" and own.accepted != change.before.blob:
        # the accepted state moved since our pre-write hook (another session's change was
        # kept): keep it, and the unjudged changes our hook saw besides
        then = tree.blob_bytes(repo, own.accepted)
        if target is not None and then is not None and own.content is not None:
            target = tree.merge(target, then, own.content) or target
    elif own is not None:
        target = own.content
    judged = tree.blob_bytes(repo, change.blob)
    pending = _pending_elsewhere(repo, event.session, change.path)
    if pending and judged is not None and target is not None:
        # other sessions' changes that landed on ours stay: take out our change alone
        mine = judged
        for pre, post in pending:
            mine = tree.merge(mine, post, pre) or mine
        target = tree.merge(judged, mine, target) or target
    how = tree.put_back(repo, change.path, target, judged)
    entry = tree.status(repo).get(change.path)
    if entry is not None:
        tree.restore_index(repo, change.path, change.before, entry)
    details = {**decision.details, "path": change.path}
    reason = decision.reason
    if how != "put back":
        reason = f"{reason} ({change.path}: {how})"
    return Decision(decision.verdict, decision.rule, reason, decision.warning, details)
