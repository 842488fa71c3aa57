"""Secrets by value: what the files named like secrets and the variables named like
secrets hold, so that a value is redacted wherever it shows up (a test that prints
``DATABASE_URL``, a source file that repeats a password).

The patterns of :mod:`tddgit.agent.sandbox` catch secrets by their shape; these catch the
user's own values, whatever their shape. Short values (under :data:`MIN_LENGTH`
characters: ``true``, ``8080``) are not secrets worth the false matches.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from tddgit.jail.env import is_secret_name
from tddgit.paths import matches

MIN_LENGTH = 6
MAX_SECRET_FILE = 256 * 1024
_SKIPPED = frozenset({".git", ".venv", "venv", "node_modules", ".tox", ".nox"})
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?[\"']?[\w.\-]+[\"']?\s*[:=]\s*(.*?)\s*,?\s*$")
_PLACEHOLDER = "[redacted: a secret value]"


def secret_values(
    root: Path, secret_globs: tuple[str, ...], env: Mapping[str, str]
) -> frozenset[str]:
    values = {v for name, v in env.items() if is_secret_name(name)}
    for path in _secret_files(root, secret_globs):
        try:
            if path.stat().st_size > MAX_SECRET_FILE:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        values.update(_values_in(text))
    return frozenset(v for v in values if len(v) >= MIN_LENGTH)


def is_secret_path(rel: str, secret_globs: tuple[str, ...]) -> bool:
    """Named like a secret: the path, its file name or any of its directories
    (``secrets/db.txt``, ``config/credentials/prod.json``)."""
    lowered = rel.lower()
    return matches(lowered, secret_globs) or any(
        matches(part, secret_globs) for part in lowered.split("/")[:-1]
    )


def _secret_files(root: Path, secret_globs: tuple[str, ...]) -> Iterable[Path]:
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED]
        for name in names:
            path = Path(top, name)
            rel = path.relative_to(root).as_posix()
            if is_secret_path(rel, secret_globs):
                yield path


def _values_in(text: str) -> set[str]:
    """Each line's value (``KEY=value``, ``key: "value"``), or the whole line."""
    out = set()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "//", ";", "[", "-----")):
            continue
        m = _ASSIGNMENT.match(line)
        value = m.group(1) if m else line
        out.add(value.strip().strip("\"'"))
    return out


def redact_values(text: str, values: Iterable[str]) -> str:
    for value in sorted(values, key=len, reverse=True):
        # as written, and as it reads inside a JSON string (run_tests' results)
        for form in dict.fromkeys((value, json.dumps(value, ensure_ascii=False)[1:-1])):
            if form in text:
                text = text.replace(form, _PLACEHOLDER)
    return text
