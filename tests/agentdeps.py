"""The real coding agents for the guard's end-to-end tests (``tests/agents_real/``):
Claude Code, Gemini CLI and Codex CLI, pinned here, installed once with npm into a cache
directory keyed by the pinned versions and shared by every test and every run.

``make agents`` warms the cache (``python -m tests.agentdeps``), and ``make pytest``
depends on it; the fixtures call ``agent_bin()`` too, so a plain ``pytest`` run works as
well. Two pytest workers never install at the same time (a file lock), and an install
lands under its final name only when it is complete (a rename). When npm or its registry
cannot be reached the agent tests are skipped with the reason -- except under CI
(``CI=true``), where a missing agent is a failure: a CI run that silently skipped them
would prove nothing about the guard.
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

# npm package -> pinned version, and the binary each installs.
PINNED = {
    "@anthropic-ai/claude-code": "2.1.328",
    "@google/gemini-cli": "0.61.0",
    "@openai/codex": "0.169.0",
}
BINARIES = {"claude-code": "claude", "gemini": "gemini", "codex": "codex"}
CACHE = Path(__file__).resolve().parent / ".cache"
INSTALL_TIMEOUT = 900


class Unavailable(Exception):
    """npm or its registry cannot be used here: the reason, for a skip (a failure in CI)."""


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _key() -> str:
    text = json.dumps(PINNED, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def home() -> Path:
    return CACHE / f"agents-{_key()}"


def bin_dir() -> Path:
    """The cached ``node_modules/.bin`` with the three pinned agents, installed on first use."""
    root = home()
    done = root / "node_modules" / ".bin"
    if _complete(done):
        return done
    if shutil.which("npm") is None:
        raise Unavailable("npm is not installed")
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "agents.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _complete(done):  # another worker installed them while we waited
            return done
        work = Path(tempfile.mkdtemp(prefix="agents-install-", dir=CACHE))
        try:
            manifest = {"name": "tddgit-test-agents", "private": True, "dependencies": PINNED}
            (work / "package.json").write_text(json.dumps(manifest))
            # The agents' install scripts fetch their platform binaries (Claude Code's
            # native build, Codex's Rust binary come as optional packages): scripts run.
            try:
                proc = subprocess.run(
                    ["npm", "install", "--no-audit", "--no-fund", "--omit=dev"],
                    cwd=work,
                    capture_output=True,
                    text=True,
                    timeout=INSTALL_TIMEOUT,
                )
            except subprocess.TimeoutExpired as exc:
                raise Unavailable(
                    f"npm install of the agents took over {INSTALL_TIMEOUT} s"
                ) from exc
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                raise Unavailable(
                    f"npm install of the agents failed (registry unreachable?): {tail}"
                )
            if not _complete(work / "node_modules" / ".bin"):
                raise Unavailable(
                    f"npm installed the agents without all of {sorted(BINARIES.values())}"
                )
            if root.exists():
                shutil.rmtree(root)
            os.replace(work, root)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return done


def _complete(bins: Path) -> bool:
    return all((bins / name).exists() for name in BINARIES.values())


def agent_bin(agent: str) -> Path:
    """The path of one pinned agent's executable (``claude-code``, ``gemini``, ``codex``)."""
    return bin_dir() / BINARIES[agent]


def main() -> int:
    """``make agents``: install them; without npm or its registry, say so and go on --
    except under CI, where it is an error (exit 1)."""
    try:
        print(f"claude, gemini and codex for the tests: {bin_dir()}")
    except Unavailable as exc:
        if in_ci():
            print(f"tests.agentdeps: {exc} (required under CI)", file=sys.stderr)
            return 1
        print(f"tests.agentdeps: {exc}; the real-agent tests will be skipped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
