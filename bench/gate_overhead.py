"""Gate overhead: `tddgit red --no-commit` against plain `python -m pytest` on the same tests.

Builds (once, under bench/.cache/) a project of ~200 tests in 10 files plus one staged
failing test, then times both commands alternately over several runs and prints the
medians side by side and their ratio, warm (caches kept between runs) and cold (each run
as in a fresh clone: no project bytecode, no pytest cache, no tddgit state). Target
(PRODUCT.md §11): ratio <= 1.3 both ways.

    python bench/gate_overhead.py [--runs 7] [--tests-per-file 20] [--files 10]
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

CACHE = Path(__file__).resolve().parent / ".cache"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=_env())


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("AUTHOR", "COMMITTER"):
        env.setdefault(f"GIT_{var}_NAME", "bench")
        env.setdefault(f"GIT_{var}_EMAIL", "bench@example.com")
    env.pop("VIRTUAL_ENV", None)
    # Both sides as a user's shell has them: bytecode caching on (this machine's
    # environment disables it globally, which would make plain pytest recompile each run).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["TDDGIT_NO_PROGRESS"] = "1"
    return env


def build(files: int, per_file: int) -> Path:
    root = CACHE / f"gate-{files}x{per_file}"
    if (root / ".git").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\ntestpaths = ["tests"]\n'
    )
    (root / ".tddgit.yaml").write_text("red:\n  scope: all\n")
    (root / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    (root / "lib.py").write_text("def double(x):\n    return 2 * x\n")
    for f in range(files):
        body = ["import lib", ""]
        for t in range(per_file):
            body += [f"def test_double_{f}_{t}():", f"    assert lib.double({t}) == {2 * t}", ""]
        (root / "tests" / f"test_mod{f}.py").write_text("\n".join(body))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench project")
    (root / "tests" / "test_new.py").write_text(
        "import lib\n\ndef test_triple():\n    assert lib.triple(2) == 6\n"
    )
    _git(root, "add", "tests/test_new.py")
    return root


def _cold(root: Path) -> None:
    """As in a fresh clone: no bytecode of the project anywhere, no pytest cache, no
    tddgit state (evidence cache, bytecode cache). Site-packages keep theirs, as a fresh
    clone's environment does."""
    for cache in root.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(root / ".pytest_cache", ignore_errors=True)
    shutil.rmtree(root / ".git" / "tddgit", ignore_errors=True)


def timed(argv: list[str], cwd: Path, expect: int, *, cold: bool = False) -> float:
    if cold:
        _cold(cwd)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_env())
    elapsed = time.perf_counter() - start
    if proc.returncode != expect:
        sys.exit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--tests-per-file", type=int, default=20)
    args = ap.parse_args()
    root = build(args.files, args.tests_per_file)
    py = sys.executable
    plain = [py, "-m", "pytest", "-q"]  # what a user runs: cache provider on
    gate = [py, "-m", "tddgit", "red", "--no-commit"]
    timed(plain, root, 1)  # warm the OS caches for both
    timed(gate, root, 0)
    n = args.files * args.tests_per_file + 1
    print(f"project: {n} tests in {args.files + 1} files, {args.runs} runs each, medians")
    for label, cold in (("warm", False), ("cold", True)):
        t_plain, t_gate = [], []
        for _ in range(args.runs):
            t_plain.append(timed(plain, root, 1, cold=cold))
            t_gate.append(timed(gate, root, 0, cold=cold))
        mp, mg = statistics.median(t_plain), statistics.median(t_gate)
        print(f"{label} (each run {'in a fresh clone' if cold else 'after the last'}):")
        print(f"  {'python -m pytest':<28} {mp:7.3f} s   (min {min(t_plain):.3f})")
        print(f"  {'tddgit red --no-commit':<28} {mg:7.3f} s   (min {min(t_gate):.3f})")
        print(f"  ratio gate/pytest: {mg / mp:.2f}x   (target <= 1.30x)")


if __name__ == "__main__":
    main()
