"""Why a Rust test failed, or why a crate's tests did not compile (PRODUCT.md §4).

Compile errors are read from cargo's JSON diagnostics (``--message-format json``), by
their error codes, not by their prose: when every error names an item that does not
exist yet -- E0425 (no such function or value), E0433 (unresolved path), E0432
(unresolved import: ``use calc::mul``), E0412 / E0422 (no such type / struct), E0599 (no
such method), E0560 (no such struct field) -- the tests were written before the code:
red ``not-implemented``. An error without a code that is the parser's (``expected …``,
an unclosed delimiter) is amber ``syntax``; any other compile error amber
``collection`` (the test binary could not be built). A test that panics through
``todo!()`` / ``unimplemented!()`` is red ``not-implemented``, a failed ``assert!`` /
``assert_eq!`` red ``assertion``, any other panic amber ``crash``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tddgit.model import Cause

MISSING_ITEM_CODES = frozenset({"E0412", "E0422", "E0425", "E0432", "E0433", "E0599", "E0560"})
_SYNTAX = re.compile(
    r"^(?:expected |unexpected |mismatched closing delimiter|this file contains an unclosed"
    r"|unclosed delimiter|unterminated )"
)
_NOT_IMPLEMENTED = re.compile(r"(?m)^(?:not yet implemented|not implemented)\b")
_ASSERTION = re.compile(r"(?m)^assertion (?:`[^`\n]*` )?failed|^assertion failed:")
_PANICKED = re.compile(r"(?m)panicked at [^\n]*:\n(.*)")


def compile_cause(errors: Sequence[tuple[str | None, str]]) -> tuple[Cause, str]:
    """The cause of a failed build from its errors (code or None, message)."""
    shown = "\n".join(f"error[{c}]: {m}" if c else f"error: {m}" for c, m in errors[:6])
    if not errors:
        return Cause.COLLECTION, "the tests did not compile (no diagnostic)"
    if any(code is None and _SYNTAX.search(msg) for code, msg in errors):
        return Cause.SYNTAX, shown
    if all(code in MISSING_ITEM_CODES for code, _ in errors):
        return Cause.NOT_IMPLEMENTED, shown
    return Cause.COLLECTION, "compile error: " + shown


def test_cause(stdout: str) -> tuple[Cause, str]:
    """The cause of one failed test from what it printed (libtest's captured output)."""
    m = _PANICKED.search(stdout)
    said = m.group(1).strip() if m else ""
    message = (m.group(0).strip() if m else stdout.strip())[:1000]
    if _NOT_IMPLEMENTED.search(said):
        return Cause.NOT_IMPLEMENTED, message
    if _ASSERTION.search(said) or not m:
        return Cause.ASSERTION, message or "failed"
    return Cause.CRASH, message
