"""The audit's answers about file contents, kept in the git dir (issue 27 item 9): a
second audit of the same history reads (almost) no blobs and says exactly the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tddgit.audit.answercache import FILE_NAME, SCHEMA, AnswerCache, question
from tddgit.audit.engine import Auditor
from tddgit.blobs import BlobReader
from tddgit.config import load_config
from tddgit.git import find_repo
from tddgit.history import open_history
from tddgit.paths import Classifier
from tests.audit.helpers import Steps
from tests.conftest import GitRepo

CALC = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
TEST = "from calc import total\n\n\ndef test_empty():\n    assert total([]) == 0\n"


def history(repo: GitRepo) -> dict[str, str]:
    """A red and its green, a test reformatted, a new case, a stub, a docstring, code
    without a test."""
    s = Steps(repo)
    return {
        "red": s.commit("test total", {"test_calc.py": TEST}),
        "green": s.commit("add calc", {"calc.py": CALC}),
        "lint": s.commit("lint", {"test_calc.py": TEST.replace("[]", "[ ]")}),
        "case": s.commit(
            "another case",
            {"test_calc.py": TEST + "\n\ndef test_one():\n    assert total([1]) == 1\n"},
        ),
        "stub": s.commit("stub sub", {"sub.py": "def sub(a, b):\n    pass\n"}),
        "doc": s.commit("document", {"calc.py": '"""Sums."""\n' + CALC}),
        "code": s.commit("add mul", {"mul.py": "def mul(a, b):\n    return a * b\n"}),
    }


def pass_over(root: Path) -> tuple[list[tuple[str, ...]], list[tuple[Any, ...]], int]:
    """(findings, records, blobs read) of one audit pass over HEAD."""
    r = find_repo(root)
    with open_history(r, ("HEAD",), reverse=True) as commits, BlobReader(r) as blobs:
        auditor = Auditor(Classifier.from_config(load_config(r.root)), {}, blobs)
        auditor.prepare()  # as run_audit does: the answers and the paths' kinds
        for c in commits:
            auditor.feed(c)
        findings, _ = auditor.finish()
        records = [(x.subject, x.phase, x.phase_source, x.attempt) for x in auditor.records]
        return [(f.rule, f.commit, f.message) for f in findings], records, blobs.reads


def cache_file(repo: GitRepo) -> Path:
    return find_repo(repo.root).tddgit_dir / FILE_NAME


def test_second_audit_reads_only_what_reds_need_and_says_the_same(repo: GitRepo) -> None:
    shas = history(repo)
    first = pass_over(repo.root)
    # the stub and the docstring add no code
    assert [f[:2] for f in first[0]] == [("pre-test-code", shas["code"])]
    assert [r[1] for r in first[1]] == ["red", "green", None, "red", None, "green", None]
    second = pass_over(repo.root)
    assert second[:2] == first[:2]
    # Cold: the versions each judged change needs (1 + 2 + 2 test, 1 + 1 production).
    # Warm: none (a red's scope comes from its test files' import lines, kept).
    assert first[2] == 7
    assert second[2] == 0


def test_a_test_text_resolves_anew_once_the_tree_changed(repo: GitRepo) -> None:
    """The same test text, written before its module and again after it: the second red's
    scope is the module (it was remembered as resolving to nothing, any production)."""
    s = Steps(repo)
    s.commit("test total", {"test_calc.py": TEST})
    s.commit("add calc", {"calc.py": CALC})
    s.commit("drop the test", {"test_calc.py": None})
    s.commit("test total again", {"test_calc.py": TEST})
    s.commit("stub sub", {"sub.py": "def sub(a, b):\n    pass\n"})
    records = pass_over(repo.root)[1]
    assert [r[1] for r in records] == ["red", "green", None, "red", None]


def test_a_corrupt_or_foreign_file_is_ignored_and_rewritten(repo: GitRepo) -> None:
    history(repo)
    first = pass_over(repo.root)
    path = cache_file(repo)
    good = json.loads(path.read_text())
    for bad in (
        "{not json",
        json.dumps({**good, "key": "another analysis"}),
        json.dumps({**good, "answers": {"zz": "1"}}),
        json.dumps({**good, "answers": {k: 1 for k in good["answers"]}}),
        json.dumps([good]),
    ):
        path.write_text(bad)
        again = pass_over(repo.root)
        assert again[:2] == first[:2]
        assert again[2] == first[2]  # nothing trusted: everything read again
        assert json.loads(path.read_text()) == good


def test_the_kinds_of_paths_are_kept_per_classifier(repo: GitRepo) -> None:
    """A warm audit classifies no path it has seen (the kinds are kept); a changed
    classifier (here: `calc.py` configured as a test file) classifies them all anew and
    its audit says what that classifier says."""
    history(repo)
    first = pass_over(repo.root)
    path = cache_file(repo)
    doc = json.loads(path.read_text())
    [(of, kinds)] = doc["kinds"].items()
    assert kinds == {
        "test_calc.py": "test",
        "calc.py": "production",
        "sub.py": "production",
        "mul.py": "production",
    }
    saved = path.stat().st_mtime_ns
    assert pass_over(repo.root)[:2] == first[:2]
    assert path.stat().st_mtime_ns == saved  # nothing new: the file is not written
    repo.write(".tddgit.yml", "test_globs: ['test_*.py', 'calc.py']\n")
    other = pass_over(repo.root)
    kinds_by = json.loads(path.read_text())["kinds"]
    assert kinds_by[of] == kinds  # the first classifier's are kept beside
    [new] = [k for k in kinds_by if k != of]
    assert kinds_by[new]["calc.py"] == "test"
    assert [r[1] for r in other[1]] != [r[1] for r in first[1]]


def test_a_corrupt_kinds_map_makes_the_file_ignored(repo: GitRepo) -> None:
    history(repo)
    first = pass_over(repo.root)
    path = cache_file(repo)
    good = json.loads(path.read_text())
    [of] = good["kinds"]
    for bad in ({of: {"calc.py": "tests"}}, {of: {"calc.py": ["test"]}}, {"x": {}}, [of]):
        path.write_text(json.dumps({**good, "kinds": bad}))
        again = pass_over(repo.root)
        assert again[:2] == first[:2]
        assert again[2] == first[2]  # nothing trusted: everything read again
        assert json.loads(path.read_text()) == good


def test_a_well_formed_answer_is_trusted(repo: GitRepo) -> None:
    """The cache is what the second audit uses (an answer planted under the right key
    shows in the report), so it must name its inputs exactly."""
    shas = history(repo)
    pass_over(repo.root)
    path = cache_file(repo)
    doc = json.loads(path.read_text())
    stub = question("stubs", shas["stub"], "adds", "A::sub.py", "")
    assert doc["answers"][stub] == ""
    doc["answers"][stub] = "sub.py: planted"
    path.write_text(json.dumps(doc))
    findings = pass_over(repo.root)[0]
    assert ("pre-test-code", shas["stub"]) in [(f[0], f[1]) for f in findings]
    assert any(f[2].endswith("sub.py: planted") for f in findings)


def test_nothing_is_kept_without_a_directory(tmp_path: Path) -> None:
    cache = AnswerCache(None)
    cache.put(question("tests", "a"), "1")
    cache.save()
    assert cache.get(question("tests", "a")) is None
    assert list(tmp_path.iterdir()) == []


def test_two_audits_keep_each_others_answers(tmp_path: Path) -> None:
    one, two = AnswerCache(tmp_path), AnswerCache(tmp_path)
    one.get("0" * 24)
    two.get("0" * 24)  # both loaded the empty file before either saved
    one.put(question("a"), "1")
    two.put(question("b"), "0")
    one.save()
    two.save()
    doc = json.loads((tmp_path / FILE_NAME).read_text())
    assert doc["schema"] == SCHEMA
    assert doc["answers"] == {question("a"): "1", question("b"): "0"}


def test_a_red_with_long_import_lines_is_read_once(repo: GitRepo) -> None:
    """A test file with hundreds of imports: its import lines are kept with the answer,
    so a second audit reads no blob at all (on pytest's history such commits were 86 of
    the 87 that a warm audit still read, issue 27 item 9)."""
    s = Steps(repo)
    many = "".join(f"import module_number_{i}\n" for i in range(300))
    s.commit("test total", {"test_calc.py": TEST})
    case = "\n\ndef test_one():\n    assert total([1]) == 1\n"
    s.commit("another case", {"test_calc.py": many + TEST + case})
    first = pass_over(repo.root)
    doc = json.loads(cache_file(repo).read_text())
    assert any(v.startswith("1{") and len(v) > 4096 for v in doc["answers"].values())
    second = pass_over(repo.root)
    assert second[:2] == first[:2]
    assert [r[1] for r in first[1]] == ["red", "red"]
    assert first[2] == 3
    assert second[2] == 0


def _imported(module: str) -> tuple[set[str], set[str]]:
    """The tddgit modules ``module`` imports: (at its top, inside its functions)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    top: set[str] = set()
    local: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tddgit."):
            top.add(node.module or "")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("tddgit."):
                    local.add(inner.module or "")
    return top, local


def test_every_module_that_computes_a_kept_answer_is_in_the_caches_key() -> None:
    """The rules and the stub judge load the modules that compute the kept answers inside
    the functions that ask them (stub judgement, bent tests); those and what they import of
    the audit's and the detectors' analysis decide the answers, so a change to any of them
    must start a new cache (it was missing the typing-only comparison when that joined the
    stub judgement)."""
    from tddgit.audit import answercache

    analysis = ("tddgit.audit.", "tddgit.detectors.")
    asking = ("tddgit.audit.rules", "tddgit.audit.stubjudge")
    todo = [m for a in asking for m in _imported(a)[1] if m.startswith(analysis)]
    deciding: set[str] = set()
    while todo:
        module = todo.pop()
        if module in deciding:
            continue
        deciding.add(module)
        top, local = _imported(module)
        todo += [m for m in top | local if m.startswith(analysis)]
    assert "tddgit.audit.typingonly" in deciding
    assert deciding - set(answercache._ANALYSIS) == set()


def test_a_test_after_fact_reads_its_code_once(repo: GitRepo) -> None:
    """Whether the code a late test covers was an empty placeholder is kept too: the
    second audit reads no production file to say test-after-fact again."""
    s = Steps(repo)
    code = s.commit("add calc", {"calc.py": CALC})
    late = s.commit("test calc", {"test_calc.py": TEST})
    first = pass_over(repo.root)
    assert [f[:2] for f in first[0] if f[0] == "test-after-fact"] == [("test-after-fact", late)]
    assert code
    second = pass_over(repo.root)
    assert second[:2] == first[:2]
    assert first[2] > 0
    assert second[2] == 0


def test_a_file_never_grows_past_what_is_read(tmp_path: Path, monkeypatch: Any) -> None:
    """Answers may be long (import lines, 256 KB): a file over ``MAX_BYTES`` would be
    ignored by every later audit, so saving drops the oldest answers until it fits."""
    from tddgit.audit import answercache

    monkeypatch.setattr(answercache, "MAX_BYTES", 64 * 1024)
    cache = AnswerCache(tmp_path)
    for i in range(40):
        cache.put(question("tests", str(i)), "1" + "x" * 4000)
    cache.save()
    assert (tmp_path / FILE_NAME).stat().st_size <= 64 * 1024
    again = AnswerCache(tmp_path)
    assert again.get(question("tests", "39")) == "1" + "x" * 4000  # the newest kept
    assert again.get(question("tests", "0")) is None
