"""Where a JS/TS test's error was thrown, from its stack (issue 24, item 5).

A new test that fails with a ``TypeError``, ``RangeError`` or the project's own
``PriceError`` thrown inside the project's production code shows the code doing the wrong
thing: a red ``wrong-behaviour``, as for Python. The same error thrown by the test's own
lines (a broken test) or inside a package under ``node_modules`` stays what the report
said (amber ``other``). The deciding frame is the first one of the stack that names a
file: builtins (``Number.toFixed (<anonymous>)``) and node's internals (``node:…``) are
passed over, so production misusing a builtin is production's error.

Only the error's text is read (jest's, vitest's and tddgit's node reporter's stacks all
hold absolute paths or ``file://`` URLs); nothing runs.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from tddgit.model import Cause

# "    at total (/repo/src/cart.js:2:45)", "    at /repo/src/cart.js:2:45",
# "    at Module.total (file:///repo/src/cart.js:2:45)"
_FRAME = re.compile(
    r"^\s*at (?:.*? \()?(?:file://)?((?:/|[A-Za-z]:[\\/])[^():]*?):(\d+):\d+\)?\s*$"
)
_TEST_NAME = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$")
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "__mocks__", "spec", "node_modules"})
_ERROR_TYPE = re.compile(r"^[A-Za-z_$][\w$]*$")


def thrown_in(text: str, rel: Callable[[str], str]) -> tuple[str, int] | None:
    """The repo-relative file and line of the first stack frame that names a file."""
    for line in text.splitlines():
        m = _FRAME.match(line)
        if m is not None:
            return rel(m.group(1)), int(m.group(2))
    return None


def is_production(path: str, test_file: str) -> bool:
    """A file of the project's own code: inside the repository, not a test, not a helper
    beside the tests, not a package."""
    if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) or path.startswith("../"):
        return False  # outside the run's root: tddgit's caches, global packages
    if path == test_file or _TEST_NAME.search(path):
        return False
    return not (set(posixpath.dirname(path).split("/")) & _TEST_DIRS)


def wrong_behaviour(
    kind: str, message: str, text: str, rel: Callable[[str], str], test_file: str
) -> tuple[Cause, str] | None:
    """``wrong-behaviour`` and its message when the error was thrown in production code."""
    if not _ERROR_TYPE.match(kind):  # `throw 'text'` has no type, and no frames to trust
        return None
    where = thrown_in(text, rel)
    if where is None or not is_production(where[0], test_file):
        return None
    return Cause.WRONG_BEHAVIOUR, f"{kind}: {message} (raised in {where[0]}:{where[1]})"
