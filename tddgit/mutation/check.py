"""The mutation check of a step's changed production lines (PRODUCT.md §15).

Coverage proves a line ran; a mutant that no test kills proves no test demands it. For
each Python production line the step adds that a test ran (the gate's own run, which
records which tests ran each line), at most ``mutation.per_line`` mutants are made and
each is run against those tests only. A survivor is a finding ``unpinned-green-line``
naming ``file:line``, the mutant and the fix. Lines no test ran are the yagni check's
(``green.yagni``), not this one's.

JS/TS runners report no per-line coverage: a JS/TS line's mutants run against the test
files of the gate's run that passed (a superset of the tests that ran the line: slower,
never a wrong survivor).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tddgit.config import Config
from tddgit.git import Repo
from tddgit.model import Light, RunResult
from tddgit.mutation import jsmutants, operators
from tddgit.mutation.run import SURVIVED, Batch, Job, run_jobs

if TYPE_CHECKING:
    from tddgit.yagni import Added

RULE = "unpinned-green-line"
JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
FIX = "add a test that fails for this change, or remove the line"


@dataclass(frozen=True)
class Report:
    findings: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]
    run: int
    total: int
    survived: int


def plan_jobs(
    repo: Repo, tree: str, added: Mapping[str, Added], result: RunResult, per_line: int
) -> list[Job]:
    """The mutants of the added lines that a test ran, each with the tests that ran it."""
    coverage = result.coverage or {}
    passed_files = tuple(
        sorted({t.file or t.id.partition("::")[0] for t in result.tests if t.light is Light.GREEN})
    )
    jobs: list[Job] = []
    for path in sorted(added):
        change = added[path]
        if change.python:
            cov = coverage.get(path)
            if cov is None or not cov.tests:
                continue
            by_line = {n: tuple(sorted(cov.tests[n])) for n in change.lines if cov.tests.get(n)}
            make = operators.mutants
        elif path.endswith(JS_SUFFIXES) and passed_files:
            by_line = {n: passed_files for n in change.lines}
            make = jsmutants.mutants
        else:
            continue
        source = _source(repo, tree, path) if by_line else None
        if source is None:
            continue
        jobs.extend(Job(m, by_line[m.line]) for m in make(path, source, set(by_line), per_line))
    return jobs


def _source(repo: Repo, tree: str, path: str) -> str | None:
    from tddgit.staged import read_blob

    blob = read_blob(repo, tree, path)
    try:
        return None if blob is None else blob.decode("utf-8")
    except UnicodeDecodeError:
        return None


def check(
    repo: Repo,
    config: Config,
    tree: str,
    added: Mapping[str, Added],
    result: RunResult,
    severity: str,
    on_progress: Callable[[str], None] | None = None,
) -> Report:
    per_line = int(config.get("mutation.per_line"))
    jobs = plan_jobs(repo, tree, added, result, per_line) if per_line > 0 else []
    if not jobs:
        return Report((), (), 0, 0, 0)
    if on_progress:
        on_progress(f"mutation: {len(jobs)} mutants of the changed lines")
    # A mutant's run is the selected tests' run; three times the gate's whole run (and a
    # floor for the interpreter's start) ends a mutant that loops forever.
    timeout = min(float(config.timeout), max(10.0, 3 * result.duration))
    batch = run_jobs(
        repo,
        config,
        tree,
        jobs,
        budget=float(config.get("mutation.budget")),
        workers=int(config.get("mutation.jobs")),
        per_mutant_timeout=timeout,
        on_progress=on_progress,
    )
    return _report(batch, severity)


def _report(batch: Batch, severity: str) -> Report:
    findings = []
    for r in batch.results:
        if r.status != SURVIVED:
            continue
        m = r.job.mutant
        findings.append(
            {
                "rule": RULE,
                "severity": severity,
                "file": m.path,
                "line": m.line,
                "operator": m.operator,
                "mutant": m.mutated,
                "tests": list(r.job.tests),
                "message": (
                    f"{m.path}:{m.line}: no test fails when `{m.original}` becomes "
                    f"`{m.mutated}` ({m.operator}); {FIX}"
                ),
            }
        )
    run = len(batch.results)
    survived = len(findings)
    line = f"mutation: {run - survived} of {run} mutants killed"
    if run < batch.total:
        line += f" ({run} of {batch.total} mutants run within the budget)"
    cached = sum(1 for r in batch.results if r.cached)
    if cached:
        line += f", {cached} from the cache"
    return Report(tuple(findings), (line,), run, batch.total, survived)
