"""`tddgit cycle` start-up (issue 16): from the command to the first request to the model,
on a clone of the synthetic 10k-commit history (``bench.synth.ensure_repo``).

Each run starts ``tddgit cycle SPEC`` against a local fake Messages API (the same server
the tests use, loopback only) and takes the time from just before the process starts to
the moment the server receives the first ``/v1/messages`` request: interpreter start-up,
the stale-worktree sweep, the branch and the locked worktree, the configuration, the spec,
the SDK import (started in a background thread at once) and the first prompt. For scale,
``python -c "import anthropic"`` is timed between the runs. The server then answers with an error, the cycle
stops and removes its worktree; each run's branch is deleted before the next. Prints the
median, minimum and maximum. Target: median <= 2 s.

    python bench/cycle_startup.py [--commits 10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
BIN = Path(sys.executable).parent
sys.path.insert(0, str(HERE.parent))

from bench.hook_latency import _env, _git  # noqa: E402
from bench.synth import ensure_repo  # noqa: E402
from tests.agent.fakeapi import Status, serve  # noqa: E402

SPEC = """\
spec_id: BENCH-1
title: Startup
components:
  - name: calc
    type: module
    file_path: calc.py
test_cases:
  - id: TC-1
    component: calc
    description: anything
"""


def prepare(commits: int) -> Path:
    history = ensure_repo(commits)
    work = CACHE / f"cycle-work-{commits}"
    shutil.rmtree(work, ignore_errors=True)
    _git(CACHE, "clone", "-q", "--shared", str(history), str(work))
    (work / "specs").mkdir(exist_ok=True)
    (work / "specs" / "bench.yaml").write_text(SPEC)
    _git(work, "add", "specs/bench.yaml")
    _git(work, "commit", "-q", "-m", "bench spec")
    return work


def one_run(work: Path, url: str, api: object) -> float:
    env = {**_env(), "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "bench-key"}
    requests: list[object] = api.requests  # type: ignore[attr-defined]
    requests.clear()
    api.push(Status(400, "invalid_request_error", "bench: stop here"))  # type: ignore[attr-defined]
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN / "tddgit"), "cycle", "specs/bench.yaml", "--no-refactor"],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    while not requests:
        if proc.poll() is not None:
            sys.exit(f"tddgit cycle ended before any request:\n{proc.stderr.read().decode()}")
        time.sleep(0.002)
    elapsed = time.perf_counter() - started
    proc.communicate(timeout=120)
    worktrees = _git(work, "worktree", "list", "--porcelain").count("worktree ")
    if worktrees != 1:
        sys.exit(f"the cycle left {worktrees - 1} worktree(s) behind")
    for branch in _git(
        work, "for-each-ref", "--format=%(refname:short)", "refs/heads/tddgit/"
    ).split():
        _git(work, "branch", "-D", "-q", branch)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    work = prepare(args.commits)
    load_before = os.getloadavg()
    for api in serve():
        one_run(work, api.url, api)  # untimed: writes the .pyc files
        times, sdk = [], []
        for _ in range(args.runs):  # interleaved: machine load hits both alike
            times.append(one_run(work, api.url, api))
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import anthropic"], check=True)
            sdk.append(time.perf_counter() - started)
    load_after = os.getloadavg()
    median = statistics.median(times)
    print(f"tddgit cycle start-up on {args.commits} commits, {args.runs} runs")
    print(
        f"  command -> first model request: median {median:.3f} s, "
        f"min {min(times):.3f} s, max {max(times):.3f} s (target <= 2 s)"
    )
    print(f"  for scale, python -c 'import anthropic': median {statistics.median(sdk):.3f} s")
    print(f"  load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    print("  OK" if median <= 2.0 else "  OVER TARGET")


if __name__ == "__main__":
    main()
