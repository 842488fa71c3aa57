"""``tddgit audit --verify --mutate``: the mutation check re-run at every green of a history.

For each commit the audit calls green, the lines it added to production files (against its
first parent) are mutated as the green gate does (``tddgit.mutation.check``): the suite
runs once on a snapshot of the commit with coverage recording which test ran each line,
then each mutant runs against those tests. A survivor is a finding ``unpinned-green-line``
on that commit. The scores (mutants killed of mutants run) are kept per green, per cycle
and per author for the summary. Like ``--verify`` this runs the repository's code, only on
throwaway snapshots; a plug-in of ``AuditOptions.post_checks``.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from tddgit.audit.checkview import finding
from tddgit.audit.model import AuditReport, CommitRecord, Finding
from tddgit.config import Config
from tddgit.git import Repo
from tddgit.mutation.check import RULE, plan_jobs
from tddgit.mutation.run import KILLED, run_jobs


@dataclass(frozen=True)
class Score:
    commit: str
    author: str
    cycle: int | None
    killed: int
    run: int
    total: int


class MutationScore:
    """A post-check: mutates the lines each green of the report added; ``scores`` holds
    one ``Score`` per green judged after the call."""

    def __init__(
        self,
        repo: Repo,
        config: Config,
        *,
        jobs: int = 2,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        self.repo = repo
        self.config = config
        self.jobs = max(1, jobs)
        self.on_event = on_event
        self.scores: list[Score] = []

    def __call__(self, report: AuditReport) -> list[Finding]:
        greens = [c for c in report.commits if c.phase == "green" and c.parents]
        out: list[Finding] = []
        for n, c in enumerate(greens, 1):
            out.extend(self._one(c))
            if self.on_event is not None:
                s = self.scores[-1] if self.scores and self.scores[-1].commit == c.sha else None
                shown = f"{s.killed} of {s.run} mutants killed" if s else "no line to mutate"
                self.on_event(f"mutate {n}/{len(greens)}: {c.sha[:10]} green: {shown}")
        return out

    def _one(self, c: CommitRecord) -> list[Finding]:
        from tddgit.paths import Classifier
        from tddgit.runners import RunRequest, get_runner
        from tddgit.snapshot import import_paths, snapshot
        from tddgit.staged import tree_of
        from tddgit.yagni import added_between

        old, new = tree_of(self.repo, c.parents[0]), tree_of(self.repo, c.sha)
        added = added_between(self.repo, Classifier.from_config(self.config), old, new)
        if not added:
            return []
        cover = tuple(p for p, a in added.items() if a.python)
        runner = get_runner(self.config, self.repo.root)
        with snapshot(self.repo, new) as root:
            paths = import_paths(root)
            if os.environ.get("PYTHONPATH"):
                paths.append(os.environ["PYTHONPATH"])
            request = RunRequest(
                root=root,
                subdir=self.config.project,
                timeout=self.config.timeout,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
                project_root=self.repo.root,
                cover=cover,
            )
            result = runner.run(request)
        per_line = int(self.config.get("mutation.per_line"))
        jobs = plan_jobs(self.repo, new, added, result, per_line)
        if not jobs:
            return []
        batch = run_jobs(
            self.repo,
            self.config,
            new,
            jobs,
            budget=float(self.config.get("mutation.budget")),
            workers=self.jobs,
            per_mutant_timeout=min(self.config.timeout, max(10.0, 3 * result.duration)),
        )
        killed = sum(1 for r in batch.results if r.status == KILLED)
        author = f"{c.author_name} <{c.author_email}>"
        self.scores.append(Score(c.sha, author, c.cycle, killed, len(batch.results), batch.total))
        found = []
        for r in batch.results:
            if r.status == KILLED:
                continue
            m = r.job.mutant
            message = (
                f"{m.path}:{m.line}: no test fails when `{m.original}` becomes `{m.mutated}` "
                f"({m.operator})"
            )
            data = {"line": m.line, "operator": m.operator, "mutant": m.mutated}
            found.append(finding(RULE, c.sha, message, files=(m.path,), data=dict(data)))
        return found

    def summary(self) -> list[str]:
        """Lines for stderr: the whole score, then per cycle and per author."""
        if not self.scores:
            return ["mutate: no green added a line a test ran; nothing to mutate"]
        lines = [f"mutate: {_score(self.scores)} over {len(self.scores)} greens"]
        by_cycle: dict[int, list[Score]] = defaultdict(list)
        by_author: dict[str, list[Score]] = defaultdict(list)
        for s in self.scores:
            if s.cycle is not None:
                by_cycle[s.cycle].append(s)
            by_author[s.author].append(s)
        lines += [f"  cycle {n}: {_score(v)}" for n, v in sorted(by_cycle.items())]
        lines += [f"  {a}: {_score(v)}" for a, v in sorted(by_author.items())]
        return lines


def _score(scores: list[Score]) -> str:
    killed = sum(s.killed for s in scores)
    run = sum(s.run for s in scores)
    total = sum(s.total for s in scores)
    pct = f" ({100 * killed // run}%)" if run else ""
    skipped = f", {total - run} not run within the budget" if total > run else ""
    return f"{killed} of {run} mutants killed{pct}{skipped}"
