"""The `finish` tool's judge: stage what the model wrote and ask the phase's gate.

The gate, not the model, decides whether the step is done. A refusal goes back to the
model with every reason, test, cause, message and fix; its *signature* (a hash of those,
with run-specific details normalised away) is what stuck detection compares.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tddgit.agent.sandbox import redact
from tddgit.errors import UsageError
from tddgit.gates import FIXES, Reason, Verdict, run_gate

if TYPE_CHECKING:
    from tddgit.agent.bench import Bench

# Refusals a model cannot fix by editing files (a hanging or crashing suite): the run
# stops and says so.
FATAL_RULES = frozenset({"timeout"})
FATAL_CAUSES = frozenset({"timeout", "crash"})


@dataclass(frozen=True)
class Judgement:
    holds: bool
    feedback: str  # the tool_result text the model reads
    signature: str  # equal for the "same" refusal, across runs of the suite
    headline: str  # the refusal in one line, for "stuck: ..." and the progress line
    verdict: Verdict | None = None
    fatal: str | None = None  # why the run must stop (a hanging suite...)


def judge(bench: Bench, summary: str) -> Judgement:
    bench.workspace.stage()
    phase = bench.phase.name
    try:
        verdict = _gate(bench, phase)
    except UsageError as exc:
        if "nothing is staged" not in exc.message:
            raise
        text = "no file was written yet: write the tests first, then call finish"
        return Judgement(False, f"The {phase} gate cannot run: {text}.", _signature([text]), text)
    if verdict.holds:
        return Judgement(True, _held(verdict), "", f"{phase} holds", verdict)
    reasons = verdict.reasons
    fatal = next((r for r in reasons if r.rule in FATAL_RULES or r.cause in FATAL_CAUSES), None)
    headline = "; ".join(_one(r) for r in reasons[:3]) + (" …" if len(reasons) > 3 else "")
    return Judgement(
        False,
        _refused(verdict),
        _signature(_normalise(r) for r in reasons),
        headline,
        verdict,
        fatal=f"{fatal.rule}: {fatal.message}" if fatal else None,
    )


def _gate(bench: Bench, phase: str) -> Verdict:
    """The phase's gate on the staged change: in a repository of several projects, judged
    in every project the change touches (docs/monorepo.md), else with the run's settings."""
    from tddgit.project import repo_projects

    projects = repo_projects(bench.repo)
    if projects.multi:
        import dataclasses

        from tddgit.projects.gate import run_step

        # the run's own project keeps the run's settings (a cycle's worktree pins python)
        mine = tuple(
            dataclasses.replace(p, config=bench.config) if p.dir == bench.config.project else p
            for p in projects.all
        )
        return run_step(bench.repo, dataclasses.replace(projects, all=mine), phase)
    return run_gate(bench.repo, bench.config, phase)


def _one(r: Reason) -> str:
    return f"{r.rule}" + (f" ({r.test})" if r.test else "")


def _held(verdict: Verdict) -> str:
    lines = [f"The {verdict.phase} gate holds."]
    if verdict.evidence is not None:
        lines += [
            f"- {t.id}: {t.light.value} ({t.outcome.value})" for t in verdict.evidence.targets
        ]
    return "\n".join(lines)


def _refused(verdict: Verdict) -> str:
    lines = [f"The {verdict.phase} gate refused the step. Every reason, with its fix:"]
    for r in verdict.reasons:
        head = f"- {r.rule}"
        if r.test:
            head += f" [{r.test}]"
        if r.cause:
            head += f" (cause: {r.cause})"
        lines.append(f"{head}: {r.message}")
        if r.detail:
            lines.append(f"  detail: {r.detail[:1500]}")
        if r.rule in FIXES:
            lines.append(f"  fix: {FIXES[r.rule]}")
    if verdict.evidence is not None and verdict.evidence.targets:
        # a target a reason names already has its message (and detail) above: its light
        # alone here, so no failure is read twice
        named = {r.test for r in verdict.reasons if r.test}
        lines.append("Targets:")
        for t in verdict.evidence.targets:
            cause = f", {t.cause.value}" if t.cause else ""
            said = "" if t.id in named or not t.message else f" {t.message[:300]}"
            lines.append(f"- {t.id}: {t.light.value} ({t.outcome.value}{cause}){said}")
    return redact("\n".join(lines))


_VOLATILE = (
    (re.compile(r"\S*tddgit-\d+-[^\s/]*\S*"), "<tmp>"),  # the gate's snapshot directories
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    (re.compile(r"\d+(?:\.\d+)?"), "#"),
    (re.compile(r"\s+"), " "),
)


def _normalise(r: Reason) -> str:
    text = f"{r.message} {r.detail}"
    for pattern, repl in _VOLATILE:
        text = pattern.sub(repl, text)
    return json.dumps([r.rule, r.test, r.cause, text.strip()])


def _signature(parts: Iterable[str]) -> str:
    joined = "\n".join(sorted(parts))
    return hashlib.sha256(joined.encode()).hexdigest()[:16]
