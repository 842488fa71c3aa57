"""Terminal output: colour only on a TTY (``NO_COLOR`` honoured), diagnostics on stderr.

rich is imported lazily, only where a progress display or a table is really drawn, so
hook start-up stays cheap.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import IO, Any

_COLOURS = {
    "red": "31",
    "green": "32",
    "amber": "33",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "dim": "2",
    "bold": "1",
}


def shown_path(path: str | os.PathLike[str], cwd: str | os.PathLike[str]) -> str:
    """``path`` as the user should see it: relative to ``cwd``, whole on another drive."""
    try:
        return os.path.relpath(path, cwd)
    except ValueError:  # another drive (Windows)
        return os.fspath(path)


def colour_enabled(stream: IO[str] | None = None) -> bool:
    """Colour only when writing to a terminal and the user has not opted out."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR") or os.environ.get("CLICOLOR_FORCE"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    s = stream if stream is not None else sys.stdout
    try:
        return s.isatty()
    except (AttributeError, ValueError):
        return False


def paint(text: str, colour: str, stream: IO[str] | None = None) -> str:
    code = _COLOURS.get(colour)
    if not code or not colour_enabled(stream):
        return text
    return f"\033[{code}m{text}\033[0m"


def out(text: str = "") -> None:
    """A line of output on stdout. A reader that went away (``| head -1``) costs the rest of
    the output, never the work still to do after it (a commit, its note)."""
    try:
        sys.stdout.write(text + "\n")
    except BrokenPipeError:
        stdout_gone()


def stdout_gone() -> None:
    """stdout's reader closed the pipe: send what is still buffered, and everything after
    it, to the null device (the Python documentation's recipe for SIGPIPE)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 test``, ``2 tests``; ``many`` for irregular plurals."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def outcome_count(n: int, outcome: str) -> str:
    """``2 passed``, ``1 error``, ``2 errors``: of the outcomes only `error` is a noun."""
    return plural(n, outcome) if outcome == "error" else f"{n} {outcome}"


def err(text: str = "") -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def warn(text: str) -> None:
    err(paint("tddgit: warning: ", "yellow", sys.stderr) + text)


def error_line(text: str) -> None:
    err(paint("tddgit: error: ", "red", sys.stderr) + text)


def progress_drawn() -> bool:
    """Whether ``progress`` draws its display (stderr a terminal, progress not turned off
    with ``TDDGIT_NO_PROGRESS``)."""
    return not os.environ.get("TDDGIT_NO_PROGRESS") and sys.stderr.isatty()


@contextmanager
def progress(description: str, *, total: int | None = None, lines: bool = False) -> Iterator[Any]:
    """A progress display on stderr for work that can take more than a second.

    Yields an object with ``advance(n=1)`` and ``update(description=...)``. Draws
    nothing unless stderr is a terminal; with ``lines``, elsewhere (a CI log, a pipe) the
    latest description is written as a line every ``TDDGIT_PROGRESS_EVERY`` seconds
    (default 5), the first after that long: a quick run writes nothing.
    """
    if os.environ.get("TDDGIT_NO_PROGRESS"):
        yield _NullProgress()
        return
    if not sys.stderr.isatty():
        if not lines:
            yield _NullProgress()
            return
        with _LineProgress(description, _every()) as line:
            yield line
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True, no_color=not colour_enabled(sys.stderr))
    columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns.append(BarColumn())
        columns.append(TextColumn("{task.completed}/{task.total}"))
    columns.append(TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield _RichProgress(bar, task)


def _every() -> float:
    try:
        return max(0.1, float(os.environ.get("TDDGIT_PROGRESS_EVERY", "5")))
    except ValueError:
        return 5.0


class _LineProgress:
    """The latest description as a line on stderr every ``every`` seconds (a thread)."""

    def __init__(self, description: str, every: float) -> None:
        import threading
        import time

        self._description = description
        self._every = every
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, name="tddgit-progress", daemon=True)

    def __enter__(self) -> _LineProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _tick(self) -> None:
        import time

        while not self._stop.wait(self._every):
            elapsed = time.monotonic() - self._start
            err(f"tddgit: {self._description} ({elapsed:.0f} s)")

    def advance(self, n: int = 1) -> None:
        pass

    def update(self, description: str) -> None:
        self._description = description


class _NullProgress:
    def advance(self, n: int = 1) -> None:
        pass

    def update(self, description: str) -> None:
        pass


class _RichProgress:
    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)

    def update(self, description: str) -> None:
        self._bar.update(self._task, description=description)
