"""The agent-neutral records: one hook event in, one decision out.

Named tuples, not dataclasses: every hook call defines them, and a frozen dataclass costs
about half a millisecond to define (its methods are generated and compiled), a named tuple
a tenth of that. Immutable either way; nothing mutates ``Decision.details`` (a shared
empty default).
"""

from __future__ import annotations

from typing import Any, NamedTuple

# What a hook event asks, whatever the agent calls it.
PRE_WRITE = "pre-write"
POST_WRITE = "post-write"
STOP = "stop"
SESSION_START = "session-start"
OTHER = "other"  # an event the guard has nothing to say about

# What the guard answers.
ALLOW = "allow"
DENY = "deny"  # a write refused before it happens
REVERT = "revert"  # a write undone after it happened
BLOCK = "block"  # a stop refused: the agent goes on working
CONTEXT = "context"  # session start: text for the agent


class Write(NamedTuple):
    """One file a tool is about to write (or has written): ``path`` as the agent gave it."""

    path: str
    action: str = "update"  # add | update | delete


class Event(NamedTuple):
    agent: str
    kind: str
    native: str  # the agent's own event name
    session: str
    cwd: str | None = None
    tool: str = ""
    writes: tuple[Write, ...] = ()
    stop_hook_active: bool = False
    command: str = ""  # a shell tool's command line (pre-write: the command rules)


class Decision(NamedTuple):
    verdict: str
    rule: str
    reason: str = ""
    # a line for the person watching (a fail-open warning, a measurement that could not be
    # made); it never changes the verdict
    warning: str = ""
    details: dict[str, Any] = {}  # noqa: RUF012 - read only (see above)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "rule": self.rule, "reason": self.reason}
        if self.warning:
            out["warning"] = self.warning
        if self.details:
            out["details"] = self.details
        return out


class Reply(NamedTuple):
    """What the hook process says back to the agent."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
