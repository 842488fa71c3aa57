"""A run's transcript: JSON lines in ``<git dir>/tddgit/sessions/<id>.jsonl``.

One line per event, appended and flushed as it happens (a killed run keeps what it did):
``start``, each ``request`` as sent, each ``response`` as received with its usage and
duration, each ``tool`` call and result, each ``gate`` verdict, and the ``end``. The
replay provider reads the ``response`` lines back.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import IO, Any

from tddgit.agent.providers import Usage
from tddgit.console import shown_path
from tddgit.git import Repo


def new_session_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


class Transcript:
    def __init__(self, repo: Repo, session_id: str | None = None) -> None:
        self.session_id = session_id or new_session_id()
        directory = repo.tddgit_dir / "sessions"
        directory.mkdir(parents=True, exist_ok=True)
        self.path: Path = directory / f"{self.session_id}.jsonl"
        self._fh: IO[str] | None = self.path.open("a", encoding="utf-8")

    def record(self, event: str, **fields: Any) -> None:
        if self._fh is None:
            return
        line = json.dumps({"event": event, "time": round(time.time(), 3), **fields}, default=str)
        self._fh.write(line + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def session_summary(
    session_id: str,
    turns: int,
    provider: str,
    model: str,
    usage: Usage,
    transcript: Path,
    cwd: Path,
) -> list[str]:
    """The lines every model run ends with: the session, its tokens and estimated cost, and
    where its transcript is."""
    from tddgit.agent.prices import PRICES_AS_OF, estimate_cost

    tokens = f"{usage.input} in / {usage.output} out"
    if usage.cache_read or usage.cache_write:
        tokens += f" (cache: {usage.cache_read} read, {usage.cache_write} written)"
    cost = estimate_cost(model, usage)
    price = f"~${cost:.4f} (prices of {PRICES_AS_OF})" if cost is not None else "no price known"
    return [
        f"  session {session_id}: {turns} turns, {provider} {model}, tokens {tokens}, {price}",
        f"  transcript: {shown_path(transcript, cwd)}",
    ]
