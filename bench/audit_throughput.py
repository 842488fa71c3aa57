"""Audit throughput (PRODUCT.md §11): tddgit against plain ``git log`` on the same history.

For each size N (synthetic repositories from ``bench/synth.py``), side by side over
several runs (medians):

- ``git log -z --name-status HEAD`` wall time (output discarded): the baseline;
- the tddgit side: ``tddgit audit --format json > /dev/null`` when that command exists,
  otherwise a loop over ``tddgit.history.read_history`` (labelled as such);
- their ratio (target <= 1.5x), the tddgit process's peak RSS (target <= 300 MiB at 100k;
  ``os.wait4`` of the child, which also covers the git process it waited for), and
  seconds per 1k commits at every size (target: flat from 10k to 100k);
- all of it twice, one row each: ``tddgit`` runs the sources (pure Python) and ``tddgit
  (compiled)`` the audit's hot modules compiled with mypyc as ``setup.py`` does for an
  install, built once per source state into ``bench/.cache/compiled-<hash>/``
  (``bench/compiled.py``); the three commands are interleaved run by run.

With ``--detectors`` the same rows are followed by ``tddgit audit --format json
--detectors`` twice: with a cold blob cache (deleted before each run) and a warm one
(targets: cold <= 3x git log; the default audit stays <= 1.5x).

    python bench/audit_throughput.py                      # 10k and 100k, 3 runs
    python bench/audit_throughput.py --sizes 10000 --runs 5
    python bench/audit_throughput.py --detectors          # also cold and warm detectors
    python bench/audit_throughput.py --no-compiled        # the pure-Python row only
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.compiled import CompileError, c_compiler, ensure_build, origins, read_spec  # noqa: E402
from bench.shapes import SHAPES  # noqa: E402
from bench.synth import ensure_repo  # noqa: E402

ALL_SHAPES = ("synth", *SHAPES)

RATIO_TARGET = 1.5
DETECTORS_RATIO_TARGET = 3.0  # --detectors with a cold cache
RSS_TARGET_MIB = 300
CACHE_FILE = Path(".git") / "tddgit" / "audit-test-blobs.json"  # tddgit.audit.blobcache

_READ_LOOP = """
import sys
from tddgit.git import find_repo
from tddgit.history import read_history
n = files = 0
for c in read_history(find_repo(sys.argv[1])):
    n += 1
    files += len(c.files)
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    max_rss_mib: float


@dataclass(frozen=True)
class Build:
    """Which tddgit runs: its label in the table and the ``PYTHONPATH`` that selects it."""

    label: str
    pythonpath: Path


def timed(cmd: list[str], cwd: Path, build: Build | None = None) -> Run:
    """Run ``cmd`` with stdout discarded; wall time and the child's peak RSS."""
    env = {**os.environ, "TDDGIT_NO_PROGRESS": "1", "NO_COLOR": "1"}
    if build is not None:  # cwd is never ROOT, so nothing shadows PYTHONPATH's tddgit/
        env["PYTHONPATH"] = str(build.pythonpath)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {proc.returncode}")
    return Run(elapsed, usage.ru_maxrss / 1024)  # ru_maxrss is KiB on Linux


def audit_available() -> bool:
    proc = subprocess.run(
        [sys.executable, "-m", "tddgit", "audit", "--help"],
        cwd=ROOT,
        capture_output=True,
    )
    return proc.returncode == 0


def tddgit_command(
    repo: Path, use_audit: bool, detectors: bool = False, forced: bool = False
) -> tuple[str, list[str]]:
    if use_audit:
        cmd = [sys.executable, "-m", "tddgit", "-C", str(repo), "audit", "--format", "json"]
        if detectors:
            return "tddgit audit --format json --detectors", [*cmd, "--detectors"]
        return "tddgit audit --format json", cmd
    why = "--reader" if forced else "no audit command yet"
    return f"read_history loop ({why})", [sys.executable, "-c", _READ_LOOP, str(repo)]


def median(runs: list[Run]) -> Run:
    return Run(statistics.median(r.seconds for r in runs), max(r.max_rss_mib for r in runs))


def bench_size(
    n: int, shape: str, runs: int, use_audit: bool, builds: list[Build]
) -> list[dict[str, float]]:
    """One row per build, each against the same ``git log`` runs."""
    repo = ensure_repo(n, shape)
    _, cmd = tddgit_command(repo, use_audit)
    git_cmd = ["git", "log", "-z", "--name-status", "HEAD"]
    timed(git_cmd, repo)  # warm the page cache for both sides
    git_runs: list[Run] = []
    ours: dict[str, list[Run]] = {b.label: [] for b in builds}
    for _ in range(runs):  # interleaved, so drift in machine load hits all sides alike
        git_runs.append(timed(git_cmd, repo))
        for b in builds:
            ours[b.label].append(timed(cmd, repo, b))
    g = median(git_runs)
    return [_row(n, shape, b.label, g, median(ours[b.label])) for b in builds]


def _row(n: int, shape: str, label: str, g: Run, t: Run) -> dict[str, float]:
    row = {
        "n": n,
        "git_s": g.seconds,
        "tddgit_s": t.seconds,
        "ratio": t.seconds / g.seconds,
        "git_rss_mib": g.max_rss_mib,
        "rss_mib": t.max_rss_mib,
        "git_s_per_1k": g.seconds / (n / 1000),
        "s_per_1k": t.seconds / (n / 1000),
    }
    print(
        f"{shape:<10} | {n:>8} | {label:<17} | {g.seconds:7.2f} s | {t.seconds:7.2f} s | {row['ratio']:5.2f}x "
        f"{_mark(row['ratio'] <= RATIO_TARGET)} | {g.max_rss_mib:5.0f} MiB | "
        f"{t.max_rss_mib:5.0f} MiB {_mark(t.max_rss_mib <= RSS_TARGET_MIB)} | "
        f"{row['git_s_per_1k']:6.3f} | {row['s_per_1k']:6.3f}",
        flush=True,
    )
    return row


def bench_detectors(n: int, shape: str, runs: int, git_s: float, build: Build) -> None:
    """``--detectors`` with a cold cache (deleted before each run), then a warm one."""
    repo = ensure_repo(n, shape)
    _, cmd = tddgit_command(repo, True, detectors=True)
    cache = repo / CACHE_FILE
    cold, warm = [], []
    for _ in range(runs):
        cache.unlink(missing_ok=True)
        cold.append(timed(cmd, repo, build))
    for _ in range(runs):
        warm.append(timed(cmd, repo, build))
    for label, result in (("cold", median(cold)), ("warm", median(warm))):
        ratio = result.seconds / git_s
        target = DETECTORS_RATIO_TARGET if label == "cold" else RATIO_TARGET
        print(
            f"{shape:<10} | {n:>8} | {build.label:<17} | detectors, {label} cache: {result.seconds:6.2f} s | "
            f"{ratio:5.2f}x of git log (target {target}x) {_mark(ratio <= target)} | "
            f"{result.max_rss_mib:5.0f} MiB",
            flush=True,
        )


def builds(compiled: bool) -> list[Build]:
    """The sources, and (unless told not to, or impossible here) the compiled build; each
    checked to import its hot modules from where its label says."""
    pure = Build("tddgit", ROOT)
    names = read_spec().module_names()
    _check(pure, origins(ROOT, names), ".py")
    if not compiled:
        return [pure]
    if c_compiler() is None:
        print("no C compiler: no compiled row (the install would be pure Python too)")
        return [pure]
    print("compiled build: bench/.cache/compiled-<hash>/ (mypyc, ~15 s once per source state)")
    try:
        path = ensure_build()
    except CompileError as exc:
        print(f"no compiled row: {exc}")
        return [pure]
    build = Build("tddgit (compiled)", path)
    _check(build, origins(path, names), ".so")
    return [pure, build]


def _check(build: Build, found: dict[str, str], suffix: str) -> None:
    wrong = [f for f in found.values() if not f.endswith(suffix)]
    if wrong:
        raise SystemExit(f"{build.label}: expected {suffix} modules, got {', '.join(wrong)}")


def _mark(ok: bool) -> str:
    return "ok  " if ok else "OVER"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--shapes",
        nargs="+",
        choices=ALL_SHAPES,
        default=list(ALL_SHAPES),
        help="history shapes (bench/synth.py, bench/shapes.py); default all",
    )
    parser.add_argument(
        "--detectors",
        action="store_true",
        help="also time `tddgit audit --detectors` with a cold and a warm blob cache",
    )
    parser.add_argument(
        "--reader", action="store_true", help="time the read_history loop even if audit exists"
    )
    parser.add_argument(
        "--no-compiled",
        action="store_true",
        help="skip the row of the hot modules compiled with mypyc (and its ~15 s build)",
    )
    args = parser.parse_args(argv)

    use_audit = not args.reader and audit_available()
    label, _ = tddgit_command(Path("."), use_audit, forced=args.reader)
    print(f"tddgit side: {label}; {args.runs} runs, medians; peak RSS = max over runs")
    print(f"targets: ratio <= {RATIO_TARGET}x, peak RSS <= {RSS_TARGET_MIB} MiB, s/1k flat")
    kinds = builds(not args.no_compiled)
    print(
        "shape      |  commits | build             | git log   | tddgit    | ratio      | git RSS   "
        "| tddgit RSS     | s/1k git | s/1k tddgit"
    )
    for shape in args.shapes:
        sizes = [bench_size(n, shape, args.runs, use_audit, kinds) for n in args.sizes]
        if len(sizes) > 1:
            for k, build in enumerate(kinds):
                _flatness(f"{shape}, {build.label}", sizes[0][k], sizes[-1][k])
        if args.detectors and use_audit:
            print("detectors (medians; the git log time is the row's above):")
            for rows in sizes:
                for k, build in enumerate(kinds):
                    n = int(rows[k]["n"])
                    bench_detectors(n, shape, args.runs, rows[k]["git_s"], build)
    return 0


def _flatness(label: str, first: dict[str, float], last: dict[str, float]) -> None:
    ours = last["s_per_1k"] / first["s_per_1k"]
    gits = last["git_s_per_1k"] / first["git_s_per_1k"]
    # git's own cost per commit grows with the tree (more files to diff per commit);
    # what tddgit adds per commit is what must stay flat.
    print(
        f"{label}: cost per commit {first['n']:,} -> {last['n']:,}: tddgit x{ours:.2f}, "
        f"git log x{gits:.2f}; tddgit relative to git x{ours / gits:.2f} "
        f"({'flat' if ours / gits <= 1.15 else 'NOT flat'})"
    )


if __name__ == "__main__":
    sys.exit(main())
