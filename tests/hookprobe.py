"""Which modules a tddgit command loads, run the way git or an agent runs a hook: a fresh
interpreter calls tddgit's entry point, then lists ``sys.modules`` (PRODUCT.md §7, §11).

Shared by the hook-import tests (``tests/test_hook_imports.py``,
``tests/agent/test_hook_imports.py``), so both look at the same list taken the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

# The modules are listed once the command has returned: everything it imported, lazily
# or not, is in sys.modules by then.
PROBE = """\
import json, sys
started = sorted(sys.modules)  # what the interpreter loaded before tddgit ran
from tddgit.__main__ import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as fh:
    json.dump({
        "code": code,
        "modules": sorted(sys.modules),
        # modules still waiting for their first use (tddgit.early.defer): never loaded
        "deferred": sorted(n for n, m in sys.modules.items() if type(m).__name__ == "Deferred"),
        "started": started,
    }, fh)
sys.exit(code)
"""


@dataclass(frozen=True)
class Loaded:
    """What one run of a command loaded, and how it ended."""

    code: int  # what tddgit's main returned
    modules: tuple[str, ...]
    stderr: str
    deferred: tuple[str, ...] = ()  # in ``modules``, but never loaded (tddgit.early.defer)
    started: tuple[str, ...] = ()  # loaded before tddgit's entry point was imported

    def under(self, names: Iterable[str]) -> list[str]:
        """The loaded modules that are one of ``names`` or inside one of them."""
        wanted = tuple(names)
        return [m for m in self.modules if any(m == n or m.startswith(n + ".") for n in wanted)]


def loaded_modules(cwd: Path, argv: Sequence[str], stdin: str = "") -> Loaded:
    """Run ``tddgit ARGV`` in ``cwd`` (``stdin`` on its standard input) and list what it
    loaded; a probe that died before listing fails with its stderr."""
    with tempfile.TemporaryDirectory(prefix="tddgit-hookprobe-") as tmp:
        out = Path(tmp) / "modules.json"
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, str(out), *argv],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.is_file(), f"the probe died (exit {proc.returncode}): {proc.stderr}"
        result = json.loads(out.read_text())
    assert proc.returncode == result["code"], proc.stderr
    return Loaded(
        int(result["code"]),
        tuple(result["modules"]),
        proc.stderr,
        tuple(result["deferred"]),
        tuple(result["started"]),
    )
