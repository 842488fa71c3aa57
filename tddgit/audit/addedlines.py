"""The lines a change adds, read from a file's two versions (``tddgit.audit.changes``).

``added_lines`` is a diff's + lines, counted as a multiset (linear on the long files of
real histories); ``meaningful`` drops blank and comment-only lines; ``squash`` drops the
spacing. Each text is split and counted once (``text_memo``): a file's new version at one
commit is its old version at the next that changes it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from tddgit.textmemo import text_memo

# A line that is only a comment (or the middle of a block comment), in the common languages.
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|/\*|\*|\*/|--|<!--|-->|;)")


def added_lines(old: str, new: str) -> list[str]:
    """The lines of ``new`` that ``old`` does not have (a diff's + lines, counted as a
    multiset: linear, where a real diff is quadratic on the long files of real histories),
    without those inside a block comment (``/* ... */``) of ``new``: of each line that
    ``new`` has more often than ``old``, the occurrences after the first ``old`` has."""
    o, n = _version(old), _version(new)
    had = o.counts
    # The (line, count) pairs only one side has, by set difference of two remembered
    # sets (C speed): the lines whose counts differ. Most changes touch a few lines.
    wanted: dict[str, int] = {}  # bare line -> its occurrences in old (the first kept)
    for bare, times in n.items - o.items:
        before = had.get(bare, 0)
        if times > before:
            wanted[bare] = before
    if not wanted:
        return []
    bares, hidden, lines = n.bares, n.hidden, n.lines
    out: list[str] = []
    seen = dict.fromkeys(wanted, 0)
    for j in [j for j, bare in enumerate(bares) if bare in wanted]:
        bare = bares[j]
        times = seen[bare]
        seen[bare] = times + 1
        if times >= wanted[bare] and j not in hidden:
            out.append(lines[j])
    return out


class _Version(NamedTuple):
    """One text's lines as ``added_lines`` compares them, made once per text."""

    lines: list[str]
    bares: list[str]  # each line without its trailing comment and spaces
    counts: dict[str, int]  # bare line -> how many times
    items: frozenset[tuple[str, int]]
    hidden: set[int]  # lines wholly inside a block comment


@text_memo()
def _version(text: str) -> _Version:
    """A file's new version at one commit is its old version at the next that changes
    it: each is split, stripped and counted once (comprehensions and ``Counter``: a loop
    per line was a tenth of a first audit)."""
    lines = text.splitlines()
    sub = _TRAILING.sub
    # a trailing comment added changes no code (no # or //: no comment to strip)
    bares = [(sub("", ln) if "#" in ln or "//" in ln else ln).rstrip() for ln in lines]
    counts = dict(Counter(bares))
    hidden = _block_comment_lines(text) if "/*" in text else set()
    return _Version(lines, bares, counts, frozenset(counts.items()), hidden)


_TRAILING = re.compile(r"\s+(?://|#)(?!.*['\"`]).*$")


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def _block_comment_lines(text: str) -> set[int]:
    """Indexes of the lines that lie wholly inside a ``/* ... */`` comment."""
    out: set[int] = set()
    # Line numbers counted on from the previous comment, not from the start of the text
    # each time: that was quadratic on C sources with thousands of comments.
    line = pos = 0
    for m in _BLOCK_COMMENT.finditer(text):
        first = line + text.count("\n", pos, m.start())
        last = line = first + text.count("\n", m.start(), m.end())
        pos = m.end()
        before = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        after_end = text.find("\n", m.end())
        after = text[m.end() : after_end if after_end >= 0 else len(text)]
        lo = first if not before.strip() else first + 1
        hi = last if not after.strip() else last - 1
        out.update(range(lo, hi + 1))
    return out


def meaningful(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.strip() and not _COMMENT_LINE.match(ln)]


def squash(text: str) -> str:
    """``text`` without whitespace (``str.split`` and ``\\s`` know the same spaces)."""
    return "".join(text.split())
