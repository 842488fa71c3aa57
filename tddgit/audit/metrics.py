"""Process metrics of an audit; the exact definitions are in docs/audit.md.

- phase counts, phase sources, trailer and evidence coverage;
- cycles (complete / open / broken) and time in red (red commit -> its green);
- Zorro/Besouro episode classes and the four measures of Fucci et al. 2017 (``measures``):
  SEQ (% test-first episodes), GRA (median episode duration, minutes),
  UNI (median absolute deviation of the durations, minutes), REF (% refactoring episodes);
- conformance, 0-100: the mean of the share of code commits without a process finding and
  the share of test-first episodes among the episodes that wrote production code.

Everything again per author (by e-mail address).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

from tddgit.audit.measures import (
    NOT_PROCESS,
    conformance_of,
    episode_measures,
    median_of_sorted,
    pct,
    whole_seconds,
)
from tddgit.audit.model import PHASES, SOURCES, CommitRecord, Cycle, Episode, Finding, Tally
from tddgit.audit.required import not_process

EPISODE_KINDS = ("test-first", "test-last", "test-addition", "refactoring", "production", "unknown")

# What the counts need of a commit; few distinct values, so counted in C, then summed.
_KEY = attrgetter("author_email", "phase", "phase_source", "attempt", "kind")
# Merges (the engine gives merges, and only merges, this kind) and a shallow clone's
# boundary commits (what they change is not known) are no steps.
_NOT_STEPS = frozenset({"merge", "boundary"})
_CODE_KINDS = frozenset({"test", "production", "mixed"})  # CommitRecord.changes_code
_STATUS = attrgetter("status")
_TIME_IN_RED = attrgetter("time_in_red")
_RULE = attrgetter("rule")


def _proven(r: CommitRecord) -> bool:
    return r.phase_source == "trailer" and r.evidence is not None and r.evidence.valid


def _flagged(findings: Sequence[Finding]) -> set[str]:
    """Commits with a finding about the order of work (see ``conformance``)."""
    skip = not_process(NOT_PROCESS)
    return {f.commit for f in findings if f.severity in ("error", "warning") and f.rule not in skip}


def _flagged_code(flagged: Iterable[CommitRecord | None]) -> Counter[str]:
    """Code commits with a finding about the order of work, per author e-mail."""
    return Counter(
        r.author_email
        for r in flagged
        if r is not None and r.kind in _CODE_KINDS and r.attempt in (None, "tcr-pass")
    )


class _Counts:
    """What the metrics need of the commits, summed from ``_KEY`` counts."""

    __slots__ = (
        "attempts",
        "boundary",
        "code",
        "code_clean",
        "code_trailer",
        "declared",
        "inferred",
        "phases",
        "proven",
        "records",
        "sources",
        "stated",
        "steps",
    )

    def __init__(self) -> None:
        self.records = self.steps = self.code = self.code_trailer = self.code_clean = 0
        self.declared = self.proven = self.boundary = 0
        self.stated = self.inferred = 0  # phases a trailer or message states; from files
        # plain dicts, not Counters: an author is made of a few of them and a history has
        # thousands of authors (Counter's constructor and update are Python code)
        self.phases: dict[str, int] = {}
        self.sources: dict[str, int] = {}
        self.attempts: dict[str, int] = {}

    def add(self, key: tuple[str, str | None, str, str | None, str], n: int) -> None:
        """``n`` commits that share ``key`` (see ``_KEY``)."""
        _, phase, source, attempt, kind = key
        self.records += n
        if kind in _NOT_STEPS:
            if kind == "boundary":
                self.boundary += n
            return
        self.steps += n
        phases, sources = self.phases, self.sources
        shown = phase or "none"
        phases[shown] = phases.get(shown, 0) + n
        sources[source] = sources.get(source, 0) + n
        if attempt:
            self.attempts[attempt] = self.attempts.get(attempt, 0) + n
        if source == "trailer":
            self.declared += n
        if phase is not None:
            if source == "files":
                self.inferred += n
            elif source in ("trailer", "message"):
                self.stated += n
        if (attempt is None or attempt == "tcr-pass") and kind in _CODE_KINDS:
            self.code += n
            if source == "trailer":
                self.code_trailer += n


class _Parts:
    """One author's (or everyone's) cycles, episodes and findings, reduced to what the
    metrics need of them: counts, and the values medians are taken of."""

    __slots__ = ("durations", "episode_kinds", "reds", "rules", "statuses")

    def __init__(self) -> None:
        self.statuses: dict[str, int] = {}
        self.reds: list[int] = []  # time in red of each complete cycle
        self.episode_kinds: dict[str, int] = {}
        self.durations: list[int] = []
        self.rules: dict[str, int] = {}  # findings by rule


_NO_PARTS = _Parts()  # an author without cycles, episodes or findings (read only)


def _summary(acc: _Counts, parts: _Parts) -> dict[str, Any]:
    status = parts.statuses
    reds = parts.reds
    kinds = parts.episode_kinds
    return {
        "commits": acc.steps,
        "merges": acc.records - acc.steps - acc.boundary,
        # a shallow clone's boundary commits: shown, not judged, and not merges
        **({"boundary": acc.boundary} if acc.boundary else {}),
        "code_commits": acc.code,
        "phases": {p: acc.phases.get(p, 0) for p in (*PHASES, "none")},
        "phase_sources": {s: acc.sources.get(s, 0) for s in SOURCES},
        # How the phases are known: proven by evidence, declared (trailer or message without
        # evidence), or inferred from the files alone (docs/audit.md).
        "phase_basis": {
            "proven": acc.proven,
            "declared": max(0, acc.stated - acc.proven),
            "inferred": acc.inferred,
        },
        "attempts": dict(sorted(acc.attempts.items())),
        "trailer_coverage": pct(acc.code_trailer, acc.code),
        "evidence_coverage": pct(acc.proven, acc.declared),
        "cycles": {
            "total": sum(status.values()),
            "complete": status.get("complete", 0),
            "open": status.get("open", 0),
            "broken": status.get("broken", 0),
        },
        "time_in_red": {
            "count": len(reds),
            "median_seconds": whole_seconds(median_of_sorted(sorted(reds))) if reds else None,
            "mean_seconds": round(sum(reds) / len(reds), 1) if reds else None,
            "max_seconds": max(reds) if reds else None,
        },
        "episodes": {"total": sum(kinds.values()), **{k: kinds.get(k, 0) for k in EPISODE_KINDS}},
        "process": episode_measures(kinds, list(parts.durations)),
        "findings": dict(sorted(parts.rules.items())),
        "conformance": conformance_of(acc.code, acc.code_clean, kinds),
    }


def compute(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
    positions: Mapping[str, int] | None = None,
    tally: Tally | None = None,
) -> dict[str, Any]:
    """The audit's ``metrics`` object: the whole range, then ``authors[]``.

    Everything is first split by author (e-mail), mostly by counting tuples of fields in C
    (``_KEY`` for the commits), then each author is summarised and the whole range is the
    sum of the authors: a 100k-commit history costs a few C passes and short Python loops.
    ``positions`` (sha -> index in ``records``) and ``tally`` (the counts of the records),
    when the caller has them, save a pass over the records.
    """
    if tally is None:
        tally = Tally(Counter(map(_KEY, records)), [r for r in records if r.evidence is not None])
    per: dict[str, _Counts] = defaultdict(_Counts)
    for key, n in tally.keys.items():
        per[key[0]].add(key, n)
    for r in tally.noted:  # few have a note
        if _proven(r):
            per[r.author_email].proven += 1
    if positions is None:
        positions = dict(zip(map(_SHA, records), range(len(records)), strict=True))
    record_of = RecordOf(records, positions)
    flagged_per = _flagged_code(map(record_of, _flagged(findings)))
    for email, acc in per.items():
        acc.code_clean = acc.code - flagged_per[email]
    parts = _split_parts(record_of, findings, cycles, episodes, tally)
    out = _summary(_total(per.values()), _all_parts(parts.values()))
    order = sorted(per.items(), key=lambda kv: (-kv[1].records, kv[0]))
    names = _first_names(records, len(per))
    authors = []
    if len(per) == 1:
        email = order[0][0]
        authors.append({"name": names[email], "email": email, **out})
    else:
        for email, acc in order:
            part = _summary(acc, parts.get(email) or _NO_PARTS)
            authors.append({"name": names[email], "email": email, **part})
    out["authors"] = authors
    return out


def per_agent(
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
    agents: Mapping[str, str],
) -> list[dict[str, Any]]:
    """``metrics.agents[]``: every metric again for the commits each model made (its
    `GSD-Agent` trailer), split as for authors: cycles by the red's commit, episodes by
    their last commit. Few commits carry the trailer, so each is a small recount."""
    by_model: dict[str, set[str]] = defaultdict(set)
    for sha, model in agents.items():
        by_model[model].add(sha)
    out = []
    for model, shas in sorted(by_model.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        part = compute(
            [r for r in records if r.sha in shas],
            [f for f in findings if f.commit in shas],
            [c for c in cycles if c.red in shas],
            [e for e in episodes if e.last in shas],
        )
        del part["authors"]
        out.append({"agent": model, **part})
    return out


def per_project(parts: Sequence[Any]) -> list[dict[str, Any]]:
    """``metrics.projects[]``: every metric again for each project of a repository of
    several, from its own lineage (``tddgit.audit.projects.Part``: its records, findings,
    cycles and episodes)."""
    out = []
    for part in parts:
        found = compute(part.records, part.findings, part.cycles, part.episodes)
        del found["authors"]
        out.append({"project": part.label, **found})
    return out


_SHA = attrgetter("sha")
_EMAIL = attrgetter("author_email")
_COMMIT = attrgetter("commit")
_EMAIL_STATUS = attrgetter("author_email", "status")
_EMAIL_KIND = attrgetter("author_email", "kind")
_DURATION = attrgetter("duration")


class RecordOf:
    """sha -> its record (None for a commit outside the audit)."""

    def __init__(self, records: Sequence[CommitRecord], positions: Mapping[str, int]) -> None:
        self.records = records
        self.positions = positions

    def __call__(self, sha: str) -> CommitRecord | None:
        i = self.positions.get(sha)
        return None if i is None else self.records[i]

    def emails(self, findings: Sequence[Finding]) -> Iterable[str]:
        """The author e-mail of each finding's commit ("" for one outside the audit)."""
        try:  # all in C: the usual case, every commit is in the audit
            at = list(map(self.positions.__getitem__, map(_COMMIT, findings)))
            return map(_EMAIL, map(self.records.__getitem__, at))
        except KeyError:
            return [self._email(f.commit) for f in findings]

    def _email(self, sha: str) -> str:
        i = self.positions.get(sha)
        return "" if i is None else self.records[i].author_email


def _first_names(records: Sequence[CommitRecord], authors: int) -> dict[str, str]:
    """The first name each e-mail was seen with (the first few commits usually have all)."""
    names: dict[str, str] = {}
    for r in records:
        if r.author_email not in names:
            names[r.author_email] = r.author_name
            if len(names) == authors:
                break
    return names


def _split_parts(
    record_of: RecordOf,
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
    tally: Tally,
) -> dict[str, _Parts]:
    parts: dict[str, _Parts] = defaultdict(_Parts)
    for (email, status), n in Counter(map(_EMAIL_STATUS, cycles)).items():
        parts[email].statuses[status] = n
    for email, t in zip(map(_EMAIL, cycles), map(_TIME_IN_RED, cycles), strict=True):
        if t is not None:
            parts[email].reds.append(t)
    if tally.episode_kinds is not None and tally.durations is not None:
        for (email, kind), n in tally.episode_kinds.items():  # counted by the pass
            parts[email].episode_kinds[kind] = n
        for email, durations in tally.durations.items():
            parts[email].durations = list(durations)
    else:
        for (email, kind), n in Counter(map(_EMAIL_KIND, episodes)).items():
            parts[email].episode_kinds[kind] = n
        for email, d in zip(map(_EMAIL, episodes), map(_DURATION, episodes), strict=True):
            parts[email].durations.append(d)
    by_rule = Counter(zip(record_of.emails(findings), map(_RULE, findings), strict=True))
    for (email, rule), n in by_rule.items():
        parts[email].rules[rule] = n  # each (email, rule) once: ``by_rule`` counted them
    return parts


def _all_parts(parts: Iterable[_Parts]) -> _Parts:
    total = _Parts()
    for p in parts:
        _add(total.statuses, p.statuses)
        total.reds += p.reds
        _add(total.episode_kinds, p.episode_kinds)
        total.durations += p.durations  # in no particular order: the measures sort them
        _add(total.rules, p.rules)
    return total


def _total(parts: Iterable[_Counts]) -> _Counts:
    total = _Counts()
    for p in parts:
        total.records += p.records
        total.steps += p.steps
        total.code += p.code
        total.code_trailer += p.code_trailer
        total.code_clean += p.code_clean
        total.declared += p.declared
        total.proven += p.proven
        total.boundary += p.boundary
        total.stated += p.stated
        total.inferred += p.inferred
        _add(total.phases, p.phases)
        _add(total.sources, p.sources)
        _add(total.attempts, p.attempts)
    return total


def _add(into: dict[str, int], counts: Mapping[str, int]) -> None:
    for k, n in counts.items():
        into[k] = into.get(k, 0) + n
