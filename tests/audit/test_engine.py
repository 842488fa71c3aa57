"""The one-pass audit on real repositories: phases, sources, lineage, cycles, findings."""

from __future__ import annotations

import pytest

from tddgit.audit import stubjudge
from tests.audit.helpers import Steps, audit, by_subject, note, phases, rules_fired, when

TEST_CALC = "from calc import total\n\n\ndef test_empty():\n    assert total([]) == 0\n"
STUB_CALC = "def total(xs):\n    raise NotImplementedError\n"


def test_a_gated_cycle_with_evidence(repo):
    s = Steps(repo)
    s.commit("Initial readme", {"README.md": "hi\n"})
    red = s.commit(
        "parse empty input", {"tests/test_calc.py": TEST_CALC, "calc.py": STUB_CALC}, phase="red"
    )
    green = s.commit(
        "sum numbers", {"calc.py": "def total(xs):\n    return sum(xs)\n"}, phase="green"
    )
    ref = s.commit(
        "rename arg", {"calc.py": "def total(v):\n    return sum(v)\n"}, phase="refactor"
    )
    red2 = s.commit(
        "negative numbers",
        {"tests/test_calc.py": TEST_CALC + "\n\ndef test_neg():\n    assert total([-1]) == -1\n"},
        phase="red",
    )
    note(repo, red, "red")
    note(repo, green, "green")
    note(repo, red2, "red", [{"id": "tests/test_calc.py::test_neg", "outcome": "passed"}])

    report = audit(repo)
    assert phases(report) == [
        ("Initial readme", None, "none"),
        ("parse empty input", "red", "trailer"),
        ("sum numbers", "green", "trailer"),
        ("rename arg", "refactor", "trailer"),
        ("negative numbers", "red", "trailer"),
    ]
    assert [c.kind for c in report.commits] == [
        "other",
        "mixed",
        "production",
        "production",
        "test",
    ]
    assert rules_fired(report) == [
        ("missing-evidence", "rename arg"),
        ("evidence-contradiction", "negative numbers"),
    ]
    contradiction = report.findings[1]
    assert contradiction.severity == "error"
    assert "tests/test_calc.py::test_neg did not fail for the right reason" in contradiction.message
    assert [(c.status, c.red, c.green, c.refactors, c.time_in_red) for c in report.cycles] == [
        ("complete", red, green, (ref,), 600),
        ("open", red2, None, (), None),
    ]
    assert [c.cycle for c in report.commits] == [None, 0, 0, 0, 1]
    ev = by_subject(report)["parse empty input"].evidence
    assert ev is not None and ev.valid and ev.phase == "red"
    assert ev.targets[0]["light"] == "red"

    m = report.metrics
    assert m["phases"] == {"red": 2, "green": 1, "refactor": 1, "none": 1}
    assert m["trailer_coverage"] == 100.0
    assert m["evidence_coverage"] == 75.0
    assert m["cycles"] == {"total": 2, "complete": 1, "open": 1, "broken": 0}
    assert m["time_in_red"]["median_seconds"] == 600
    assert [(e.kind, e.duration) for e in report.episodes] == [
        ("test-first", 1200),
        ("refactoring", 600),
    ]
    assert m["process"] == {"seq": 50.0, "gra": 15.0, "uni": 5.0, "ref": 50.0}
    assert m["conformance"] == 87.5  # (3/4 clean + 1/1 test-first) / 2


def test_evidence_for_another_tree_phase_or_garbage(repo):
    s = Steps(repo)
    a = s.commit("red: a", {"tests/test_a.py": "def test_a():\n    assert 0\n"})
    b = s.commit("green: a", {"a.py": "A = 1\n"}, phase="green")
    c = s.commit("refactor: a", {"a.py": "A = 2\n"}, phase="refactor")
    note(repo, a, "green", [{"id": "t::a", "outcome": "passed"}])  # phase disagrees
    note(repo, b, "green", tree="0" * 40)
    note(repo, c, "refactor", raw="{not json")
    report = audit(repo)
    got = [(rule, subject) for rule, subject in rules_fired(report)]
    assert got == [
        ("evidence-contradiction", "red: a"),
        ("evidence-contradiction", "green: a"),
        ("evidence-contradiction", "refactor: a"),
    ]
    msgs = [f.message for f in report.findings]
    assert msgs[0] == "evidence says green but the commit is red"
    assert msgs[1].startswith("evidence was recorded for tree 000000000000")
    assert msgs[2] == "the evidence note is invalid: evidence is not valid JSON"
    assert by_subject(report)["refactor: a"].evidence.valid is False


def test_evidence_carried_by_a_rebase_onto_a_new_base_is_no_contradiction(repo):
    # A branch of test-first steps, each with its gate's evidence, is rebased onto a main
    # that moved (a file of the same module changed): git copies each note to the new
    # commit (notes.rewriteRef), whose tree is not the one the gate judged. Its change is
    # the same, so the audit says where the evidence comes from, not that it contradicts.
    s = Steps(repo)
    m = "def add(a, b):\n    return a + b\n"
    base = s.commit("start", {"calc.py": m, "tests/test_calc.py": "def test_x():\n    pass\n"})
    repo.git("branch", "-q", "-M", "main")
    repo.git("switch", "-q", "-c", "feature")
    test = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n"
    red = s.commit("add sub", {"tests/test_sub.py": test}, phase="red")
    sub = m + "\n\ndef sub(a, b):\n    return a - b\n"
    green = s.commit("sub", {"calc.py": sub}, phase="green")
    bad = s.commit("more", {"calc.py": sub + "\n\nX = 1\n"}, phase="refactor")
    note(
        repo,
        red,
        "red",
        [{"id": "tests/test_sub.py::test_sub", "outcome": "failed", "cause": "not-implemented"}],
        parent=base,
    )
    note(repo, green, "green", parent=red)
    # the refactor's note was judged on another change than the commit makes
    note(
        repo, bad, "refactor", tree=repo.git("rev-parse", f"{green}^{{tree}}").strip(), parent=base
    )
    repo.git("switch", "-q", "main")
    s.commit("docs", {"README.md": "calc\n", "calc.py": "# calc\n" + m})
    repo.git("switch", "-q", "feature")
    repo.git("config", "notes.rewriteRef", "refs/notes/tddgit")
    repo.git("rebase", "-q", "main")
    assert repo.git("notes", "--ref=tddgit", "list", "HEAD~2").strip()  # the note followed
    report = audit(repo)
    new_red, new_green, new_bad = (repo.git("rev-parse", f"HEAD~{i}").strip() for i in (2, 1, 0))
    mine = [f for f in report.findings if f.commit in (new_red, new_green, new_bad)]
    got = [(f.rule, f.severity, f.commit) for f in mine]
    assert got == [
        ("evidence-rebased", "note", new_red),
        ("evidence-rebased", "note", new_green),
        ("evidence-contradiction", "error", new_bad),
    ]
    assert "another base" in mine[0].message
    assert mine[0].data["judged_tree"] == repo.git("rev-parse", f"{red}^{{tree}}").strip()
    assert [c.status for c in report.cycles] == ["complete"]


def test_messages_and_files_without_trailers(repo):
    s = Steps(repo)
    s.commit("add widget", {"src/widget.py": "def size():\n    return 3\n"})
    s.commit("skeleton for api", {"src/api.py": 'def get():\n    """Later."""\n'})
    s.commit(
        "test: parser handles empty", {"tests/test_parser.py": "def test_p():\n    assert 0\n"}
    )
    s.commit("feat: parse empty", {"src/parser.py": "def parse():\n    return 1\n"})
    s.commit("Refactoring the parser", {"src/parser.py": "def parse():\n    return 2 - 1\n"})
    s.commit("more parser cases", {"tests/test_parser.py": "def test_p():\n    assert 1\n"})
    s.commit("handle spaces", {"src/parser.py": "def parse():\n    return 1 * 1\n"})
    widget = "from src.widget import size\n\n\ndef test_size():\n    assert size() == 3\n"
    s.commit("tests for widget", {"tests/test_widget.py": widget})
    s.commit("Update docs", {"docs/guide.md": "# guide\n"})

    report = audit(repo)
    assert [(c.subject, c.phase, c.phase_source, c.rule) for c in report.commits] == [
        ("add widget", None, "none", None),
        ("skeleton for api", None, "none", None),
        ("test: parser handles empty", "red", "message", "cc-test"),
        ("feat: parse empty", "green", "message", "cc-feat-fix"),
        ("Refactoring the parser", "refactor", "message", "refactor-word"),
        ("more parser cases", "red", "files", "files:test"),
        ("handle spaces", "green", "files", "files:production"),
        ("tests for widget", None, "none", None),  # a test for old code is no red
        ("Update docs", None, "none", None),
    ]
    assert rules_fired(report) == [
        ("pre-test-code", "add widget"),
        ("test-after-fact", "tests for widget"),
    ]
    after = report.findings[1]
    widget_sha = by_subject(report)["add widget"].sha
    assert after.related == (widget_sha,)
    assert after.files == ("tests/test_widget.py", "src/widget.py")
    assert after.data == {"lag_commits": 7, "lag_seconds": 4200}
    assert "7 commits and 1 hour after src/widget.py" in after.message
    assert [c.status for c in report.cycles] == ["complete", "complete"]
    assert [e.kind for e in report.episodes] == [
        "production",
        "production",
        "test-first",
        "refactoring",
        "test-first",
    ]
    assert report.metrics["process"]["seq"] == 40.0


def test_branches_and_merges_follow_the_first_parent(repo):
    s = Steps(repo)
    s.commit("readme", {"README.md": "x\n"})
    red = s.commit("red: total of empty list", {"tests/test_t.py": "def test_t():\n    assert 0\n"})
    repo.git("checkout", "-q", "-b", "feature")
    green = s.commit("green: total", {"t.py": "def t():\n    return 0\n"})
    repo.git("checkout", "-q", "main")
    s.commit("refactor: tidy tests", {"tests/test_t.py": "def test_t():\n    assert 0 == 1\n"})
    s.minute += 10
    env = {"GIT_AUTHOR_DATE": when(s.minute), "GIT_COMMITTER_DATE": when(s.minute)}
    repo.git("merge", "-q", "--no-ff", "feature", "-m", "Merge branch 'feature'", env=env)
    s.commit("green: total handles none", {"t.py": "def t(x=None):\n    return 0\n"})

    report = audit(repo)
    got = by_subject(report)
    merge = got["Merge branch 'feature'"]
    assert (merge.phase, merge.phase_source, merge.kind, merge.files) == (None, "none", "merge", ())
    assert len(merge.parents) == 2
    assert got["green: total"].phase == "green"
    assert got["green: total"].cycle == 0
    # main's lineage never saw the branch's green: its red is still open after the merge
    assert got["green: total handles none"].cycle == 0
    assert rules_fired(report) == [("refactor-while-red", "refactor: tidy tests")]
    assert report.findings[0].related == (red,)
    assert [(c.status, c.green) for c in report.cycles] == [("complete", green)]
    assert report.metrics["merges"] == 1
    assert report.metrics["commits"] == 5


def test_reverts_and_tcr_are_attempts(repo):
    s = Steps(repo)
    s.commit("readme", {"README.md": "x\n"})
    bad = s.commit("red: wrong test", {"tests/test_a.py": "def test_a():\n    assert 2 == 3\n"})
    s.minute += 10
    env = {"GIT_AUTHOR_DATE": when(s.minute), "GIT_COMMITTER_DATE": when(s.minute)}
    repo.git("revert", "--no-edit", "HEAD", env=env)
    right = s.commit("red: right test", {"tests/test_a.py": "def test_a():\n    assert a() == 1\n"})
    s.commit("❌ TCR - tests failing", {"a.py": "def a(:\n"})
    s.commit("⏪ TCR - revert changes", {"a.py": None})
    green = s.commit("green: a", {"a.py": "def a():\n    return 1\n"})
    s.commit("✅ TCR - tests passing", {"a.py": "def a():\n    return 2 - 1\n"})

    report = audit(repo)
    assert [(c.subject[:22], c.phase, c.attempt) for c in report.commits] == [
        ("readme", None, None),
        ("red: wrong test", None, "undone"),
        ('Revert "red: wrong tes', None, "revert"),
        ("red: right test", "red", None),
        ("❌ TCR - tests failing", None, "tcr-fail"),
        ("⏪ TCR - revert changes", None, "tcr-revert"),
        ("green: a", "green", None),
        ("✅ TCR - tests passing", None, "tcr-pass"),
    ]
    assert by_subject(report)["red: wrong test"].sha == bad
    assert [(c.red, c.green, c.status) for c in report.cycles] == [(right, green, "complete")]
    assert rules_fired(report) == [("pre-test-code", "✅ TCR - tests passing")]
    assert report.metrics["attempts"] == {
        "revert": 1,
        "tcr-fail": 1,
        "tcr-pass": 1,
        "tcr-revert": 1,
        "undone": 1,
    }
    assert [e.kind for e in report.episodes] == ["test-first", "production"]


def test_a_reverted_refactor_or_green_leaves_its_cycle(repo):
    s = Steps(repo)
    env = {}

    def revert() -> None:
        s.minute += 1
        env.update(GIT_AUTHOR_DATE=when(s.minute), GIT_COMMITTER_DATE=when(s.minute))
        repo.git("revert", "--no-edit", "HEAD", env=env)

    red = s.commit("red: a", {"tests/test_a.py": "def test_a():\n    assert a() == 1\n"})
    green = s.commit("green: a", {"a.py": "def a():\n    return 1\n"})
    s.commit("refactor: a", {"a.py": "def a():\n    return 2 - 1\n"})
    revert()  # the refactor
    red2 = s.commit("red: b", {"tests/test_b.py": "def test_b():\n    assert b() == 1\n"})
    s.commit("green: b", {"b.py": "def b():\n    return 1\n"})
    revert()  # the green: the red is open again

    report = audit(repo)
    green_time = by_subject(report)["green: a"].time
    assert [(c.red, c.green, c.refactors, c.status, c.ended) for c in report.cycles] == [
        (red, green, (), "complete", green_time),
        (red2, None, (), "open", None),
    ]
    assert [c.cycle for c in report.commits if c.attempt == "undone"] == [None, None]


def test_rules_on_steps(repo):
    s = Steps(repo)
    s.commit("green: nothing to make pass", {"src/a.py": "def a():\n    return 1\n"})
    s.commit(
        "red: b",
        {
            "tests/test_b.py": "def test_b():\n    assert 0\n",
            "src/b.py": "def b():\n    return 2\n",
        },
    )
    s.commit(
        "green: b",
        {
            "src/b.py": "def b():\n    return 3\n",
            "tests/test_b.py": "def test_b():\n    assert 1\n",
        },
    )
    s.commit(
        "refactor: both",
        {
            "src/b.py": "def b():\n    return 4\n",
            "tests/test_b.py": "def test_b():\n    assert 2\n",
        },
    )
    s.commit("add lib", {"web/price.js": "export const f = () => 1;\n"})
    s.commit("add lib tests", {"web/price.test.js": "import { f } from './price.js';\n"})
    s.commit("add engine", {"src/engine.py": "def run():\n    return 1\n"})
    s.commit("cover engine", {"tests/test_behaviour.py": "from src.engine import run\n"})

    report = audit(repo)
    assert rules_fired(report) == [
        ("green-without-red", "green: nothing to make pass"),
        ("pre-test-code", "red: b"),
        ("test-edited-in-green", "green: b"),
        ("refactor-changes-tests", "refactor: both"),
        ("pre-test-code", "add lib"),
        ("test-after-fact", "add lib tests"),
        ("pre-test-code", "add engine"),
        ("test-after-fact", "cover engine"),
    ]
    msgs = {f.rule + ":" + f.files[0]: f.message for f in report.findings}
    assert msgs["pre-test-code:src/b.py"].startswith("a red step adds production code")
    assert msgs["test-edited-in-green:tests/test_b.py"] == (
        "green changes the red's test file tests/test_b.py"
    )
    assert report.findings[-1].files == ("tests/test_behaviour.py", "src/engine.py")


def test_stub_candidates_judged_during_the_pass_keep_history_order(repo, monkeypatch):
    """Stub candidates are judged in batches as the pass goes (``StubJudge.due``): a batch
    settled after a later commit's finding still lands in history order."""
    s = Steps(repo)
    s.commit("red: a", {"tests/test_a.py": "def test_a():\n    assert a()\n"})
    s.commit("green: a", {"a.py": "def a():\n    return 1\n"})
    s.commit("add b", {"b.py": "def b():\n    return 2\n"})  # judged by its stubs
    s.commit("edit a", {"a.py": "def a():\n    return 2 - 1\n"})  # at once: a change
    s.commit("stub c", {"c.py": "def c():\n    raise NotImplementedError\n"})
    s.commit("add d", {"d.py": "def d():\n    return 4\n"})
    s.commit("stub e", {"e.py": "def e():\n    ...\n"})  # a batch of two: none left over
    at_the_end = audit(repo)
    monkeypatch.setattr(stubjudge, "STUB_BATCH", 2)  # "add b" is settled after "edit a"
    settled = audit(repo)
    assert rules_fired(at_the_end) == [
        ("pre-test-code", "add b"),
        ("pre-test-code", "edit a"),
        ("pre-test-code", "add d"),
    ]
    assert settled.findings == at_the_end.findings
    assert settled.metrics == at_the_end.metrics


def test_odd_files_renames_deletions_and_empty_messages(repo):
    s = Steps(repo)
    s.commit("", {"src/my file.py": "def x():\n    return 1\n"})
    s.commit("ünïcode", {"src/ünï.py": "def u():\n    pass\n"})
    s.commit("newline in a name", {"src/new\nline.py": "X = 1\n"})
    repo.git("mv", "src/my file.py", "src/renamed file.py")
    s.commit("rename")
    s.commit("remove", {"src/ünï.py": None})
    s.commit("binary", {"data.bin": "\0\1\2"})

    report = audit(repo)
    assert [(c.subject, c.kind, [(f.status, f.path) for f in c.files]) for c in report.commits] == [
        ("", "production", [("A", "src/my file.py")]),
        ("ünïcode", "production", [("A", "src/ünï.py")]),
        ("newline in a name", "production", [("A", "src/new\nline.py")]),
        ("rename", "production", [("R", "src/renamed file.py")]),
        ("remove", "production", [("D", "src/ünï.py")]),
        ("binary", "other", [("A", "data.bin")]),
    ]
    assert report.commits[3].files[0].old_path == "src/my file.py"
    # the stub-only new file is allowed; a name git cannot be asked about is not judged
    assert rules_fired(report) == [
        ("pre-test-code", ""),
        ("pre-test-code", "newline in a name"),
    ]
    assert "unreadable" in report.findings[1].message


def test_range_and_path_filter(repo):
    s = Steps(repo)
    s.commit("red: a", {"tests/test_a.py": "def test_a():\n    assert 0\n"})
    base = s.commit("green: a", {"a.py": "A = 1\n"})
    s.commit("docs", {"README.md": "x\n"})
    s.commit("refactor: a", {"a.py": "A = 2 - 1\n"})

    only_new = audit(repo, f"{base}..HEAD")
    assert phases(only_new) == [("docs", None, "none"), ("refactor: a", "refactor", "message")]
    assert only_new.findings == []  # lineage before the range is unknown, not a finding

    only_a = audit(repo, paths=("a.py",))
    assert [c.subject for c in only_a.commits] == ["green: a", "refactor: a"]


@pytest.mark.parametrize("author", ["Ada <ada@example.com>", "Bob <bob@example.com>"])
def test_metrics_per_author(repo, author):
    s = Steps(repo)
    s.commit("red: a", {"tests/test_a.py": "def test_a():\n    assert 0\n"})
    repo.git("commit", "-q", "--amend", "--no-edit", f"--author={author}")
    s.commit("green: a", {"a.py": "A = 1\n"})
    report = audit(repo)
    authors = {a["email"]: a for a in report.metrics["authors"]}
    email = author.split("<")[1].rstrip(">")
    assert authors[email]["commits"] == 1
    assert authors[email]["cycles"]["total"] == 1
    assert authors["tess@example.com"]["episodes"]["test-first"] == 1


def test_path_filter_reports_its_commits_judged_on_the_whole_lineage(repo):
    # A perfect kata: every green follows its red on the lineage. Filtered to the
    # production file, the reds are not shown, but they still open each cycle.
    s = Steps(repo)
    for i in range(3):
        s.commit(f"red: case {i}", {"test_roman.py": f"def test_{i}():\n    assert {i}\n"})
        s.commit(f"green: case {i}", {"roman.py": f"N = {i}\n"})
        s.commit(f"refactor: case {i}", {"roman.py": f"N = {i} + 0\n"})
    whole = audit(repo)
    only = audit(repo, paths=("roman.py",))
    assert phases(only) == [
        (f"{step}: case {i}", step, "message") for i in range(3) for step in ("green", "refactor")
    ]
    assert only.findings == whole.findings == []
    assert [c.status for c in only.cycles] == ["complete"] * 3
    assert [c.cycle for c in only.commits] == [0, 0, 1, 1, 2, 2]
    assert only.metrics["conformance"] == whole.metrics["conformance"]


def test_author_and_date_filters_report_their_commits_judged_on_the_whole_lineage(repo):
    # Pairing: Bob writes each failing test, Ada makes it pass. Ada's greens close Bob's
    # reds; selecting Ada's commits (or the last ones by date) must not cut the reds out
    # of the lineage and call every green a green without red.
    s = Steps(repo)
    bob, ada = "Bob <bob@example.com>", "Ada <ada@example.com>"

    def amend(author: str) -> None:
        date = {"GIT_COMMITTER_DATE": when(s.minute)}  # --since reads the committer date
        repo.git("commit", "-q", "--amend", "--no-edit", f"--author={author}", env=date)

    for i in range(3):
        s.commit(f"red: case {i}", {"test_roman.py": f"def test_{i}():\n    assert {i}\n"})
        amend(bob)
        s.commit(f"green: case {i}", {"roman.py": f"N = {i}\n"})
        amend(ada)
    whole = audit(repo)
    assert whole.findings == []
    for only in (audit(repo, author="ada@"), audit(repo, since=when(25).split()[0])):
        shown = [c.subject for c in only.commits]
        assert "green: case 2" in shown and "red: case 0" not in shown
        assert only.findings == []
        assert all(c.phase == "green" or c.subject.startswith("red") for c in only.commits)
        greens = [c for c in only.commits if c.phase == "green"]
        assert greens and all(c.cycle is not None for c in greens)
        assert all(c.status == "complete" for c in only.cycles)


def test_shallow_boundary_commit_is_not_judged(repo, tmp_path):
    s = Steps(repo)
    s.commit("add widget", {"src/widget.py": "def size():\n    return 3\n"})
    s.commit("more widget", {"src/widget.py": "def size():\n    return 4\n"})
    s.commit("docs", {"README.md": "x\n"})
    clone = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone))
    report = audit(clone)
    boundary, docs = report.commits
    assert (boundary.subject, boundary.kind, boundary.phase, boundary.files) == (
        "more widget",
        "boundary",
        None,
        (),
    )
    assert docs.kind == "other"
    assert report.findings == []


def test_js_stubs_in_a_red_step_are_judged_as_the_red_gate_judges_them(repo):
    s = Steps(repo)
    s.commit("start", {"src/calc.js": "export function add(a, b) {\n  return a + b;\n}\n"})
    test = "import { sub } from '../src/calc.js';\ntest('subtracts', () => {});\n"
    stub = "\nexport function sub(a, b) {\n  throw new Error('not implemented');\n}\n"
    add = "export function add(a, b) {\n  return a + b;\n}\n"
    s.commit("red: sub", {"test/calc.test.js": test, "src/calc.js": add + stub}, phase="red")
    code = "\nexport function mul(a, b) {\n  return a * b;\n}\n"
    s.commit(
        "red: mul",
        {"test/mul.test.js": test, "src/calc.js": add + stub + code},
        phase="red",
    )
    report = audit(repo)
    fired = [r for r in rules_fired(report) if r[0] == "pre-test-code"]
    assert fired == [("pre-test-code", "start"), ("pre-test-code", "red: mul")]
