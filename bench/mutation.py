"""Mutation check cost: a 20-line green on the gate-overhead bench project, judged with
`green.mutation = warn` against the same gate with it off, side by side in one run.

Builds (once, under bench/.cache/) the gate bench's project (~200 tests in 10 files) plus an
open red for a `classify` function, stages its 20-line implementation, then times
`tddgit green --no-commit` alternately with the check off and on (the mutation cache
emptied before every run, so each run pays for every mutant), and the red's own test
file under plain pytest. Prints the medians, the mutants per changed line, and the check's
cost. Target (PRODUCT.md §11): the whole check <= 10 s for a 20-line green here.

    python bench/mutation.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.gate_overhead import _env, _git, build

TEST = """\
import lib


def test_classify_small():
    assert lib.classify(1) == "small"


def test_classify_medium():
    assert lib.classify(50) == "medium"


def test_classify_large():
    assert lib.classify(500) == "large"


def test_classify_negative():
    assert lib.classify(-3) == "negative"


def test_classify_total():
    assert lib.total([1, 2, 3]) == 6
"""

GREEN = """\
def double(x):
    return 2 * x


def classify(x):
    if x < 0:
        return "negative"
    if x < 10:
        return "small"
    if x < 100:
        return "medium"
    if x == 1000:
        return "huge"
    return "large"


def total(values):
    result = 0
    for v in values:
        result += v
    if result > 10**9:
        result = 10**9
    return result
"""


def project() -> Path:
    base = build(10, 20)
    root = base.parent / "mutation-20"
    if not (root / ".git").exists():
        shutil.rmtree(root, ignore_errors=True)
        # the gate bench's committed project (its staged test is left behind)
        subprocess.run(["git", "clone", "-q", str(base), str(root)], check=True, env=_env())
        (root / "tests" / "test_classify.py").write_text(TEST)
        _git(root, "add", "tests/test_classify.py")
        tddgit = [sys.executable, "-m", "tddgit"]
        subprocess.run([*tddgit, "red", "-m", "red: classify"], cwd=root, env=_env(), check=True)
    (root / "lib.py").write_text(GREEN)
    _git(root, "add", "lib.py")
    return root


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return took, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = project()
    env = _env()
    gate = [sys.executable, "-m", "tddgit", "green", "--no-commit", "--json"]
    plain = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_classify.py",
    ]
    off: list[float] = []
    on: list[float] = []
    own: list[float] = []
    data: dict[str, object] = {}
    for _ in range(args.runs):
        shutil.rmtree(root / ".git" / "tddgit" / "mutation", ignore_errors=True)
        (root / ".tddgit.yaml").write_text('red:\n  scope: all\ngreen:\n  mutation: "off"\n')
        off.append(timed(gate, root, env)[0])
        (root / ".tddgit.yaml").write_text("red:\n  scope: all\n")
        took, out = timed(gate, root, env)
        on.append(took)
        data = json.loads(out)
        own.append(timed(plain, root, env)[0])
    (root / ".tddgit.yaml").write_text("red:\n  scope: all\n")
    evidence = data.get("evidence")
    findings = evidence.get("findings", []) if isinstance(evidence, dict) else []
    notes = [n for n in data.get("notes", []) if str(n).startswith("mutation:")]  # type: ignore[union-attr]
    m_off, m_on, m_own = (statistics.median(x) for x in (off, on, own))
    changed = len([line for line in GREEN.splitlines()[3:] if line.strip()])
    print(f"green of {changed} changed lines, {args.runs} runs, medians:")
    print(f"  green gate, mutation off   {m_off:6.2f} s")
    print(f"  green gate, mutation warn  {m_on:6.2f} s")
    print(f"  the check itself           {m_on - m_off:6.2f} s  (target <= 10 s)")
    print(f"  the red's tests alone      {m_own:6.2f} s  (plain pytest, one file)")
    for note in notes:
        print(f"  {note}")
    for f in findings:
        if isinstance(f, dict) and f.get("rule") == "unpinned-green-line":
            print(f"  survivor: {f['file']}:{f['line']} {f['operator']}: {f['mutant']}")


if __name__ == "__main__":
    main()
