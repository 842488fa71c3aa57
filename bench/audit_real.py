"""The audit against ``git log -z --name-status`` on real histories (issue 27, item 9).

    python bench/audit_real.py GIT_DIR [GIT_DIR ...] [--runs 3] [--no-compiled]

For each bare or normal git dir, side by side and interleaved run by run (medians): git's
own log with file names (the floor any history reader pays), then ``tddgit audit --format
json`` to /dev/null through the library (``run_audit`` on that git dir with the default
configuration), pure Python (the sources) and compiled (the hot modules built with mypyc
exactly as ``pip install`` builds them: ``bench/compiled.py``). Prints wall seconds, CPU
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
from tddgit.git import Repo
g = Path(sys.argv[1])
with open(sys.argv[2], "w", encoding="utf-8") as out:
    options = AuditOptions(prerender_json=("utf-8", "strict"), leave_to_exit=True)
    write_json(run_audit(Repo(root=g, git_dir=g, common_dir=g), default_config(), options), out)
"""


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MiB) of one run, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd="/"
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{cmd[0]} failed: {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def builds(compiled: bool) -> list[tuple[str, dict[str, str]]]:
    """(label, environment) of each build to time; the compiled one when it can be made."""
    pure = dict(os.environ, PYTHONPATH=str(ROOT))
    out = [("pure Python", pure)]
    if compiled:
        from bench.compiled import CompileError, c_compiler, ensure_build

        if c_compiler() is None:
            print("(no C compiler: the compiled build is skipped)")
        else:
            try:
                out.append(("compiled", dict(os.environ, PYTHONPATH=str(ensure_build()))))
            except CompileError as exc:
                print(f"(the compiled build failed, skipped: {str(exc).splitlines()[0]})")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("git_dirs", type=Path, nargs="+")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--no-compiled", action="store_true", help="time the pure build only")
    args = p.parse_args(argv)
    kinds = builds(not args.no_compiled)
    print(
        f"{'history':24} {'commits':>8} {'build':12} {'wall':>8} {'ratio':>6} "
        f"{'CPU':>8} {'ratio':>6} {'peak RSS':>9}"
    )
    for given in args.git_dirs:
        g = given.resolve()
        name = g.parent.name if g.name == "repo" else g.name.removesuffix(".git")
        count = subprocess.run(
            ["git", "-C", str(g), "rev-list", "--count", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        log = ["git", "-C", str(g), "log", "-z", "--name-status", "HEAD"]
        audit = [sys.executable, "-c", AUDIT, str(g), os.devnull]
        git_runs: list[tuple[float, float, int]] = []
        runs: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _ in kinds}
        for _ in range(args.runs):
            git_runs.append(timed(log))
            for label, env in kinds:
                runs[label].append(timed(audit, env))
        gw = statistics.median(r[0] for r in git_runs)
        gc = statistics.median(r[1] for r in git_runs)
        print(f"{name:24} {count:>8} {'git log':12} {gw:7.2f}s {'':>6} {gc:7.2f}s")
        for label, rs in runs.items():
            w = statistics.median(r[0] for r in rs)
            c = statistics.median(r[1] for r in rs)
            print(
                f"{'':24} {'':>8} {label:12} {w:7.2f}s {w / gw:5.2f}x {c:7.2f}s "
                f"{c / max(gc, 1e-9):5.2f}x {max(r[2] for r in rs):5d} MiB"
            )
    print(
        f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
