"""Hook latency: `tddgit hook commit-msg` against `gitlint --msg-filename`, same message.

On a 100k-commit repository (built once with `git fast-import`, cached under
bench/.cache/; `bench.synth.ensure_repo` is used when it exists), with fresh evidence
stored for a staged change, times alternately over several runs:

- `tddgit hook commit-msg` on a message with `GSD-Phase: red` (the evidence fast path),
- `tddgit hook commit-msg` on the same message without the trailer (opt-in mode),
- `gitlint --msg-filename` on the message with the trailer,

- the first case again in a clone where ``--projects`` directories are projects of their
  own (`svcN/pyproject.toml`, docs/monorepo.md): the hook discovers them (cached per index)
  and reads each one's configuration,

and prints the medians side by side with the ratios. Target (PRODUCT.md §11): the fresh-
evidence case <= 0.6x gitlint, with one project and with ten.

    python bench/hook_latency.py [--commits 100000] [--runs 15] [--projects 10]
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


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("AUTHOR", "COMMITTER"):
        env.setdefault(f"GIT_{var}_NAME", "bench")
        env.setdefault(f"GIT_{var}_EMAIL", "bench@example.com")
    # PYTHONDONTWRITEBYTECODE would make every run compile tddgit from source, unlike any
    # installed package (pip compiles at install): the first, untimed run writes the .pyc
    for var in (
        "VIRTUAL_ENV",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "PYTHONDONTWRITEBYTECODE",
    ):
        env.pop(var, None)
    env["TDDGIT_NO_PROGRESS"] = "1"
    return env


def _git(root: Path, *args: str, input: bytes | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=root, input=input, capture_output=True, check=True, env=_env()
    )
    return proc.stdout.decode()


def _fast_import_stream(commits: int) -> bytes:
    """`commits` linear commits, each changing one of 50 files, dated a minute apart."""
    out: list[bytes] = []
    t0 = 1_600_000_000
    for i in range(1, commits + 1):
        body = f"line {i}\n".encode()
        msg = f"change {i}\n".encode()
        ts = t0 + 60 * i
        out.append(b"commit refs/heads/main\n")
        out.append(f"mark :{i}\n".encode())
        out.append(f"committer Bench <bench@example.com> {ts} +0000\n".encode())
        out.append(b"data %d\n%s" % (len(msg), msg))
        if i > 1:
            out.append(f"from :{i - 1}\n".encode())
        out.append(f"M 100644 inline src/mod{i % 50}.py\n".encode())
        out.append(b"data %d\n%s\n" % (len(body), body))
    return b"".join(out)


def build_history(commits: int) -> Path:
    """A cached repository with ``commits`` commits on main."""
    try:
        sys.path.insert(0, str(HERE.parent))
        from bench.synth import ensure_repo  # type: ignore[import-not-found]

        return Path(ensure_repo(commits))
    except ImportError:
        pass
    root = CACHE / f"history-{commits}"
    if (root / ".git" / "tddgit-bench-done").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    print(f"building a {commits}-commit repository with git fast-import ...", file=sys.stderr)
    _git(root, "fast-import", "--quiet", input=_fast_import_stream(commits))
    _git(root, "reset", "-q", "--hard", "main")
    (root / ".git" / "tddgit-bench-done").write_text("ok\n")
    return root


def prepare_work(history: Path, commits: int, projects: int = 0) -> tuple[Path, str]:
    """A clone sharing the history's objects, with a staged change and fresh evidence;
    with ``projects``, that many project directories committed on top first."""
    work = CACHE / (f"hook-work-{commits}" + (f"-p{projects}" if projects else ""))
    shutil.rmtree(work, ignore_errors=True)
    _git(CACHE, "clone", "-q", "--shared", str(history), str(work))
    test = "tests/test_bench.py"
    if projects:
        for i in range(projects):
            (work / f"svc{i}" / "tests").mkdir(parents=True)
            (work / f"svc{i}" / "pyproject.toml").write_text(f"[project]\nname = 'svc{i}'\n")
            (work / f"svc{i}" / "tests" / "test_ok.py").write_text("def test_ok():\n    pass\n")
        _git(work, "add", ".")
        _git(work, "commit", "-q", "-m", f"{projects} projects")
        test = "svc0/tests/test_bench.py"
    (work / test).parent.mkdir(exist_ok=True)
    (work / test).write_text("def test_new():\n    assert 1 + 1 == 3\n")
    _git(work, "add", test)
    tree = _git(work, "write-tree").strip()
    head = _git(work, "rev-parse", "HEAD").strip()
    sys.path.insert(0, str(HERE.parent))
    from tddgit.evidence import Evidence, cache_put
    from tddgit.git import find_repo
    from tddgit.lineage import state_at
    from tddgit.model import Cause, Outcome, TestResult

    repo = find_repo(work)
    evidence = Evidence(
        phase="red",
        tree=tree,
        parent=head,
        runner="pytest",
        command=("python", "-m", "pytest"),
        started=time.time(),
        duration=0.1,
        tddgit_version="bench",
        scope="changed",
        targets=(
            TestResult(f"{test}::test_new", Outcome.FAILED, Cause.ASSERTION, "assert 2 == 3"),
        ),
        suite={"failed": 1},
    )
    cache_put(repo, evidence)
    started = time.perf_counter()
    state_at(repo, head)  # what the tddgit command that stored the evidence already did
    cold = time.perf_counter() - started
    return work, f"{cold:.2f} s"


def _time(argv: list[str], cwd: Path, expect: int = 0) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, env=_env())
    elapsed = time.perf_counter() - started
    if proc.returncode != expect:
        sys.exit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--projects", type=int, default=10)
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    history = build_history(args.commits)
    work, cold = prepare_work(history, args.commits)
    many, _ = prepare_work(history, args.commits, args.projects)
    with_trailer = work / ".git" / "MSG_TRAILER"
    body = "Add a failing test for the new rule\n\nNegative amounts must be rejected.\n"
    with_trailer.write_text(body + "\nGSD-Phase: red\n")
    plain = work / ".git" / "MSG_PLAIN"
    plain.write_text(body)
    tddgit = str(BIN / "tddgit")
    gitlint = str(BIN / "gitlint")
    cases = {
        "tddgit hook commit-msg (fresh evidence)": [
            tddgit,
            "hook",
            "commit-msg",
            str(with_trailer),
        ],
        "tddgit hook commit-msg (opt-in, no trailer)": [tddgit, "hook", "commit-msg", str(plain)],
        "gitlint --msg-filename": [gitlint, "--msg-filename", str(with_trailer)],
        f"... fresh evidence, {args.projects} projects": [
            tddgit,
            "hook",
            "commit-msg",
            str(with_trailer),
        ],
    }
    where = {name: many if "projects" in name else work for name in cases}
    for name, argv in cases.items():  # warm the page cache, lineage and project caches
        _time(argv, where[name])
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.runs):
        for name, argv in cases.items():
            times[name].append(_time(argv, where[name]))
    commits = _git(work, "rev-list", "--count", "HEAD").strip()
    medians = {k: statistics.median(v) for k, v in times.items()}
    base = medians["gitlint --msg-filename"]
    print(f"hook latency on {commits} commits, median of {args.runs} runs")
    print(f"(lineage state computed once before timing, cold: {cold})")
    print(f"{'command':<46} {'median':>9} {'min':>9}  vs gitlint")
    for name, median in medians.items():
        print(
            f"{name:<46} {median * 1000:7.1f}ms {min(times[name]) * 1000:7.1f}ms  {median / base:.2f}x"
        )
    for name in (
        "tddgit hook commit-msg (fresh evidence)",
        f"... fresh evidence, {args.projects} projects",
    ):
        ratio = medians[name] / base
        verdict = "meets" if ratio <= 0.6 else "MISSES"
        print(f"{name}: ratio {ratio:.2f} {verdict} the target <= 0.60 (PRODUCT.md §11)")


if __name__ == "__main__":
    main()
