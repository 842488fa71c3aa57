"""The project under test, as the Python cause rules see it: its tree, its own names and
the dependencies it declares (pyproject, requirements*.txt, setup.cfg), and the PyPI
distributions well-known top-level modules come from.

This is how a missing top-level module is judged the project's own (red: not written yet)
or third-party (amber: install it); the rules themselves are in ``pycauses``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

# Distribution names whose import name differs (the common cases; others import as named).
IMPORT_NAMES: Mapping[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "beautifulsoup4": ("bs4",),
    "pillow": ("pil",),
    "scikit_learn": ("sklearn",),
    "scikit_image": ("skimage",),
    "opencv_python": ("cv2",),
    "opencv_python_headless": ("cv2",),
    "python_dateutil": ("dateutil",),
    "attrs": ("attr", "attrs"),
    "protobuf": ("google",),
    "pyjwt": ("jwt",),
    "gitpython": ("git",),
    "psycopg2_binary": ("psycopg2",),
    "psycopg_binary": ("psycopg",),
    "python_dotenv": ("dotenv",),
    "pycryptodome": ("crypto",),
    "pymupdf": ("fitz",),
    "msgpack_python": ("msgpack",),
    "setuptools": ("setuptools", "pkg_resources"),
    "typing_extensions": ("typing_extensions",),
}

_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EGG = re.compile(r"#egg=([A-Za-z0-9][A-Za-z0-9._-]*)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


# -- the project: its tree and its declared dependencies --------------------------------------


class Project:
    """What the cause rules need to know about the project under test (read lazily)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._deps: frozenset[str] | None = None
        self._names: frozenset[str] | None = None

    def rel(self, path: str | None) -> str | None:
        """``path`` relative to the root (``/``-separated), or None when outside it."""
        if not path:
            return None
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except (ValueError, OSError):
            return None

    def in_tree(self, module: str) -> str | None:
        """Where a top-level module lives in the project tree (root or ``src/``), if it does."""
        for base in ("", "src/"):
            if (self.root / f"{base}{module}.py").is_file():
                return f"{base}{module}.py"
            if (self.root / f"{base}{module}").is_dir():
                return f"{base}{module}/"
        return None

    def plausible(self, module: str, test_file: str | None) -> bool:
        """Whether a missing top-level ``module`` is plausibly the project's own: the
        project's name, or the module a test file's name says it tests (``test_calc.py``,
        ``calc_test.py`` -> ``calc``)."""
        wanted = _norm(module)
        if wanted in self.names:
            return True
        stem = (test_file or "").rsplit("/", 1)[-1].removesuffix(".py")
        tested = stem.removeprefix("test_").removesuffix("_test")
        return tested != stem and _norm(tested) == wanted

    @property
    def names(self) -> frozenset[str]:
        """The project's own names (normalised): its declared name in pyproject.toml."""
        if self._names is None:
            self._names = frozenset(filter(None, [_project_name(self.root)]))
        return self._names

    @property
    def dependencies(self) -> frozenset[str]:
        """Import names (lower case) of every declared dependency."""
        if self._deps is None:
            names: set[str] = set()
            for dist in declared_distributions(self.root):
                names.add(dist)
                names.update(IMPORT_NAMES.get(dist, ()))
                if dist.startswith("python_"):
                    names.add(dist[len("python_") :])
            self._deps = frozenset(names)
        return self._deps


def _requirement_names(lines: Iterable[object]) -> Iterator[str]:
    for raw in lines:
        if not isinstance(raw, str):
            continue
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            egg = _EGG.search(line)  # -e git+...#egg=name
            if egg:
                yield _norm(egg.group(1))
            continue
        egg = _EGG.search(line)
        m = egg or _REQ_NAME.match(line)
        if m:
            yield _norm(m.group(1))


def _pyproject_requirements(data: Mapping[str, Any]) -> Iterator[str]:
    project = data.get("project") or {}
    if isinstance(project, dict):
        yield from _requirement_names(project.get("dependencies") or [])
        for group in (project.get("optional-dependencies") or {}).values():
            yield from _requirement_names(group if isinstance(group, list) else [])
    for group in (data.get("dependency-groups") or {}).values():
        yield from _requirement_names(group if isinstance(group, list) else [])
    poetry = (data.get("tool") or {}).get("poetry") or {}
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        tables += [g.get("dependencies") for g in (poetry.get("group") or {}).values()]
        for table in tables:
            if isinstance(table, dict):
                yield from (_norm(k) for k in table if k != "python")


def _pyproject(root: Path) -> Mapping[str, Any]:
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - 3.10 only
        import tomli as tomllib
    try:
        data: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        return data
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _project_name(root: Path) -> str | None:
    project = _pyproject(root).get("project")
    name = project.get("name") if isinstance(project, dict) else None
    return _norm(name) if isinstance(name, str) else None


def declared_distributions(root: Path) -> frozenset[str]:
    """Normalised names of the dependencies the project declares (best effort)."""
    names: set[str] = set(_pyproject_requirements(_pyproject(root)))
    reqs = list(root.glob("requirements*.txt")) + list(root.glob("requirements/*.txt"))
    for req in reqs:
        try:
            names.update(_requirement_names(req.read_text(encoding="utf-8").splitlines()))
        except (OSError, UnicodeDecodeError):
            continue
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        import configparser  # only for a setup.cfg: every gate reads these rules

        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(setup_cfg, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            return frozenset(names)
        if parser.has_option("options", "install_requires"):
            names.update(_requirement_names(parser.get("options", "install_requires").split("\n")))
        if parser.has_section("options.extras_require"):
            for _, value in parser.items("options.extras_require"):
                names.update(_requirement_names(value.split("\n")))
    return frozenset(names)


# -- well-known third-party modules -------------------------------------------------------

_PYPI_NAMES: dict[str, str] | None = None


def pypi_distribution(module: str) -> str | None:
    """The PyPI distribution a widely used top-level import name comes from, if known
    (``pypi_names.json``, shipped data; its source is named inside)."""
    global _PYPI_NAMES
    if _PYPI_NAMES is None:
        path = Path(__file__).with_name("pypi_names.json")
        try:
            _PYPI_NAMES = dict(json.loads(path.read_text(encoding="utf-8"))["names"])
        except (OSError, ValueError, KeyError, TypeError):
            _PYPI_NAMES = {}
    return _PYPI_NAMES.get(module.lower())
