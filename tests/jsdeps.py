"""Real jest and vitest for the JavaScript tests: installed once with npm into a cache
directory keyed by the pinned versions, shared by every test (and every run) through a
symlinked ``node_modules``.

``make test`` warms the cache first (``python -m tests.jsdeps``); the fixtures call
``node_modules()`` too, so a plain ``pytest`` run works as well. Two pytest workers never
install at the same time (a file lock), and an install lands under its final name only
when it is complete. When npm or its registry cannot be reached, the tests that need
jest or vitest are skipped with the reason; node's own runner needs nothing installed.
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
from pathlib import Path

PINNED = {"jest": "29.7.0", "vitest": "2.1.9"}
CACHE = Path(__file__).resolve().parent / ".cache"
INSTALL_TIMEOUT = 600


class Unavailable(Exception):
    """npm or its registry cannot be used here: the reason, for a skip."""


def _key() -> str:
    text = json.dumps(PINNED, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def node_modules() -> Path:
    """The cached ``node_modules`` with the pinned jest and vitest, installed on first use."""
    home = CACHE / f"js-{_key()}"
    done = home / "node_modules"
    if done.is_dir():
        return done
    if shutil.which("npm") is None:
        raise Unavailable("npm is not installed")
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "js.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.is_dir():  # another worker installed it while we waited
            return done
        work = Path(tempfile.mkdtemp(prefix="js-install-", dir=CACHE))
        try:
            deps = {name: version for name, version in PINNED.items()}
            manifest = {"name": "tddgit-test-deps", "private": True, "devDependencies": deps}
            (work / "package.json").write_text(json.dumps(manifest))
            try:
                proc = subprocess.run(
                    ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"],
                    cwd=work,
                    capture_output=True,
                    text=True,
                    timeout=INSTALL_TIMEOUT,
                )
            except subprocess.TimeoutExpired as exc:
                raise Unavailable(f"npm install took over {INSTALL_TIMEOUT} s") from exc
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                raise Unavailable(f"npm install failed (registry unreachable?): {tail}")
            if home.exists():
                shutil.rmtree(home)
            os.replace(work, home)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return done


if __name__ == "__main__":
    try:
        print(f"jest and vitest for the tests: {node_modules()}")
    except Unavailable as exc:
        print(f"tests.jsdeps: {exc}; the jest and vitest tests will be skipped", file=sys.stderr)
