"""Process metrics of an audit; the exact definitions are in docs/audit.md.

- phase counts, phase sources, trailer and evidence coverage;
- cycles (complete / open / broken) and time in red (red commit -> its green);
- Zorro/Besouro episode classes and the four measures of Fucci et al. 2017:
  SEQ (% test-first episodes), GRA (median episode duration, minutes),
  UNI (median absolute deviation of the durations, minutes), REF (% refactoring episodes);
- conformance, 0-100: the mean of the share of code commits without a process finding and
  the share of test-first episodes among the episodes that wrote production code.

Everything again per author (by e-mail address).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from statistics import median
from typing import Any

from tddgit.audit.model import PHASES, SOURCES, CommitRecord, Cycle, Episode, Finding

EPISODE_KINDS = ("test-first", "test-last", "test-addition", "refactoring", "production", "unknown")
# Findings that say nothing about the order of work: they do not lower conformance.
NOT_PROCESS = frozenset({"missing-evidence"})


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def _minutes(seconds: float) -> float:
    return round(seconds / 60.0, 2)


def _mad(values: Sequence[float]) -> float:
    mid = median(values)
    return median(abs(v - mid) for v in values)


def process_measures(episodes: Sequence[Episode]) -> dict[str, float | None]:
    """SEQ, GRA, UNI, REF (Fucci et al. 2017) over commit episodes."""
    n = len(episodes)
    if not n:
        return {"seq": None, "gra": None, "uni": None, "ref": None}
    kinds = Counter(e.kind for e in episodes)
    durations = [float(e.duration) for e in episodes]
    return {
        "seq": _pct(kinds["test-first"], n),
        "gra": _minutes(median(durations)),
        "uni": _minutes(_mad(durations)),
        "ref": _pct(kinds["refactoring"], n),
    }


def conformance(
    records: Sequence[CommitRecord], findings: Sequence[Finding], episodes: Sequence[Episode]
) -> float | None:
    """0-100, or None when there is no code commit to judge (formula in docs/audit.md)."""
    judged = [r.sha for r in records if r.is_step and r.changes_code]
    if not judged:
        return None
    flagged = {
        f.commit
        for f in findings
        if f.severity in ("error", "warning") and f.rule not in NOT_PROCESS
    }
    clean = sum(1 for sha in judged if sha not in flagged) / len(judged)
    kinds = Counter(e.kind for e in episodes)
    coded = kinds["test-first"] + kinds["test-last"] + kinds["production"]
    if not coded:
        return round(100.0 * clean, 1)
    return round(100.0 * (clean + kinds["test-first"] / coded) / 2.0, 1)


def summary(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    """Every metric of one set of commits (the whole audit, or one author's share)."""
    steps = [r for r in records if not r.is_merge]
    phases = Counter(r.phase or "none" for r in steps)
    sources = Counter(r.phase_source for r in steps)
    code = [r for r in steps if r.is_step and r.changes_code]
    declared = [r for r in steps if r.phase_source == "trailer"]
    proven = sum(1 for r in declared if r.evidence is not None and r.evidence.valid)
    status = Counter(c.status for c in cycles)
    reds = [c.time_in_red for c in cycles if c.time_in_red is not None]
    kinds = Counter(e.kind for e in episodes)
    return {
        "commits": len(steps),
        "merges": len(records) - len(steps),
        "code_commits": len(code),
        "phases": {p: phases[p] for p in (*PHASES, "none")},
        "phase_sources": {s: sources[s] for s in SOURCES},
        "attempts": dict(sorted(Counter(r.attempt for r in steps if r.attempt).items())),
        "trailer_coverage": _pct(sum(1 for r in code if r.phase_source == "trailer"), len(code)),
        "evidence_coverage": _pct(proven, len(declared)),
        "cycles": {
            "total": len(cycles),
            "complete": status["complete"],
            "open": status["open"],
            "broken": status["broken"],
        },
        "time_in_red": {
            "count": len(reds),
            "median_seconds": median(reds) if reds else None,
            "mean_seconds": round(sum(reds) / len(reds), 1) if reds else None,
            "max_seconds": max(reds) if reds else None,
        },
        "episodes": {"total": len(episodes), **{k: kinds[k] for k in EPISODE_KINDS}},
        "process": process_measures(episodes),
        "findings": dict(sorted(Counter(f.rule for f in findings).items())),
        "conformance": conformance(records, findings, episodes),
    }


def compute(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
) -> dict[str, Any]:
    """The audit's ``metrics`` object: the whole range, then ``authors[]``."""
    out = summary(records, findings, cycles, episodes)
    names: dict[str, str] = {}
    by_commits: dict[str, list[CommitRecord]] = defaultdict(list)
    author_of: dict[str, str] = {}
    for r in records:
        by_commits[r.author_email].append(r)
        names.setdefault(r.author_email, r.author_name)
        author_of[r.sha] = r.author_email
    by_findings: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        by_findings[author_of.get(f.commit, "")].append(f)
    by_cycles: dict[str, list[Cycle]] = defaultdict(list)
    for c in cycles:
        by_cycles[c.author_email].append(c)
    by_episodes: dict[str, list[Episode]] = defaultdict(list)
    for e in episodes:
        by_episodes[e.author_email].append(e)
    authors = []
    for email, recs in sorted(by_commits.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(by_commits) == 1:
            part = dict(out)  # one author: their share is the whole
        else:
            part = summary(recs, by_findings[email], by_cycles[email], by_episodes[email])
        authors.append({"name": names[email], "email": email, **part})
    out["authors"] = authors
    return out
