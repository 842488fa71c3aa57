"""What a person sees before deciding, and what each decision does to the user's branch.

:func:`review_lines` shows the branch's commits (phase, targets and their lights), the diff
stat, the findings (detect and yagni) recorded in the evidence, tokens and cost, and the
transcripts. :func:`approve` fast-forwards the user's branch, and only when that is safe:
the branch has not moved and no uncommitted change of the user touches a file the cycle
changed; otherwise the cycle's branch is kept and the command to merge later is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tddgit.console import shown_path
from tddgit.cycle.engine import CycleRun
from tddgit.git import Repo, clean_env, zsplit
from tddgit.notes import read_note


@dataclass(frozen=True)
class Outcome:
    merged: bool
    why: str  # one line: what happened, or why nothing was merged


def merge_command(branch: str) -> str:
    return f"git merge --ff-only {branch}"


def review_lines(repo: Repo, branch: str, base: str, run: CycleRun, cwd: Path) -> list[str]:
    lines = [f"review: {branch} (from {base[:10]})"]
    commits = zsplit(repo.git("log", "-z", "--reverse", "--format=%H %s", f"{base}..{branch}"))
    if not commits:
        lines.append("  no commit: the cycle made nothing")
    findings: list[str] = []
    for entry in commits:
        sha, _, subject = entry.partition(" ")
        evidence = read_note(repo, sha)
        phase = evidence.phase if evidence else "?"
        lines.append(f"  {sha[:10]} {phase:<8} {subject}")
        for t in evidence.targets if evidence else ():
            lines.append(f"      {t.light.value:<6} {t.id}")
        for f in evidence.findings if evidence else ():
            label = "yagni" if "yagni" in str(f.get("rule", "")) else "detect"
            findings.append(f"  {label}: {f.get('rule', '?')}: {f.get('message', '')}")
    stat = repo.git("diff", "--stat", base, branch).rstrip()
    if stat:
        lines.append("  diff:")
        lines += [f"    {line.strip()}" for line in stat.splitlines()]
    lines += findings or ["  findings: none (detect, yagni)"]
    tokens_in = tokens_out = 0
    for step in run.steps:
        if step.report is None:
            continue
        usage = step.report.end.usage
        tokens_in, tokens_out = tokens_in + usage.input, tokens_out + usage.output
        lines.append(f"  transcript ({step.name}): {shown_path(step.report.transcript, cwd)}")
    cost = run.cost()
    price = f"~${cost:.4f}" if cost is not None else "no price known"
    lines.append(f"  tokens: {tokens_in} in / {tokens_out} out, {price}")
    for step in run.steps:
        state = "held" if step.holds else "refused"
        if step.nothing_to_do:
            state = f"nothing to {step.name}"
        lines.append(f"  {step.name}: {state}")
    if run.stopped:
        lines.append(f"  stopped: {run.stopped}")
        held = [s.name for s in run.steps if s.holds]
        following = {"red": "green", "green": "refactor"}.get(held[-1]) if held else None
        if following:
            lines.append(
                f"  resume: the committed steps stay on {branch}: merge them "
                f"({merge_command(branch)}), then `tddgit generate {following} --commit`"
            )
    if run.unavailable:
        lines.append(f"  {run.unavailable}: not available in this build (not run)")
    return lines


def approve(repo: Repo, user_branch: str, base: str, branch: str) -> Outcome:
    """Fast-forward ``user_branch`` to ``branch`` when nothing of the user's is in the way."""
    proc = repo.run("rev-parse", "-q", "--verify", f"refs/heads/{user_branch}", check=False)
    now = proc.stdout.decode().strip()
    if now != base:
        return Outcome(False, f"{user_branch} moved during the cycle ({base[:10]} → {now[:10]})")
    head = repo.run("symbolic-ref", "-q", "HEAD", check=False).stdout.decode().strip()
    if head != f"refs/heads/{user_branch}":
        return Outcome(False, f"the work tree is no longer on {user_branch}")
    changed = set(zsplit(repo.git("diff", "-z", "--name-only", base, branch)))
    status = zsplit(repo.git("status", "-z", "--porcelain", "--untracked-files=all"))
    dirty: set[str] = set()
    skip = False
    for entry in status:
        if skip:  # the source path of a rename
            dirty.add(entry)
            skip = False
            continue
        dirty.add(entry[3:])
        skip = entry[0] in "RC"
    clash = sorted(changed & dirty)
    if clash:
        shown = ", ".join(clash[:5]) + (" …" if len(clash) > 5 else "")
        return Outcome(False, f"your uncommitted changes touch files the cycle changed: {shown}")
    proc = repo.run("merge", "--ff-only", "--quiet", branch, env=clean_env(), check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return Outcome(False, f"git merge --ff-only failed: {err[0] if err else 'no message'}")
    return Outcome(True, f"{user_branch} fast-forwarded to {branch}")


def delete_branch(repo: Repo, branch: str) -> None:
    repo.run("branch", "-D", "--quiet", branch, check=False)


def notes_ref(repo: Repo) -> str | None:
    from tddgit.notes import NOTES_REF

    proc = repo.run("rev-parse", "-q", "--verify", NOTES_REF, check=False)
    return proc.stdout.decode().strip() or None


def discard(repo: Repo, branch: str, base: str, notes_before: str | None) -> None:
    """Abort: the branch deleted, and its commits' evidence notes with it; the notes ref
    goes back to where it was when nobody else wrote a note meanwhile."""
    from tddgit.notes import NOTES_REF

    commits = repo.git("rev-list", f"{base}..{branch}").split()
    if commits:
        repo.run("notes", f"--ref={NOTES_REF}", "remove", "--ignore-missing", *commits, check=False)
    now = notes_ref(repo)
    if now is not None and now != notes_before:
        empty_before = notes_before is None
        same = not empty_before and (
            repo.git("rev-parse", f"{now}^{{tree}}")
            == repo.git("rev-parse", f"{notes_before}^{{tree}}")
        )
        if empty_before and not repo.git("ls-tree", now).strip():
            repo.run("update-ref", "-d", NOTES_REF, now, check=False)
        elif same:
            repo.run("update-ref", NOTES_REF, notes_before or "", now, check=False)
    delete_branch(repo, branch)
