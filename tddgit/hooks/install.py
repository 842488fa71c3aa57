"""Standalone hook installation (``tddgit hooks install|uninstall``, PRODUCT.md §7).

Hooks go where git looks for them (``git rev-parse --git-path hooks``: ``core.hooksPath``
and linked worktrees honoured). An existing hook that is not ours is kept: it moves to
``NAME.tddgit-chained`` and the shim runs it first (its failure still blocks the commit);
uninstall moves it back. Installing twice changes nothing.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from tddgit.errors import UsageError
from tddgit.git import Repo

HOOK_TYPES = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")
# Opt-in (`tddgit hooks install --share-notes`): runs `tddgit notes sync` before each push.
SHARE_HOOK = "pre-push"
MARKER = "# tddgit-hook-shim v1"
CHAINED_SUFFIX = ".tddgit-chained"

_SHIM = """\
#!/bin/sh
{marker}: {name}
# Runs `tddgit hook {name}` (see docs/hooks.md). A hook that was here
# before tddgit was installed is kept as {name}{chained} and runs first.
TDDGIT_BIN={bin}
TDDGIT_PYTHON={python}
chained="$0{chained}"
if [ -x "$chained" ]; then
    "$chained" "$@" || exit $?
fi
if [ -n "$TDDGIT_BIN" ] && [ -x "$TDDGIT_BIN" ]; then
    exec "$TDDGIT_BIN" hook {name} "$@"
fi
if command -v tddgit >/dev/null 2>&1; then
    exec tddgit hook {name} "$@"
fi
if [ -n "$TDDGIT_PYTHON" ] && [ -x "$TDDGIT_PYTHON" ]; then
    exec "$TDDGIT_PYTHON" -m tddgit hook {name} "$@"
fi
echo "tddgit {name}: warning: tddgit is not installed (not on PATH); the commit is NOT" \\
    "checked. Install tddgit, or remove the hook: tddgit hooks uninstall" >&2
exit 0
"""


def render_shim(name: str, *, bin: str = "", python: str = "") -> str:
    """The shim script for hook ``name``; empty paths mean "find tddgit on PATH"."""
    return _SHIM.format(
        marker=MARKER,
        name=name,
        chained=CHAINED_SUFFIX,
        bin=shlex.quote(bin) if bin else "''",
        python=shlex.quote(python) if python else "''",
    )


def installer_paths() -> tuple[str, str]:
    """(tddgit console script, interpreter) of the tddgit running now, for the shim."""
    python = sys.executable or ""
    script = Path(python).parent / "tddgit" if python else None
    return (str(script) if script and script.is_file() else "", python)


@dataclass(frozen=True)
class Action:
    hook: str
    action: str  # installed | updated | unchanged | chained | removed | restored | absent | foreign
    path: str
    chained: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "hook": self.hook,
            "action": self.action,
            "path": self.path,
            "chained": self.chained,
        }


def hooks_dir(repo: Repo) -> Path:
    """Where git runs hooks from for this work tree."""
    out = repo.git("rev-parse", "--path-format=absolute", "--git-path", "hooks").strip()
    path = Path(out)
    return path if path.is_absolute() else repo.root / path


def is_ours(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(200)
    except OSError:
        return False
    return MARKER.encode() in head


def _write_exec(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tddgit-tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, path)


NOTES_REF = "refs/notes/tddgit"  # = tddgit.notes.NOTES_REF, without importing it


def follow_rewrites(repo: Repo) -> list[str]:
    """Make git copy tddgit's notes when it rewrites commits (``commit --amend``,
    ``rebase``): ``notes.rewriteRef``, and ``notes.rewriteMode = ignore`` unless set, so a
    note the post-commit hook has just attached to an amended commit (the amended tree's own
    evidence) is kept rather than concatenated with the old one into invalid JSON. Returns
    the settings made; cherry-pick is the post-commit hook's job (git copies no notes
    there)."""
    made = []
    refs = repo.run("config", "--get-all", "notes.rewriteRef", check=False).stdout.decode()
    if NOTES_REF not in refs.split():
        repo.run("config", "--add", "notes.rewriteRef", NOTES_REF)
        made.append(f"notes.rewriteRef = {NOTES_REF}")
    if repo.run("config", "--get", "notes.rewriteMode", check=False).returncode != 0:
        repo.run("config", "notes.rewriteMode", "ignore")
        made.append("notes.rewriteMode = ignore")
    return made


def unfollow_rewrites(repo: Repo) -> None:
    repo.run("config", "--fixed-value", "--unset-all", "notes.rewriteRef", NOTES_REF, check=False)


def install(repo: Repo, types: tuple[str, ...] = HOOK_TYPES) -> tuple[Path, list[Action]]:
    directory = hooks_dir(repo)
    directory.mkdir(parents=True, exist_ok=True)
    bin_path, python = installer_paths()
    actions = []
    for name in types:
        _check_type(name)
        path = directory / name
        shim = render_shim(name, bin=bin_path, python=python)
        chained_path = path.with_name(name + CHAINED_SUFFIX)
        chained = str(chained_path) if chained_path.exists() else None
        if path.exists() or path.is_symlink():
            if is_ours(path):
                same = path.read_text(encoding="utf-8", errors="replace") == shim
                if not same:
                    _write_exec(path, shim)
                actions.append(Action(name, "unchanged" if same else "updated", str(path), chained))
                continue
            if chained_path.exists() or chained_path.is_symlink():
                raise UsageError(
                    f"{path} is not tddgit's and {chained_path.name} already exists",
                    "move one of them away, then rerun `tddgit hooks install`",
                )
            os.replace(path, chained_path)
            _write_exec(path, shim)
            actions.append(Action(name, "chained", str(path), str(chained_path)))
            continue
        _write_exec(path, shim)
        actions.append(Action(name, "installed", str(path), chained))
    return directory, actions


def uninstall(repo: Repo, types: tuple[str, ...] = HOOK_TYPES) -> tuple[Path, list[Action]]:
    directory = hooks_dir(repo)
    actions = []
    for name in types:
        _check_type(name)
        path = directory / name
        chained_path = path.with_name(name + CHAINED_SUFFIX)
        if not (path.exists() or path.is_symlink()):
            actions.append(Action(name, "absent", str(path)))
            continue
        if not is_ours(path):
            actions.append(Action(name, "foreign", str(path)))  # not ours: left alone
            continue
        path.unlink()
        if chained_path.exists() or chained_path.is_symlink():
            os.replace(chained_path, path)
            actions.append(Action(name, "restored", str(path), str(chained_path)))
        else:
            actions.append(Action(name, "removed", str(path)))
    return directory, actions


def _check_type(name: str) -> None:
    if name not in (*HOOK_TYPES, SHARE_HOOK):
        raise UsageError(f"unknown hook type {name!r}", f"use one of: {', '.join(HOOK_TYPES)}")
