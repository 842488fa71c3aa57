"""A small SARIF 2.1.0 builder shared by ``tddgit detect`` and ``tddgit audit``.

Only the parts code-scanning UIs read: the tool's rules, and results with a message, a
file/line location and a stable fingerprint. Paths are repo-relative URIs resolved
against ``%SRCROOT%``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
FINGERPRINT_KEY = "tddgit/v1"

# tddgit severities -> SARIF levels ("none" is SARIF's own "not a problem" level).
LEVELS: Mapping[str, str] = {
    "error": "error",
    "warning": "warning",
    "note": "note",
    "info": "note",
    "none": "none",
}


def sarif_level(severity: str) -> str:
    """The SARIF level for a tddgit severity; unknown severities become ``warning``."""
    return LEVELS.get(severity, "warning")


@dataclass(frozen=True)
class SarifRule:
    id: str  # stable rule id, e.g. "over-mocking"
    name: str  # PascalCase name as SARIF viewers show it, e.g. "OverMocking"
    short: str  # one-line description
    help_uri: str | None = None
    level: str = "warning"  # default level of the rule's results


@dataclass(frozen=True)
class SarifResult:
    rule_id: str
    level: str
    message: str
    path: str | None = None  # repo-relative, "/"-separated
    line: int | None = None  # 1-based
    fingerprint: str | None = None  # stable across runs, for de-duplication in UIs
    properties: Mapping[str, Any] = field(default_factory=dict)
    end_line: int | None = None  # the region's last line, when it spans several
    also: Sequence[tuple[int, int]] = ()  # more (first, last) line ranges in the same file


def rule_name(rule_id: str) -> str:
    """``over-mocking`` -> ``OverMocking``."""
    return "".join(part[:1].upper() + part[1:] for part in rule_id.replace("_", "-").split("-"))


def _rule_json(rule: SarifRule) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "defaultConfiguration": {"level": sarif_level(rule.level)},
    }
    if rule.help_uri:
        out["helpUri"] = rule.help_uri
    return out


def _location(path: str, line: int | None, end_line: int | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {
        "artifactLocation": {"uri": quote(path, safe="/"), "uriBaseId": "%SRCROOT%"}
    }
    if line is not None and line >= 1:
        physical["region"] = {"startLine": line}
        if end_line is not None and end_line > line:
            physical["region"]["endLine"] = end_line
    return {"physicalLocation": physical}


def _result_json(result: SarifResult, index: Mapping[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": result.rule_id,
        "level": sarif_level(result.level),
        "message": {"text": result.message},
    }
    if result.rule_id in index:
        out["ruleIndex"] = index[result.rule_id]
    if result.path:
        out["locations"] = [_location(result.path, result.line, result.end_line)]
        if result.also:
            out["relatedLocations"] = [
                {"id": n, **_location(result.path, first, last)}
                for n, (first, last) in enumerate(result.also, start=1)
            ]
    if result.fingerprint:
        out["partialFingerprints"] = {FINGERPRINT_KEY: result.fingerprint}
    if result.properties:
        out["properties"] = dict(result.properties)
    return out


def sarif_log(
    rules: Sequence[SarifRule],
    results: Sequence[SarifResult],
    *,
    tool_version: str,
    tool_name: str = "tddgit",
) -> dict[str, Any]:
    """A complete SARIF 2.1.0 log with one run; ready for ``json.dumps``."""
    index = {rule.id: i for i, rule in enumerate(rules)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": tool_name,
                        "version": tool_version,
                        "semanticVersion": tool_version,
                        "rules": [_rule_json(r) for r in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "repository root"}}},
                "results": [_result_json(r, index) for r in results],
            }
        ],
    }
