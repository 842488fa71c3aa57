"""Which directories of a repository are projects, from its tracked files.

A project is a directory holding one of ``MARKERS`` (or, where none is, a Makefile with a
``test:`` rule: a docs/Makefile is no project), never inside ``node_modules/``, a vendored tree (``vendor/``,
``third_party/``) or a virtualenv (a directory holding ``pyvenv.cfg``), nor below a test
directory (``TEST_DIRS``) of an enclosing project: that is test data. Inside a Python
project, a directory whose only markers are run configurations (``RUN_CONFIGS``: the
``pytest.ini`` of the docs' examples, a subpackage's ``setup.cfg``) is part of it. The top is a
project when it holds a marker or a sign of one (``TOP_FILES``, any Makefile), or when
nothing else is.

It reads the index with one ``git ls-files`` (pathspecs name the markers, so git filters;
no walk of the work tree) and caches the answer keyed by the index file's identity: the
hooks ask on every commit, and the answer changes only when the index does.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Callable
from pathlib import Path

from tddgit.git import Repo, zsplit

MARKERS = (
    "pyproject.toml",
    "pytest.ini",
    "setup.cfg",
    "tox.ini",
    "package.json",
    "go.mod",
    "Cargo.toml",
)
MAKEFILES = ("Makefile", "GNUmakefile", "makefile")
# Files that make the top a project even without a marker (a setup.py project).
TOP_FILES = ("setup.py", "conftest.py", "requirements.txt", "pom.xml", "build.gradle")
SKIPPED_DIRS = frozenset({"node_modules", "vendor", "third_party", ".git"})
# A marker below one of these, inside another project, is that project's test data.
TEST_DIRS = frozenset(
    {"test", "tests", "testing", "__tests__", "testdata", "fixtures", "__fixtures__"}
)
# How pytest runs a subtree, or a subpackage's tool settings: inside a Python project they
# configure that project's runs (pytest reads the nearest one), they make no project. A
# pyproject.toml (a package of its own) or another ecosystem's marker does.
RUN_CONFIGS = frozenset({"pytest.ini", "setup.cfg", "tox.ini"})
_PYTHON = frozenset({"pyproject.toml", *RUN_CONFIGS})
_PYTHON_TOP = frozenset({"setup.py", "conftest.py", "requirements.txt"})
_MAKE_TEST = re.compile(rb"^test\s*:(?![=:]?=)", re.M)
_VERSION = 4  # 2: no test data; 3: no run configuration of a Python project; 4: top first
# Variables that would change how git reads the pathspecs below (they rely on the default).
_PATHSPEC_ENV = ("GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS")


def discover(repo: Repo) -> tuple[str, ...]:
    """The project directories (repo-relative posix, "" for the top), sorted."""
    index = repo.index_file()
    try:
        st = index.stat()
        key: list[object] = [str(index), st.st_size, st.st_mtime_ns, st.st_ino, _VERSION]
    except OSError:
        key = []  # no index yet: nothing tracked, nothing to cache
    cache = repo.tddgit_dir / "projects-cache.json"
    if key:
        try:
            entry = json.loads(cache.read_text(encoding="utf-8"))
            if entry.get("key") == key:
                return tuple(entry["dirs"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
    dirs = _scan(repo)
    if key:
        _store(cache, key, dirs)
    return dirs


def _store(cache: Path, key: list[object], dirs: tuple[str, ...]) -> None:
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".tmp-projects-{os.getpid()}")
        tmp.write_text(json.dumps({"key": key, "dirs": list(dirs)}), encoding="utf-8")
        os.replace(tmp, cache)  # readers see a whole entry or the old one
    except OSError:
        pass  # a read-only git dir: just don't cache


def _scan(repo: Repo) -> tuple[str, ...]:
    names = (*MARKERS, *MAKEFILES, "pyvenv.cfg")
    # Plain pathspecs (a `*` spans directories): git matches them faster than `:(glob)`.
    specs = [spec for name in names for spec in (name, f"*/{name}")] + list(TOP_FILES)
    env = {k: v for k, v in os.environ.items() if k not in _PATHSPEC_ENV}
    proc = repo.run("ls-files", "-z", "--", *specs, env=env, check=False)
    paths = zsplit(proc.stdout.decode("utf-8", "surrogateescape"))
    return projects_from_paths(paths, lambda p: _has_test_rule(repo.root / p))


def projects_from_paths(
    paths: list[str], makefile_tests: Callable[[str], bool] | None = None
) -> tuple[str, ...]:
    """The project directories among tracked ``paths`` (only marker-named files matter);
    ``makefile_tests(path) -> bool`` says whether a Makefile has a ``test:`` rule."""
    venvs = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "pyvenv.cfg"}
    markers: dict[str, set[str]] = {}  # directory -> the markers it holds
    makes: dict[str, str] = {}
    top_sign = False
    for path in paths:
        directory, name = posixpath.split(path)
        if _skipped(directory, venvs):
            continue
        if name in MARKERS:
            markers.setdefault(directory, set()).add(name)
        elif name in MAKEFILES:
            if directory:
                makes.setdefault(directory, path)
            else:
                top_sign = True  # a Makefile at the top: the top is a project
        elif not directory and name in TOP_FILES:
            top_sign = True
            if name in _PYTHON_TOP:
                markers.setdefault("", set()).add(name)
    for directory, path in makes.items():
        if directory not in markers and (makefile_tests is None or makefile_tests(path)):
            markers[directory] = {posixpath.basename(path)}
    found = _without_test_data(markers, top_sign)
    if not top_sign and not _without_test_data(markers, True):
        found = set()  # test data of the top is all there is: the top is the project
    if top_sign or not found:
        found.add("")
    return tuple(sorted(found))


def _without_test_data(markers: dict[str, set[str]], top: bool) -> set[str]:
    """The marked directories less those below a test directory of an enclosing project
    (``top``: whether the top is one) and the run configurations of an enclosing Python
    project: `tests/fixtures/app/package.json` in a Python project is its tests' data,
    `doc/en/pytest.ini` how its docs' examples run; neither is a project."""
    kept: set[str] = set()
    # enclosing ones first, the top before all (git lists `doc/pytest.ini` before it)
    for directory in sorted(markers, key=lambda d: (d != "", d.count("/"))):
        if not directory:
            if top or markers[directory] - _PYTHON_TOP:
                kept.add(directory)
            continue
        parts = directory.split("/")
        for cut in range(len(parts) - 1, -1, -1):  # the nearest enclosing project
            outer = "/".join(parts[:cut])
            if outer in kept or (outer == "" and top):
                if not TEST_DIRS.isdisjoint(parts[cut:-1]):
                    break  # below a test directory of `outer`: test data
                if markers[directory] <= RUN_CONFIGS and _PYTHON & markers.get(outer, set()):
                    break  # how `outer`, a Python project, runs this subtree
                kept.add(directory)
                break
        else:
            kept.add(directory)  # no project around it
    return kept


def _skipped(directory: str, venvs: set[str]) -> bool:
    parts = directory.split("/") if directory else []
    if any(p in SKIPPED_DIRS for p in parts):
        return True
    return any(directory == v or directory.startswith(v + "/") for v in venvs if v)


def _has_test_rule(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return bool(_MAKE_TEST.search(fh.read(256 * 1024)))
    except OSError:
        return False
