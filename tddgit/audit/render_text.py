"""The audit as terminal tables (rich); colour only on a TTY, ``NO_COLOR`` honoured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from tddgit.audit.model import AuditReport
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
    from rich.table import Table

SHOWN_FINDINGS = 100
RECENT_COMMITS = 15
_PHASE_STYLE = {"red": "bold red", "green": "bold green", "refactor": "bold blue"}
_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "note": "cyan"}


def preload() -> None:
    """Import rich's console and tables in a thread while the audit's pass runs: a pass
    that waits for git's stream (the compiled one) leaves the interpreter idle, and the
    import (~20 ms) is then not on the way to the report; the pure pass loses nothing
    (the same work, done earlier)."""
    import threading

    def load() -> None:
        import rich.console
        import rich.table
        import rich.text  # noqa: F401

    threading.Thread(target=load, name="tddgit-rich", daemon=True).start()


def write_text(report: AuditReport, stream: IO[str]) -> None:
    # Cells are rich Text, never markup strings: a history's tables hold ~1,500 cells,
    # and parsing each as markup (then for emoji codes) was a sixth of the rendering.
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from tddgit.console import colour_enabled

    colour = colour_enabled(stream)
    console = Console(
        file=stream,
        force_terminal=colour,
        no_color=not colour,
        width=None if colour else 110,
        highlight=False,
        soft_wrap=False,
    )
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

    recent = [c for c in report.commits if not c.is_merge][-RECENT_COMMITS:]
    if recent:
        table = Table(title="Recent commits", title_justify="left")
        for col in ("commit", "phase", "source", "kind", "subject"):
            table.add_column(col, overflow="fold" if col == "subject" else "ellipsis")
        for c in recent:
            phase = c.phase or (c.attempt or "–")
            table.add_row(
                Text(c.sha[:10]),
                Text(phase, style=_PHASE_STYLE.get(c.phase or "", "dim")),
                Text(c.phase_source),
                Text(c.kind),
                Text(c.subject),
            )
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
        table = Table(
            title=f"Findings ({len(report.findings)}, newest first)", title_justify="left"
        )
        for col in FINDING_HEADER:
            table.add_column(col, overflow="fold" if col == "message" else "ellipsis")
        for sev, rule, sha, basis, msg in finding_rows(report, SHOWN_FINDINGS, newest_first=True):
            style = _SEVERITY_STYLE.get(sev, "")
            table.add_row(Text(sev, style=style), Text(rule), Text(sha), Text(basis), Text(msg))
        console.print(table)
        hidden = len(report.findings) - SHOWN_FINDINGS
        if hidden > 0:
            console.print(f"… and {plural(hidden, 'more finding')} (use --format json for all)")
    else:
        console.print("[green]No findings.[/green]")


def _people(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left")
    for col in header:
        table.add_column(col)
    for row in rows:
        table.add_row(*map(Text, row))
    return table
