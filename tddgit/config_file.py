"""A configuration file's contents (PRODUCT.md §3): ``.tddgit.yaml`` read (through a small
parse cache), and the raw ``tddgit`` table of either file checked against ``KEYS``.

Unknown keys and wrong types are errors naming the file and the key path. ``config``
imports this module only when the project has a configuration file: a hook in a project
without one never loads it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tddgit.config import KEYS_BY_PATH, PROJECT_KEYS, SECTIONS, Config, KeySpec
from tddgit.errors import ConfigError


def _load_yaml(path: Path) -> Any:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path.name}: cannot read: {exc}", f"fix {path.name}") from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        raise ConfigError(
            f"{path.name}: malformed YAML{where}: {getattr(exc, 'problem', exc)}",
            f"fix the syntax of {path.name}",
        ) from exc


# Longer than any file system's timestamp resolution (FAT's is two seconds).
_RACY_NS = 3 * 10**9


def yaml_cached(path: Path, cache_dir: Path | None) -> Any:
    """The parsed YAML file, from a small JSON cache keyed by its size and mtime when one
    matches: importing PyYAML alone costs more than a hook's whole budget allows."""
    if cache_dir is None:
        return _load_yaml(path)
    import json

    try:
        st = path.stat()
    except OSError:
        return _load_yaml(path)
    key = [str(path), st.st_size, st.st_mtime_ns]
    cache = cache_dir / "config-cache.json"
    try:
        entry = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(entry, dict) and entry.get("key") == key:
            return entry.get("raw")
    except (OSError, ValueError):
        pass
    raw = _load_yaml(path)
    if time.time_ns() - st.st_mtime_ns < _RACY_NS:
        # Written moments ago: a rewrite to the same size within the same tick of the
        # file system's clock would keep this key (git's "racy" index entries). Cache
        # only a file that has been left alone for a while.
        return raw
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".tmp-config-{os.getpid()}")
        tmp.write_text(json.dumps({"key": key, "raw": raw}), encoding="utf-8")
        os.replace(tmp, cache)  # atomic: readers see a whole entry or the old one
    except (OSError, TypeError, ValueError):
        pass  # unserialisable YAML (dates...) or a read-only git dir: just don't cache
    return raw


def _flatten(raw: Mapping[str, Any], file: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        key = str(key)
        if key in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{file}: `{key}` must be a table of keys, not {_tname(value)}",
                    f"write it as [{key}] keys (see docs/configuration.md)",
                )
            for sub, subval in value.items():
                flat[f"{key}.{sub}"] = subval
        else:
            flat[key] = value
    return flat


def _tname(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _check(spec: KeySpec, value: Any, file: str) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(
            f"{file}: `{spec.path}` must be {expected}, not {_tname(value)} ({value!r})",
            f"fix `{spec.path}` ({spec.doc})",
        )

    kind = spec.kind
    if kind == "projects":
        return _projects(value, file)
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad("a non-negative integer")
        return value
    if kind in ("number", "amount"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad("a number")
        if value <= 0 and (kind == "number" or value < 0):
            raise bad("a positive number" if kind == "number" else "a number ≥ 0")
        return value
    if kind == "globs":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise bad("a list of glob strings")
        return tuple(value)
    if kind == "prices":
        return _prices(value, bad)
    if kind == "str?" and value is None:
        return None
    if value is False and spec.choices and "off" in spec.choices:
        return "off"  # YAML 1.1 reads a bare `off` as false: take it as meant
    if not isinstance(value, str) or not value:
        raise bad("a non-empty string")
    if spec.choices and value not in spec.choices:
        raise ConfigError(
            f"{file}: `{spec.path}` is {value!r}; expected one of: {', '.join(spec.choices)}",
            f"set `{spec.path}` to one of those",
        )
    return value


def _projects(value: Any, file: str) -> tuple[dict[str, Any], ...]:
    """The `projects` list: tables each with a `dir` inside the repository and only keys a
    project may set for itself, checked like the same keys at the top."""
    fix = "write `projects` as a list of tables, each with `dir` (see docs/monorepo.md)"
    if not isinstance(value, list):
        raise ConfigError(f"{file}: `projects` must be a list of tables, not {_tname(value)}", fix)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, item in enumerate(value, 1):
        where = f"{file}: `projects` entry {n}"
        if not isinstance(item, dict):
            raise ConfigError(f"{where} must be a table, not {_tname(item)}", fix)
        entry = dict(item)
        directory = entry.pop("dir", None)
        if not isinstance(directory, str) or not directory.strip():
            raise ConfigError(f"{where} has no `dir`", "give each entry `dir`, e.g. `backend`")
        directory = project_dir(directory, f"{where}: `dir`")
        if directory in seen:
            raise ConfigError(
                f"{where}: `dir` {directory or '.'!r} is listed twice", "keep one entry per dir"
            )
        seen.add(directory)
        checked: dict[str, Any] = {"dir": directory}
        for key, sub in _flatten(entry, where).items():
            if key not in PROJECT_KEYS:
                why = "is set for the whole repository" if key in KEYS_BY_PATH else "is unknown"
                raise ConfigError(
                    f"{where} ({directory or '.'}): key `{key}` {why}",
                    "set it at the top level of the configuration, or remove it",
                )
            checked[key] = _check(KEYS_BY_PATH[key], sub, f"{where} ({directory or '.'})")
        out.append(checked)
    return tuple(out)


def project_dir(value: str, what: str) -> str:
    """A configured project directory, repo-relative posix ("" for the top)."""
    from pathlib import PurePosixPath

    rel = PurePosixPath(value.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts:
        raise ConfigError(
            f"{what} must be a directory inside the repository, not {value!r}",
            "give it relative to the repository's top, e.g. `backend`",
        )
    text = rel.as_posix()
    return "" if text == "." else text


def _prices(value: Any, bad: Any) -> dict[str, tuple[float, float, float, float]]:
    expected = "a table of model ids, each [input, output, cache read, cache write] in $/MTok"
    if not isinstance(value, dict):
        raise bad(expected)
    out = {}
    for model, row in value.items():
        numbers = row if isinstance(row, list) else []
        if len(numbers) != 4 or not all(
            isinstance(n, (int, float)) and not isinstance(n, bool) and n >= 0 for n in numbers
        ):
            raise bad(expected)
        out[str(model)] = (
            float(numbers[0]),
            float(numbers[1]),
            float(numbers[2]),
            float(numbers[3]),
        )
    return out


def checked_values(
    raw: Mapping[str, Any], fname: str, base: Config
) -> tuple[dict[str, Any], dict[str, str]]:
    """The values and sources of ``base`` with the file ``fname``'s raw table applied."""
    label = f"{fname} [tool.tddgit]" if fname == "pyproject.toml" else fname
    values = dict(base.values)
    sources = dict(base.sources)
    for key, value in _flatten(raw, label).items():
        spec = KEYS_BY_PATH.get(key)
        if spec is None:
            raise ConfigError(
                f"{label}: unknown key `{key}`",
                "remove it or fix its spelling (`tddgit config` lists the keys)",
            )
        values[key] = _check(spec, value, label)
        sources[key] = fname
    return values, sources
