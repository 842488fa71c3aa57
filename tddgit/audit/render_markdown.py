"""The audit as GitHub-flavoured Markdown (for PR comments and job summaries)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from tddgit.audit.model import AuditReport
from tddgit.audit.tables import (
    AGENT_HEADER,
    AUTHOR_HEADER,
    FINDING_HEADER,
    PROJECT_HEADER,
    agent_rows,
    author_rows,
    finding_rows,
    project_rows,
    summary_rows,
    title,
)
from tddgit.audit.tasks import TASK_HEADER, task_rows

SHOWN_FINDINGS = 200


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def write_markdown(report: AuditReport, stream: IO[str]) -> None:
    m = report.metrics
    lines = [f"# {_cell(title(report))}", ""]
    lines += [f"> **Note:** {_cell(n)}" for n in report.notes]
    if report.notes:
        lines.append("")
    lines += ["## Summary", ""]
    lines += _table(("metric", "value"), summary_rows(m))
    tasks = task_rows(report.cycles)
    if tasks:
        lines += ["", "## Cycles per task", ""]
        lines += _table(TASK_HEADER, tasks)
    if m.get("projects"):
        lines += ["", "## Projects", ""]
        lines += _table(PROJECT_HEADER, project_rows(m))
    if m["authors"]:
        lines += ["", "## Authors", ""]
        lines += _table(AUTHOR_HEADER, author_rows(m))
    if m.get("agents"):
        lines += ["", "## Agents", ""]
        lines += _table(AGENT_HEADER, agent_rows(m))
    lines += ["", f"## Findings ({len(report.findings)})", ""]
    if report.findings:
        rows = [
            (sev, f"`{rule}`", f"`{sha}`", basis, msg)
            for sev, rule, sha, basis, msg in finding_rows(report.findings, SHOWN_FINDINGS)
        ]
        lines += _table(FINDING_HEADER, rows)
        hidden = len(report.findings) - SHOWN_FINDINGS
        if hidden > 0:
            lines += ["", f"… and {hidden} more (use `--format json` for all)."]
    else:
        lines.append("No findings.")
    stream.write("\n".join(lines) + "\n")
