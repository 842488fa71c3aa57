"""A squash merge's commit read as the ordered steps of the pull request it squashed.

GitHub's default squash message lists each squashed commit's message, oldest first, as
``* subject`` followed by its body, so the ``GSD-Phase`` trailers of the pull request's
commits sit in the middle of the body, not in its last paragraph; git's own
``git merge --squash`` message (``Squashed commit of the following:``) lists them newest
first, indented. Read as one commit, the last trailer would win and the whole pull request
would be one ``refactor`` changing tests and code. Read here, it is the steps it was made
of: the lineage goes through each, in order, and a ``squashed-steps`` note says the steps
were squashed (their order is taken from the message; each step's own tests and evidence
are not in main's history any more: ``tddgit notes carry`` brings the evidence).
"""

from __future__ import annotations

import re

from tddgit.audit.phases import trailer_phase

KEY = "GSD-Phase"
# A trailer line anywhere in the message, as either format writes it (git indents it).
_TRAILER = re.compile(rf"^[ \t]*{KEY}[ \t]*:[ \t]*(\S+)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_GIT_SQUASH = re.compile(r"^Squashed commit of the following:\s*$", re.MULTILINE)


def squashed_steps(message: str) -> tuple[str, ...]:
    """The phases of the squashed commits, oldest first; () unless there are two or more."""
    found = [trailer_phase(m.group(1)) for m in _TRAILER.finditer(message)]
    phases = tuple(p for p in found if p)
    if len(phases) < 2:
        return ()
    if _GIT_SQUASH.search(message):
        return phases[::-1]  # git lists the squashed commits newest first
    return phases
