"""Rendering an audit: the format names, and the ``tddgit.audit/1`` JSON document.

JSON is written piece by piece (one ``json.dumps`` per commit) so a 100k-commit report
never exists twice in memory. Other formats live in ``render_*`` modules, imported only
when chosen (rich is never imported for JSON).
"""

from __future__ import annotations

import json
from typing import IO, Any

from tddgit.audit.model import SCHEMA, AuditReport

# The CLI offers exactly these.
FORMATS = ("text", "json", "markdown", "sarif", "html")


def render(report: AuditReport, fmt: str, stream: IO[str]) -> None:
    if fmt == "json":
        write_json(report, stream)
    elif fmt == "text":
        from tddgit.audit.render_text import write_text

        write_text(report, stream)
    elif fmt == "markdown":
        from tddgit.audit.render_markdown import write_markdown

        write_markdown(report, stream)
    elif fmt == "sarif":
        from tddgit.audit.render_sarif import sarif_document

        stream.write(json.dumps(sarif_document(report), indent=2, ensure_ascii=False) + "\n")
    elif fmt == "html":
        from tddgit.audit.render_html import write_html

        write_html(report, stream)
    else:  # the CLI's Choice keeps this unreachable
        raise ValueError(f"unknown format {fmt!r}")


def write_json(report: AuditReport, stream: IO[str]) -> None:
    """The whole document; one item of each array per line, compact within a line."""
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    head = {
        "schema": SCHEMA,
        "tool": {"name": "tddgit", "version": report.tool_version},
        "range": report.range.to_json(),
        "notes": list(report.notes),
        "metrics": report.metrics,
    }
    stream.write("{")
    sep = "\n"
    for key, value in head.items():
        stream.write(f"{sep}{dumps(key)}: {dumps(value)}")
        sep = ",\n"
    arrays = (
        ("findings", report.findings),
        ("cycles", report.cycles),
        ("episodes", report.episodes),
        ("commits", report.commits),
    )
    for key, items in arrays:
        stream.write(f",\n{dumps(key)}: [")
        item_sep = "\n  "
        for item in items:
            stream.write(item_sep + dumps(item.to_json()))
            item_sep = ",\n  "
        stream.write("\n]" if items else "]")
    stream.write("\n}\n")


# --- tables shared by the text and markdown renderers ---------------------------------


def _num(value: Any, suffix: str = "") -> str:
    return "–" if value is None else f"{value}{suffix}"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.1f}min"
    return f"{seconds / 3600:.1f}h"


def summary_rows(m: dict[str, Any] | Any) -> list[tuple[str, str]]:
    ph, cy, ep, pr, tr = m["phases"], m["cycles"], m["episodes"], m["process"], m["time_in_red"]
    return [
        ("conformance", _num(m["conformance"], "/100")),
        ("commits", f"{m['commits']} ({m['code_commits']} change code, {m['merges']} merges)"),
        (
            "phases",
            f"red {ph['red']} · green {ph['green']} · refactor {ph['refactor']} · "
            f"none {ph['none']}",
        ),
        ("phase sources", " · ".join(f"{k} {v}" for k, v in m["phase_sources"].items())),
        ("trailer coverage", _num(m["trailer_coverage"], "%")),
        ("evidence coverage", _num(m["evidence_coverage"], "%")),
        (
            "cycles",
            f"{cy['total']}: complete {cy['complete']} · open {cy['open']} · broken {cy['broken']}",
        ),
        ("time in red (median)", _duration(tr["median_seconds"])),
        (
            "episodes",
            f"{ep['total']}: " + " · ".join(f"{k} {ep[k]}" for k in ep if k != "total" and ep[k]),
        ),
        (
            "SEQ / GRA / UNI / REF",
            f"{_num(pr['seq'], '%')} / {_num(pr['gra'], 'min')} / {_num(pr['uni'], 'min')} / "
            f"{_num(pr['ref'], '%')}",
        ),
    ]


AUTHOR_HEADER = ("author", "commits", "trailers", "cycles done", "SEQ", "conformance")


def author_rows(m: Any) -> list[tuple[str, ...]]:
    return [
        (
            f"{a['name']} <{a['email']}>",
            str(a["commits"]),
            _num(a["trailer_coverage"], "%"),
            f"{a['cycles']['complete']}/{a['cycles']['total']}",
            _num(a["process"]["seq"], "%"),
            _num(a["conformance"]),
        )
        for a in m["authors"]
    ]


FINDING_HEADER = ("severity", "rule", "commit", "message")


def finding_rows(report: AuditReport, limit: int | None = None) -> list[tuple[str, ...]]:
    shown = report.findings if limit is None else report.findings[:limit]
    return [(f.severity, f.rule, f.commit[:10], f.message) for f in shown]


def title(report: AuditReport) -> str:
    revs = " ".join(report.range.revs)
    extra = " ".join(
        f"--{k}={v}" for k, v in (("since", report.range.since), ("until", report.range.until)) if v
    )
    paths = f" -- {' '.join(report.range.paths)}" if report.range.paths else ""
    return f"tddgit audit of {revs}{' ' + extra if extra else ''}{paths}"
