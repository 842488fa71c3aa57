"""Test configuration is the test side (PRODUCT.md §5, issue 24): what decides which tests
are collected, how they run and how they are reported.

pytest's settings (``[tool.pytest.ini_options]``, ``pytest.ini``, ``.pytest.ini``,
``setup.cfg [tool:pytest]``, ``tox.ini [pytest]``), every ``conftest.py``, the plugin
modules named by ``-p`` or ``pytest_plugins``, jest/vitest configuration files, the
package.json keys and test scripts they read, and the setup files and reporters that
configuration names. A green (or a production-side refactor) that changes any of them could
hide a broken test, so the gate names each change by file and key.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
import sys
from collections.abc import Iterable, Iterator

from tddgit.git import Repo
from tddgit.staged import StagedChange, read_blob

TYPE_CHECKING = False  # not `typing`: a gate's imports run beside its tests

if TYPE_CHECKING:
    from typing import Any

# (file name, section) of pytest's ini-style configuration
_INI = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest"}
_CFG = {"setup.cfg": "tool:pytest"}
_JS_CONFIG = re.compile(r"^(jest|vitest|vite)\.(config|workspace|setup)\.[cm]?[jt]s(on)?$")
_JS_EXT = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")
_PATH_LITERAL = re.compile(r"""['"`]((?:\./|\.\./|<rootDir>/)?[\w@./-]+\.[cm]?[jt]sx?)['"`]""")
_RUNNERS = re.compile(r"\b(jest|vitest)\b")


def changes(repo: Repo, change: StagedChange, *, loaded: bool = True) -> list[str]:
    """One line per change to test configuration: ``path: what`` (empty: none).
    ``loaded``: also the changed files that configuration loads (plugins, setup files),
    which costs a listing of the tree."""
    out: list[str] = []
    flagged: set[str] = set()
    for f in change.files:
        for path in dict.fromkeys(p for p in (f.path, f.old_path) if p):
            if not _is_config_name(posixpath.basename(path)):
                continue
            old = _text(repo, change.base_tree, f.old_path or f.path) if f.status != "A" else None
            new = _text(repo, change.tree, f.path) if f.status != "D" else None
            found = _file_changes(path, old, new)
            if found:
                flagged.add(path)
                out.extend(f"{path}: {what}" for what in found)
    rest = [
        f.path for f in change.files if f.path not in flagged and f.path.endswith((".py", *_JS_EXT))
    ]
    if rest and loaded:
        names = _loaded_files(repo, change.tree)
        out.extend(f"{path}: {names[path]}" for path in rest if path in names)
    return out


def _is_config_name(name: str) -> bool:
    return name in ("conftest.py", "pyproject.toml", "package.json", *_INI, *_CFG) or bool(
        _JS_CONFIG.match(name)
    )


def _text(repo: Repo, tree: str, path: str) -> str | None:
    blob = read_blob(repo, tree, path)
    return blob.decode("utf-8", "replace") if blob is not None else None


def _file_changes(path: str, old: str | None, new: str | None) -> list[str]:
    """What changed in one file, if it is test configuration."""
    name = posixpath.basename(path)
    if old == new:
        return []
    if name == "conftest.py":
        return ["conftest.py (pytest hooks, fixtures and collection rules)"]
    if name == "pyproject.toml":
        return [f"[tool.pytest] {k}" for k in _diff(_pyproject(old), _pyproject(new))]
    if name in _INI or name in _CFG:
        section = _INI.get(name) or _CFG[name]
        keys = _diff(_ini(old, section), _ini(new, section))
        return [f"[{section}] {k}" for k in keys]
    if name == "package.json":
        return _diff(_package(old), _package(new))
    if _JS_CONFIG.match(name):
        return [f"{name} (the runner's configuration)"]
    return []


def _diff(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[str]:
    before, after = old or {}, new or {}
    keys = sorted(set(before) | set(after))
    changed = [k for k in keys if before.get(k) != after.get(k)]
    if not changed and (old is None) != (new is None) and (old or new) is not None:
        return ["(section added or removed)"]
    return changed


def _pyproject(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {"(unparsable)": text}
    tool = data.get("tool", {}).get("pytest")
    if not isinstance(tool, dict):
        return None
    flat: dict[str, Any] = {}
    for key, value in tool.items():
        if key == "ini_options" and isinstance(value, dict):
            flat.update(value)
        else:
            flat[key] = value
    return flat


def _ini(text: str | None, section: str) -> dict[str, Any] | None:
    if text is None:
        return None
    # Imported here, as shlex below: a red gate asks this module before its tests start,
    # and only a staged configuration file needs them.
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {"(unparsable)": text}
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


def _package(text: str | None) -> dict[str, Any] | None:
    """The package.json keys a test runner reads: its own keys and the test scripts."""
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return {"(unparsable)": text}
    if not isinstance(data, dict):
        return None
    out = {k: data[k] for k in ("jest", "vitest", "type", "imports") if k in data}
    scripts = data.get("scripts")
    if isinstance(scripts, dict):
        for name, command in scripts.items():
            if name.startswith(("test", "pretest", "posttest")) or _RUNNERS.search(str(command)):
                out[f"scripts.{name}"] = command
    return out


# -- modules the configuration loads ---------------------------------------------------


def _loaded_files(repo: Repo, tree: str) -> dict[str, str]:
    """Files the configuration in ``tree`` loads around the tests -> how it names them:
    pytest plugins (``-p``, ``pytest_plugins``) and JS setup files and reporters."""
    names = repo.git("ls-tree", "-r", "--name-only", "-z", tree).split("\0")
    tracked = {n for n in names if n}
    wanted = [
        p
        for p in sorted(tracked)
        if posixpath.basename(p) in ("pyproject.toml", "package.json", *_INI, *_CFG, "conftest.py")
        or _JS_CONFIG.match(posixpath.basename(p))
    ]
    from tddgit.blobs import BlobReader

    with BlobReader(repo) as reader:  # one git process for every configuration file
        texts = [
            (b or b"").decode("utf-8", "replace")
            for b in reader.read_many([(tree, p) for p in wanted])
        ]
    out: dict[str, str] = {}
    for path, text in zip(wanted, texts, strict=True):
        base = posixpath.basename(path)
        folder = posixpath.dirname(path)
        if base == "package.json" or _JS_CONFIG.match(base):
            for ref in _js_references(base, text):
                for candidate in _js_files(folder, ref, tracked):
                    out.setdefault(candidate, f"loaded by the test runner (named in {path})")
        else:
            for module in _plugins(base, text):
                for candidate in _module_files(folder, module, tracked):
                    out.setdefault(candidate, f"pytest plugin {module} (named in {path})")
    return out


def _plugins(name: str, text: str) -> Iterator[str]:
    if name == "conftest.py":
        yield from _conftest_plugins(text)
        return
    if name == "pyproject.toml":
        opts = (_pyproject(text) or {}).get("addopts", "")
    else:
        section = _INI.get(name) or _CFG.get(name, "")
        opts = (_ini(text, section) or {}).get("addopts", "")
    yield from _dash_p(" ".join(opts) if isinstance(opts, list) else str(opts))


def _dash_p(addopts: str) -> Iterator[str]:
    import shlex

    try:
        words = shlex.split(addopts)
    except ValueError:
        words = addopts.split()
    for i, word in enumerate(words):
        name = None
        if word == "-p" and i + 1 < len(words):
            name = words[i + 1]
        elif word.startswith("-p") and len(word) > 2:
            name = word[2:]
        if name and not name.startswith("no:"):
            yield name


def _conftest_plugins(text: str) -> Iterator[str]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets
        ):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            yield from [value] if isinstance(value, str) else [str(v) for v in value]


def _module_files(folder: str, module: str, tracked: set[str]) -> Iterable[str]:
    rel = module.replace(".", "/")
    for base in (folder, posixpath.join(folder, "src") if folder else "src"):
        for candidate in (f"{rel}.py", f"{rel}/__init__.py"):
            path = posixpath.normpath(posixpath.join(base, candidate)) if base else candidate
            if path in tracked:
                yield path


def _js_references(name: str, text: str) -> Iterator[str]:
    from tddgit.runners.jsrecord import config_text

    part = config_text(name, text)
    if part is None:
        return
    for match in _PATH_LITERAL.finditer(part):
        yield match.group(1)


def _js_files(folder: str, ref: str, tracked: set[str]) -> Iterable[str]:
    ref = ref.removeprefix("<rootDir>/")
    path = posixpath.normpath(posixpath.join(folder, ref)) if folder else posixpath.normpath(ref)
    if path in tracked:
        yield path
