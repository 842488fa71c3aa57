"""Tests done and failed so far, while pytest runs: the probe appends a JSON line per test
phase to its output file as the run goes; a thread follows the file and reports counts."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_SECONDS = 0.25


class _Tally:
    def __init__(self) -> None:
        self.done: set[str] = set()
        self.failed: set[str] = set()

    def add(self, line: bytes) -> None:
        try:
            rec = json.loads(line)
        except ValueError:
            return
        if not isinstance(rec, dict) or rec.get("t") != "report":
            return
        test, when, outcome = str(rec.get("id")), rec.get("when"), rec.get("outcome")
        if when == "call" or (when == "setup" and outcome != "passed"):
            self.done.add(test)
        if outcome == "failed":
            self.failed.add(test)


@contextmanager
def follow_probe(path: Path, report: Callable[[int, int], None] | None) -> Iterator[None]:
    """While in the block, call ``report(done, failed)`` each time the counts change."""
    if report is None:
        yield
        return
    stop = threading.Event()

    def follow() -> None:
        tally, offset, rest, shown = _Tally(), 0, b"", (0, 0)
        while not stop.wait(POLL_SECONDS):
            try:
                with path.open("rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
            except OSError:
                continue
            offset += len(chunk)
            *lines, rest = (rest + chunk).split(b"\n")
            for line in lines:
                tally.add(line)
            counts = (len(tally.done), len(tally.failed))
            if counts != shown:
                shown = counts
                report(*counts)

    thread = threading.Thread(target=follow, name="tddgit-probe-follow", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
