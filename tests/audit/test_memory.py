"""The audit's memory on big histories (issue 27, item 9: peak RSS <= 400 MB): what it
remembers of file texts is bounded by the characters held, not by the number of texts."""

from __future__ import annotations

import gc
import subprocess
import tracemalloc

from tddgit.audit.addedlines import added_lines
from tddgit.audit.changes import _py_behaviour, adds_code, adds_test_behaviour_many
from tddgit.audit.pychunks import parse as changes_parse
from tddgit.textmemo import TextMemo
from tests.audit.helpers import audit
from tests.conftest import GitRepo


def _module(seed: int, functions: int = 4000) -> str:
    """A long module (~170 KB), distinct per seed, as numpy's and sympy's tests are."""
    return "".join(f"def f_{seed}_{i}(x):\n    return x * {i} + {seed}\n" for i in range(functions))


def _held_after(work: list[str], judge: object) -> float:
    """Megabytes still allocated after ``judge`` ran on each text and the garbage went."""
    gc.collect()
    tracemalloc.start()
    try:
        for text in work:
            judge(text)  # type: ignore[operator]
        gc.collect()
        return tracemalloc.get_traced_memory()[0] / 1e6
    finally:
        tracemalloc.stop()


def test_the_line_comparison_of_many_long_modules_holds_a_bounded_memory() -> None:
    # 24 distinct 170 KB modules (4 MB of text): the 24 texts an lru_cache kept, with
    # their lines, counts and positions, held 135 MB here (and 71 MB judging code).
    texts = [_module(s) for s in range(24)]
    held = _held_after(texts, lambda t: added_lines(t, t + "y = 2\n"))
    assert held < 35, f"{held:.0f} MB held after comparing 24 long modules"


def test_the_code_judgement_of_many_long_modules_holds_a_bounded_memory() -> None:
    texts = [_module(s, 2000) for s in range(100, 124)]
    held = _held_after(texts, lambda t: adds_code(t, t + "def g():\n    return 1\n", "m.py"))
    assert held < 35, f"{held:.0f} MB held after judging 24 long modules"


def test_a_text_memo_keeps_at_most_its_characters_least_recently_used_first() -> None:
    made: list[str] = []

    def make(text: str) -> int:
        made.append(text)
        return len(text)

    memo = TextMemo(make, chars=10, entries=100)
    assert [memo("aaaa"), memo("bbbb"), memo("aaaa")] == [4, 4, 4]
    assert made == ["aaaa", "bbbb"]  # the second "aaaa" was remembered
    assert memo("cccc") == 4  # 12 characters: "bbbb", the least recently used, goes
    assert memo.held() == 8
    assert memo("aaaa") == 4 and made == ["aaaa", "bbbb", "cccc"]
    assert memo("bbbb") == 4 and made[-1] == "bbbb"  # made again
    assert memo("x" * 50) == 50  # longer than the bound alone: held alone
    assert memo.held() == 50


def test_a_text_memo_keeps_at_most_its_entries() -> None:
    memo = TextMemo(len, chars=1000, entries=3)
    for t in ("a", "b", "c", "d"):
        memo(t)
    assert memo.held() <= 3


def _history(repo: GitRepo, commits: int) -> None:
    """``commits`` commits that each add a test to one test module (a cold audit judges
    each with the AST), made with git fast-import."""
    app = "def f(x):\n    return x + 1\n"
    lines = []
    for i in range(commits):
        text = "from app import f\n\n" + "".join(
            f"def test_{j}():\n    assert f({j}) == {j + 1}\n\n" for j in range(i + 1)
        )
        lines.append(
            f"commit refs/heads/main\ncommitter A <a@x> {1_700_000_000 + 60 * i} +0000\n"
            f"data 6\nstep {i % 10}\n"
            + ("" if i else f"M 100644 inline app.py\ndata {len(app)}\n{app}\n")
            + f"M 100644 inline tests/test_m.py\ndata {len(text)}\n{text}\n"
        )
    subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=repo.root, input="".join(lines).encode(), check=True
    )
    repo.git("symbolic-ref", "HEAD", "refs/heads/main")


def test_the_pass_leaves_no_cyclic_garbage_of_the_content_judgements(repo: GitRepo) -> None:
    # The pass runs with the cyclic GC off; ast.dump (a recursive closure per call) and
    # the test-function walk made a reference cycle each time: on numpy, 95k functions
    # and 361k cells after 5k commits, freed only after the pass (never: gc.freeze).
    _history(repo, 300)
    gc.unfreeze()  # what earlier audits of this process froze: freed now, not counted
    gc.collect()
    audit(repo)
    gc.unfreeze()  # the pass froze what it left (its records, and that garbage)
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        left = [o for o in gc.garbage if type(o).__name__ == "function"]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert len(left) < 150, f"{len(left)} functions left in reference cycles by 300 commits"


def _tests_module(seed: int, tests: int = 400) -> str:
    return "".join(
        f"def test_{seed}_{i}():\n    assert compute({i}, {seed}) == {i + seed}\n\n"
        for i in range(tests)
    )


def test_a_commit_changing_many_test_files_is_not_parsed_as_one_tree() -> None:
    # One file a cut cannot read unit by unit (a docstring with more column-0 lines than
    # pieces are ever joined), 19 that it can: the 20 files joined were parsed as one (74 MB
    # at the peak here, now 19; sympy: 1.5 MB of tests renumbered in one commit, 330 MB).
    odd = '"""\n' + "".join(f"line {i}\n" for i in range(80)) + '"""\n'
    olds = [odd + _tests_module(0)] + [_tests_module(s) for s in range(1, 20)]
    news = [t.replace("def test_", "def test_renamed_") for t in olds]
    versions = [
        (f"tests/test_{i}.py", o, n) for i, (o, n) in enumerate(zip(olds, news, strict=True))
    ]
    gc.collect()
    tracemalloc.start()
    try:
        judged = adds_test_behaviour_many(versions)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    assert judged is False  # renamed tests, the same checks
    assert judged == _py_behaviour("\n".join(olds), "\n".join(news))  # as joined
    assert peak < 40, f"{peak:.0f} MB at the peak of judging 20 test files"


def test_the_statement_memo_keeps_at_most_its_entries_and_characters() -> None:
    from tddgit.audit import pystmts

    memo = pystmts.StmtMemo(lambda stmt, scope: len(scope))
    text = "".join(f"x_{i} = {i}\n" for i in range(pystmts._LIMIT + 100))
    lines = pystmts.source_lines(text)
    for stmt in changes_parse(text).body:
        memo.of(stmt, lines, "S.")
        assert len(memo._seen) <= pystmts._LIMIT
    long = "y = '" + "z" * (pystmts._CHARS // 3) + "'\n"
    for n in range(4):
        body = changes_parse(long.replace("y", f"y{n}")).body
        memo.of(body[0], pystmts.source_lines(long.replace("y", f"y{n}")))
        assert memo._chars <= pystmts._CHARS
