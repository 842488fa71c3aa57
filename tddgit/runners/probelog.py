"""The probe's records (PRODUCT.md §4): the JSON lines ``tddgit_probe`` writes during a
pytest run, grouped into a ``ProbeLog``, and the line coverage they carry.

A killed run leaves a truncated file: every reader here skips what it cannot parse.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tddgit.model import LineCoverage


@dataclass(frozen=True)
class ProbeLog:
    """The probe's JSON lines, grouped (see the format at the top of ``tddgit_probe``)."""

    session: Mapping[str, Any] | None = None
    exitstatus: int | None = None  # None: the session did not finish
    conftests: tuple[Mapping[str, Any], ...] = ()
    collect_failures: tuple[Mapping[str, Any], ...] = ()  # failed or skipped collectors
    collected: tuple[str, ...] = ()
    collection_done: bool = False
    missing: tuple[str, ...] = ()  # requested ids that matched no collected item
    started: tuple[str, ...] = ()
    lines: Mapping[str, int] = field(default_factory=dict)
    reports: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    internal: tuple[Mapping[str, Any], ...] = ()
    coverage: tuple[Mapping[str, Any], ...] = ()  # one record per process (xdist workers)


def parse_probe(lines: Iterable[str]) -> ProbeLog:
    """Group probe lines; a truncated or foreign line (a killed run) is skipped."""
    acc: dict[str, Any] = {
        "conftests": [],
        "collect_failures": [],
        "started": [],
        "internal": [],
        "coverage": [],
    }
    collected: dict[str, None] = {}
    missing: dict[str, None] = {}
    lines_by_id: dict[str, int] = {}
    reports: dict[str, list[Mapping[str, Any]]] = {}
    for rec in _records(list(lines)):
        if not isinstance(rec, dict):
            continue
        kind = rec.get("t")
        if kind == "session":
            acc["session"] = rec
        elif kind == "finish":
            acc["exitstatus"] = int(rec.get("exitstatus", 0))
        elif kind == "conftest":
            acc["conftests"].append(rec)
        elif kind == "collect" and rec.get("outcome") in ("failed", "skipped"):
            acc["collect_failures"].append(rec)
        elif kind == "collected":
            acc["collection_done"] = True
            collected.update(dict.fromkeys(map(str, rec.get("ids") or ())))
            missing.update(dict.fromkeys(map(str, rec.get("missing") or ())))
        elif kind == "start":
            tid = str(rec.get("id"))
            acc["started"].append(tid)
            if isinstance(rec.get("line"), int):
                lines_by_id[tid] = rec["line"]
        elif kind == "report":
            reports.setdefault(str(rec.get("id")), []).append(rec)
        elif kind == "internal":
            acc["internal"].append(rec)
        elif kind == "coverage":
            acc["coverage"].append(rec)
    return ProbeLog(
        session=acc.get("session"),
        exitstatus=acc.get("exitstatus"),
        conftests=tuple(acc["conftests"]),
        collect_failures=tuple(acc["collect_failures"]),
        collected=tuple(collected),
        collection_done=bool(acc.get("collection_done")),
        missing=tuple(missing),
        started=tuple(acc["started"]),
        lines=lines_by_id,
        reports={k: tuple(v) for k, v in reports.items()},
        internal=tuple(acc["internal"]),
        coverage=tuple(acc["coverage"]),
    )


def _records(lines: list[str]) -> list[Any]:
    """Every line's record: one decode of the whole log (the usual case, read while the
    verdict waits), else line by line, without the lines that do not parse."""
    try:
        found = json.loads("[" + ",".join(lines) + "]")
    except ValueError:
        found = None
    if isinstance(found, list) and len(found) == len(lines):
        return found
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def read_probe(path: Path) -> ProbeLog:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ProbeLog()
    return parse_probe(text.splitlines())


def _int_set(value: Any) -> frozenset[int]:
    if not isinstance(value, list):
        return frozenset()
    return frozenset(v for v in value if isinstance(v, int) and not isinstance(v, bool))


def merge_coverage(
    log: ProbeLog, asked: Mapping[str, str]
) -> tuple[dict[str, LineCoverage] | None, str]:
    """The line coverage of the ``asked`` files (probe path -> the caller's name for it),
    merged over every process's record (a line ran if it ran in any xdist worker); or None
    and the reason it could not be measured."""
    reasons = [str(r["unavailable"]) for r in log.coverage if r.get("unavailable")]
    if reasons:  # one process without data makes the union a guess: judge none of it
        return None, reasons[0]
    measured = [r for r in log.coverage if isinstance(r.get("files"), dict)]
    if not measured:
        return None, "the test run ended before coverage was saved"
    out: dict[str, LineCoverage] = {}
    for rec in measured:
        for path, lines in rec["files"].items():
            name = asked.get(path)
            if name is None or not isinstance(lines, dict):
                continue
            statements = _int_set(lines.get("statements"))
            executed = _int_set(lines.get("executed")) & statements
            tests = _tests_by_line(lines.get("tests"))
            if name in out:
                statements |= out[name].statements
                executed |= out[name].executed
                for line, ids in out[name].tests.items():
                    tests[line] = tests.get(line, frozenset()) | ids
            out[name] = LineCoverage(statements, executed, tests)
    return out, ""


def _tests_by_line(value: Any) -> dict[int, frozenset[str]]:
    if not isinstance(value, dict):
        return {}
    out: dict[int, frozenset[str]] = {}
    for line, ids in value.items():
        if isinstance(line, str) and line.isdigit() and isinstance(ids, list):
            out[int(line)] = frozenset(i for i in ids if isinstance(i, str))
    return out
