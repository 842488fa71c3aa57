"""``tddgit audit`` (PRODUCT.md §8): how test-first a history really was.

Data flows one way: ``tddgit.history`` streams the commits (one ``git log -z``) ->
``engine.Auditor`` judges each commit once (phases, lineage state, cycles, findings,
episodes) -> ``metrics`` -> a renderer (``report``). The audit never runs repository code.

``AuditOptions.post_checks`` is where whole-report checks plug in (``--verify``, which
re-runs tests at declared commits in throwaway worktrees, arrives there later).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tddgit.audit.basis import attach as attach_basis
from tddgit.audit.model import AuditRange, AuditReport, CommitRecord, Finding

if TYPE_CHECKING:
    from tddgit.audit.engine import Auditor
    from tddgit.audit.projects import ProjectsAuditor
    from tddgit.blobs import BlobReader
    from tddgit.config import Config
    from tddgit.evidence import Evidence
    from tddgit.git import Repo
    from tddgit.paths import Classifier

PostCheck = Callable[[AuditReport], Sequence[Finding]]
_PROGRESS_EVERY = 256


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and how (the command line's options, as ``run_audit`` takes them)."""

    revs: tuple[str, ...] = ("HEAD",)
    since: str | None = None
    until: str | None = None
    author: str | None = None
    paths: tuple[str, ...] = ()
    post_checks: tuple[PostCheck, ...] = ()
    # (encoding, errors) of the stream a JSON report of this audit will be written to:
    # its last arrays are then encoded beside the metrics (``tddgit.audit.prerender``).
    prerender_json: tuple[str, str] | None = None
    # With ``prerender_json``: encode the commits array while the pass makes the records
    # (``tddgit.audit.spool``) instead of after it: True as each record is made, "idle"
    # while the reader waits for git (the rest after the pass, in a child), False after
    # the pass (a child encodes it all). None: "idle", for both builds: on real histories
    # the pure pass is slower than git's stream, so encoding as it goes would only add to
    # the pass, and a compiled pass that keeps up with git waits for it often enough to
    # encode in those waits (pytest, warm: the compiled audit's own CPU 0.95 s with True,
    # 0.84 s idle); the TDDGIT_AUDIT_SPOOL environment variable (1, idle or 0) overrides
    # that (a test seam).
    spool: bool | str | None = None
    # The process ends soon after this audit (the CLI): the pass's working structures are
    # left to the operating system instead of being freed one object at a time.
    leave_to_exit: bool = False
    # Called with the records and the findings once they are final, before the metrics,
    # when they are the report's own (no selection by path, date or author, no post
    # checks): a renderer may start on them (``tddgit.audit.textparts``).
    on_final: Callable[[Sequence[CommitRecord], Sequence[Finding]], None] | None = None


def _classifier(base: Classifier, blobs: BlobReader, revs: tuple[str, ...]) -> Classifier:
    """The configured classifier, plus what the audited tip's .gitattributes marks
    vendored or generated (one blob read)."""
    from tddgit.paths import linguist_vendored

    tip = next((r for r in revs if not r.startswith("^") and ".." not in r), None)
    if tip is None:
        return base
    text = blobs.text(tip, ".gitattributes")
    return base.with_vendored(linguist_vendored(text)) if text else base


def _projects(repo: Repo) -> Any:
    """The repository's projects when it holds several (docs/monorepo.md), else None."""
    from tddgit.project import repo_projects

    projects = repo_projects(repo)
    return projects if projects.multi else None


def _tree_cache(repo: Repo) -> Callable[[str, str], Evidence | None] | None:
    """Evidence cached by tree id, for a trailer commit without a note; None when the
    cache is empty (the common case of an audit of someone else's history)."""
    from tddgit.evidence import cache_get, cached_keys

    keys = cached_keys(repo)
    if not keys:
        return None

    def lookup(tree: str, phase: str) -> Evidence | None:
        return cache_get(repo, tree, phase) if (tree, phase) in keys else None

    return lookup


def run_audit(
    repo: Repo, config: Config, options: AuditOptions, progress: Any = None
) -> AuditReport:
    """Audit the history ``options`` select. ``progress`` has ``advance(n)`` (optional)."""
    # What starting git needs, and no more: the rest (the engine's modules, ~40 ms) is
    # imported while git walks the history.
    from tddgit import __version__, commitgraph
    from tddgit.audit.registry import detectors_on
    from tddgit.blobs import BlobReader
    from tddgit.history import history_notes, open_history, shallow_boundary, touching
    from tddgit.reffiles import head_has_commit

    rng = AuditRange(
        options.revs,
        options.since,
        options.until,
        options.author,
        options.paths,
        shallow=repo.is_shallow(),
    )
    if options.revs == ("HEAD",) and not head_has_commit(repo) and repo.head() is None:
        notes = [*history_notes(repo), "the repository has no commits yet"]
        from tddgit.audit.assemble import report_of

        return report_of(rng, [], [], [], [], notes, __version__)
    # Paths, dates and an author select the commits reported; their phases, cycles and
    # findings come from the whole lineage (a green's red is often in another file, made
    # by someone else, or before the date).
    selected = None
    if options.paths or options.since or options.until or options.author:
        selected = touching(
            repo,
            options.revs,
            options.paths,
            since=options.since,
            until=options.until,
            author=options.author,
        )
    mode = _spool_mode(options) if options.prerender_json and selected is None else False
    idle = _Idle()  # idle.work is set only in the "idle" mode
    # git starts first: what follows until the first read overlaps with its walk.
    with (
        open_history(
            repo,
            options.revs,
            reverse=True,
            blobs=detectors_on(),  # the detector rules read test files by blob id
            idle=idle,
            walk_env=commitgraph.walk_env(repo),  # the walk from tddgit's commit-graph
        ) as commits,
        BlobReader(repo) as blobs,
    ):
        from tddgit.audit.assemble import pass_report
        from tddgit.audit.engine import Auditor
        from tddgit.notes import NOTES_REF, read_all_notes
        from tddgit.paths import Classifier

        projects = _projects(repo)
        if projects is not None:
            mode = False  # the records are put together at the end of the pass
        notes = list(history_notes(repo))
        evidence = read_all_notes(repo, blobs)  # the same cat-file serves notes and files
        if not evidence:
            notes.append(
                f"no tddgit evidence notes ({NOTES_REF}); if they exist on a remote, fetch "
                f"them with `tddgit notes sync` (or, read only: "
                '`git fetch origin "refs/notes/*:refs/notes/*"`)'
            )
        spool = None
        if options.prerender_json is not None and mode:
            from tddgit.audit.report import commit_line
            from tddgit.audit.spool import Spool

            spool = Spool.open(commit_line(), *options.prerender_json)
        red_window = (
            int(config.get("audit.red_window_commits")),
            int(float(config.get("audit.red_window_days")) * 86400),
        )
        auditor: Auditor | ProjectsAuditor
        if projects is None:
            auditor = Auditor(
                _classifier(Classifier.from_config(config), blobs, options.revs),
                evidence,
                blobs,
                boundary=frozenset(shallow_boundary(repo)),
                sink=spool,
                by_tree=_tree_cache(repo),
                red_window=red_window,
                green_window=red_window[0],
            )
        else:
            from tddgit.audit.projects import ProjectsAuditor

            auditor = ProjectsAuditor(
                projects,
                lambda base: _classifier(base, blobs, options.revs),
                evidence,
                blobs,
                boundary=frozenset(shallow_boundary(repo)),
                by_tree=_tree_cache(repo),
                red_window=red_window,
                green_window=red_window[0],
            )
        if spool is not None and mode == "idle":
            spool.encode_idly(auditor.records)
            idle.work = spool.encode_some
        # The pass keeps ~10 small objects per commit alive and makes no reference cycles;
        # the cyclic GC would rescan that growing heap again and again (twice the cost at
        # 100k commits, and cost per commit would not stay flat).
        was_enabled = gc.isenabled()
        gc.disable()
        # git's walk (``git rev-list``) must end before the first commit comes out: what
        # the pass and the report need anyway is read meanwhile, not after it.
        auditor.prepare()
        from tddgit.audit import metrics  # noqa: F401  (the report's, imported meanwhile)

        reads = blobs.reads
        walked = 0
        try:
            for walked, commit in enumerate(commits, 1):
                auditor.feed(commit)
                if walked % _PROGRESS_EVERY == 0:
                    if progress is not None:
                        progress.advance(_PROGRESS_EVERY)
                    # The content judgements do make cycles (ast.dump's recursive
                    # closure, one per call): collected while they are young, in the
                    # objects made since the last time only, not left to pile up. No
                    # blob read, no judgement (a warm audit): nothing to collect.
                    if blobs.reads != reads:
                        reads = blobs.reads
                        gc.collect(0)
            if commitgraph.stale(repo, walked):
                # git's stream is over: its core is free for the graph the next audit
                # walks from
                commitgraph.write_in_background(repo)
            if (
                options.prerender_json is not None
                and spool is None
                and selected is None
                and projects is None
            ):
                from tddgit.audit import prerender

                # The records are final: a child encodes the commits array while this
                # process finishes the pass, computes the metrics and writes the rest.
                prerender.start((("commits", auditor.records),), *options.prerender_json)
            if spool is not None and mode == "idle":
                idle.work = None
                # A child encodes the batches the idle time did not, while this process
                # finishes the pass, computes the metrics and writes the other arrays.
                spool.close(auditor.records)
            findings, cycles = auditor.finish()
            if evidence:
                from tddgit.audit.metrics import RecordOf
                from tddgit.audit.rebased import rejudge

                record_of = RecordOf(auditor.records, auditor.positions())
                findings = rejudge(repo, findings, evidence, record_of)
            attach_basis(findings, auditor.records, auditor.positions())
            blobs.hang_up()  # git exits on its own while the report is made
            if spool is not None:
                if mode is True:
                    spool.close(auditor.records)
                if not options.post_checks:
                    from tddgit.audit import prerender

                    # The commits array is done (or being finished by the spool's
                    # child): a child encodes the other arrays while this process
                    # computes the metrics.
                    arrays = (
                        ("findings", findings),
                        ("cycles", cycles),
                        ("episodes", auditor.episodes),
                    )
                    prerender.start(arrays, spool.encoding, spool.errors)
            if options.on_final is not None and selected is None and not options.post_checks:
                options.on_final(auditor.records, findings)
            report = pass_report(rng, auditor, findings, cycles, notes, selected)
        finally:
            if was_enabled:
                gc.enable()
    if options.leave_to_exit:
        keep_until_exit(auditor)
    if options.post_checks:
        extra = [f for check in options.post_checks for f in check(report)]
        attach_basis(extra, auditor.records, auditor.positions())
        report = pass_report(rng, auditor, [*findings, *extra], cycles, notes, selected)
    return report


class _Idle:
    """What the history reader does instead of napping while it waits for git."""

    def __init__(self) -> None:
        self.work: Callable[[], bool] | None = None

    def __call__(self) -> bool:
        return self.work() if self.work is not None else False


def _spool_mode(options: AuditOptions) -> bool | str:
    """True (spool as the records are made), "idle", or False (no spool)."""
    if options.spool is not None:
        return options.spool
    forced = os.environ.get("TDDGIT_AUDIT_SPOOL")
    modes: dict[str | None, bool | str] = {"0": False, "1": True, "idle": "idle"}
    return modes.get(forced, "idle")


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


__all__ = ["AuditOptions", "AuditReport", "keep_until_exit", "run_audit"]
