"""Rendering an audit: the format names, and the ``tddgit.audit/1`` JSON document.

JSON is written in chunks of a few thousand lines, so a 100k-commit report never exists
twice in memory. Other formats live in ``render_*`` modules, imported only
when chosen (rich is never imported for JSON).
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring as _str
from typing import IO, Any

from tddgit.audit.model import SCHEMA, AuditReport, CommitRecord, Cycle, Episode, Finding
from tddgit.audit.prerender import copy_into as prerendered
from tddgit.audit.spool import ready_for
from tddgit.audit.tasks import task_groups
from tddgit.model import FileChange

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
    """The whole document; one item of each array per line, compact within a line.

    The arrays hold one item per commit, cycle, episode and finding of the whole history
    (hundreds of thousands), so their lines are built directly as text, byte for byte
    what ``json.dumps(item.to_json(), separators=(",", ":"), ensure_ascii=False)`` gives,
    and written in large chunks (``tests/audit/test_detector_rules.py`` checks the equivalence).
    """
    was_enabled = gc.isenabled()
    gc.disable()  # nothing here makes reference cycles; a full collection would rescan all
    try:
        _write_json(report, stream)
    finally:
        if was_enabled:
            gc.enable()


def _write_json(report: AuditReport, stream: IO[str]) -> None:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    head = {
        "schema": SCHEMA,
        "tool": {"name": "tddgit", "version": report.tool_version},
        "range": report.range.to_json(),
        "notes": list(report.notes),
        "metrics": report.metrics,
        "tasks": [g.to_json() for g in task_groups(report.cycles)],
    }
    stream.write("{")
    sep = "\n"
    for key, value in head.items():
        stream.write(f"{sep}{dumps(key)}: {dumps(value)}")
        sep = ",\n"
    lines = _Lines(dumps)
    arrays: tuple[tuple[str, Sequence[Any], Callable[[Any], str]], ...] = (
        ("findings", report.findings, lines.finding),
        ("cycles", report.cycles, lines.cycle),
        ("episodes", report.episodes, lines.episode),
        ("commits", report.commits, lines.commit),
    )
    i = 0
    while i < len(arrays):
        done = prerendered([(k, v) for k, v, _ in arrays[i:]], stream)  # by a child
        if done:
            i += done
            continue
        key, items, line = arrays[i]
        stream.write(f",\n{dumps(key)}: [")
        spool = ready_for(items, stream) if key == "commits" else None
        if spool is not None:  # encoded during the pass
            spool.write_items(stream)
            spool.discard()
        else:
            for start in range(0, len(items), _BATCH):
                batch = items[start : start + _BATCH]
                lead = "\n  " if start == 0 else ",\n  "
                stream.write(lead + ",\n  ".join([line(item) for item in batch]))
        stream.write("\n]" if items else "]")
        i += 1
    stream.write("\n}\n")


def commit_line() -> Callable[[CommitRecord], str]:
    """The ``commits`` array's line of a record, as ``write_json`` writes it."""
    return _Lines(json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode).commit


_BATCH = 4096  # items per write


class _Encoded(dict[Any, str]):
    """JSON text of values that repeat (phases, kinds, paths, authors), made once each."""

    def __missing__(self, key: Any) -> str:
        if key is None:
            out = "null"
        elif isinstance(key, tuple):  # an author: (name, email)
            out = f'{{"name":{_str(key[0])},"email":{_str(key[1])}}}'
        else:
            out = _str(key)
        self[key] = out
        return out


class _Lines:
    """One JSON line per record (the shapes of the records' ``to_json``), built as text."""

    def __init__(self, dumps: Callable[[Any], str]) -> None:
        self.dumps = dumps
        self.enc = _Encoded()
        self._files: dict[tuple[int, str], str] = {}
        self._middles: dict[tuple[str | None, str, str | None, str, str | None, bool], str] = {}
        self._keep: list[FileChange] = []  # what the ids above name, alive until the end
        self._findings: dict[tuple[Any, ...], tuple[str, str]] = {}

    def _file(self, f: FileChange, kind: str) -> str:
        w = self.enc
        out = self._files[id(f), kind] = (
            f'{{"status":{w[f.status]},"path":{w[f.path]},"old_path":{w[f.old_path]},'
            f'"kind":{w[kind]}}}'
        )
        self._keep.append(f)
        return out

    def commit(self, c: CommitRecord) -> str:
        w = self.enc
        files = c.files
        if files:
            # The reader shares one FileChange per (status, path) across the history and
            # the records keep them alive while this runs, so id() names them.
            seen = self._files
            kinds = c.file_kinds
            if len(files) == 1:
                text = seen.get((id(files[0]), kinds[0])) or self._file(files[0], kinds[0])
            else:
                text = ",".join(
                    [
                        seen.get((id(f), k)) or self._file(f, k)
                        for f, k in zip(files, kinds, strict=False)
                    ]
                )
        else:
            text = ""
        evidence = "null" if c.evidence is None else self.dumps(c.evidence.to_json())
        cycle = "null" if c.cycle is None else int.__repr__(c.cycle)
        merge = len(c.parents) > 1
        # The fields from phase to merge take few combinations: each is encoded once.
        key = (c.phase, c.phase_source, c.rule, c.kind, c.attempt, merge)
        middle = self._middles.get(key) or self._middle(key)
        return (
            f'{{"sha":"{c.sha}","parents":{_shas(c.parents)},'
            f'"author":{w[c.author_name, c.author_email]},"time":{int.__repr__(c.time)},'
            f'"subject":{_str(c.subject)},{middle},'
            f'"cycle":{cycle},"files":[{text}],"evidence":{evidence},'
            f'"basis":{w[c.basis]}{_projects(c, self.dumps)}}}'
        )

    def _middle(self, key: tuple[str | None, str, str | None, str, str | None, bool]) -> str:
        w = self.enc
        phase, source, rule, kind, attempt, merge = key
        out = self._middles[key] = (
            f'"phase":{w[phase]},"phase_source":{w[source]},"rule":{w[rule]},'
            f'"kind":{w[kind]},"attempt":{w[attempt]},"merge":{"true" if merge else "false"}'
        )
        return out

    def finding(self, f: Finding) -> str:
        if f.data:
            return self._finding(f)
        # Most findings repeat all but their commit (``missing-evidence`` on every trailer
        # without a note): the text around the commit is made once per combination.
        key = (f.rule, f.severity, f.message, f.files, f.related, f.basis)
        around = self._findings.get(key)
        if around is None:
            head, _, tail = self._finding(f).partition(f.commit)
            around = self._findings[key] = (head, tail)
        return around[0] + f.commit + around[1]

    def _finding(self, f: Finding) -> str:
        w = self.enc
        data = f',"data":{self.dumps(dict(f.data))}' if f.data else ""
        return (
            f'{{"rule":{w[f.rule]},"severity":{w[f.severity]},"commit":"{f.commit}",'
            f'"related":{_shas(f.related)},"files":{_strs(f.files)},'
            f'"message":{_str(f.message)},"basis":{w[f.basis]}{data}}}'
        )

    def cycle(self, c: Cycle) -> str:
        w = self.enc
        green = "null" if c.green is None else f'"{c.green}"'
        return (
            f'{{"id":{int.__repr__(c.id)},"status":{w[c.status]},"red":"{c.red}",'
            f'"green":{green},"refactors":{_shas(c.refactors)},'
            f'"author":{w[c.author_name, c.author_email]},'
            f'"started":{int.__repr__(c.started)},"ended":{_int(c.ended)},'
            f'"time_in_red":{_int(c.time_in_red)},"task":{w[c.task]}'
            + ("}" if c.project is None else f',"project":{w[c.project]}}}')
        )

    def episode(self, e: Episode) -> str:
        return (
            f'{{"kind":{self.enc[e.kind]},"first":"{e.first}","last":"{e.last}",'
            f'"size":{int.__repr__(e.size)},"author":{self.enc[e.author_name, e.author_email]},'
            f'"duration":{int.__repr__(e.duration)}}}'
        )


def _projects(c: CommitRecord, dumps: Callable[[Any], str]) -> str:
    """A step of a repository of several projects: each project's phase."""
    return f',"projects":{dumps(dict(c.projects))}' if c.projects else ""


def _int(value: int | None) -> str:
    # int.__repr__, as json does (bool is an int too, but never occurs in these fields)
    return "null" if value is None else int.__repr__(value)


def _shas(values: Sequence[str]) -> str:
    """Commit ids from git (here and in the lines above): hexadecimal, nothing to escape."""
    return '["' + '","'.join(values) + '"]' if values else "[]"


def _strs(values: Sequence[str]) -> str:
    return "[" + ",".join([_str(v) for v in values]) + "]"


# --- tables shared by the text and markdown renderers ---------------------------------


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
    report: AuditReport, limit: int | None = None, *, newest_first: bool = False
) -> list[tuple[str, ...]]:
    found = report.findings[::-1] if newest_first else report.findings
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
