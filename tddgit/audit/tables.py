"""The report's tables, shared by the text, markdown and HTML renderers: the summary rows,
the authors', agents' and projects' rows, the rules and the findings, with one way to
write a number, a duration and a title in every format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tddgit.audit.model import AuditReport, Finding


def _num(value: Any, suffix: str = "") -> str:
    return "–" if value is None else f"{value}{suffix}"


def _duration(seconds: float | None) -> str:
    """Like ``dur`` in ``assets/report.js`` (the HTML report): the same units, the same
    rounding (half up), so every format shows one value."""
    if seconds is None:
        return "–"
    if seconds < 120:
        return f"{_half_up(seconds, 0)} s"
    for unit, size, below in (("min", 60, 7200), ("h", 3600, 172800), ("d", 86400, None)):
        if below is None or seconds < below:
            return f"{_half_up(seconds / size, 1)} {unit}"
    raise AssertionError("unreachable")


def _half_up(value: float, places: int) -> str:
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _commits(m: dict[str, Any] | Any) -> str:
    """A headline that adds up: every commit, then what it is made of."""
    boundary = m.get("boundary") or 0
    line = (
        f"{m['commits'] + m['merges'] + boundary} in all = {m['commits']} non-merge "
        f"({m['code_commits']} change code) + {m['merges']} merges"
    )
    if boundary:  # `git clone --depth N`: where the history is cut, not a merge
        line += f" + {boundary} at a shallow clone's boundary, not judged"
    return line


def summary_rows(m: dict[str, Any] | Any) -> list[tuple[str, str]]:
    ph, cy, ep, pr, tr = m["phases"], m["cycles"], m["episodes"], m["process"], m["time_in_red"]
    return [
        ("conformance", _num(m["conformance"], "/100")),
        ("commits", _commits(m)),
        (
            "phases",
            f"red {ph['red']} · green {ph['green']} · refactor {ph['refactor']} · "
            f"none {ph['none']}",
        ),
        ("phases known by", _basis(m.get("phase_basis"))),
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


def _basis(b: dict[str, int] | None) -> str:
    """``3 proven (10%) · 20 declared (67%) · 7 inferred (23%)``: how far to trust them."""
    if not b:
        return "–"
    total = sum(b.values())
    return " · ".join(
        f"{b[k]} {k}" + (f" ({_half_up(100 * b[k] / total, 0)}%)" if total else "")
        for k in ("proven", "declared", "inferred")
    )


AUTHOR_HEADER = ("author", "commits", "trailers", "cycles done", "SEQ", "conformance")


_BOT = re.compile(r"\[bot\]|\bbots?\b|dependabot|renovate|github-actions|pre-commit-ci", re.I)
SHOWN_AUTHORS = 20


def is_bot(name: str, email: str) -> bool:
    return bool(_BOT.search(name) or _BOT.search(email))


def author_rows(m: Any, limit: int | None = None) -> list[tuple[str, ...]]:
    """People first, most commits first; bots on one line; ``limit`` rows at most, then
    ``and N more``."""
    people = sorted(
        (a for a in m["authors"] if not is_bot(a["name"], a["email"])),
        key=lambda a: -a["commits"],
    )
    rows = [_row(f"{a['name']} <{a['email']}>", a) for a in people]
    if limit is not None and len(rows) > limit:
        rest = rows[limit:]
        rows = rows[:limit]
        more = sum(int(r[1]) for r in rest)
        rows.append((f"and {len(rest)} more", str(more), "", "", "", ""))
    bots = [a for a in m["authors"] if is_bot(a["name"], a["email"])]
    if bots:
        names = ", ".join(sorted(a["name"] for a in bots)[:3]) + (", …" if len(bots) > 3 else "")
        rows.append((f"bots ({len(bots)}: {names})", str(sum(a["commits"] for a in bots))))
        rows[-1] += ("",) * (len(AUTHOR_HEADER) - 2)
    return rows


def rule_rows(m: Any) -> list[tuple[str, str]]:
    """(rule, findings) most first: what to look at first."""
    counts = m.get("findings") or {}
    return [(r, str(n)) for r, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])) if n]


AGENT_HEADER = ("agent", "commits", "trailers", "cycles done", "SEQ", "conformance")


def agent_rows(m: Any) -> list[tuple[str, ...]]:
    """The authors' columns, one row per model that made steps (`GSD-Agent` trailer)."""
    return [_row(a["agent"], a) for a in m.get("agents", ())]


PROJECT_HEADER = ("project", "commits", "trailers", "cycles done", "SEQ", "conformance")


def project_rows(m: Any) -> list[tuple[str, ...]]:
    """The authors' columns, one row per project of a repository of several."""
    return [_row(p["project"], p) for p in m.get("projects", ())]


def _row(who: str, a: Any) -> tuple[str, ...]:
    return (
        who,
        str(a["commits"]),
        _num(a["trailer_coverage"], "%"),
        f"{a['cycles']['complete']}/{a['cycles']['total']}",
        _num(a["process"]["seq"], "%"),
        _num(a["conformance"]),
    )


FINDING_HEADER = ("severity", "rule", "commit", "basis", "message")


def finding_rows(
    findings: Sequence[Finding], limit: int | None = None, *, newest_first: bool = False
) -> list[tuple[str, ...]]:
    found = findings[::-1] if newest_first else findings
    shown = found if limit is None else found[:limit]
    return [(f.severity, f.rule, f.commit[:10], f.basis or "-", f.message) for f in shown]


def title(report: AuditReport) -> str:
    revs = " ".join(report.range.revs)
    extra = " ".join(
        f"--{k}={v}"
        for k, v in (
            ("since", report.range.since),
            ("until", report.range.until),
            ("author", report.range.author),
        )
        if v
    )
    paths = f" -- {' '.join(report.range.paths)}" if report.range.paths else ""
    return f"tddgit audit of {revs}{' ' + extra if extra else ''}{paths}"
