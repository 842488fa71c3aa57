"""Configuration (PRODUCT.md §3): ``[tool.tddgit]`` in pyproject.toml or ``.tddgit.yaml``.

Every key has a default (``tddgit.configkeys``); unknown keys and wrong types are errors
naming the file and the key path (``config_file`` reads and checks a configuration file).
The effective configuration remembers where each value came from.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tddgit.configkeys import (
    DEFAULT_MAX_COST,
    KEYS,
    KEYS_BY_PATH,
    PROJECT_KEYS,
    REPO_WIDE,
    SECTIONS,
    KeySpec,
)
from tddgit.defaultglobs import (
    DEFAULT_OTHER_GLOBS,
    DEFAULT_SECRET_GLOBS,
    DEFAULT_SOURCE_GLOBS,
    DEFAULT_TEST_GLOBS,
    DEFAULT_VENDORED_GLOBS,
)
from tddgit.errors import ConfigError

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any

    from tddgit.projects.scope import Scope

# Re-exported: callers import the key table from here.
__all__ = [
    "DEFAULT_MAX_COST",
    "DEFAULT_OTHER_GLOBS",
    "DEFAULT_SECRET_GLOBS",
    "DEFAULT_SOURCE_GLOBS",
    "DEFAULT_TEST_GLOBS",
    "DEFAULT_VENDORED_GLOBS",
    "KEYS",
    "KEYS_BY_PATH",
    "PROJECT_KEYS",
    "REPO_WIDE",
    "SECTIONS",
    "Config",
    "KeySpec",
    "default_config",
    "find_config_file",
    "load_config",
]


@dataclass(frozen=True)
class Config:
    """The effective configuration: a value for every key, and where it came from."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]  # dotted path -> "default" | file name
    file: Path | None = None
    root: Path | None = field(default=None, compare=False)
    # the project's directory relative to the repository ("": its top), where tests run
    project: str = field(default="", compare=False)
    # In a repository of several projects: what this project owns (its steps, lineage and
    # evidence are its own). None: the repository is one project, all of it.
    scope: Scope | None = field(default=None, compare=False)

    def get(self, path: str) -> Any:
        return self.values[path]

    # Typed accessors for the keys code reads most.
    @property
    def mode(self) -> str:
        return str(self.values["mode"])

    @property
    def strict(self) -> bool:
        return self.mode == "strict"

    @property
    def timeout(self) -> float:
        return float(self.values["timeout"])

    @property
    def runner(self) -> str:
        return str(self.values["runner"])

    @property
    def test_command(self) -> str | None:
        v = self.values["test_command"]
        return None if v is None else str(v)

    @property
    def python(self) -> str:
        return str(self.values["python"])

    def flag(self, path: str) -> bool:
        return bool(self.values[path])

    def globs(self, path: str) -> tuple[str, ...]:
        return tuple(self.values[path])

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.file) if self.file else None,
            "keys": {
                k.path: {
                    "value": _plain(self.values[k.path]),
                    "source": self.sources[k.path],
                }
                for k in KEYS
            },
        }


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def default_config() -> Config:
    return Config(
        values={k.path: k.default for k in KEYS},
        sources={k.path: "default" for k in KEYS},
    )


def _load_toml(path: Path) -> dict[str, Any]:
    """The parsed TOML file; empty when it never names tddgit, so holds no [tool.tddgit]
    (most pyproject.toml files: hooks read the configuration on every commit, and
    importing tomllib alone takes 2-3 ms of their budget)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path.name}: cannot read: {exc.strerror}") from exc
    if b"tddgit" not in raw:
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
        return data
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path.name}: malformed TOML: {exc}", f"fix the syntax of {path.name}"
        ) from exc


def find_config_file(
    root: Path, cache_dir: Path | None = None
) -> tuple[Path | None, dict[str, Any] | None]:
    """The one configuration source in ``root`` and its raw ``tddgit`` table."""
    found: list[tuple[Path, Any]] = []
    for name in (".tddgit.yaml", ".tddgit.yml"):
        p = root / name
        if p.is_file():
            from tddgit.config_file import yaml_cached

            found.append((p, yaml_cached(p, cache_dir)))
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _load_toml(pyproject)
        tool = data.get("tool")
        if isinstance(tool, dict) and "tddgit" in tool:
            found.append((pyproject, tool["tddgit"]))
    if len(found) > 1:
        names = " and ".join(
            p.name + (" [tool.tddgit]" if p.name == "pyproject.toml" else "") for p, _ in found
        )
        raise ConfigError(
            f"configuration found in both {names}", "keep tddgit's configuration in one of them"
        )
    if not found:
        return None, None
    path, raw = found[0]
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        where = "[tool.tddgit]" if path.name == "pyproject.toml" else "the top level"
        raise ConfigError(
            f"{path.name}: {where} must be a table of keys, not {type(raw).__name__}",
            "see docs/configuration.md",
        )
    return path, raw


def load_config(root: Path, cache_dir: Path | None = None) -> Config:
    """Read and validate the configuration of the work tree at ``root``; ``cache_dir`` (in
    the git dir) may hold a parse cache of a YAML configuration."""
    path, raw = find_config_file(root, cache_dir)
    base = default_config()
    if path is None or raw is None:
        return Config(values=base.values, sources=base.sources, file=None, root=root)
    from tddgit.config_file import checked_values

    values, sources = checked_values(raw, path.name, base)
    return Config(values=values, sources=sources, file=path, root=root)
