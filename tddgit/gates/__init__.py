"""The red, green and refactor gates. ``run_gate`` is the entry point; the rules live in
``plan`` (before the run) and ``judge`` (after it)."""

from __future__ import annotations

from tddgit.gates.fixes import FIXES
from tddgit.gates.gate import run_gate
from tddgit.gates.records import PHASES, Reason, Verdict

__all__ = ["FIXES", "PHASES", "Reason", "Verdict", "run_gate"]
