"""The docs that are generated from code stay in step with it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_cli_reference_is_up_to_date() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_cli_docs.py"), "--check"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "100"},
    )
    assert proc.returncode == 0, proc.stderr


def test_readme_starts_with_the_two_commands() -> None:
    head = (ROOT / "README.md").read_text().split("## ", 1)[0]
    assert "make demo" in head and "make test" in head


def test_docs_links_resolve() -> None:
    import re

    broken = []
    for md in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", md.read_text()):
            if "://" in target:
                continue
            if not (md.parent / target).exists():
                broken.append(f"{md.relative_to(ROOT)} -> {target}")
    assert broken == []
