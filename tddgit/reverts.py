"""Which commit a ``git revert`` commit undoes: read from the message git writes
("This reverts commit <sha>."). One definition for the gates' lineage (``tddgit.lineage``)
and the audit (``tddgit.audit``), so both read a revert the same way: an immediate revert
(its first parent is the commit it reverts) puts the lineage back where it was before that
commit — reverting a green reopens its red, reverting a red closes it."""

from __future__ import annotations

import re

_REVERT = re.compile(r"This reverts commit ([0-9a-f]{7,64})")
_REVERT_TEXT = "This reverts commit "


def reverted_commit(message: str) -> str | None:
    """The commit that ``git revert`` says this commit reverts, if any."""
    if _REVERT_TEXT not in message:  # nearly every commit: skip the regex
        return None
    m = _REVERT.search(message)
    return m.group(1) if m else None
