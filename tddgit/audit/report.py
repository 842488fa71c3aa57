"""Rendering an audit: the format names, and the ``tddgit.audit/1`` JSON document.

JSON is written in chunks of a few thousand lines, so a 100k-commit report never exists
twice in memory. Other formats live in ``render_*`` modules, imported only
when chosen (rich is never imported for JSON).
"""

from __future__ import annotations

import gc
import json
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
