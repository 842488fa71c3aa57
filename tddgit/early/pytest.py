"""Whether the gate's run is predictable as a Python project's whole suite under pytest,
and which command line, directory and environment it has.

A cheap, conservative look (the standard library only, no YAML parser): the repository's
top directory is its only project, nothing there would make detection pick another
runner, its configuration (``[tool.tddgit]`` of pyproject.toml, or the parse a gate
cached of ``.tddgit.yaml``) leaves the runner and the interpreter to detection and has
the phase run everything (``scope: all``; a green only when it measures no coverage),
and the work tree equals the index: the gate then runs in place, not on a snapshot, so
the early run writes nothing into the work tree that the gate's own run would not. A
wrong guess costs only the early run: the runner claims it only when its own command
line, directory and environment are exactly these (``tddgit.early.claim``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tddgit.bytecache import drop_stale
from tddgit.early import capture_dir
from tddgit.early.look import CONFIGS
from tddgit.importpaths import import_env
from tddgit.pytestcmd import auto_python, run_argv, run_env
from tddgit.worktop import redirected, top

TYPE_CHECKING = False  # `typing` itself is not imported before the spawn

if TYPE_CHECKING:
    from typing import Any

# Files at the top that make detection pick another runner (``runners/detect.py``).
_OTHERS = ("package.json", "pom.xml", "go.mod", "Cargo.toml")
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # a `test:` rule may pick `make test`
_PYTEST_FILES = ("pytest.ini", ".pytest.ini", "conftest.py")
# A project marker below the top (``projects/discover.py``): the repository may hold
# several projects, each run in its own directory.
_NESTED = tuple(
    f"*/{name}" for name in ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", *_OTHERS)
)
# Besides a redirected git (``worktop.redirected``): another pathspec syntax than the
# plain one.
_GIT_ENV = (
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
)


def guess(cwd: Path, phase: str) -> tuple[list[str], Path, dict[str, str], Path] | None:
    """(argv, directory, environment, files directory) of the pytest runner's run in
    place, or None. The files directory is made here; the caller owns it."""
    if phase not in ("red", "green") or redirected() or any(map(os.environ.get, _GIT_ENV)):
        return None
    top = _git_top(cwd)
    if top is None:
        return None
    pyproject = _read(top / "pyproject.toml")
    if not _pytest_detected(top, pyproject):
        return None
    settings = _settings(top, pyproject)
    if settings is None or not _runs_everything(settings, phase):
        return None
    if not _clean(top):
        return None
    python, _why = auto_python(top)
    pycache = top / ".git" / "tddgit" / "pycache"
    drop_stale(pycache, top)  # as the runner does before its spawn: no stale .pyc judged
    workdir = capture_dir("pytest")
    out = workdir / "probe.jsonl"
    out.touch()
    env = run_env({**os.environ, **import_env(top)}, top, top, out, None, pycache)
    return run_argv(python, workdir, []), top, env, workdir


def _git_top(cwd: Path) -> Path | None:
    """The work tree's top, when its git directory is the plain ``.git`` there."""
    root = top(str(cwd))
    return Path(root) if root is not None and os.path.isdir(os.path.join(root, ".git")) else None


def _read(path: Path) -> bytes | None:
    try:
        with path.open("rb") as fh:
            return fh.read(256 * 1024)
    except OSError:
        return None


def _pytest_detected(top: Path, pyproject: bytes | None) -> bool:
    if any(os.path.lexists(top / name) for name in _OTHERS):
        return False
    if not any(os.path.lexists(top / name) for name in _MAKEFILES):
        return True  # detection's pytest, by its evidence or as the default
    if any(os.path.lexists(top / name) for name in _PYTEST_FILES):
        return True
    return pyproject is not None and b"[tool.pytest.ini_options]" in pyproject


def _settings(top: Path, pyproject: bytes | None) -> dict[str, Any] | None:
    """The configuration's keys, flat (``red.scope``); None when unknown without the
    gate's own reading (a YAML file not parsed into the cache yet, a malformed file)."""
    found: list[Any] = []
    for name in CONFIGS:
        path = top / name
        if path.is_file():
            found.append(_cached_yaml(path, top / ".git" / "tddgit" / "config-cache.json"))
    if pyproject is not None and b"tddgit" in pyproject:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - exercised on 3.10 only
            import tomli as tomllib

        try:
            tool = tomllib.loads(pyproject.decode("utf-8")).get("tool")
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return None
        if isinstance(tool, dict) and "tddgit" in tool:
            found.append(tool["tddgit"])
    if len(found) > 1:
        return None  # the gate refuses two configurations
    raw = found[0] if found else {}
    if not isinstance(raw, dict):
        return None
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            flat.update({f"{key}.{sub}": v for sub, v in value.items()})
        else:
            flat[str(key)] = value
    return flat


def _cached_yaml(path: Path, cache: Path) -> Any:
    """The parse of ``path`` a gate left in ``cache`` (``config_file.yaml_cached``) when
    it is of this very file; otherwise the file read as plain keys (``_plain_yaml``)."""
    try:
        st = path.stat()
        entry = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(entry, dict) and entry.get("key") == [str(path), st.st_size, st.st_mtime_ns]:
            return entry.get("raw") or {}
    except (OSError, ValueError):
        pass
    return _plain_yaml(path)


_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]+(.*))?")
_SCALAR = re.compile(r"""([A-Za-z0-9_./-]+)|"([A-Za-z0-9_./ -]*)"|'([A-Za-z0-9_./ -]*)'""")


def _plain_yaml(path: Path) -> dict[str, Any] | None:
    """A YAML file of the plainest form, as ``{"red": {"scope": "all"}}``: top-level
    ``key: word`` lines, and ``section:`` lines followed by indented ``key: word`` lines.
    Anything else (lists, flow style, anchors, deeper nesting) is None: unknown. A fresh
    clone has no parse cache yet, and loading a YAML parser costs the gate's start."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    raw: dict[str, Any] = {}
    section: dict[str, Any] | None = None
    for line in text.splitlines():
        body = line.split(" #", 1)[0].rstrip()
        if not body.strip() or body.lstrip().startswith("#") or body == "---":
            continue
        indented = body[0] in " \t"
        found = _KEY.fullmatch(body.strip())
        if found is None or (indented and section is None):
            return None
        key, value = found.groups()
        if value is None:
            if indented:
                return None  # deeper nesting
            section = raw[key] = {}
            continue
        word = _SCALAR.fullmatch(value)
        if word is None:
            return None
        (section if indented and section is not None else raw)[key] = next(
            w for w in word.groups() if w is not None
        )
        if not indented:
            section = None
    return raw


def _runs_everything(settings: Mapping[str, Any], phase: str) -> bool:
    """The configured runner and interpreter are detection's, the top is the only project,
    and the phase runs the whole suite with no coverage measured."""
    if settings.get("runner", "auto") not in ("auto", "pytest"):
        return False
    if settings.get("python", "auto") != "auto" or "root" in settings or "projects" in settings:
        return False
    default = "changed" if phase == "red" else "all"
    if settings.get(f"{phase}.scope", default) != "all":
        return False  # the staged test files: known only from the index
    if phase == "green":  # green measures coverage for its yagni and mutation checks
        off = ("off", False)  # YAML 1.1 reads a plain `off` as false
        return all(settings.get(f"green.{key}", "warn") in off for key in ("yagni", "mutation"))
    return True


def _clean(top: Path) -> bool:
    """The work tree equals the index (no unstaged change, no untracked file that is not
    ignored: the gate's reasons for a snapshot), and no project marker lies below the top.
    The three git calls run at once."""
    calls = (
        ("diff-files", "-z", "--name-only"),
        ("ls-files", "-z", "--others", "--exclude-standard"),
        ("ls-files", "-z", "--", *_NESTED),
    )
    procs = [
        subprocess.Popen(["git", *args], cwd=top, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for args in calls
    ]
    clean = True
    for proc in procs:
        out, _ = proc.communicate()
        clean = clean and proc.returncode == 0 and not out
    return clean
