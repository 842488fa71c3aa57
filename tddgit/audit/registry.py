"""Which checks an audit runs: the checks registered by the rule modules, the detector
rules' switch, and the checks that can fire on a commit.

``tddgit.audit.rules`` and ``tddgit.audit.detector_rules`` register their checks here
(``register_check``) when imported; ``tddgit audit --detectors`` turns the detector rules
on around ``run_audit`` (``detectors``); the engine asks for an audit's checks once
(``active_checks``) and, per kind of commit, for those that can fire on it
(``checks_for``, cached). Nothing here runs per commit, so, like the rule registry
(``tddgit.audit.ruleset``), this module is not one of the compiled ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tddgit.audit.rules import Check

COMMIT_CHECKS: list[Check] = []
# Checks of the test-file detector rules (over-mocking, broad-assertion, ...): they run
# only in audits with detectors on (see ``DetectorSettings``). yagni reads the evidence
# note, not the blobs, so it is an ordinary check and runs in every audit.
DETECTOR_CHECKS: list[Check] = []
# When each check can fire: the phases it looks at (None: any) and whether it needs the
# commit to have evidence or a GSD-Phase trailer. The audit runs a check only on commits
# it can fire on: most commits of a history need two or three checks, not all of them.
_WHEN: dict[Check, tuple[frozenset[str | None] | None, bool]] = {}


def register_check(
    check: Check,
    *,
    detector: bool = False,
    phases: Iterable[str | None] | None = None,
    evidence: bool = False,
) -> None:
    """Add a check to every audit, or with ``detector`` to audits with detectors on.

    ``phases``: the phases (None for a commit without one) of the commits the check can
    fire on; ``evidence``: it fires only on commits with an evidence note or whose phase
    comes from a trailer. Both only skip calls that would find nothing.

    A check that needs file contents should not read them per commit: it keeps per-audit
    state with ``StubJudge.later`` and gives its findings when the audit resolves.
    """
    checks = DETECTOR_CHECKS if detector else COMMIT_CHECKS
    if check not in checks:
        checks.append(check)
    _WHEN[check] = (None if phases is None else frozenset(phases), evidence)


@dataclass(frozen=True)
class DetectorSettings:
    """The detector rules' part of an audit: thresholds and the blob-analysis cache."""

    max_mocks: int = 3
    max_asserts: int = 5
    use_cache: bool = True  # keep analyses of test blobs in <git common dir>/tddgit/


# Whether the audit being run has detectors on: set by ``tddgit audit`` (``--detectors``)
# around ``run_audit``; unset, an audit runs without them.
DETECTORS: ContextVar[DetectorSettings | None] = ContextVar("tddgit_audit_detectors", default=None)


@contextmanager
def detectors(settings: DetectorSettings | None) -> Iterator[None]:
    """Audits run inside this block use ``settings`` (None: detectors off)."""
    token = DETECTORS.set(settings)
    try:
        yield
    finally:
        DETECTORS.reset(token)


def detectors_on() -> bool:
    """Whether the audit starting now runs the detector rules."""
    return DETECTORS.get() is not None


def active_checks() -> list[Check]:
    """The checks an audit starting now runs, in order: the commit rules' first (their
    modules register them when imported; the detector rules' module, imported only when
    they run, registers its own)."""
    import tddgit.audit.yagni  # registers the commit rules' checks, yagni's last

    if DETECTORS.get() is None:
        return list(COMMIT_CHECKS)
    import tddgit.audit.detector_rules  # noqa: F401  (registers the detector rules' checks)

    return [*COMMIT_CHECKS, *DETECTOR_CHECKS]


def checks_for(checks: Sequence[Check], phase: str | None, proven: bool) -> tuple[Check, ...]:
    """Those of ``checks`` that can fire on a commit of ``phase``; ``proven``: it has an
    evidence note or declares its phase in a trailer (see ``register_check``)."""
    out = []
    for check in checks:
        phases, evidence = _WHEN.get(check, (None, False))
        if (phases is None or phase in phases) and (proven or not evidence):
            out.append(check)
    return tuple(out)
