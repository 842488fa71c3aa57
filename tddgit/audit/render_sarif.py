"""The audit as SARIF 2.1.0, through the shared builder ``tddgit.sarif``."""

from __future__ import annotations

import hashlib
from typing import Any

from tddgit.audit.model import AuditReport, Finding
from tddgit.audit.ruleset import RULES
from tddgit.sarif import SarifResult, SarifRule, rule_name, sarif_log


def _fingerprint(f: Finding) -> str:
    raw = "\0".join((f.rule, f.commit, *f.files))
    return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _ranges(f: Finding) -> list[tuple[int, int]]:
    """The line ranges a finding knows in its first file (``yagni``'s, from the gate)."""
    lines = f.data.get("lines")
    if not f.files or f.data.get("file") != f.files[0] or not isinstance(lines, list):
        return []
    return [(int(a), int(b)) for a, b in lines if 1 <= a <= b]


def _result(f: Finding) -> SarifResult:
    ranges = _ranges(f)
    first, last = ranges[0] if ranges else (None, None)
    return SarifResult(
        rule_id=f.rule,
        level=f.severity,
        message=f"{f.message} (commit {f.commit[:12]})",
        path=f.files[0] if f.files else None,
        line=first,
        end_line=last,
        also=ranges[1:],
        fingerprint=_fingerprint(f),
        properties={"commit": f.commit, "related": list(f.related), "files": list(f.files)},
    )


def sarif_document(report: AuditReport) -> dict[str, Any]:
    rules = [SarifRule(r.id, rule_name(r.id), r.title, level=r.severity) for r in RULES.values()]
    return sarif_log(rules, [_result(f) for f in report.findings], tool_version=report.tool_version)
