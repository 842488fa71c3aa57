"""The audit against ``git log -z --name-status`` on real histories (issue 27, item 9).

    python bench/audit_real.py GIT_DIR [GIT_DIR ...] [--runs 3] [--cold-runs 1] [--no-compiled]

For each bare or normal git dir, side by side and interleaved run by run (medians): git's
own log with file names (the floor any history reader pays), then ``tddgit audit --format
json`` to /dev/null through the library (``run_audit`` with the default configuration),
pure Python (the sources) and compiled (the hot modules built with mypyc exactly as
``pip install`` builds them: ``bench/compiled.py``), each build cold (no answers cache:
``.git/tddgit/audit-answers.json`` removed before the run, the first audit of a
history) and warm (the cache the cold run left: every later audit, CI on each pull
request). Each build audits its own ``git clone --shared`` of the git dir in a temporary
directory: a checkout, as a user's is (its index decides which projects the repository
holds, and a repository of several is audited project by project); the cache is written
there, never into the given git dir; the clone shares the objects, so reading them costs
the same. Prints wall seconds, CPU
seconds (user + system of the process and the children it waited for, ``os.wait4``: on a
loaded machine the wall time measures the queue for the cores, the CPU time does not),
both ratios to git's, and the audit's peak RSS (Linux: the maximum over the process and
the children it waited for, so the ``git`` child is included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

AUDIT = """
import sys
from pathlib import Path
from tddgit.audit import AuditOptions, run_audit
from tddgit.audit.report import write_json
from tddgit.config import default_config
from tddgit.git import Repo, find_repo
g = Path(sys.argv[1])
repo = Repo(root=g, git_dir=g, common_dir=g) if (g / "objects").is_dir() else find_repo(g)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    options = AuditOptions(prerender_json=("utf-8", "strict"), leave_to_exit=True)
    write_json(run_audit(repo, default_config(), options), out)
"""


def timed(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path | str = "/"
) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MiB) of one run, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{cmd[0]} failed: {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def builds(compiled: bool) -> list[tuple[str, dict[str, str]]]:
    """(label, environment) of each build to time; the compiled one when it can be made.

    Without ``PYTHONDONTWRITEBYTECODE``: an installed tddgit has its modules' bytecode
    (pip writes it), so an audit does not compile its sources on every run (0.2-0.3 s of
    a 1 s warm audit when the variable is set in the shell that runs the bench)."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    pure = dict(base, PYTHONPATH=str(ROOT))
    out = [("pure Python", pure)]
    if compiled:
        from bench.compiled import CompileError, c_compiler, ensure_build

        if c_compiler() is None:
            print("(no C compiler: the compiled build is skipped)")
        else:
            try:
                out.append(("compiled", dict(base, PYTHONPATH=str(ensure_build()))))
            except CompileError as exc:
                print(f"(the compiled build failed, skipped: {str(exc).splitlines()[0]})")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("git_dirs", type=Path, nargs="+")
    p.add_argument("--runs", type=int, default=3, help="warm runs (and git log runs)")
    p.add_argument("--cold-runs", type=int, default=1, help="cold runs (slow on big histories)")
    p.add_argument("--no-compiled", action="store_true", help="time the pure build only")
    p.add_argument(
        "--in-place",
        action="store_true",
        help="audit the given git dirs themselves (their answers cache is used, and removed "
        "for the cold runs) instead of private clones; with --cold-runs 0, the warm runs "
        "of a cache an earlier audit left",
    )
    p.add_argument(
        "--text",
        action="store_true",
        help="also time `python -m tddgit audit` in the checkout, `--format json` and the "
        "text report a user reads (the command line, which starts git before it is parsed)",
    )
    args = p.parse_args(argv)
    kinds = builds(not args.no_compiled)
    print(
        f"{'history':24} {'commits':>8} {'build':22} {'wall':>8} {'ratio':>6} "
        f"{'CPU':>8} {'ratio':>6} {'peak RSS':>9}"
    )
    for given in args.git_dirs:
        with tempfile.TemporaryDirectory(prefix="audit-real-") as tmp:
            target = given.resolve()
            where = None if args.in_place else Path(tmp)
            bench_one(target, kinds, where, args.runs, args.cold_runs, args.text)
    print(
        f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"
    )
    return 0


def bench_one(
    g: Path,
    kinds: list[tuple[str, dict[str, str]]],
    tmp: Path | None,
    runs: int,
    cold_runs: int,
    cli: bool = False,
) -> None:
    name = g.parent.name if g.name == "repo" else g.name.removesuffix(".git")
    count = subprocess.run(
        ["git", "-C", str(g), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    log = ["git", "-C", str(g), "log", "-z", "--name-status", "HEAD"]
    clones: dict[str, Path] = {}
    for label, _ in kinds:
        if tmp is None:
            clones[label] = g
            continue
        clone = clones[label] = tmp / label.replace(" ", "-")
        subprocess.run(["git", "clone", "-q", "--shared", str(g), str(clone)], check=True)
    git_runs: list[tuple[float, float, int]] = []
    rows: dict[str, list[tuple[float, float, int]]] = {}
    for i in range(max(runs, cold_runs)):
        git_runs.append(timed(log))
        for label, env in kinds:
            clone = clones[label]
            audit = [sys.executable, "-c", AUDIT, str(clone), os.devnull]
            answers = _answers(clone)
            if i < cold_runs:
                answers.unlink(missing_ok=True)
                rows.setdefault(f"{label} cold", []).append(timed(audit, env))
            if i < runs:
                if not answers.exists():
                    timed(audit, env)  # the cold run that leaves the cache
                rows.setdefault(f"{label} warm", []).append(timed(audit, env))
                if cli and tmp is not None:
                    # what a user (or CI) types in the checkout: the command line, the
                    # JSON report and the text one, each on a pipe
                    tddgit = [sys.executable, "-m", "tddgit", "audit"]
                    rows.setdefault(f"{label} warm, CLI json", []).append(
                        timed([*tddgit, "--format", "json"], env, clone)
                    )
                    rows.setdefault(f"{label} warm, text", []).append(timed(tddgit, env, clone))
    gw = statistics.median(r[0] for r in git_runs)
    gc = statistics.median(r[1] for r in git_runs)
    print(f"{name:24} {count:>8} {'git log':22} {gw:7.2f}s {'':>6} {gc:7.2f}s")
    for label, rs in sorted(rows.items(), key=lambda kv: "warm" in kv[0]):
        w = statistics.median(r[0] for r in rs)
        c = statistics.median(r[1] for r in rs)
        print(
            f"{'':24} {'':>8} {label:22} {w:7.2f}s {w / gw:5.2f}x {c:7.2f}s "
            f"{c / max(gc, 1e-9):5.2f}x {max(r[2] for r in rs):5d} MiB"
        )


def _answers(git_dir: Path) -> Path:
    """The answers cache of a bare git dir, or of a repository with a work tree."""
    base = git_dir if (git_dir / "objects").is_dir() else git_dir / ".git"
    return base / "tddgit" / "audit-answers.json"


if __name__ == "__main__":
    raise SystemExit(main())
