"""The detector rules in the audit on real repositories: first crossings, yagni from
notes, the blob cache across audits, and the JSON writer's lines."""

from __future__ import annotations

import json
from io import StringIO

import pytest

from tddgit.audit.model import AuditReport
from tddgit.audit.registry import DetectorSettings, detectors
from tddgit.audit.report import write_json
from tddgit.blobs import BlobReader
from tests.audit.helpers import Steps, audit, note, rules_fired

PATCH = '@mock.patch("app.{t}")\n'
TARGETS = ["os.getcwd", "time.time", "os.listdir", "os.environ", "time.sleep", "os.stat"]


def mocked(mocks: int, asserts: int = 1, name: str = "test_app") -> str:
    """A test file with one test wearing ``mocks`` patch decorators and ``asserts``
    assertions on different subjects."""
    decos = "".join(PATCH.format(t=t) for t in TARGETS[:mocks])
    args = ", ".join(f"m{i}" for i in range(mocks))
    checks = "".join(f"    assert run({i}) == {i}\n" for i in range(asserts))
    return (
        "from unittest import mock\n\nfrom app import run\n\n\n"
        f"{decos}def {name}({args}):\n{checks}"
        "\n\ndef test_other():\n    assert run(0) == 0\n"
    )


def detector_audit(repo, **settings: int) -> AuditReport:
    with detectors(DetectorSettings(**settings)):
        return audit(repo)


def fired(report: AuditReport, rule: str) -> list[str]:
    return [subject for r, subject in rules_fired(report) if r == rule]


def test_over_mocking_is_reported_where_a_test_first_crosses(repo):
    s = Steps(repo)
    s.commit("two mocks", {"tests/test_app.py": mocked(2)})
    crossed = s.commit("five mocks", {"tests/test_app.py": mocked(5)})
    s.commit("unrelated", {"README.md": "hi\n"})
    s.commit("still five, new assertion", {"tests/test_app.py": mocked(5, asserts=2)})
    s.commit("back to two", {"tests/test_app.py": mocked(2)})
    s.commit("four again", {"tests/test_app.py": mocked(4)})

    report = detector_audit(repo)

    assert fired(report, "over-mocking") == ["five mocks", "four again"]
    first = next(f for f in report.findings if f.rule == "over-mocking")
    assert first.commit == crossed
    assert first.severity == "warning"
    assert first.files == ("tests/test_app.py",)
    assert first.message.startswith("tests/test_app.py::test_app: 5 mocks (max 3)")
    assert dict(first.data) == {
        "test": "tests/test_app.py::test_app",
        "file": "tests/test_app.py",
        "count": 5,
        "threshold": 3,
    }
    assert report.metrics["findings"]["over-mocking"] == 2
    # how tests are written is not the order of work: conformance is the same without them
    assert report.metrics["conformance"] == audit(repo).metrics["conformance"]


def test_thresholds_come_from_the_settings_and_a_new_file_can_cross_at_once(repo):
    s = Steps(repo)
    s.commit("born over", {"tests/test_app.py": mocked(3)})
    s.commit("one more", {"tests/test_app.py": mocked(4)})
    assert fired(detector_audit(repo), "over-mocking") == ["one more"]
    assert fired(detector_audit(repo, max_mocks=2), "over-mocking") == ["born over"]
    assert fired(audit(repo), "over-mocking") == []  # detectors off: no blob is read


def test_broad_assertion_crossings_and_a_test_without_assertion(repo):
    s = Steps(repo)
    s.commit("three subjects", {"tests/test_app.py": mocked(0, asserts=3)})
    s.commit("seven subjects", {"tests/test_app.py": mocked(0, asserts=7)})
    s.commit("six subjects", {"tests/test_app.py": mocked(0, asserts=6)})
    s.commit("two subjects", {"tests/test_app.py": mocked(0, asserts=2)})
    s.commit("six again", {"tests/test_app.py": mocked(0, asserts=6)})
    s.commit("no assertion", {"tests/test_b.py": "def test_b():\n    x = 1\n"})

    report = detector_audit(repo)

    assert fired(report, "broad-assertion") == ["seven subjects", "six again", "no assertion"]
    crossing = next(f for f in report.findings if f.rule == "broad-assertion")
    assert "assertions on 7 different subjects (max 5)" in crossing.message
    assert crossing.data["count"] == 7 and crossing.data["threshold"] == 5
    last = report.findings[-1]
    assert last.data["test"] == "tests/test_b.py::test_b"
    assert "no assertion" in last.message


def test_renames_and_class_tests_are_followed(repo):
    s = Steps(repo)
    cls = (
        "from unittest import mock\n\n\nclass TestApp:\n"
        + "".join(f'    @mock.patch("a.{t}")\n' for t in TARGETS[:4])
        + "    def test_x(self, a, b, c, d):\n        assert a\n"
    )
    s.commit("class over", {"tests/test_cls.py": cls})
    s.commit("over", {"tests/test_app.py": mocked(5)})
    repo.git("mv", "tests/test_app.py", "tests/test_moved.py")
    s.commit("moved")
    report = detector_audit(repo)
    assert fired(report, "over-mocking") == ["class over", "over"]
    assert report.findings[0].data["test"] == "tests/test_cls.py::TestApp::test_x"


def test_yagni_findings_come_from_the_evidence_note(repo):
    s = Steps(repo)
    red = s.commit("red", {"tests/test_app.py": mocked(0)}, phase="red")
    green = s.commit("green", {"app.py": "def run(x):\n    return x\n"}, phase="green")
    note(repo, red, "red")
    evidence = json.loads(repo.git("notes", "--ref=tddgit", "show", red))
    evidence.update(
        phase="green",
        tree=repo.git("rev-parse", f"{green}^{{tree}}").strip(),
        targets=[{"id": "tests/test_app.py::test_app", "outcome": "passed", "cause": None}],
        findings=[
            {
                "rule": "yagni",
                "severity": "warning",
                "file": "app.py",
                "lines": [[3, 9], [12, 12]],
                "message": "8 added lines no test executes",
                "method": "coverage",
            },
            {"rule": "something-else", "file": "x"},
        ],
    )
    note(repo, green, "green", raw=json.dumps(evidence))

    for report in (audit(repo), detector_audit(repo)):  # cheap, so on either way
        assert fired(report, "yagni") == ["green"]
        found = next(f for f in report.findings if f.rule == "yagni")
        assert found.severity == "note"
        assert found.files == ("app.py",)
        assert found.message == "app.py:3-9,12: 8 added lines no test executes (coverage)"
        assert dict(found.data) == {
            "file": "app.py",
            "lines": [[3, 9], [12, 12]],
            "method": "coverage",
        }
        assert report.metrics["conformance"] == 100.0  # a note about code, not about order


def test_the_blob_cache_is_reused_and_a_damaged_one_ignored(repo, monkeypatch):
    s = Steps(repo)
    s.commit("two mocks", {"tests/test_app.py": mocked(2)})
    s.commit("five mocks", {"tests/test_app.py": mocked(5)})
    s.commit("plain", {"tests/test_c.py": "def test_c():\n    assert 1 + 1 == 2\n"})
    reads: list[int] = []
    close = BlobReader.close

    def counting_close(self: BlobReader) -> None:
        reads.append(self.reads)
        close(self)

    monkeypatch.setattr(BlobReader, "close", counting_close)
    cache = repo.root / ".git" / "tddgit" / "audit-test-blobs.json"

    audit(repo)  # the audit's own reads (test-only commits are read to judge their phase)
    reads.pop()
    audit(repo)  # and again, its answers about contents kept (tddgit.audit.answercache)
    plain = reads.pop()
    first = detector_audit(repo)
    assert cache.exists()
    second = detector_audit(repo)
    assert reads[0] >= plain + 3 and reads[1] == plain  # every analysis came from the cache
    assert second.findings == first.findings

    cache.write_text('{"schema": "tddgit.audit-test-blobs/1", "key": "x", "blobs": {"zz": 1}')
    third = detector_audit(repo)
    assert reads[2] == reads[0]  # damaged: read again, never trusted
    assert third.findings == first.findings
    doc = json.loads(cache.read_text())  # and rewritten whole
    assert doc["schema"] == "tddgit.audit-test-blobs/1" and len(doc["blobs"]) >= 3

    # a well-formed file that lies about a blob is ignored as a whole too
    doc["blobs"] = {k: [["over-mocking", 5, "x", "y"]] for k in doc["blobs"]}
    cache.write_text(json.dumps(doc))
    assert detector_audit(repo).findings == first.findings


def test_the_cli_switch(repo):
    s = Steps(repo)
    s.commit("over", {"tests/test_app.py": mocked(5)})
    off = json.loads(repo.tddgit("audit", "--json").stdout)
    on = json.loads(repo.tddgit("audit", "--json", "--detectors").stdout)
    assert [f["rule"] for f in off["findings"]] == []
    assert [f["rule"] for f in on["findings"]] == ["over-mocking"]
    repo.write(".tddgit.yaml", "antipatterns:\n  max_mocks: 5\n")
    on = json.loads(repo.tddgit("audit", "--json", "--detectors").stdout)
    assert on["findings"] == []


@pytest.mark.parametrize("with_detectors", [False, True])
def test_json_lines_are_exactly_what_json_dumps_gives(repo, with_detectors):
    """write_json builds its array lines as text: they must be json.dumps's bytes."""
    s = Steps(repo)
    s.commit('Initial — ünïcode "quoted" \\ back', {"README.md": "x\n"})
    red = s.commit("red", {"tests/test_app.py": mocked(5), "odd name\t.py": "x\n"}, phase="red")
    s.commit("green", {"app.py": "def run(x):\n    return x\n"}, phase="green")
    note(repo, red, "red")
    report = detector_audit(repo) if with_detectors else audit(repo)
    out = StringIO()
    write_json(report, out)
    text = out.getvalue()
    doc = json.loads(text)
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    lines = text.split("\n")
    for key, items in (
        ("findings", report.findings),
        ("cycles", report.cycles),
        ("episodes", report.episodes),
        ("commits", report.commits),
    ):
        assert len(doc[key]) == len(items)
        for item in items:
            expected = dumps(item.to_json())
            assert f"  {expected}," in lines or f"  {expected}" in lines, key
    assert any(f["rule"] == "over-mocking" for f in doc["findings"]) == with_detectors


def jest(mocks: int) -> str:
    body = "".join(f"  const m{i} = jest.fn();\n" for i in range(mocks))
    return f"describe('app', () => {{\n  it('runs', () => {{\n{body}    expect(1).toBe(1);\n  }});\n}});\n"


def test_js_tests_and_odd_paths_and_old_git(repo, monkeypatch):
    s = Steps(repo)
    s.commit("js three", {"web/app.test.js": jest(3)})
    s.commit("js four", {"web/app.test.js": jest(4)})
    s.commit("spaced", {"tests/test with space.py": mocked(5)})
    expected = ["js four", "spaced"]
    assert fired(detector_audit(repo, use_cache=False), "over-mocking") == expected
    js = next(f for f in detector_audit(repo).findings if f.rule == "over-mocking")
    assert js.data["test"] == "web/app.test.js::app > runs"
    # git before 2.36 has no --batch-command: the same answers through --batch
    monkeypatch.setattr("tddgit.blobs._BATCH_COMMAND", False)
    assert fired(detector_audit(repo, use_cache=False), "over-mocking") == expected


def test_records_built_fast_equal_the_dataclass_constructor():
    """The audit builds its per-commit, per-finding, per-episode and per-cycle records
    without the frozen dataclass __init__ (the JSON above reads them); they must equal the
    real thing, and so must their ``__dict__``s, key order included."""
    from dataclasses import fields

    from tddgit.audit.model import CommitRecord, Cycle, Episode, Finding

    for cls, given in (
        (CommitRecord, {"sha": "a" * 40, "parents": ()}),
        (Finding, {"rule": "r", "related": (), "files": (), "data": {}}),
        (Episode, {"kind": "test-first", "size": 2}),
    ):
        fields_ = {f.name: None for f in fields(cls)} | given
        made = cls.fast(**fields_)
        assert made == cls(**fields_)
        assert list(vars(made)) == list(vars(cls(**fields_)))
    cyc = {"id": 1, "red": "b" * 40, "author_name": "A", "author_email": "a@x", "task": None}
    real = Cycle(
        **cyc,
        status="open",
        green=None,
        refactors=(),
        started=7,
        ended=None,
        time_in_red=None,
    )
    assert Cycle.fast(**cyc, started=7) == real
    assert hash(Cycle.fast(**cyc, started=7)) == hash(real)
    assert list(vars(Cycle.fast(**cyc, started=7))) == list(vars(real))
