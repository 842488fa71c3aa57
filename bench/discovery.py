"""Project discovery (docs/monorepo.md) on a 50k-file repository: warm (the cache keyed by
the index answers) and cold (one `git ls-files` with the markers' pathspecs).

The repository is one commit of ``--files`` files (built with `git fast-import`, cached
under bench/.cache/): 40 projects (`svcN/pyproject.toml`, `webN/package.json`, a Go and a
Rust one), a vendored tree and a `node_modules/` full of package.json files that are no
projects. Its index is read without a checkout (`git read-tree`), as discovery reads only
the index. Target: warm <= 50 ms.

    python bench/discovery.py [--files 50000] [--runs 30]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"


def _stream(files: int) -> bytes:
    paths: list[str] = []
    for i in range(20):
        paths += [f"svc{i}/pyproject.toml", f"web{i}/package.json"]
    paths += ["tools/go.mod", "engine/Cargo.toml", "third_party/lib/setup.cfg"]
    i = 0
    while len(paths) < files:
        group = i % 4
        if group == 0:
            paths.append(f"svc{i % 20}/src/pkg/mod{i}.py")
        elif group == 1:
            paths.append(f"web{i % 20}/src/comp{i}.ts")
        elif group == 2:
            paths.append(f"web{i % 20}/node_modules/dep{i}/package.json")
        else:
            paths.append(f"svc{i % 20}/tests/test_mod{i}.py")
        i += 1
    out = [b"commit refs/heads/main\n", b"committer Bench <b@example.com> 1600000000 +0000\n"]
    out.append(b"data 5\nfiles\n")
    for path in paths:
        out.append(f"M 100644 inline {path}\ndata 2\nx\n\n".encode())
    return b"".join(out)


def build(files: int) -> Path:
    root = CACHE / f"discovery-{files}"
    if (root / ".git" / "tddgit-bench-done").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=_stream(files), check=True)
    subprocess.run(["git", "read-tree", "main"], cwd=root, check=True)
    subprocess.run(["git", "symbolic-ref", "HEAD", "refs/heads/main"], cwd=root, check=True)
    (root / ".git" / "tddgit-bench-done").write_text("ok\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    from tddgit.git import find_repo
    from tddgit.projects.discover import discover

    root = build(args.files)
    repo = find_repo(root)
    count = len(subprocess.run(["git", "ls-files"], cwd=root, capture_output=True).stdout.split())
    cache = repo.tddgit_dir / "projects-cache.json"
    cold: list[float] = []
    warm: list[float] = []
    found: tuple[str, ...] = ()
    for _ in range(args.runs):
        cache.unlink(missing_ok=True)
        started = time.perf_counter()
        found = discover(repo)
        cold.append(time.perf_counter() - started)
        started = time.perf_counter()
        assert discover(repo) == found
        warm.append(time.perf_counter() - started)
    print(f"project discovery on {count} tracked files: {len(found)} projects found")
    for name, times in (("cold (git ls-files)", cold), ("warm (cache)", warm)):
        median = statistics.median(times)
        print(f"{name:<22} median {median * 1000:7.2f} ms  min {min(times) * 1000:7.2f} ms")
    median = statistics.median(warm) * 1000
    print(f"warm {median:.2f} ms {'meets' if median <= 50 else 'MISSES'} the target <= 50 ms")


if __name__ == "__main__":
    main()
