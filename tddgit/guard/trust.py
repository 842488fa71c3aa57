"""Whether an agent really loads the guard's hooks: each agent's trust rules, read from its
own files (never written: trusting a folder or a hook is the person's decision), and the
installed configuration checked against what the guard needs.

``problems`` backs ``tddgit agent install`` (what must still be done) and ``tddgit agent
doctor`` (with the checks of the configuration itself).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

CLI = {"claude-code": "claude", "gemini": "gemini", "codex": "codex", "cursor": "cursor-agent"}


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _within(root: Path, folder: str) -> bool:
    try:
        root.resolve().relative_to(Path(folder).expanduser().resolve())
    except (ValueError, OSError):
        return False
    return True


def trust_problems(agent: str, scope: str, root: Path) -> list[str]:
    """What keeps ``agent`` from loading a project's hooks, with the fix (user scope: none)."""
    if scope == "user":
        return []
    home = Path.home()
    if agent == "gemini":
        folders = _json(home / ".gemini" / "trustedFolders.json")
        settings = _json(home / ".gemini" / "settings.json")
        trust = settings.get("security", {}) if isinstance(settings.get("security"), dict) else {}
        folder_trust = trust.get("folderTrust", {}) if isinstance(trust, dict) else {}
        if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
            return []
        trusted = any(
            (value == "TRUST_FOLDER" and Path(k).expanduser().resolve() == root.resolve())
            or (value in ("TRUST_PARENT", "TRUST_FOLDER") and _within(root, k))
            for k, value in folders.items()
        )
        if not trusted:
            return [
                f"Gemini CLI drops an untrusted folder's .gemini/settings.json (its hooks too, "
                f"silently with --skip-trust): trust {root} (run `gemini` there and choose "
                f'"Trust folder", or add "{root}": "TRUST_FOLDER" to '
                "~/.gemini/trustedFolders.json), or install with --user"
            ]
    if agent == "codex":
        try:
            text = (home / ".codex" / "config.toml").read_text(encoding="utf-8")
        except OSError:
            text = ""
        problems = []
        if f'[projects."{root}"]' not in text or "trusted" not in text:
            problems.append(
                f"Codex ignores an untrusted project's .codex/ (its hooks too): trust {root} "
                f'(run `codex` there and trust it, or add [projects."{root}"] trust_level = '
                '"trusted" to ~/.codex/config.toml; `codex exec` takes --trust), or install '
                "with --user"
            )
        problems.append(
            "Codex runs a new or changed hook only once you trust it, skipping it without a "
            "word: open `/hooks` in codex and trust tddgit's hooks (automation that checked "
            "the hooks itself: `codex exec --dangerously-bypass-hook-trust`)"
        )
        return problems
    if agent == "claude-code":
        state = _json(home / ".claude.json").get("projects", {})
        entry = state.get(str(root), {}) if isinstance(state, dict) else {}
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is False:
            return [
                f"Claude Code has not been trusted in {root}: run `claude` there once and "
                "accept the trust dialog (headless `claude -p` does not ask)"
            ]
    return []


def config_problems(mod: ModuleType, path: Path) -> list[str]:
    """The installed configuration against what the guard needs."""
    from tddgit.guard.install import MARK, read_json

    if not path.exists():
        return [f"{path} does not exist: run `tddgit agent install {mod.NAME}`"]
    data = read_json(path)
    if data.get("disableAllHooks") is True:
        return [f"{path} sets disableAllHooks: no hook runs; take it out"]
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    assert isinstance(hooks, dict)
    out = []
    for event, ours in mod.hooks(f"{MARK} {mod.NAME}").items():
        want = ours[0].get("matcher")
        found = [
            group
            for group in hooks.get(event, [])
            if isinstance(group, dict)
            and any(
                str(h.get("command", "")).startswith(MARK)
                for h in (group.get("hooks") or [group])
                if isinstance(h, dict)
            )
        ]
        if not found:
            out.append(f"hooks.{event} has no tddgit hook: run `tddgit agent install {mod.NAME}`")
        elif want is not None and all(g.get("matcher") != want for g in found):
            out.append(
                f"hooks.{event} matches {found[0].get('matcher')!r}, not {want!r}: run "
                f"`tddgit agent install {mod.NAME}` again"
            )
    return out


def doctor(mod: ModuleType, scope: str, root: Path, path: Path) -> tuple[list[str], list[str]]:
    """(what is fine, what is wrong with its fix)."""
    good: list[str] = []
    bad = config_problems(mod, path)
    if not bad:
        good.append(f"{path}: every hook the guard needs, with its matcher")
    if shutil.which("tddgit") is None:
        bad.append("`tddgit` is not on PATH: the agent cannot run its hooks; install it there")
    else:
        good.append(f"tddgit on PATH: {shutil.which('tddgit')}")
    cli = CLI.get(mod.NAME)
    if cli and shutil.which(cli):
        from tddgit.guard.agentcli import ask, version

        good.append(version(cli, root))
        confirmed, wrong = ask(mod.NAME, cli, root)
        good.extend(confirmed)
        bad.extend(wrong)
    elif cli:
        good.append(f"{cli} is not on PATH here: its configuration files were read instead")
    bad.extend(trust_problems(mod.NAME, scope, root))
    return good, bad
