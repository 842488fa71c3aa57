"""The audit against ``git log -z --name-status`` on a real history (issue 27, item 9).

    python bench/real_history.py /work/.mirror/pytest-dev+pytest/repo [--runs 3]

For one bare or normal git dir, side by side (interleaved, medians): git's own log with
file names (the floor any history reader pays), then ``tddgit audit --format json`` to
/dev/null through the library (``run_audit`` on that git dir with the default
configuration). Prints wall seconds, the ratio, and the audit process's peak RSS
(``os.wait4``). Run it with the interpreter of the build to measure (pure: the sources;
compiled: an installed wheel).
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


def timed(cmd: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS in MiB) of one run, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[0]} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_maxrss // 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("git_dir", type=Path)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    g = args.git_dir.resolve()
    count = subprocess.run(
        ["git", "-C", str(g), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    log = ["git", "-C", str(g), "log", "-z", "--name-status", "HEAD"]
    audit = [sys.executable, "-c", AUDIT, str(g), os.devnull]
    git_times, audit_times, rss = [], [], []
    for _ in range(args.runs):
        git_times.append(timed(log)[0])
        wall, peak = timed(audit)
        audit_times.append(wall)
        rss.append(peak)
    g_med, a_med = statistics.median(git_times), statistics.median(audit_times)
    print(f"{g.parent.name if g.name == 'repo' else g.name}: {count} commits, {args.runs} runs")
    print(f"  git log -z --name-status  {g_med:6.2f} s")
    print(
        f"  tddgit audit (json)       {a_med:6.2f} s   {a_med / g_med:4.2f}x   peak {max(rss)} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
