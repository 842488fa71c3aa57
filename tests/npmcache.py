"""npm packages the tests need (jest and vitest, the real coding agents), pinned by their
callers and installed once into ``tests/.cache``, in a directory keyed by the pinned
versions and shared by every test and every run.

Two pytest workers never install at the same time (a file lock), and an install lands
under its final name only when it is complete (a rename). When npm or its registry cannot
be reached the tests that need the packages are skipped with the reason -- except under CI
(``CI=true``), where a missing toolchain is a failure: a CI run that silently skipped them
would prove nothing.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

CACHE = Path(__file__).resolve().parent / ".cache"


class Unavailable(Exception):
    """npm or its registry cannot be used here: the reason, for a skip (a failure in CI)."""


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def key(pinned: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(pinned, sort_keys=True).encode()).hexdigest()[:12]


def install(
    name: str,
    pinned: dict[str, str],
    *,
    complete: Callable[[Path], bool],
    scripts: bool,
    timeout: int,
    cache: Path = CACHE,
) -> Path:
    """The directory holding ``node_modules`` with ``pinned`` installed (``name`` names the
    cache entry and its lock); ``complete(home)`` says whether an install is whole.
    ``scripts``: run the packages' install scripts (the agents fetch their platform
    binaries that way; jest and vitest need none)."""
    home = cache / f"{name}-{key(pinned)}"
    if complete(home):
        return home
    if shutil.which("npm") is None:
        raise Unavailable("npm is not installed")
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if complete(home):  # another worker installed it while we waited
            return home
        work = Path(tempfile.mkdtemp(prefix=f"{name}-install-", dir=cache))
        try:
            manifest = {"name": f"tddgit-test-{name}", "private": True, "dependencies": pinned}
            (work / "package.json").write_text(json.dumps(manifest))
            command = ["npm", "install", "--no-audit", "--no-fund", "--omit=dev"]
            if not scripts:
                command.append("--ignore-scripts")
            try:
                proc = subprocess.run(
                    command, cwd=work, capture_output=True, text=True, timeout=timeout
                )
            except subprocess.TimeoutExpired as exc:
                raise Unavailable(f"npm install of {name} took over {timeout} s") from exc
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                raise Unavailable(f"npm install of {name} failed (registry unreachable?): {tail}")
            if not complete(work):
                raise Unavailable(f"npm installed {name} without all of {sorted(pinned)}")
            if home.exists():
                shutil.rmtree(home)
            os.replace(work, home)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return home


def unavailable(what: str, exc: Unavailable) -> NoReturn:
    """Skip the test that needs ``what`` -- or fail it under CI."""
    import pytest

    if in_ci():
        pytest.fail(f"{what} cannot be installed under CI: {exc}")
    pytest.skip(f"{what} cannot be installed: {exc}")


def warm(what: str, get: Callable[[], Path]) -> int:
    """``make jsdeps`` / ``make agents``: install; without npm or its registry, say so and
    go on -- except under CI, where it is an error (exit 1)."""
    try:
        print(f"{what} for the tests: {get()}")
    except Unavailable as exc:
        if in_ci():
            print(f"{what}: {exc} (required under CI)", file=sys.stderr)
            return 1
        print(f"{what}: {exc}; the tests that need them will be skipped", file=sys.stderr)
    return 0
