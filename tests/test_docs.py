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


def test_cli_reference_shows_the_help_options_the_commands_take() -> None:
    """`-h` works wherever `--help` does; the generated reference says so for every command."""
    text = (ROOT / "docs" / "cli.md").read_text()
    sections = text.count("```text")
    assert sections > 10
    assert text.count("-h, --help") == sections, "a command's help in docs/cli.md lacks -h"
    proc = subprocess.run(
        [sys.executable, "-m", "tddgit", "audit", "-h"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "-h, --help" in proc.stdout
