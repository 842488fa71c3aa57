"""Run mutants: each on a snapshot of the step's tree, against only the tests that ran its
line, several at once, within a time budget.

Never in the user's tree: every worker has its own snapshot (``tddgit.snapshot``), writes
one mutant into it, runs the project's runner, and puts the file back before the next.
No bytecode is written (a mutant and the original can share a size and an mtime second,
and a stale ``.pyc`` would run the wrong one). A mutant is killed when a test fails, errors
or the run times out (a mutant that loops forever is caught by the tests' timeout); it
survives when every selected test passes. Results are cached under the git dir by the
tree, the file, the mutated line and the tests, so judging the same step again costs
nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from tddgit.config import Config
from tddgit.git import Repo
from tddgit.model import OK_OUTCOMES
from tddgit.mutation.operators import Mutant

KILLED = "killed"
SURVIVED = "survived"


@dataclass(frozen=True)
class Job:
    mutant: Mutant
    tests: tuple[str, ...]


@dataclass(frozen=True)
class Result:
    job: Job
    status: str  # KILLED | SURVIVED
    cached: bool = False
    killer: str = ""  # a test that failed (or "timeout")


@dataclass(frozen=True)
class Batch:
    results: tuple[Result, ...]
    total: int  # mutants asked for; total - len(results) were not run (budget)
    seconds: float


def run_jobs(
    repo: Repo,
    config: Config,
    tree: str,
    jobs: Sequence[Job],
    *,
    budget: float,
    workers: int,
    per_mutant_timeout: float,
    on_progress: Callable[[str], None] | None = None,
) -> Batch:
    started = time.monotonic()
    cache = _Cache(repo.tddgit_dir / "mutation")
    results: list[Result] = []
    todo: queue.Queue[Job] = queue.Queue()
    for job in jobs:
        hit = cache.get(tree, job)
        if hit is not None:
            results.append(hit)
        else:
            todo.put(job)
    if todo.empty():
        return Batch(tuple(results), len(jobs), time.monotonic() - started)
    lock = threading.Lock()
    deadline = started + budget

    def work(root: Path) -> None:
        while time.monotonic() < deadline:
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            result = _run_one(repo, config, root, job, per_mutant_timeout)
            cache.put(tree, result)
            with lock:
                results.append(result)
                if on_progress:
                    done = len(results)
                    on_progress(f"mutation: {done} of {len(jobs)} mutants run")

    from tddgit.snapshot import snapshot

    count = max(1, min(workers, todo.qsize()))
    with ExitStack() as stack:
        roots = [stack.enter_context(snapshot(repo, tree)) for _ in range(count)]
        threads = [threading.Thread(target=work, args=(r,), daemon=True) for r in roots]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    order = {id(j): n for n, j in enumerate(jobs)}
    results.sort(key=lambda r: order.get(id(r.job), 0))
    return Batch(tuple(results), len(jobs), time.monotonic() - started)


def _run_one(repo: Repo, config: Config, root: Path, job: Job, timeout: float) -> Result:
    from tddgit.runners import RunRequest, get_runner
    from tddgit.snapshot import import_paths

    target = root / job.mutant.path
    original = target.read_bytes()
    paths = import_paths(root)
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    try:
        target.write_text(job.mutant.source, encoding="utf-8")
        runner = get_runner(config, root / config.project)
        request = RunRequest(
            root=root,
            subdir=config.project,
            tests=job.tests,
            timeout=timeout,
            env=env,
            project_root=repo.root,
            bytecode_cache=None,
        )
        run = runner.run(request)
    finally:
        target.write_bytes(original)
    if run.timed_out:
        return Result(job, KILLED, killer="timeout")
    for test in run.tests:
        if test.outcome not in OK_OUTCOMES:
            return Result(job, KILLED, killer=test.id)
    if not run.tests:  # nothing ran (the mutant broke collection): the suite noticed
        return Result(job, KILLED, killer="collection")
    return Result(job, SURVIVED)


class _Cache:
    """One small file per (tree, file, line, operator, mutated file, tests)."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def _path(self, tree: str, job: Job) -> Path:
        m = job.mutant
        # the whole mutated file, not only its line: the guard runs a file's previous
        # version mutated on the same tree, whose line can read the same
        source = hashlib.sha256(m.source.encode("utf-8", "surrogateescape")).hexdigest()
        key = json.dumps([tree, m.path, m.line, m.operator, m.mutated, source, sorted(job.tests)])
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
        return self.home / digest[:2] / digest[2:]

    def get(self, tree: str, job: Job) -> Result | None:
        try:
            data = json.loads(self._path(tree, job).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        status = data.get("status") if isinstance(data, dict) else None
        if status not in (KILLED, SURVIVED):
            return None
        return Result(job, status, cached=True, killer=str(data.get("killer", "")))

    def put(self, tree: str, result: Result) -> None:
        path = self._path(tree, result.job)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps({"status": result.status, "killer": result.killer}))
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs time
