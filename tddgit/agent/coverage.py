"""Spec coverage: which of the spec's test case ids a written test names.

The prompt asks the model to name each id (``TC-1``) in a test's name or docstring; an id
counts as covered when it appears in a written test file, as written or in identifier form
(``tc_1``), not as part of a longer id (``TC-1`` is not found in ``TC-10``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from tddgit.spec import Spec


@dataclass(frozen=True)
class SpecCoverage:
    covered: tuple[str, ...]
    missing: tuple[str, ...]

    def to_json(self) -> dict[str, list[str]]:
        return {"covered": list(self.covered), "missing": list(self.missing)}


def spec_coverage(spec: Spec, texts: Iterable[str]) -> SpecCoverage:
    corpus = "\n".join(texts)
    covered: list[str] = []
    missing: list[str] = []
    for case in spec.test_cases:
        (covered if _named(case.id, corpus) else missing).append(case.id)
    return SpecCoverage(tuple(covered), tuple(missing))


def _named(case_id: str, corpus: str) -> bool:
    parts = [re.escape(p) for p in re.split(r"[^A-Za-z0-9]+", case_id) if p]
    if not parts:
        return False
    body = "[-_ .]?".join(parts)
    after = "[0-9]" if case_id[-1:].isdigit() else "[A-Za-z0-9]"  # TC-1 is not in TC-10
    pattern = rf"(?<![A-Za-z0-9]){body}(?!{after})"
    return re.search(pattern, corpus, re.IGNORECASE) is not None
