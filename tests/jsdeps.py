"""Real jest and vitest for the JavaScript tests, pinned here and installed once with npm
into ``tests/.cache`` (``tests/npmcache.py``), shared by every test through a symlinked
``node_modules``.

``make test`` warms the cache first (``python -m tests.jsdeps``); the fixtures call
``node_modules()`` too, so a plain ``pytest`` run works as well. Node's own runner needs
nothing installed.
"""

from __future__ import annotations

from pathlib import Path

from tests.npmcache import Unavailable, install, warm

__all__ = ["PINNED", "Unavailable", "node_modules"]

PINNED = {"jest": "29.7.0", "vitest": "2.1.9"}


def node_modules() -> Path:
    """The cached ``node_modules`` with the pinned jest and vitest, installed on first use."""
    home = install(
        "js",
        PINNED,
        complete=lambda home: (
            (home / "node_modules" / ".bin" / "vitest").exists()
            and (home / "node_modules" / ".bin" / "jest").exists()
        ),
        scripts=False,
        timeout=600,
    )
    return home / "node_modules"


if __name__ == "__main__":
    raise SystemExit(warm("jest and vitest", node_modules))
