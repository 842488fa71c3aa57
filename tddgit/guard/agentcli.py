"""``tddgit agent doctor`` asking the agent's own CLI, where it has a command for it,
whether it loads the guard's hooks (what the CLIs offer, checked against the pinned
versions in tests/agentdeps.py):

- Claude Code (``claude doctor``): reads the settings files of the current directory
  without a trust prompt and lists, under "Invalid settings", every entry it ignores (a
  hook of an unknown type, a malformed matcher): those hooks would not run.
- Codex CLI (``codex features list``, in the project): the ``hooks`` feature row; with it
  off (``[features] hooks = false``) no hook runs.
- Gemini CLI: no command lists the hooks it loads (``gemini hooks`` only migrates Claude
  Code's) and ``/hooks`` is interactive: doctor says it read the files instead.

The version line comes first (information). A CLI that is slow to answer or broken is
said, never an error of the check.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def _run(argv: list[str], cwd: Path) -> tuple[str | None, str]:
    """(stdout+stderr, None when it could not run) and what went wrong."""
    wait = float(os.environ.get("TDDGIT_AGENT_VERSION_TIMEOUT", "30"))
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
            timeout=wait,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "NO_COLOR": "1"},
        )
    except subprocess.TimeoutExpired:
        return None, f"`{' '.join(argv)}` gave no answer within {wait:g} s"
    except OSError as exc:
        return None, f"`{' '.join(argv)}` could not run: {exc.strerror}"
    return proc.stdout + proc.stderr, ""


def version(cli: str, root: Path) -> str:
    out, why = _run([cli, "--version"], root)
    if out is None:
        return f"{cli} is on PATH ({why})"
    first = next((line for line in out.splitlines() if line.strip()), "")
    return f"{cli} {first.strip()[:60]}"


def ask(agent: str, cli: str, root: Path) -> tuple[list[str], list[str]]:
    """(what the agent's CLI confirmed, what it says is wrong with the fix)."""
    if agent == "claude-code":
        return _claude(cli, root)
    if agent == "codex":
        return _codex(cli, root)
    if agent == "gemini":
        return [
            "Gemini CLI has no command that lists the hooks it loads (`gemini hooks` only "
            "migrates; `/hooks` is interactive): checked by reading its files"
        ], []
    return [], []


def _claude(cli: str, root: Path) -> tuple[list[str], list[str]]:
    out, why = _run([cli, "doctor"], root)
    if out is None:
        return [f"`claude doctor` could not confirm the settings ({why})"], []
    invalid = _section(out, "Invalid settings")
    if not invalid:
        return ["`claude doctor` reads the settings with no invalid entry"], []
    return [], [
        f"`claude doctor` ignores settings entries: {line} — fix the entry (or run "
        "`tddgit agent install claude-code` again when it is tddgit's)"
        for line in invalid
    ]


def _section(out: str, title: str) -> list[str]:
    """The ``- `` lines under ``title`` in ``claude doctor``'s report."""
    lines = out.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == title)
    except StopIteration:
        return []
    found = []
    for line in lines[start + 1 :]:
        if line.startswith("- "):
            found.append(line[2:].strip())
        elif line.strip():
            break
    return found


def _codex(cli: str, root: Path) -> tuple[list[str], list[str]]:
    out, why = _run([cli, "features", "list"], root)
    if out is None:
        return [f"`codex features list` could not confirm the hooks feature ({why})"], []
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "hooks":
            if fields[-1] == "true":
                return ["`codex features list`: the hooks feature is on"], []
            return [], [
                "`codex features list` says the hooks feature is off: no hook runs; take "
                "`hooks = false` out of `[features]` in ~/.codex/config.toml (or the "
                "project's .codex/config.toml), or run codex with `--enable hooks`"
            ]
    error = [line.strip() for line in out.splitlines() if line.strip()[:6] in ("Error:", "Caused")]
    if error:
        return [], [
            f"`codex features list` cannot load Codex's configuration ({' '.join(error)[:300]}): "
            "Codex would not start; fix ~/.codex/config.toml (or the project's .codex/config.toml)"
        ]
    return ["`codex features list` names no hooks feature: checked by reading its files"], []
