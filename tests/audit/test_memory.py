"""The audit's memory on big histories (issue 27, item 9: peak RSS <= 400 MB): what it
remembers of file texts is bounded by the characters held, not by the number of texts."""

from __future__ import annotations

import gc
import tracemalloc

from tddgit.audit.changes import added_lines, adds_code
from tddgit.textmemo import TextMemo


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
