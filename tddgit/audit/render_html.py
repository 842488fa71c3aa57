"""The audit as one self-contained HTML file: a red/green/refactor timeline beside findings.

The page is static HTML plus one JSON data block that ``assets/report.js`` turns into the
timeline, charts and the findings table. Everything is inline (CSS, JS, no fonts, no
images by URL) and a Content-Security-Policy with the hashes of our own style and script
blocks forbids anything else: the file fetches nothing, and even a mistake in escaping
could not run a script that came from a commit message.

Repository text reaches the page only as (a) ``html.escape``'d text in the static parts and
(b) JSON inside ``<script type="application/json">`` with ``<``, ``>`` and ``&`` written as
``\\u003c`` etc., so no string can close the script element; the JS sets it with
``textContent`` only.

Large histories stay fast: above ``DETAIL_LIMIT`` commits the timeline becomes per-day
(or week/month) stacked bars, and per-commit detail is kept only for a recent window and
for the commits of the findings shown (at most ``MAX_FINDINGS``, errors first).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from importlib import resources
from typing import IO, Any

from tddgit.audit.model import AuditReport, CommitRecord, EvidenceSummary, Finding
from tddgit.audit.tables import PROJECT_HEADER, project_rows, summary_rows, title
from tddgit.audit.tasks import TASK_HEADER, task_rows
from tddgit.console import plural

DETAIL_LIMIT = 3000  # up to this many commits, every commit is drawn
RECENT = 500  # above it: the most recent commits still drawn one by one
MAX_FINDINGS = 2000  # findings in the table (and their commits' detail)
MAX_FILES = 40  # files listed per commit
MAX_TARGETS = 20  # evidence targets listed per commit
MAX_AUTHORS = 50
MAX_BUCKETS = 400
_SEVERITY_ORDER = {"error": 0, "warning": 1, "note": 2}
# Upper bounds (seconds) of the time-in-red histogram bins, with their labels.
_RED_BINS = (
    (120, "< 2 min"),
    (600, "2–10 min"),
    (1800, "10–30 min"),
    (7200, "30 min–2 h"),
    (28800, "2–8 h"),
    (86400, "8–24 h"),
    (None, "> 1 day"),
)


def write_html(report: AuditReport, stream: IO[str]) -> None:
    css = _asset("report.css")
    js = _asset("report.js")
    data = _script_json(payload(report))
    name = _text(title(report))
    csp = (
        "default-src 'none'; img-src data:; "
        f"style-src '{_sha256(css)}'; script-src '{_sha256(js)}'; "
        "base-uri 'none'; form-action 'none'"
    )
    stream.write(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n'
        f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="tddgit {_text(report.tool_version)}">\n'
        f"<title>{name}</title>\n<style>{css}</style>\n</head>\n<body>\n"
    )
    stream.write(_static_body(report, name))
    stream.write(f'<script type="application/json" id="tddgit-data">{data}</script>\n')
    stream.write(f"<script>{js}</script>\n</body>\n</html>\n")


def _static_body(report: AuditReport, name: str) -> str:
    """What the page shows before (and without) its script: header, notes, summary."""
    m = report.metrics
    notes = "".join(f'<li class="note">{_text(n)}</li>' for n in report.notes)
    rows = "".join(f"<tr><th>{_text(k)}</th><td>{_text(v)}</td></tr>" for k, v in summary_rows(m))
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f'<header><h1>{name}</h1><p class="sub">{plural(len(report.commits), "commit")} · '
        f"{plural(len(report.findings), 'finding')} · conformance "
        f"{_text('–' if m.get('conformance') is None else str(m['conformance']))} · "
        f"tddgit {_text(report.tool_version)} · {generated}</p>"
        f'<ul class="notes">{notes}</ul></header>\n'
        "<noscript><p>The timeline, charts and findings table need JavaScript; "
        "the summary below does not.</p></noscript>\n<main>\n"
        '<section id="timeline" aria-labelledby="h-tl"><h2 id="h-tl">Timeline</h2>'
        '<div id="legend" class="legend"></div><div class="tl-wrap"><div id="tl"></div>'
        '<aside id="detail" aria-live="polite"><p class="hint">Point at or click a commit '
        "to see its subject, author, files, evidence and findings.</p></aside></div></section>\n"
        '<section id="metrics" aria-labelledby="h-m"><h2 id="h-m">Metrics</h2>'
        f'<details><summary>All metrics as a table</summary><table class="summary">{rows}</table>'
        '</details><div id="charts"></div>'
        f'{_projects_table(m)}<h3>Per author</h3><div id="authors"></div></section>\n'
        f"{_tasks_section(report)}"
        '<section id="findings" aria-labelledby="h-f"><h2 id="h-f">Findings</h2>'
        '<div id="ffilters"></div><div id="ftable"></div></section>\n</main>\n'
    )


def _projects_table(m: Any) -> str:
    """Each project's figures in a repository of several, as a static table."""
    rows = project_rows(m)
    if not rows:
        return ""
    head = "".join(f"<th>{_text(h)}</th>" for h in PROJECT_HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{_text(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return (
        f'<h3>Per project</h3><table class="summary" id="projects"><thead><tr>{head}</tr>'
        f"</thead><tbody>{body}</tbody></table>"
    )


def _tasks_section(report: AuditReport) -> str:
    """The cycles per plan task, as a static table (no script needed); empty without
    ``GSD-Task`` trailers."""
    rows = task_rows(report.cycles)
    if not rows:
        return ""
    head = "".join(f"<th>{_text(h)}</th>" for h in TASK_HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{_text(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return (
        '<section id="tasks" aria-labelledby="h-t"><h2 id="h-t">Cycles per task</h2>'
        f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        "</section>\n"
    )


# --- the data the script renders -----------------------------------------------------


def payload(report: AuditReport) -> dict[str, Any]:
    """Everything ``report.js`` needs, bounded in size whatever the history's length."""
    commits = report.commits
    shown_findings = _chosen_findings(report.findings)
    dense = len(commits) > DETAIL_LIMIT
    detail = _detail_indexes(commits, shown_findings, dense)
    authors: dict[tuple[str, str], int] = {}
    index_of = {commits[i].sha: n for n, i in enumerate(detail)}
    by_commit: dict[str, list[int]] = {}
    for n, f in enumerate(shown_findings):
        by_commit.setdefault(f.commit, []).append(n)
    cycles = {c.id: c for c in report.cycles}
    used_cycles: set[int] = set()
    rows = []
    for i in detail:
        c = commits[i]
        if c.cycle is not None:
            used_cycles.add(c.cycle)
        rows.append(_commit_row(c, authors, by_commit.get(c.sha, ())))
    metrics = dict(report.metrics)
    all_authors = metrics.get("authors", [])
    metrics["authors"] = all_authors[:MAX_AUTHORS]
    return {
        "title": title(report),
        "notes": list(report.notes),
        "version": report.tool_version,
        "dense": dense,
        "total": {
            "commits": len(commits),
            "findings": len(report.findings),
            "authors": len(all_authors),
        },
        "recent": RECENT if dense else len(commits),
        "authors": [list(a) for a in authors],
        "commits": rows,
        "strip": _strip(commits, detail, dense),
        "findings": [_finding_row(f, index_of) for f in shown_findings],
        "cycles": {
            str(k): [cycles[k].status, cycles[k].time_in_red]
            for k in sorted(used_cycles)
            if k in cycles
        },
        "buckets": _buckets(commits, report.findings) if dense else None,
        "red_hist": _red_histogram(c.time_in_red for c in report.cycles),
        "metrics": metrics,
    }


def _chosen_findings(findings: Sequence[Finding]) -> list[Finding]:
    """All findings, or the ``MAX_FINDINGS`` that matter most (errors first, then the most
    recent), kept in history order."""
    if len(findings) <= MAX_FINDINGS:
        return list(findings)
    ranked = sorted(
        range(len(findings)),
        key=lambda i: (_SEVERITY_ORDER.get(findings[i].severity, 3), -i),
    )
    return [findings[i] for i in sorted(ranked[:MAX_FINDINGS])]


def _detail_indexes(
    commits: Sequence[CommitRecord], findings: Sequence[Finding], dense: bool
) -> list[int]:
    if not dense:
        return list(range(len(commits)))
    flagged = {f.commit for f in findings}
    start = len(commits) - RECENT
    return [i for i, c in enumerate(commits) if i >= start or c.sha in flagged]


def _strip(commits: Sequence[CommitRecord], detail: Sequence[int], dense: bool) -> int:
    """Index into the detail rows where the drawn strip of single commits starts."""
    if not dense:
        return 0
    start = len(commits) - RECENT
    return next((n for n, i in enumerate(detail) if i >= start), len(detail))


def phase_code(c: CommitRecord) -> str:
    """r / g / f (refactor) / o (other: merges and attempts) / n (no phase)."""
    if not c.is_step:
        return "o"
    return {"red": "r", "green": "g", "refactor": "f"}.get(c.phase or "", "n")


def _commit_row(
    c: CommitRecord, authors: dict[tuple[str, str], int], findings: Iterable[int]
) -> dict[str, Any]:
    author = authors.setdefault((c.author_name, c.author_email), len(authors))
    files = [[f.status, f.path, k] for f, k in zip(c.files[:MAX_FILES], c.file_kinds, strict=False)]
    row: dict[str, Any] = {
        "s": c.sha,
        "p": phase_code(c),
        "m": c.subject,
        "a": author,
        "t": c.time,
        "k": c.kind,
        "src": c.phase_source,
        "f": files,
    }
    optional = {
        "ph": c.phase,
        "r": c.rule,
        "at": c.attempt,
        "c": c.cycle,
        "nf": len(c.files) if len(c.files) > MAX_FILES else None,
        "mg": len(c.parents) if c.is_merge else None,
        "e": _evidence(c.evidence) if c.evidence is not None else None,
        "x": list(findings) or None,
    }
    row.update({k: v for k, v in optional.items() if v is not None})
    return row


def _evidence(ev: EvidenceSummary) -> dict[str, Any]:
    out = ev.to_json()
    if ev.valid:
        out["targets"] = out["targets"][:MAX_TARGETS]
        out["more"] = max(0, len(ev.targets) - MAX_TARGETS)
        out.pop("tree", None)
    return out


def _finding_row(f: Finding, index_of: dict[str, int]) -> list[Any]:
    return [f.rule, f.severity, index_of.get(f.commit, -1), f.commit, f.message, list(f.files)]


# --- aggregates for dense histories --------------------------------------------------


def _bucket_key(t: int, unit: str) -> int:
    d = datetime.fromtimestamp(t, timezone.utc)
    if unit == "day":
        return t - t % 86400
    if unit == "week":  # weeks start on Monday
        day = t - t % 86400
        return day - d.weekday() * 86400
    if unit == "month":
        return int(datetime(d.year, d.month, 1, tzinfo=timezone.utc).timestamp())
    return int(datetime(d.year, 1, 1, tzinfo=timezone.utc).timestamp())


def _unit(first: int, last: int) -> str:
    span = max(0, last - first)
    for unit, seconds in (("day", 86400), ("week", 604800), ("month", 2_629_746)):
        if span / seconds < MAX_BUCKETS:
            return unit
    return "year"


def _buckets(commits: Sequence[CommitRecord], findings: Sequence[Finding]) -> dict[str, Any]:
    """Phase counts and finding counts per day, week, month or year (whichever keeps the
    bars under ``MAX_BUCKETS``); only non-empty buckets are listed."""
    times = sorted(c.time for c in commits)
    # Clock skew puts a few commits in 1970 or far ahead; the outer 0.1% do not choose
    # the scale (they still count, in the first or last bucket).
    cut = len(times) // 1000
    lo, hi = times[cut], times[-1 - cut]
    unit = _unit(lo, hi)
    when = {}
    counts: dict[int, list[int]] = {}
    slot = {"r": 0, "g": 1, "f": 2, "o": 3, "n": 4}
    for c in commits:
        key = _bucket_key(min(max(c.time, lo), hi), unit)
        when[c.sha] = key
        row = counts.setdefault(key, [0, 0, 0, 0, 0, 0, 0])
        row[slot[phase_code(c)]] += 1
    for f in findings:
        key_f = when.get(f.commit)
        if key_f is not None:
            counts[key_f][5] += 1
            if f.severity == "error":
                counts[key_f][6] += 1
    keys = sorted(counts)
    return {"unit": unit, "start": keys, "counts": [counts[k] for k in keys]}


def _red_histogram(values: Iterable[int | None]) -> list[list[Any]]:
    bins = Counter[int]()
    for v in values:
        if v is None:
            continue
        for n, (upper, _label) in enumerate(_RED_BINS):
            if upper is None or v < upper:
                bins[n] += 1
                break
    return [[label, bins[n]] for n, (_u, label) in enumerate(_RED_BINS)]


# --- escaping and assets -------------------------------------------------------------


def _clean(value: str) -> str:
    """Lone surrogates (undecodable bytes from git) become U+FFFD: the page is UTF-8."""
    return value.encode("utf-8", "replace").decode("utf-8")


def _text(value: str) -> str:
    return html.escape(_clean(value), quote=True)


def _script_json(data: Any) -> str:
    """JSON that cannot end its ``<script>`` element or open a comment inside it."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _asset(name: str) -> str:
    return (resources.files("tddgit.audit") / "assets" / name).read_text(encoding="utf-8")
