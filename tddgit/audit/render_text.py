"""The audit as terminal tables (rich); colour only on a TTY, ``NO_COLOR`` honoured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from tddgit.audit.model import AuditReport, CommitRecord, Finding
from tddgit.audit.tables import (
    AGENT_HEADER,
    AUTHOR_HEADER,
    FINDING_HEADER,
    PROJECT_HEADER,
    SHOWN_AUTHORS,
    agent_rows,
    author_rows,
    finding_rows,
    project_rows,
    rule_rows,
    summary_rows,
    title,
)
from tddgit.audit.tasks import TASK_HEADER, task_rows
from tddgit.console import plural

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

SHOWN_FINDINGS = 100
RECENT_COMMITS = 15
_PHASE_STYLE = {"red": "bold red", "green": "bold green", "refactor": "bold blue"}
_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "note": "cyan"}


def write_text(report: AuditReport, stream: IO[str]) -> None:
    # Cells are rich Text, never markup strings: a history's tables hold ~1,500 cells,
    # and parsing each as markup (then for emoji codes) was a sixth of the rendering.
    from rich.table import Table
    from rich.text import Text

    from tddgit.audit.textparts import taken

    console = make_console(stream)
    # the two long tables, when a child rendered them while the metrics were computed
    parts = taken(report.commits, report.findings)
    console.print(f"[bold]{title(report)}[/bold]")
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {note}", markup=True)
    m = report.metrics
    summary = Table(show_header=False, box=None, pad_edge=False)
    summary.add_column(style="bold")
    summary.add_column()
    for k, v in summary_rows(m):
        summary.add_row(Text(k), Text(v))
    console.print(summary)

    if parts is not None:
        stream.write(parts[0])
    else:
        table = recent_table(report.commits)
        if table is not None:
            console.print(table)

    tasks = task_rows(report.cycles)
    if tasks:
        table = Table(title="Cycles per task (GSD-Task)", title_justify="left")
        for col in TASK_HEADER:
            table.add_column(col, overflow="fold")
        for row in tasks:
            table.add_row(*map(Text, row))
        console.print(table)

    if m.get("projects"):
        console.print(_people("Projects", PROJECT_HEADER, project_rows(m)))
    if len(m["authors"]) > 1:
        console.print(_people("Authors", AUTHOR_HEADER, author_rows(m, SHOWN_AUTHORS)))
    if m.get("agents"):
        console.print(_people("Agents (GSD-Agent)", AGENT_HEADER, agent_rows(m)))

    if report.findings:
        console.print(_people("Findings by rule", ("rule", "findings"), rule_rows(m)))
        if parts is not None:
            stream.write(parts[1])
        else:
            console.print(findings_table(report.findings))
        hidden = len(report.findings) - SHOWN_FINDINGS
        if hidden > 0:
            console.print(f"… and {plural(hidden, 'more finding')} (use --format json for all)")
    else:
        console.print("[green]No findings.[/green]")


def make_console(stream: IO[str], width: int | None = None) -> Console:
    """The console the report is printed on: colour only on a terminal (``NO_COLOR``
    honoured), 110 columns elsewhere; ``width``: that of another console, for a child
    that renders part of the report into a string (``tddgit.audit.textparts``)."""
    from rich.console import Console

    from tddgit.console import colour_enabled

    colour = colour_enabled(stream)
    return Console(
        file=stream,
        force_terminal=colour,
        no_color=not colour,
        width=width if width is not None else None if colour else 110,
        highlight=False,
        soft_wrap=False,
    )


def recent_table(commits: Sequence[CommitRecord]) -> Table | None:
    """The last commits that are not merges, oldest first (None: there is none)."""
    from rich.table import Table
    from rich.text import Text

    recent: list[CommitRecord] = []
    for c in reversed(commits):  # from the end: a history has thousands of commits
        if not c.is_merge:
            recent.append(c)
            if len(recent) == RECENT_COMMITS:
                break
    if not recent:
        return None
    table = Table(title="Recent commits", title_justify="left")
    for col in ("commit", "phase", "source", "kind", "subject"):
        table.add_column(col, overflow="fold" if col == "subject" else "ellipsis")
    for c in reversed(recent):
        phase = c.phase or (c.attempt or "–")
        table.add_row(
            Text(c.sha[:10]),
            Text(phase, style=_PHASE_STYLE.get(c.phase or "", "dim")),
            Text(c.phase_source),
            Text(c.kind),
            Text(c.subject),
        )
    return table


def findings_table(findings: Sequence[Finding]) -> Table:
    """The newest ``SHOWN_FINDINGS`` findings, newest first."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Findings ({len(findings)}, newest first)", title_justify="left")
    for col in FINDING_HEADER:
        table.add_column(col, overflow="fold" if col == "message" else "ellipsis")
    for sev, rule, sha, basis, msg in finding_rows(findings, SHOWN_FINDINGS, newest_first=True):
        style = _SEVERITY_STYLE.get(sev, "")
        table.add_row(Text(sev, style=style), Text(rule), Text(sha), Text(basis), Text(msg))
    return table


def _people(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left")
    for col in header:
        table.add_column(col)
    for row in rows:
        table.add_row(*map(Text, row))
    return table
