"""The text report as a team lead reads it, and how far each phase is known (issue 27).

Newest findings first, counts per rule, a commit count that adds up, one row per person
(.mailmap), bots on one line, and the shares of proven, declared and inferred phases.
"""

from __future__ import annotations

import json

from tests.audit.helpers import Steps, note

CODE = "def f():\n    return {}\n"


def test_the_text_report_puts_the_newest_findings_first_and_counts_per_rule(repo):
    s = Steps(repo)
    s.commit("base", {"README.md": "x\n"})
    for i in range(3):
        s.commit(f"untested {i}", {f"m{i}.py": CODE.format(i)})
    s.commit("green: nothing red", {"m0.py": "def f():\n    return 9\n"})
    out = repo.tddgit("audit").stdout
    findings = out[out.index("newest first") :]
    assert findings.index("green-without-red") < findings.index("pre-test-code")
    by_rule = out[out.index("Findings by rule") : out.index("newest first")]
    assert "pre-test-code" in by_rule and " 3 " in by_rule
    assert "5 in all = 5 non-merge" in out


def test_mailmap_joins_an_author_and_bots_share_one_line(repo):
    s = Steps(repo)
    s.commit("base", {"README.md": "x\n"})
    for who, email in (
        ("Ann", "ann@home.example"),
        ("Ann Lee", "ann@work.example"),
        ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"),
        ("renovate[bot]", "bot@renovateapp.com"),
    ):
        repo.write(f"{who[:5]}.txt", "x\n")
        repo.add(f"{who[:5]}.txt")
        env = {"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": email}
        repo.git("commit", "-q", "-m", f"by {who}", env=env)
    repo.write(".mailmap", "Ann Lee <ann@work.example> <ann@home.example>\n")
    repo.add(".mailmap")
    s.commit("mailmap")
    out = repo.tddgit("audit").stdout
    authors = out[out.index("Authors") :]
    assert "ann@home.example" not in authors  # one row for Ann, under her mapped address
    assert "bots (2: dependabot[bot], renovate[bot])" in authors
    assert "dependabot[bot] <" not in authors


def test_every_phase_says_how_it_is_known_and_the_headline_shows_the_shares(repo):
    s = Steps(repo)
    s.commit("base", {"README.md": "x\n"})
    red = s.commit(
        "add test", {"tests/test_m.py": "from m import f\n\ndef test_f():\n    assert f() == 1\n"}
    )
    s.commit("impl f", {"m.py": "def f():\n    return 1\n"})
    s.commit(
        "red: two",
        {"tests/test_m.py": "from m import f\n\ndef test_f():\n    assert f() == 2\n"},
        phase="red",
    )
    proven = s.repo.head()
    note(repo, proven, "red")
    doc = json.loads(repo.tddgit("audit", "--format", "json").stdout)
    basis = {c["subject"]: c["basis"] for c in doc["commits"]}
    assert basis == {
        "base": None,
        "add test": "inferred",
        "impl f": "inferred",
        "red: two": "proven",
    }
    assert doc["metrics"]["phase_basis"] == {"proven": 1, "declared": 0, "inferred": 2}
    assert red
    out = repo.tddgit("audit").stdout
    assert "1 proven (33%) · 0 declared (0%) · 2 inferred (67%)" in out
