"""The audit's report where each provider shows it.

GitHub: Markdown appended to ``$GITHUB_STEP_SUMMARY`` (the job's summary page), SARIF 2.1.0
for code scanning (``github/codeql-action/upload-sarif``), the HTML report as an artifact;
the files' paths go to ``$GITHUB_OUTPUT`` for the next steps. GitLab: a code-quality JSON
report (``artifacts:reports:codequality``) and the HTML report. Every renderer is the
audit's own (``tddgit.audit.report.render``); only the code-quality shape is made here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tddgit.audit.model import AuditReport, Finding
from tddgit.audit.render_sarif import _fingerprint
from tddgit.audit.report import render
from tddgit.ci.providers import CiRun
from tddgit.errors import UsageError

# GitLab's code-quality severities: info, minor, major, critical, blocker.
_GITLAB_SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


@dataclass(frozen=True)
class Outputs:
    sarif: Path | None
    html: Path | None
    codequality: Path | None


def write_all(report: AuditReport, run: CiRun, out: Outputs) -> list[str]:
    """Write every report this run asks for; returns a line per file written."""
    said = []
    if run.summary is not None:
        with _open(run.summary, "a") as fh:
            render(report, "markdown", fh)
            fh.write("\n")
        said.append(f"summary: {run.summary}")
    for fmt, path in (("sarif", out.sarif), ("html", out.html)):
        if path is not None:
            with _open(path, "w") as fh:
                render(report, fmt, fh)
            said.append(f"{fmt}: {path}")
    if out.codequality is not None:
        with _open(out.codequality, "w") as fh:
            json.dump(codequality(report), fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        said.append(f"codequality: {out.codequality}")
    if run.outputs is not None:
        with _open(run.outputs, "a") as fh:
            for key, path in (("sarif", out.sarif), ("html", out.html)):
                if path is not None:
                    fh.write(f"{key}={path}\n")
            fh.write(f"conformance={report.metrics.get('conformance')}\n")
    return said


def codequality(report: AuditReport) -> list[dict[str, Any]]:
    """GitLab's code-quality report: one issue per finding."""
    return [_issue(f) for f in report.findings]


def _issue(f: Finding) -> dict[str, Any]:
    lines = f.data.get("lines")
    begin = 1
    if (
        isinstance(lines, list)
        and lines
        and f.data.get("file") == (f.files[0] if f.files else None)
    ):
        begin = int(lines[0][0])
    return {
        "description": f"{f.message} (commit {f.commit[:12]})",
        "check_name": f.rule,
        "fingerprint": _fingerprint(f),
        "severity": _GITLAB_SEVERITY.get(f.severity, "info"),
        # a finding about a commit with no file of its own is shown on the repository
        "location": {"path": f.files[0] if f.files else ".", "lines": {"begin": begin}},
    }


def _open(path: Path, mode: str) -> Any:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open(mode, encoding="utf-8", newline="\n")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}", "choose a writable path") from exc
