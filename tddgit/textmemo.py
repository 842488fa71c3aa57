"""What the audit remembers of file texts, bounded by the characters held (issue 27,
item 9: peak RSS <= 400 MB on any history).

The content questions read each version of a file once and remember what they made of
it (a file's new version at one commit is its old version at the next commit that
changes it). ``functools.lru_cache`` bounds that by the number of texts: on a history
with modules of several hundred kilobytes (numpy's tests, sympy's) 64 of them and what
was made of them (line lists, counts, trees, dumps) took hundreds of megabytes. A
``TextMemo`` bounds it by the characters of the texts it holds, dropping the least
recently used first; what is made of a text is about proportional to it, so the memory
is bounded too. The answers are the same, only recomputed sooner on huge histories.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

# Characters of texts each memo holds at most: twice the longest files of real histories
# (a 400 KB test module), so the two versions of a change always fit.
CHARS = 1_500_000
_ABSENT = object()


class TextMemo(Generic[T]):
    """``make(text)``, remembered by ``text`` while the texts held stay within ``chars``
    characters and ``entries`` texts (least recently used dropped first)."""

    def __init__(self, make: Callable[[str], T], chars: int = CHARS, entries: int = 64) -> None:
        self._make = make
        self._chars = chars
        self._entries = entries
        # (an OrderedDict: a plain dict's first key is slow to find after many deletions
        # from its front, the holes stay until it is resized)
        self._held: OrderedDict[str, T] = OrderedDict()
        self._size = 0  # characters of the texts in _held

    def __call__(self, text: str) -> T:
        held = self._held
        found = held.get(text, _ABSENT)
        if found is not _ABSENT:
            held.move_to_end(text)  # the most recently used is last
            return found  # type: ignore[return-value]
        made = self._make(text)
        self._size += len(text)
        while held and (self._size > self._chars or len(held) >= self._entries):
            self._size -= len(held.popitem(last=False)[0])
        held[text] = made
        return made

    def held(self) -> int:
        """Characters of the texts held now."""
        return self._size

    def cache_clear(self) -> None:
        self._held.clear()
        self._size = 0


def text_memo(chars: int = CHARS, entries: int = 64) -> Callable[[Callable[[str], T]], TextMemo[T]]:
    """``TextMemo`` as a decorator of a function of one text."""
    return lambda make: TextMemo(make, chars, entries)
