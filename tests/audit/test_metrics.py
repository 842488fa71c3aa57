"""Fucci et al. 2017 measures and the conformance formula, on exact inputs."""

from __future__ import annotations

from tddgit.audit.measures import conformance, process_measures
from tddgit.audit.model import CommitRecord, Episode, Finding


def _ep(kind: str, minutes: float) -> Episode:
    return Episode(kind, "a" * 40, "b" * 40, 1, "A", "a@x", int(minutes * 60))


def _rec(sha: str, kind: str = "production", attempt: str | None = None) -> CommitRecord:
    return CommitRecord(sha, ("p",), "A", "a@x", 0, "s", None, "none", None, kind, (), (), attempt)


def test_measures_of_no_episodes_are_unknown():
    assert process_measures([]) == {"seq": None, "gra": None, "uni": None, "ref": None}


def test_seq_gra_uni_ref():
    eps = [
        _ep("test-first", 2),
        _ep("test-first", 4),
        _ep("refactoring", 1),
        _ep("production", 10),
        _ep("test-last", 6),
    ]
    # durations 1 2 4 6 10: median 4; deviations 3 2 0 2 6 -> median 2
    assert process_measures(eps) == {"seq": 40.0, "gra": 4.0, "uni": 2.0, "ref": 20.0}


def test_conformance_formula():
    recs = [_rec("a"), _rec("b"), _rec("c"), _rec("d"), _rec("e", kind="other")]
    found = [
        Finding("pre-test-code", "warning", "a", "m"),
        Finding("missing-evidence", "warning", "b", "m"),  # not about the order of work
        Finding("yagni", "note", "c", "m"),  # notes do not count
    ]
    eps = [_ep("test-first", 1), _ep("production", 1), _ep("test-addition", 1)]
    # clean 3/4, test-first among code episodes 1/2 -> (0.75 + 0.5) / 2
    assert conformance(recs, found, eps) == 62.5
    assert conformance(recs, found, []) == 75.0
    assert conformance([_rec("x", kind="other")], [], eps) is None
    assert conformance([_rec("y", attempt="undone")], [], []) is None


def test_compute_counts_findings_per_author_even_outside_the_audit():
    from tddgit.audit.metrics import compute

    recs = [_rec("a"), _rec("b")]
    found = [
        Finding("pre-test-code", "warning", "a", "m"),
        Finding("evidence-contradiction", "error", "zz", "m"),  # a commit outside the audit
    ]
    with_positions = compute(recs, found, [], [], {"a": 0, "b": 1})
    assert with_positions == compute(recs, found, [], [])
    assert with_positions["findings"] == {"evidence-contradiction": 1, "pre-test-code": 1}
    assert with_positions["authors"][0]["findings"] == {
        "evidence-contradiction": 1,
        "pre-test-code": 1,
    }
    only_known = compute(recs, found[:1], [], [], {"a": 0, "b": 1})
    assert only_known["authors"][0]["findings"] == {"pre-test-code": 1}
