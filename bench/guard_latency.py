"""Agent guard latency (PRODUCT.md §11): the pre-write hook on a 10k-commit repository, and
the post-write check against running the affected tests alone.

On a clone of the synthetic 10k-commit history (``bench.synth.ensure_repo``), with a small
module and its test file committed as a ``GSD-Phase: green`` step (so production writes
are refactor candidates: the pre-write hook reads the lineage state and takes a snapshot),
times interleaved over several runs:

- ``tddgit agent hook claude-code`` on a ``PreToolUse`` event for the production file
  (allowed as a refactor candidate: lineage state, classification, snapshot),
- the same on a test file (allowed at once),
- ``python -c pass`` (the interpreter's own start-up, for scale),
- ``tddgit agent hook claude-code`` on the ``PostToolUse`` event after a refactor that keeps
  the tests green (the affected test file run with coverage, the added lines judged; the
  write is kept), each run after an untimed pre-write so a snapshot exists,
- ``python -m pytest -q`` on the affected test file alone (the same interpreter).

Then the tree check after every tool (issue 26), on a repository of ``--files`` (10k)
tracked files, the session's start accepted first:

- ``PostToolUse`` for a ``Bash`` call that changed nothing,
- ``PostToolUse`` for a ``Bash`` call that changed one file again (a tracked note, changed
  since the first round: a free path, answered by the fast path without a look at it),
- ``PostToolUse`` for a ``Bash`` call that wrote one new file (a note git status has not
  listed before: the full check judges it, accepted, no tests run),
- ``PreToolUse`` for that ``Bash`` call (the command rules; the call's start recorded).

Before each timed "nothing changed" call the previous check has recorded the tree, so it
is the fast path (guard/quick.py) that answers.

Prints medians, minimum and maximum (the spread shows how noisy the machine was) and the
load average before and after. Targets: pre-write median <= 100 ms; post-write <= 1.5x the
affected tests alone; tree check <= 50 ms with nothing changed, <= 100 ms with one file (either row);
pre-tool <= 100 ms.

    python bench/guard_latency.py [--commits 10000] [--runs 15] [--tests 40] [--files 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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

MODULE = "guardbench/money.py"
TEST = "tests/test_guardbench_money.py"
SOURCE = '''\
"""Amounts of money in cents."""


def parse(text):
    units, _, cents = text.partition(".")
    return int(units) * 100 + int((cents + "00")[:2])


def show(amount):
    return f"{amount // 100}.{amount % 100:02d}"
'''
# Two refactors that keep every test green, add only executed lines and change no
# behaviour the tests do not pin (the guard's mutation check would say so, and rightly:
# a `text = text.strip()` no test exercises is a behaviour change).
REFACTORS = (
    SOURCE.replace("units", "whole"),
    SOURCE.replace(
        '    return f"{amount // 100}.{amount % 100:02d}"',
        '    whole, cents = divmod(amount, 100)\n    return f"{whole}.{cents:02d}"',
    ),
)


def tests_source(count: int) -> str:
    return "from guardbench import money\n" + "".join(
        f"""
def test_parse_{i}():
    assert money.parse("{i}.5") == {i * 100 + 50}
    assert money.show({i * 100 + 5}) == "{i}.05"
"""
        for i in range(count)
    )


def prepare(commits: int, tests: int) -> Path:
    history = ensure_repo(commits)
    work = CACHE / f"guard-work-{commits}"
    shutil.rmtree(work, ignore_errors=True)
    _git(CACHE, "clone", "-q", "--shared", str(history), str(work))
    (work / "guardbench").mkdir()
    (work / "guardbench" / "__init__.py").write_text("")
    (work / MODULE).write_text(SOURCE)
    # the project's own pytest section: else pytest would take this checkout's for the rootdir
    with (work / "pyproject.toml").open("a") as fh:
        fh.write('\n[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (work / TEST).parent.mkdir(exist_ok=True)
    (work / TEST).write_text(tests_source(tests))
    _git(work, "add", "guardbench", "pyproject.toml", TEST)
    _git(work, "commit", "-q", "-m", "money: parse and show\n\nGSD-Phase: green")
    subprocess.run([str(BIN / "tddgit"), "status"], cwd=work, capture_output=True, env=_env())
    return work


def payload(work: Path, event: str, path: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-session",
            "transcript_path": str(work / ".transcript"),
            "cwd": str(work),
            "hook_event_name": event,
            "tool_name": "Edit",
            "tool_input": {"file_path": str(work / path), "old_string": "a", "new_string": "b"},
        }
    ).encode()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path, stdin: bytes = b"") -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the process and the children it waited for, stdout);
    the CPU time does not grow when other processes compete for the cores."""
    cpu0 = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, env=_env())
    elapsed = time.perf_counter() - started
    cpu = _children_cpu() - cpu0
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr.decode()}")
    return elapsed, cpu, proc.stdout


def prepare_tree(files: int) -> Path:
    """A repository of ``files`` tracked files (100 per directory), one commit, a green step."""
    work = CACHE / f"guard-tree-{files}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    _git(work, "init", "-q")
    for i in range(files):
        d = work / "pkg" / f"d{i // 100:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"m{i % 100:02d}.py").write_text(f"VALUE = {i}\n")
    (work / "notes.md").write_text("notes\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "bulk\n\nGSD-Phase: green")
    _git(work, "status", "-s")  # the index's stat cache filled, as in a work tree in use
    return work


def bash_payload(work: Path, event: str, command: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-tree",
            "transcript_path": str(work / ".transcript"),
            "cwd": str(work),
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        }
    ).encode()


def tree_bench(files: int, runs: int) -> None:
    work = prepare_tree(files)
    hook = [str(BIN / "tddgit"), "agent", "hook", "claude-code"]
    start = json.dumps(
        {"session_id": "bench-tree", "cwd": str(work), "hook_event_name": "SessionStart"}
    ).encode()
    timed(hook, work, start)
    same = bash_payload(work, "PostToolUse", "ls")
    one = bash_payload(work, "PostToolUse", "echo x >> notes.md")
    new = bash_payload(work, "PostToolUse", "echo x > notes-N.md")
    pre = bash_payload(work, "PreToolUse", "echo x >> notes.md")
    names = (
        "tree check, nothing changed",
        "tree check, a changed file changed again",
        "tree check, one new file (full check)",
        "pre-tool, shell command",
    )
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    load_before = os.getloadavg()
    for i in range(runs + 1):
        t_same = timed(hook, work, same)
        t_pre = timed(hook, work, pre)
        # notes.md differs from HEAD since the first round, and the full check found it
        # free (not code): the fast path answers without a look at it (guard/quick.py)
        with (work / "notes.md").open("a") as fh:
            fh.write(f"line {i}\n")
        t_one = timed(hook, work, one)
        # a path git status has not listed before: the full check judges it
        (work / f"notes-{i}.md").write_text("x\n")
        t_new = timed(hook, work, new)
        if t_same[2] or t_one[2] or t_new[2] or t_pre[2]:
            sys.exit(f"the hook said: {t_same[2]!r} {t_one[2]!r} {t_new[2]!r} {t_pre[2]!r}")
        if i:
            for name, t in zip(names, (t_same, t_one, t_new, t_pre), strict=True):
                wall[name].append(t[0])
                cpu[name].append(t[1])
    tracked = len(_git(work, "ls-files", "-z").split("\0")) - 1
    print(
        f"tree check on {tracked} tracked files, {runs} runs; load average before "
        f"{load_before[0]:.2f}, after {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)"
    )
    for name, target in zip(names, (0.050, 0.100, 0.100, 0.100), strict=True):
        med = statistics.median(wall[name])
        verdict = "meets" if med <= target else "MISSES"
        print(
            f"{name:<38} median {med * 1000:7.1f}ms min {min(wall[name]) * 1000:7.1f}ms "
            f"max {max(wall[name]) * 1000:7.1f}ms CPU {statistics.median(cpu[name]) * 1000:6.1f}ms "
            f"{verdict} the target <= {target * 1000:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--tests", type=int, default=40, help="test functions in the affected test file"
    )
    parser.add_argument("--files", type=int, default=10_000, help="tracked files (tree check)")
    parser.add_argument("--tree-only", action="store_true", help="only the tree check")
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    if args.tree_only:
        tree_bench(args.files, args.runs)
        return
    CACHE.mkdir(exist_ok=True)
    work = prepare(args.commits, args.tests)
    load_before = os.getloadavg()
    hook = [str(BIN / "tddgit"), "agent", "hook", "claude-code"]
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST]
    pre_prod = payload(work, "PreToolUse", MODULE)
    pre_test = payload(work, "PreToolUse", TEST)
    post = payload(work, "PostToolUse", MODULE)
    names = (
        "pre-write, production file",
        "pre-write, test file",
        "python -c pass",
        "post-write check (kept refactor)",
        "pytest on the affected tests alone",
    )
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    for i in range(args.runs + 1):  # the first round warms caches and is not counted
        rounds = []
        rounds.append(timed(hook, work, pre_prod))
        assert rounds[-1][2] == b"", rounds[-1][2]
        (work / MODULE).write_text(REFACTORS[i % 2])
        t_post = timed(hook, work, post)
        if t_post[2]:
            sys.exit(f"the post-write check did not keep the refactor: {t_post[2].decode()}")
        rounds.append(timed(hook, work, pre_test))
        rounds.append(timed([sys.executable, "-c", "pass"], work))
        rounds.append(t_post)
        rounds.append(timed(pytest, work))
        if i == 0:
            continue
        for name, (w, c, _) in zip(names, rounds, strict=True):
            wall[name].append(w)
            cpu[name].append(c)
    load_after = os.getloadavg()
    commits = _git(work, "rev-list", "--count", "HEAD").strip()
    med = {k: statistics.median(v) for k, v in wall.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(
        f"agent guard on {commits} commits, {args.runs} interleaved runs, "
        f"{args.tests} tests in the affected file"
    )
    print(
        f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
        f"({os.cpu_count()} cores): wall times grow with the load, CPU times do not"
    )
    print(f"{'case':<38} {'median':>9} {'min':>9} {'max':>9} {'CPU med':>9}")
    for name in names:
        print(
            f"{name:<38} {med[name] * 1000:7.1f}ms {min(wall[name]) * 1000:7.1f}ms "
            f"{max(wall[name]) * 1000:7.1f}ms {med_cpu[name] * 1000:7.1f}ms"
        )
    pre = med["pre-write, production file"]
    pre_cpu = med_cpu["pre-write, production file"]
    verdict = "meets" if pre <= 0.100 else "MISSES"
    print(
        f"pre-write median {pre * 1000:.1f} ms wall ({pre_cpu * 1000:.1f} ms CPU) {verdict} "
        "the target <= 100 ms"
    )
    post, alone = "post-write check (kept refactor)", "pytest on the affected tests alone"
    ratio = med[post] / med[alone]
    verdict = "meets" if ratio <= 1.5 else "MISSES"
    print(
        f"post-write / affected tests alone {ratio:.2f}x wall "
        f"({med_cpu[post] / med_cpu[alone]:.2f}x CPU) {verdict} the target <= 1.5x"
    )
    tree_bench(args.files, args.runs)


if __name__ == "__main__":
    main()
