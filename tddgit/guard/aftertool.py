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
post-write check not yet) is left for that session's check.
"""

from __future__ import annotations

import time
from typing import Any

from tddgit.guard import tree
from tddgit.guard.model import ALLOW, REVERT, Decision, Event
from tddgit.guard.protect import NEXT_ASK, protected, tddgit_table
from tddgit.guard.rules import NEXT_RED, decide

IN_FLIGHT_SECONDS = 900  # a pre-write snapshot older than this is a tool that failed


def check_tree(facts: Any, event: Event, *, baseline: bool = False) -> Decision:
    """Judge every change since the accepted state; ``baseline``: accept the tree as it is
    (a session starts: the person's own uncommitted work is not the agent's)."""
    from tddgit.guard import snapshots

    repo = facts.repo
    with tree.locked(repo):
        scan = tree.scan(repo, facts.head)
        if baseline or scan.fresh:
            tree.accept(scan)
            tree.save(repo, scan)
            return Decision(ALLOW, "tree-accepted")
        own = {p for w in event.writes if (p := facts.relative(w.path, event.cwd))}
        decisions: list[Decision] = []
        keep: list[str] = []
        for change in scan.changes:
            if change.path not in own and _in_flight_elsewhere(repo, event.session, change.path):
                continue  # another session is writing it: its own check judges it
            verdict = _judge(facts, event, change)
            if verdict.verdict == REVERT:
                decisions.append(verdict)
            else:
                keep.append(change.path)
        tree.accept(scan, keep)
        tree.save(repo, scan)
    for path in own:
        snapshots.drop(repo, event.session, path)
    if not decisions:
        return Decision(ALLOW, "kept" if scan.changes else "tree-unchanged")
    first = decisions[0]
    reason = "\n".join(d.reason for d in decisions)
    return Decision(first.verdict, first.rule, reason, first.warning, first.details)


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


def _judge(facts: Any, event: Event, change: tree.Change) -> Decision:
    """One changed path: accepted (ALLOW) or put back (REVERT, with the reason)."""
    from tddgit.guard import snapshots

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
            change,
            None,
            decide(
                "guard-config-protected",
                f"{path} is {what}; the agent's tools may not change it, and the change"
                f"{via} was put back. {NEXT_ASK}",
            ),
        )
    kind = facts.kind(path)
    if kind == "test":
        if facts.open_red and not facts.allow_test_edits and path in facts.red_target_files:
            return _revert(
                facts,
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
        return _revert(facts, change, own, decision)
    last = f"the last step is {facts.phase}" if facts.phase else "there is no tddgit step yet"
    return _revert(
        facts,
        change,
        own,
        Decision(
            REVERT,
            "write-needs-red",
            f"{path} is production code and it changed{via} with no red open ({last}): "
            f"the change was put back. Next step: {NEXT_RED}",
        ),
    )


def _revert(facts: Any, change: tree.Change, own: Any, decision: Decision) -> Decision:
    """Take the change out: back to the content the session's own pre-write hook saw when
    it has one (another session's change stays), else to the accepted content."""
    repo = facts.repo
    target = own.content if own is not None else tree.blob_bytes(repo, change.before.blob)
    judged = tree.blob_bytes(repo, change.blob)
    how = tree.put_back(repo, change.path, target, judged)
    entry = tree.status(repo).get(change.path)
    if entry is not None:
        tree.restore_index(repo, change.path, change.before, entry)
    details = {**decision.details, "path": change.path}
    reason = decision.reason
    if how != "put back":
        reason = f"{reason} ({change.path}: {how})"
    return Decision(decision.verdict, decision.rule, reason, decision.warning, details)
