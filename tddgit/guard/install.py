"""Merge the guard's hooks into an agent's configuration file, and take them out again,
never touching the user's own hooks, settings or formatting of values.

Our hook entries are recognised by their command (``tddgit agent hook AGENT``), so install
is idempotent and uninstall removes exactly them. Claude Code's ``permissions.deny`` rules
are added only where the user does not have them already, and the ones added are recorded
in ``<common git dir>/tddgit/guard/installed-<agent>.json`` (or, for ``--user``, under
``~/.config/tddgit/``), so uninstall removes only what install added. A file install
created is removed by uninstall when nothing else is left in it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any

from tddgit.errors import UsageError

MARK = "tddgit agent hook"


def command(agent: str) -> str:
    return f"{MARK} {shlex.quote(agent)}"


def _ours(entry: Any) -> bool:
    return isinstance(entry, dict) and str(entry.get("command", "")).startswith(MARK)


def read_json(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}", "check its permissions") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(
            f"{path} is not valid JSON ({exc})",
            "fix the file (tddgit never rewrites a file it cannot read), then run again",
        ) from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object", "fix the file, then run again")
    return data


def write_json(path: Path, data: dict[str, Any]) -> None:
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tddgit-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _hooks_of(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{path}: `hooks` is not an object", "fix the file, then run again")
    return hooks


def _strip(entries: list[Any]) -> list[Any]:
    """``entries`` without our hooks: flat entries (Cursor) or groups (the others)."""
    out = []
    for entry in entries:
        if _ours(entry):
            continue
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if isinstance(inner, list) and any(_ours(h) for h in inner):
            kept = [h for h in inner if not _ours(h)]
            if not kept:
                continue
            entry = {**entry, "hooks": kept}
        out.append(entry)
    return out


def install(mod: ModuleType, path: Path, record: Path) -> list[str]:
    """Merge the guard into ``path``; returns what changed, one line each."""
    existed = path.exists()
    data = read_json(path)
    if mod.NAME == "cursor" and "version" not in data:
        data = {"version": 1, **data}
    hooks = _hooks_of(data, path)
    done = []
    for event, ours in mod.hooks(command(mod.NAME)).items():
        current = hooks.get(event, [])
        if not isinstance(current, list):
            raise UsageError(
                f"{path}: `hooks.{event}` is not a list", "fix the file, then run again"
            )
        hooks[event] = _strip(current) + ours
        done.append(f"hooks.{event}")
    added_rules = []
    if mod.DENY_RULES:
        perms = data.setdefault("permissions", {})
        deny = perms.setdefault("deny", []) if isinstance(perms, dict) else None
        if not isinstance(deny, list):
            raise UsageError(
                f"{path}: `permissions.deny` is not a list", "fix the file, then run again"
            )
        previous = _read_record(record).get("deny_rules", [])
        for rule in getattr(mod, "DROPPED_RULES", ()):
            if rule in previous and rule in deny:
                deny.remove(rule)  # ours from an older install, and never matched
        for rule in mod.DENY_RULES:
            if rule not in deny:
                deny.append(rule)
                added_rules.append(rule)
            elif rule in previous:
                added_rules.append(rule)  # ours from an earlier install
        if added_rules:
            done.append(f"permissions.deny ({len(added_rules)} shell-write rules)")
    write_json(path, data)
    old = _read_record(record)
    _write_record(
        record,
        {
            "config": str(path),
            "created": bool(old.get("created")) if old else not existed,
            "deny_rules": added_rules,
        },
    )
    return done


def uninstall(mod: ModuleType, path: Path, record: Path) -> list[str]:
    """Take the guard out of ``path``; the user's own entries stay as they were."""
    info = _read_record(record)
    if not path.exists():
        with contextlib.suppress(OSError):
            record.unlink()
        return []
    data = read_json(path)
    done = []
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            entries = hooks[event]
            if not isinstance(entries, list):
                continue
            kept = _strip(entries)
            if kept != entries:
                done.append(f"hooks.{event}")
                if kept:
                    hooks[event] = kept
                else:
                    del hooks[event]
        if not hooks and done:
            del data["hooks"]
    perms = data.get("permissions")
    ours = set(info.get("deny_rules", []))
    if ours and isinstance(perms, dict) and isinstance(perms.get("deny"), list):
        perms["deny"] = [r for r in perms["deny"] if r not in ours]
        done.append("permissions.deny")
        if not perms["deny"]:
            del perms["deny"]
        if not perms:
            del data["permissions"]
    if mod.NAME == "cursor" and set(data) == {"version"} and info.get("created"):
        data = {}
    if not data and info.get("created"):
        path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty
    elif done:
        write_json(path, data)
    with contextlib.suppress(OSError):
        record.unlink()
    return done


def _read_record(record: Path) -> dict[str, Any]:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_record(record: Path, data: dict[str, Any]) -> None:
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
