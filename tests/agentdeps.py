"""The real coding agents for the guard's end-to-end tests (``tests/agents_real/``):
Claude Code, Gemini CLI and Codex CLI, pinned here and installed once with npm into
``tests/.cache`` (``tests/npmcache.py``).

``make agents`` warms the cache (``python -m tests.agentdeps``), and ``make pytest``
depends on it; the fixtures call ``agent_bin()`` too, so a plain ``pytest`` run works as
well.
"""

from __future__ import annotations

from pathlib import Path

from tests import npmcache
from tests.npmcache import Unavailable, in_ci

__all__ = ["PINNED", "Unavailable", "agent_bin", "bin_dir", "in_ci", "main"]

# npm package -> pinned version, and the binary each installs.
PINNED = {
    "@anthropic-ai/claude-code": "2.1.328",
    "@google/gemini-cli": "0.61.0",
    "@openai/codex": "0.169.0",
}
BINARIES = {"claude-code": "claude", "gemini": "gemini", "codex": "codex"}
CACHE = npmcache.CACHE
INSTALL_TIMEOUT = 900


def _complete(home: Path) -> bool:
    return all((home / "node_modules" / ".bin" / name).exists() for name in BINARIES.values())


def bin_dir() -> Path:
    """The cached ``node_modules/.bin`` with the three pinned agents, installed on first use.
    The agents' install scripts fetch their platform binaries (Claude Code's native build,
    Codex's Rust binary come as optional packages): scripts run."""
    home = npmcache.install(
        "agents",
        PINNED,
        complete=_complete,
        scripts=True,
        timeout=INSTALL_TIMEOUT,
        cache=CACHE,
    )
    return home / "node_modules" / ".bin"


def agent_bin(agent: str) -> Path:
    """The path of one pinned agent's executable (``claude-code``, ``gemini``, ``codex``)."""
    return bin_dir() / BINARIES[agent]


def main() -> int:
    """``make agents``: install them; an error under CI without npm or its registry."""
    return npmcache.warm("claude, gemini and codex", bin_dir)


if __name__ == "__main__":
    raise SystemExit(main())
