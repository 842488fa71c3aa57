"""What an agent's tools may never change, and the shell commands refused before they run.

The command rules are a cheap first line (a pattern misses what a script spells
differently); the line that holds is the tree check after every tool (``aftertool``),
which puts back any protected file, whatever changed it.
"""

from __future__ import annotations

import re
import shlex
import sys

from tddgit.guard.model import DENY, Decision

# The guard's own configuration and the agents' hook configuration, repo-relative.
AGENT_CONFIG = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
)
TDDGIT_CONFIG = (".tddgit.yaml", ".tddgit.yml")

NEXT_ASK = (
    "Next step: leave it as it is; if the configuration really must change, stop and ask "
    "the person to change it"
)


def protected(path: str) -> str | None:
    """What ``path`` is when no agent tool may write it (None: not protected)."""
    if path in TDDGIT_CONFIG:
        return "tddgit's configuration"
    if path in AGENT_CONFIG:
        return "the agent's hook configuration (the guard itself)"
    if path.startswith(".git/hooks/") or path == ".git/hooks":
        return "a git hook"
    if path == ".git/config":
        return "git's configuration"
    return None


def tddgit_table(text: str) -> object:
    """pyproject.toml's ``[tool.tddgit]`` table (the rest of the file is free to change)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return "unreadable"
    return tool.get("tddgit") if isinstance(tool, dict) else None


# --- commands -----------------------------------------------------------------------------

_SKIP_ENV = re.compile(
    r"(?:^|[\s;&|(])(?:export\s+)?(HUSKY|HUSKY_SKIP_HOOKS|SKIP_HOOKS|GIT_HOOKS_SKIP|"
    r"PRE_COMMIT_ALLOW_NO_CONFIG|SKIP|TDDGIT_SKIP\w*)=",
)
_HOOKS_PATH = re.compile(r"core\.hooks[Pp]ath", re.IGNORECASE)
_GIT_HOOKS_DIR = re.compile(r"\.git/hooks\b")
_CONFIG_FILES = re.compile(
    r"(?:^|[\s'\"=/>])(?:\.tddgit\.ya?ml|\.claude/settings(?:\.local)?\.json|"
    r"\.codex/hooks\.json|\.gemini/settings\.json|\.cursor/hooks\.json)\b"
)
_READERS = {"cat", "less", "more", "head", "tail", "grep", "rg", "jq", "wc", "diff", "git"}


def command_rule(command: str) -> Decision | None:
    """A refusal for a shell command that would skip or rewrite the guard; None: let it run
    (the tree check judges what it writes)."""
    if not command.strip():
        return None
    for words in _commands(command):
        if _git_skips_hooks(words):
            return _deny(
                "hook-bypass",
                "this git command skips the git hooks that judge each commit. Commits go "
                "through tddgit's hooks. Next step: make the commit pass them (red, green or "
                "refactor with every test green), not around them",
            )
    if _SKIP_ENV.search(command) and re.search(r"\bgit\b", command):
        return _deny(
            "hook-bypass",
            "the command sets a variable that turns git hooks off. Commits go through "
            "tddgit's hooks. Next step: run the command without it",
        )
    if _HOOKS_PATH.search(command):
        return _deny(
            "hook-bypass",
            "the command changes core.hooksPath, which would take tddgit's git hooks out. "
            "Next step: run git without it",
        )
    if _GIT_HOOKS_DIR.search(command) and not _reads_only(command):
        return _deny(
            "guard-config-protected",
            f"the command touches .git/hooks, which holds tddgit's git hooks. {NEXT_ASK}",
        )
    if _CONFIG_FILES.search(command) and not _reads_only(command):
        return _deny(
            "guard-config-protected",
            "the command would change tddgit's configuration or the agent's hook "
            f"configuration, which the guard runs from. {NEXT_ASK}",
        )
    if re.search(r"\btddgit\s+(?:agent\s+uninstall|hooks\s+uninstall)\b", command):
        return _deny(
            "guard-config-protected",
            f"the command would take tddgit's guard or git hooks out. {NEXT_ASK}",
        )
    return None


def _deny(rule: str, reason: str) -> Decision:
    return Decision(DENY, rule, reason)


def _commands(command: str) -> list[list[str]]:
    """The simple commands of a shell line (split at ; && || | and newlines), as words;
    a ``bash -c``/``sh -c`` string is looked into too."""
    out: list[list[str]] = []
    for part in re.split(r"&&|\|\||[;|\n]", command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            words = part.split()
        while words and re.fullmatch(r"\w+=.*", words[0]):
            words = words[1:]  # leading VAR=value assignments
        if len(words) >= 3 and words[0] in ("bash", "sh", "zsh") and words[1] == "-c":
            out.extend(_commands(words[2]))
        elif words:
            out.append(words)
    return out


def _git_skips_hooks(words: list[str]) -> bool:
    if not words or words[0] != "git":
        return False
    args = words[1:]
    while args and args[0].startswith("-"):  # git's own options: -C dir, -c key=value
        args = args[2:] if args[0] in ("-C", "-c") and len(args) > 1 else args[1:]
    if not args or args[0] not in ("commit", "push", "merge", "rebase", "am", "cherry-pick"):
        return False
    for arg in args[1:]:
        if arg == "--no-verify":
            return True
        if args[0] == "commit" and re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", arg):
            return True  # -n is commit's --no-verify, also in a bundle such as -nm
    return False


def _reads_only(command: str) -> bool:
    """Every simple command only reads (``cat .claude/settings.json``, ``git diff``) and
    nothing is redirected into a file."""
    if re.search(r">(?!&)", command):
        return False
    return all(words[0] in _READERS for words in _commands(command))
