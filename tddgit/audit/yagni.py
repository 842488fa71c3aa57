"""The ``yagni`` rule in the audit: it comes from the evidence notes (the green gate
records it: ``findings`` with ``"rule": "yagni"``) and the audit shows it at that commit.
Cheap (no file is read), so it runs in every audit, unlike the test-file detector rules
of ``tddgit.audit.detector_rules``, which run only with ``--detectors``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

# The commit rules' checks are registered (so they run) before this one (``active_checks``).
import tddgit.audit.rules  # noqa: F401
from tddgit.audit.checkview import CommitView, finding
from tddgit.audit.model import Finding
from tddgit.audit.registry import register_check

if TYPE_CHECKING:
    from tddgit.audit.stubjudge import StubJudge

_NONE: tuple[Finding, ...] = ()
_MAX_YAGNI = 50  # findings shown per note: a note is untrusted input
_MAX_TEXT = 300


def check_yagni(v: CommitView, stubs: StubJudge) -> Sequence[Finding]:
    ev = v.evidence
    records = getattr(ev, "findings", None)  # an EvidenceError has none
    if not records:
        return _NONE
    out = []
    for rec in records[:_MAX_YAGNI]:
        if isinstance(rec, Mapping) and rec.get("rule") == "yagni":
            out.append(_yagni(v.sha, rec))
    return out


def _yagni(sha: str, rec: Mapping[str, Any]) -> Finding:
    file = rec.get("file") if isinstance(rec.get("file"), str) else None
    lines = _ranges(rec.get("lines"))
    method = rec.get("method") if rec.get("method") in ("coverage", "heuristic") else None
    raw = rec.get("message")
    text = raw if isinstance(raw, str) else ""
    if file and text.startswith(f"{file}:") and ": " in text:
        text = text.split(": ", 1)[1]  # the gate's message starts where this one does
    where = f"{file}:" + ",".join(f"{a}-{b}" if a != b else str(a) for a, b in lines[:5])
    message = (text or "production code no test needs")[:_MAX_TEXT]
    return finding(
        "yagni",
        sha,
        f"{where.rstrip(':')}: {message}" + (f" ({method})" if method else ""),
        files=(file,) if file else (),
        data={"file": file, "lines": [list(r) for r in lines], "method": method},
    )


def _ranges(value: Any) -> list[tuple[int, int]]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value[:100]:
        if (
            isinstance(item, list)
            and len(item) == 2
            and all(type(n) is int and n >= 0 for n in item)
        ):
            out.append((item[0], item[1]))
    return out


register_check(check_yagni, evidence=True)
