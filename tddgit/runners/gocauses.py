"""Why a Go test failed, or why its package did not build (PRODUCT.md §4).

A build failure whose every compiler error names something that does not exist yet
(``undefined: Mul``, ``c.Mul undefined (type Calc has no field or method Mul)``, an
unknown field in a struct literal) is red ``not-implemented``: the test was written
before the code. A syntax error is amber ``syntax``; any other build failure amber
``collection`` (the test binary could not be built). A test that panics with "not
implemented" is red ``not-implemented``, any other panic amber ``crash``, a timeout
``timeout``, and a failure through ``t.Error`` / ``t.Fatal`` red ``assertion``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tddgit.model import Cause

_ERROR_LINE = re.compile(r"^(?:\./)?\S+\.go:\d+(?::\d+)?: (?P<msg>.+)$")
_MISSING = re.compile(
    r"^undefined: \S+"
    r"|\bundefined \(type .+ has no (?:field or method|method) \S+"
    r"|^unknown field \S+ in struct literal"
)
_SYNTAX = re.compile(r"^syntax error\b|^expected \S|^illegal character|^string literal not")
_NOISE = re.compile(r"^too many errors$")
_NOT_IMPLEMENTED = re.compile(r"(?im)^\s*panic: .*\bnot (?:yet )?implemented\b")
_TIMEOUT = re.compile(r"(?m)^panic: test timed out after")
_PANIC = re.compile(r"(?m)^\s*panic: ")
_MESSAGE_LINES = 6


def build_cause(lines: Sequence[str]) -> tuple[Cause, str]:
    """The cause of a package's failed build from the compiler's output, and the errors
    to show."""
    errors = []
    for line in lines:
        m = _ERROR_LINE.match(line.strip())
        if m and not _NOISE.match(m.group("msg")):
            errors.append((m.group("msg"), line.strip()))
    shown = "\n".join(text for _, text in errors[:_MESSAGE_LINES])
    if not errors:
        text = "\n".join(x.rstrip() for x in lines if x.strip())
        return Cause.COLLECTION, text[:2000] or "the package did not build (no compiler output)"
    if any(_SYNTAX.search(msg) for msg, _ in errors):
        return Cause.SYNTAX, shown
    if all(_MISSING.search(msg) for msg, _ in errors):
        return Cause.NOT_IMPLEMENTED, shown
    return Cause.COLLECTION, "compile error: " + shown


def test_cause(output: str, failed_children: Sequence[str] = ()) -> tuple[Cause, str]:
    """The cause of one failed test from its output (a parent failing only through its
    subtests takes theirs)."""
    own = _own_lines(output)
    if _TIMEOUT.search(output):
        return Cause.TIMEOUT, _line_of(_TIMEOUT, output)
    if _NOT_IMPLEMENTED.search(output):
        return Cause.NOT_IMPLEMENTED, _line_of(_NOT_IMPLEMENTED, output)
    if _PANIC.search(output):
        return Cause.CRASH, _line_of(_PANIC, output)
    if not own and failed_children:
        causes = [test_cause(child) for child in failed_children]
        amber = [c for c in causes if c[0] not in (Cause.ASSERTION, Cause.NOT_IMPLEMENTED)]
        return (amber or causes)[0]  # red only when every failed subtest is
    return Cause.ASSERTION, "\n".join(own[:_MESSAGE_LINES]) or "failed"


def _own_lines(output: str) -> list[str]:
    """The test's own messages (t.Error, t.Log): not the runner's ``=== RUN`` / ``---``."""
    out = []
    for line in output.splitlines():
        bare = line.strip()
        if not bare or bare.startswith(("=== ", "--- ")):
            continue
        out.append(bare)
    return out


def _line_of(pattern: re.Pattern[str], text: str) -> str:
    m = pattern.search(text)
    assert m is not None
    end = text.find("\n", m.end())
    return text[m.start() : end if end != -1 else len(text)].strip()
