"""Every finding says what it rests on: proven, declared or inferred phases (issue 27
item 6), in JSON (``basis``), text and Markdown."""

from __future__ import annotations

import json

from tests.audit.helpers import Steps, audit, note

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
NEG = TEST + "\n\ndef test_neg():\n    assert add(-1, -1) == -2\n"


def basis_by_rule(report) -> dict[tuple[str, str], str | None]:
    subject = {c.sha: c.subject for c in report.commits}
    return {(f.rule, subject[f.commit]): f.basis for f in report.findings}


def test_each_finding_rests_on_the_weakest_phase_it_is_judged_from(repo):
    s = Steps(repo)
    s.commit("calc with its test", {"calc.py": CALC, "tests/test_calc.py": TEST})
    # inferred: only the files say there was no red
    s.commit("untested feature", {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n"})
    # declared: trailers say red, then refactor while that red is open
    s.commit("negatives", {"tests/test_calc.py": NEG}, phase="red")
    s.commit("tidy", {"calc.py": CALC.replace("a + b", "b + a")}, phase="refactor")
    # proven: a red and a green with evidence notes, the green edits the red's test
    red = s.commit(
        "twos", {"tests/test_two.py": TEST.replace("1, 2) == 3", "2, 2) == 4")}, phase="red"
    )
    note(repo, red, "red")
    green = s.commit(
        "make it pass",
        {"calc.py": CALC + "\nTWO = 2\n", "tests/test_two.py": TEST},
        phase="green",
    )
    note(repo, green, "green")
    report = audit(repo)
    basis = basis_by_rule(report)
    assert basis[("pre-test-code", "untested feature")] == "inferred"
    assert basis[("refactor-while-red", "tidy")] == "declared"
    assert basis[("test-edited-in-green", "make it pass")] == "proven"
    assert all(f.basis in ("proven", "declared", "inferred") for f in report.findings)


def test_the_basis_is_in_json_text_and_markdown(repo):
    s = Steps(repo)
    s.commit("calc with its test", {"calc.py": CALC, "tests/test_calc.py": TEST})
    s.commit("untested feature", {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n"})
    data = json.loads(repo.tddgit("audit", "--format", "json").stdout)
    assert [(f["rule"], f["basis"]) for f in data["findings"]] == [("pre-test-code", "inferred")]
    text = repo.tddgit("audit", env={"COLUMNS": "200"}).stdout
    assert "basis" in text and "inferred" in text
    md = repo.tddgit("audit", "--format", "markdown").stdout
    assert "| severity | rule | commit | basis | message |" in md
    assert "| inferred |" in md
