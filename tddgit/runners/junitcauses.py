"""The cause of a failure in a JUnit XML report (PRODUCT.md §4): one table of rules
(``RULES``) over the failure's ``type`` attribute, its message and its body.

A missing module is judged first (a relative or absolute path: the project's, not written
yet; a bare package name: not installed), then a name a project module does not export
(``jscauses``), then the table: first match wins, anything unmatched is ``other``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tddgit.model import Cause
from tddgit.runners.jscauses import missing_export


@dataclass(frozen=True)
class _Rule:
    """Failures whose ``field`` (the failure's type, its message, or its body) matches
    ``pattern`` have ``cause`` -- unless ``unless`` matches the body."""

    cause: Cause
    field: str
    pattern: re.Pattern[str]
    unless: re.Pattern[str] | None = None


# First match wins; anything unmatched is `other` (amber) with its message. The rules only
# say red (assertion / not-implemented) on unmistakable signs: an assertion error type,
# an assertion library's own wording, a NotImplemented type or message, a missing module
# named by a relative or absolute path. Missing project modules come first in
# ``classify`` (see ``_missing_module``).
RULES: tuple[_Rule, ...] = (
    _Rule(Cause.TIMEOUT, "type", re.compile(r"(?i)timeout")),
    _Rule(
        Cause.SYNTAX, "type", re.compile(r"(?:^|[.\s])(?:SyntaxError|IndentationError|TabError)\b")
    ),
    _Rule(Cause.FIXTURE, "type", re.compile(r"^HookFailed$")),  # tddgit's node reporter
    _Rule(Cause.CRASH, "type", re.compile(r"(?i)\babort|\bsignal\b|segfault|\bcrash")),
    _Rule(Cause.CRASH, "message", re.compile(r"\bSIG(?:SEGV|ABRT|BUS|ILL)\b|Segmentation fault")),
    _Rule(Cause.NOT_IMPLEMENTED, "type", re.compile(r"NotImplemented")),
    _Rule(
        Cause.ASSERTION,
        "type",
        re.compile(r"(?i)assert|ComparisonFailure|MultipleFailuresError|^Xunit\.Sdk\."),
    ),
    _Rule(Cause.TIMEOUT, "message", re.compile(r"Exceeded timeout of \d+ ?ms|timed out after")),
    _Rule(Cause.TIMEOUT, "text", re.compile(r"(?m)^panic: test timed out after")),
    _Rule(
        Cause.NOT_IMPLEMENTED,
        "message",
        re.compile(r"(?i)\bnot (?:yet )?implemented\b|^NotImplemented(?:Error|Exception)?\b"),
    ),
    _Rule(
        Cause.ASSERTION, "message", re.compile(r"^(?:AssertionError\b|assert\b)|(?:^|\W)expect\(")
    ),
    # go-junit-report: t.Error / t.Fatal (Go's assertions) give "Failed"; a panic does too.
    _Rule(Cause.ASSERTION, "message", re.compile(r"^Failed$"), re.compile(r"(?m)^\s*panic: ")),
    _Rule(Cause.SYNTAX, "text", re.compile(r"(?m)^\s*SyntaxError: ")),
    # vite's import analysis of a file that does not parse (vitest)
    _Rule(Cause.SYNTAX, "message", re.compile(r"^Failed to parse source for import analysis")),
    _Rule(Cause.NOT_IMPLEMENTED, "text", re.compile(r"(?im)(?:^|: )not (?:yet )?implemented\b")),
    _Rule(
        Cause.ASSERTION,
        "text",
        re.compile(r"\bERR_ASSERTION\b|\bAssertionError\b|assertion (?:`[^`\n]*` )?failed"),
    ),
)

_MISSING_MODULE = re.compile(
    r"Cannot find (module|package) '([^'\n]+)'"  # node (ESM and CommonJS), jest
    r"|Failed to load url (\S+)"  # vitest
    r"|Failed to resolve import \"([^\"\n]+)\""  # vite's import analysis
)


def _missing_module(message: str, text: str) -> tuple[Cause, str] | None:
    """A missing project module (a relative or absolute path) is not implemented yet; a
    missing package is the environment's fault."""
    m = _MISSING_MODULE.search(message) or _MISSING_MODULE.search(text)
    if m is None:
        return None
    spec = next(g for g in m.groups()[1:] if g)
    project = (
        m.group(1) != "package"
        and spec.startswith((".", "/", "file:"))
        and "/node_modules/" not in spec
    )
    if project:
        return Cause.NOT_IMPLEMENTED, m.group(0)
    return Cause.ENVIRONMENT, f"{m.group(0)} ({_install_fix(spec)})"


def _install_fix(spec: str) -> str:
    """How to get a missing package: its name from a bare specifier, else a reinstall."""
    if spec.startswith((".", "/", "file:")):
        return "a package's file is missing: reinstall the dependencies (npm install)"
    parts = spec.split("/")
    name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
    return f"not installed: npm install --save-dev {name}"


def classify(kind: str, message: str, text: str) -> tuple[Cause, str]:
    """The cause of one failure from its ``type`` attribute, message and body, and the
    message to show for it."""
    found = _missing_module(message, text) or missing_export(message) or missing_export(text)
    if found is not None:
        return found
    fields = {"type": kind.strip(), "message": message.strip(), "text": text}
    for rule in RULES:
        m = rule.pattern.search(fields[rule.field])
        if m and not (rule.unless and rule.unless.search(text)):
            if rule.field == "text":
                # The body's line that decided is more telling than a generic message.
                start = text.rfind("\n", 0, m.start()) + 1
                end = text.find("\n", m.end())
                return rule.cause, text[start : end if end != -1 else len(text)].strip()
            return rule.cause, message
    return Cause.OTHER, message
