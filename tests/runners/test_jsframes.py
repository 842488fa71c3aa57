"""Where a JS error was thrown, read from stacks as jest and vitest really print them
(captured from jest 29 and vitest 2 runs)."""

from __future__ import annotations

from pathlib import Path

from tddgit.model import Cause
from tddgit.runners.jsframes import wrong_behaviour
from tddgit.runners.junitxml import ReportPaths

ROOT = Path("/tmp/proj")
REL = ReportPaths(ROOT).rel

VITEST = (
    "TypeError: Cannot read properties of null (reading 'reduce')\n"
    "    at Module.total (/tmp/proj/src/cart.js:2:45)\n"
    "    at /tmp/proj/test/a.test.js:3:30\n"
    "    at file:///cache/node_modules/@vitest/runner/dist/index.js:146:14\n"
)
JEST_BUILTIN = (
    "RangeError: toFixed() digits argument must be between 0 and 100\n"
    "    at Number.toFixed (<anonymous>)\n"
    "    at toFixed (/tmp/proj/src/cart.js:3:35)\n"
    "    at Object.pct (/tmp/proj/test/a.test.js:3:28)\n"
    "    at Promise.then.completed (/cache/node_modules/jest-circus/build/utils.js:298:28)\n"
)
IN_TEST = (
    "TypeError: Cannot read properties of null (reading 'y')\n"
    "    at Object.y (/tmp/proj/test/a.test.js:5:46)\n"
    "    at Promise.then.completed (/cache/node_modules/jest-circus/build/utils.js:298:28)\n"
)
IN_PACKAGE = (
    "TypeError: Invalid time value\n"
    "    at format (file:///tmp/proj/node_modules/date-fns/format.js:10:11)\n"
    "    at stamp (/tmp/proj/src/log.js:4:10)\n"
)
IN_HELPER = (
    "PriceError: negative\n"
    "    at makeCart (/tmp/proj/test/helpers/cart.js:4:10)\n"
    "    at /tmp/proj/test/a.test.js:3:30\n"
)


def test_a_frame_in_production_code_is_wrong_behaviour() -> None:
    found = wrong_behaviour("TypeError", "Cannot read…", VITEST, REL, "test/a.test.js")
    assert found == (Cause.WRONG_BEHAVIOUR, "TypeError: Cannot read… (raised in src/cart.js:2)")


def test_a_builtin_called_by_production_is_production_s_error() -> None:
    found = wrong_behaviour("RangeError", "digits", JEST_BUILTIN, REL, "test/a.test.js")
    assert found is not None and found[1].endswith("(raised in src/cart.js:3)")


def test_errors_of_the_test_a_helper_or_a_package_are_not() -> None:
    for text in (IN_TEST, IN_PACKAGE, IN_HELPER):
        kind = text.split(":", 1)[0]
        assert wrong_behaviour(kind, "x", text, REL, "test/a.test.js") is None, text


def test_a_thrown_string_has_no_type_to_trust() -> None:
    assert wrong_behaviour("", "boom", VITEST, REL, "test/a.test.js") is None
