"""``tddgit audit`` (PRODUCT.md §8): how test-first a history really was.

Data flows one way: ``tddgit.history`` streams the commits (one ``git log -z``) ->
``engine.Auditor`` judges each commit once (phases, lineage state, cycles, findings,
episodes) -> ``metrics`` -> a renderer (``report``). The audit never runs repository code.

``AuditOptions.post_checks`` is where whole-report checks plug in (``--verify``, which
re-runs tests at declared commits in throwaway worktrees, arrives there later).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tddgit.audit.model import (
    AuditRange,
    AuditReport,
    CommitRecord,
    Cycle,
    Episode,
    Finding,
    Tally,
)

if TYPE_CHECKING:
    from tddgit.config import Config
    from tddgit.git import Repo

PostCheck = Callable[[AuditReport], Sequence[Finding]]
_PROGRESS_EVERY = 1024


@dataclass(frozen=True)
class AuditOptions:
    revs: tuple[str, ...] = ("HEAD",)
    since: str | None = None
    until: str | None = None
    author: str | None = None
    paths: tuple[str, ...] = ()
    post_checks: tuple[PostCheck, ...] = ()
    # (encoding, errors) of the stream a JSON report of this audit will be written to:
    # its last arrays are then encoded beside the metrics (``tddgit.audit.prerender``).
    prerender_json: tuple[str, str] | None = None
    # The process ends soon after this audit (the CLI): the pass's working structures are
    # left to the operating system instead of being freed one object at a time.
    leave_to_exit: bool = False


def run_audit(
    repo: Repo, config: Config, options: AuditOptions, progress: Any = None
) -> AuditReport:
    """Audit the history ``options`` select. ``progress`` has ``advance(n)`` (optional)."""
    from tddgit import __version__
    from tddgit.audit.engine import Auditor
    from tddgit.audit.rules import detectors_on
    from tddgit.blobs import BlobReader
    from tddgit.evidence import NOTES_REF, read_all_notes
    from tddgit.history import history_notes, open_history
    from tddgit.paths import Classifier

    rng = AuditRange(
        options.revs,
        options.since,
        options.until,
        options.author,
        options.paths,
        shallow=repo.is_shallow(),
    )
    if repo.head() is None and options.revs == ("HEAD",):
        notes = [*history_notes(repo), "the repository has no commits yet"]
        return _report(rng, [], [], [], [], notes, __version__)
    # git starts first: what follows until the first read overlaps with its walk.
    with (
        open_history(
            repo,
            options.revs,
            since=options.since,
            until=options.until,
            author=options.author,
            paths=options.paths,
            reverse=True,
            blobs=detectors_on(),  # the detector rules read test files by blob id
        ) as commits,
        BlobReader(repo) as blobs,
    ):
        notes = list(history_notes(repo))
        evidence = read_all_notes(repo, blobs)  # the same cat-file serves notes and files
        if not evidence:
            notes.append(
                f"no tddgit evidence notes ({NOTES_REF}); if they exist on a remote, fetch "
                f"them with `git fetch origin {NOTES_REF}:{NOTES_REF}`"
            )
        auditor = Auditor(
            Classifier.from_config(config), evidence, blobs, follow_last=bool(options.paths)
        )
        # The pass keeps ~10 small objects per commit alive and makes no reference cycles;
        # the cyclic GC would rescan that growing heap again and again (twice the cost at
        # 100k commits, and cost per commit would not stay flat).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for n, commit in enumerate(commits, 1):
                auditor.feed(commit)
                if progress is not None and n % _PROGRESS_EVERY == 0:
                    progress.advance(_PROGRESS_EVERY)
            if options.prerender_json is not None:
                from tddgit.audit import prerender

                # Records are final once the last commit is fed; the parent's share from
                # here: finishing the pass, metrics, the findings, cycles and episodes.
                arrays = (("commits", auditor.records),)
                prerender.start(arrays, *options.prerender_json)
            findings, cycles = auditor.finish()
            blobs.hang_up()  # git exits on its own while the report is made
            report = _report(
                rng,
                auditor.records,
                findings,
                cycles,
                auditor.episodes,
                notes,
                __version__,
                auditor.positions(),
                auditor.tally(),
            )
        finally:
            if was_enabled:
                gc.enable()
    if options.leave_to_exit:
        keep_until_exit(auditor)
    if options.post_checks:
        extra = [f for check in options.post_checks for f in check(report)]
        report = _report(
            rng,
            auditor.records,
            [*findings, *extra],
            cycles,
            auditor.episodes,
            notes,
            __version__,
            auditor.positions(),
            auditor.tally(),
        )
    return report


def keep_until_exit(obj: object) -> None:
    """Let the process end without freeing ``obj`` one object at a time.

    At 100k commits the teardown of a report or of the auditor's indexes (~1M small
    objects) is a visible part of the run. ``obj`` joins a self-referencing list that
    ``gc.freeze`` moves to the permanent generation, which neither refcounting nor the
    collections at interpreter exit reclaim; the operating system takes the memory back
    at once. ``os._exit`` would do the same but skip the CLI's own cleanup.
    """
    keep: list[object] = [obj]
    keep.append(keep)
    gc.freeze()


def _report(
    rng: AuditRange,
    records: Sequence[CommitRecord],
    findings: Sequence[Finding],
    cycles: Sequence[Cycle],
    episodes: Sequence[Episode],
    notes: Sequence[str],
    version: str,
    positions: Mapping[str, int] | None = None,
    tally: Tally | None = None,
) -> AuditReport:
    from tddgit.audit.metrics import compute

    return AuditReport(
        range=rng,
        commits=records,
        findings=findings,
        cycles=cycles,
        episodes=episodes,
        metrics=compute(records, findings, cycles, episodes, positions, tally),
        notes=tuple(notes),
        tool_version=version,
    )


__all__ = ["AuditOptions", "AuditReport", "keep_until_exit", "run_audit"]
