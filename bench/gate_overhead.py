"""Gate overhead: `tddgit red --no-commit` against the plain test command on the same
change -- `python -m pytest`, `go test ./...` and `cargo test` (rows for the languages
whose toolchain is installed). The gate is the `tddgit` command installed beside this
Python, as a user runs it (its start-up is part of the overhead); `python -m tddgit`
where none is installed.

Builds (once, under bench/.cache/) a project per language of ~200 tests in 10 files. Each
timed command then faces a change of its own that no cache holds: just before it, a new
body of the red's test file is written and staged (a constant no earlier run used), as
when a user edits a test and runs the tests or the gate. The two commands alternate which
goes first, run by run; medians side by side and their ratio. Scenarios: Python, a test of
a function not written yet, warm (caches kept between runs) and cold (each run as in a
fresh clone: no project bytecode, no pytest cache, no tddgit state); Go and Rust, a test
that does not compile yet (calls a function not written yet) and a test that compiles and
fails its assertion (the test binary is built, linked and run). Target (PRODUCT.md §11):
ratio <= 1.3.

    python bench/gate_overhead.py [--runs 7] [--tests-per-file 20] [--files 10]
        [--only python,go,rust]
"""

from __future__ import annotations

import argparse
import os
import resource
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


def build_go(files: int, per_file: int) -> Path:
    root = CACHE / f"gate-go-{files}x{per_file}"
    if (root / ".git").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/bench\n\ngo 1.19\n")
    for f in range(files):
        pkg = root / f"pkg{f}"
        pkg.mkdir()
        (pkg / "lib.go").write_text(
            f"package pkg{f}\n\nfunc Double(x int) int {{ return 2 * x }}\n"
        )
        body = [f"package pkg{f}", "", 'import "testing"', ""]
        for t in range(per_file):
            body += [
                f"func TestDouble{t}(t *testing.T) {{",
                f"\tif Double({t}) != {2 * t} {{\n\t\tt.Fatal(Double({t}))\n\t}}",
                "}",
                "",
            ]
        (pkg / "lib_test.go").write_text("\n".join(body))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench project")
    (root / "pkg0" / "new_test.go").write_text(
        'package pkg0\n\nimport "testing"\n\nfunc TestTriple(t *testing.T) {\n'
        "\tif Triple(2) != 6 {\n\t\tt.Fatal(Triple(2))\n\t}\n}\n"
    )
    _git(root, "add", "pkg0/new_test.go")
    return root


def build_rust(files: int, per_file: int) -> Path:
    root = CACHE / f"gate-rust-{files}x{per_file}"
    if (root / ".git").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "Cargo.toml").write_text(
        '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
    )
    (root / ".gitignore").write_text("/target\nCargo.lock\n")
    (root / "src" / "lib.rs").write_text("pub fn double(x: i32) -> i32 {\n    2 * x\n}\n")
    for f in range(files):
        body = ["use bench::double;", ""]
        for t in range(per_file):
            body += [
                "#[test]",
                f"fn doubles_{t}() {{",
                f"    assert_eq!(double({t}), {2 * t});",
                "}",
                "",
            ]
        (root / "tests" / f"mod{f}.rs").write_text("\n".join(body))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench project")
    (root / "tests" / "new.rs").write_text(
        "use bench::triple;\n\n#[test]\nfn triples() {\n    assert_eq!(triple(2), 6);\n}\n"
    )
    _git(root, "add", "tests/new.rs")
    return root


# A red's test file, as the user edits it before each command: ``k`` makes every body new.
# "missing": calls a function not written yet; "assertion": compiles, fails its assertion.
REDS = {
    "python": (
        "tests/test_new.py",
        {"missing": "import lib\n\ndef test_triple():\n    assert lib.triple({k}) == {k3}\n"},
    ),
    "go": (
        "pkg0/new_test.go",
        {
            "missing": 'package pkg0\n\nimport "testing"\n\nfunc TestTriple(t *testing.T) {{\n'
            "\tif Triple({k}) != {k3} {{\n\t\tt.Fatal(Triple({k}))\n\t}}\n}}\n",
            "assertion": 'package pkg0\n\nimport "testing"\n\nfunc TestDoubleNew(t *testing.T) {{\n'
            "\tif Double({k}) != {k3} {{\n\t\tt.Fatal(Double({k}))\n\t}}\n}}\n",
        },
    ),
    "rust": (
        "tests/new.rs",
        {
            "missing": "use bench::triple;\n\n#[test]\nfn triples() {{\n"
            "    assert_eq!(triple({k}), {k3});\n}}\n",
            "assertion": "use bench::double;\n\n#[test]\nfn doubles_new() {{\n"
            "    assert_eq!(double({k}), {k3});\n}}\n",
        },
    ),
}


class Edits:
    """Writes and stages a new body of the red's test file before each timed command."""

    def __init__(self, root: Path, language: str, scenario: str) -> None:
        self.root = root
        self.path, bodies = REDS[language]
        self.body = bodies[scenario]
        self.k = int(time.time()) % 100_000 * 1000  # new constants across bench runs too

    def __call__(self) -> None:
        self.k += 1
        (self.root / self.path).write_text(self.body.format(k=self.k, k3=3 * self.k))
        _git(self.root, "add", self.path)


def _cold(root: Path) -> None:
    """As in a fresh clone: no bytecode of the project anywhere, no pytest cache, no
    tddgit state (evidence cache, bytecode cache). Site-packages keep theirs, as a fresh
    clone's environment does."""
    for cache in root.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(root / ".pytest_cache", ignore_errors=True)
    shutil.rmtree(root / ".git" / "tddgit", ignore_errors=True)


def timed(argv: list[str], cwd: Path, expect: int | None) -> tuple[float, float]:
    """Seconds ``argv`` took, wall and CPU (user + system of it and its children: what a
    busy machine does not inflate as much); it must exit ``expect`` (None: any failure)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_env())
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != expect and not (expect is None and proc.returncode != 0):
        sys.exit(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu


def tddgit_command() -> list[str]:
    """The `tddgit` command as a user runs it: the one installed beside this Python (its
    start-up is part of the overhead), else ``python -m tddgit``."""
    installed = Path(sys.executable).parent / "tddgit"
    if installed.is_file() and os.access(installed, os.X_OK):
        return [str(installed)]
    return [sys.executable, "-m", "tddgit"]


def compare(
    root: Path,
    label: str,
    plain: list[str],
    runs: int,
    edit: Edits,
    *,
    title: str,
    cold: bool = False,
) -> None:
    """Time the plain command (failing) and the red gate (holding), each on a fresh edit
    of the red's test, alternating which goes first; warm, then (``cold``) each run as
    in a fresh clone."""
    gate = [*tddgit_command(), "red", "--no-commit"]
    name = "pytest" if plain[0] == sys.executable else label.split()[0]
    edit()
    timed(plain, root, None)  # warm the OS and build caches for both
    edit()
    timed(gate, root, 0)
    for mode in ("warm", "cold") if cold else ("warm",):
        times: dict[str, list[tuple[float, float]]] = {"plain": [], "gate": []}
        for run in range(runs):
            order = [("plain", plain, None), ("gate", gate, 0)]
            for side, argv, expect in order if run % 2 == 0 else order[::-1]:
                edit()
                if mode == "cold":
                    _cold(root)
                times[side].append(timed(argv, root, expect))
        wall = {k: statistics.median(t[0] for t in v) for k, v in times.items()}
        cpu = {k: statistics.median(t[1] for t in v) for k, v in times.items()}
        low = {k: min(t[0] for t in v) for k, v in times.items()}
        when = "in a fresh clone" if mode == "cold" else "after the last"
        print(f"{title}, {mode} (each run {when}):")
        print(
            f"  {label:<28} {wall['plain']:7.3f} s   (min {low['plain']:.3f}; CPU {cpu['plain']:.3f} s)"
        )
        print(
            f"  {'tddgit red --no-commit':<28} {wall['gate']:7.3f} s   (min {low['gate']:.3f}; CPU {cpu['gate']:.3f} s)"
        )
        print(
            f"  ratio gate/{name}: {wall['gate'] / wall['plain']:.2f}x   (target <= 1.30x;"
            f" CPU {cpu['gate'] / cpu['plain']:.2f}x)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--files", type=int, default=10)
    ap.add_argument("--tests-per-file", type=int, default=20)
    ap.add_argument("--only", help="the languages' rows, comma-separated: python,go,rust")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else {"python", "go", "rust"}
    if only - {"python", "go", "rust"}:
        ap.error(f"--only: unknown {', '.join(sorted(only - {'python', 'go', 'rust'}))}")
    n = args.files * args.tests_per_file + 1
    print(f"projects: {n} tests in {args.files + 1} files, {args.runs} runs each, medians")
    print("each command runs on a fresh edit of the red's test (no cache holds it)")
    print(f"the gate: {' '.join(tddgit_command())} red --no-commit")
    if "python" in only:
        root = build(args.files, args.tests_per_file)
        plain = [sys.executable, "-m", "pytest", "-q"]  # what a user runs: cache provider on
        edit = Edits(root, "python", "missing")
        compare(root, "python -m pytest", plain, args.runs, edit, title="missing", cold=True)
    languages = {
        "go": (build_go, "go test ./...", ["go", "test", "./..."]),
        "rust": (build_rust, "cargo test", ["cargo", "test"]),
    }
    for language, (make, label, plain) in languages.items():
        if language not in only or not shutil.which(plain[0]):
            continue
        if language == "rust":
            os.environ["CARGO_NET_OFFLINE"] = "true"  # both sides: nothing from the network
        root = make(args.files, args.tests_per_file)
        for scenario, title in (("missing", "does not compile yet"), ("assertion", "assertion")):
            edit = Edits(root, language, scenario)
            compare(root, label, plain, args.runs, edit, title=f"{language}, {title}")


if __name__ == "__main__":
    main()
