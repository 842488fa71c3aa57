"""The production files a test really imports, resolved against the project's tree
(issue 27 items 2 and 4: not by name).

``from lists.views import home`` is ``lists/views.py`` (or ``src/lists/views.py``, or
``lists/views/__init__.py``, or the module ``lists/views.py`` of ``from lists import
views``) when that file exists; a stdlib or third-party import resolves to nothing, and a
module of the same name elsewhere in the tree is not the one imported. JS/TS: relative
specifiers only (``./cart``, ``../lib/price``), with the usual extensions and
``index`` files.

The tree is the production paths the pass has seen (added, renamed, not deleted), kept
as it goes: no git call and no file read per commit. A pass that starts mid-history
(a range) seeds it once from the tree before its first commit. Resolution only runs for
the commits that need it (an inferred red, a new test file a production file may be
tested by) and is cached by the test's blob text.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from collections.abc import Callable, Iterable

from tddgit.model import FileChange

_PY_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([\w, \t]+)|import[ \t]+([\w., \t]+))",
    re.M,
)
_JS_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(?\s*)['"](\.[^'"\n]*)['"]"""
)
_PY_ROOTS = ("", "src/", "lib/")
_CACHE_CHARS = 2_000_000  # characters of test texts whose resolution is remembered
# A test that drives the whole application — through a framework's test client (Django,
# Flask, FastAPI, supertest) or a browser (Selenium, Playwright, Cypress) — exercises
# more than it imports: the URL routing, the templates, the settings.
_DRIVES_APP = re.compile(
    r"\bclient\.(?:get|post|put|patch|delete|head|options)\s*\(|\bself\.client\b"
    r"|\brequest\(\s*app\b|\bwebdriver\b|\bplaywright\b|\bpage\.goto\s*\(|\bcy\.visit\s*\("
)


# Every match of ``_DRIVES_APP`` holds one of these: a text without any is not searched
# (the regular expression's search costs ~40 us on a kilobyte of import lines).
_APP_WORDS = ("client", "request(", "webdriver", "playwright", "goto", "visit")


def drives_app(text: str | None) -> bool:
    """Does the test drive the whole application (a test client, a browser)?"""
    if not text or not any(w in text for w in _APP_WORDS):
        return False
    return _DRIVES_APP.search(text) is not None


_JS_EXT = (".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")


def _is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _is_js(path: str) -> bool:
    return path.endswith(_JS_EXT)


def python_modules(test_path: str, text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each module the text imports, as a path without its extension, with the bases it
    may be found under, in the order Python's path would look (the project's roots, then
    the test's own directories): ``mod`` is ``{base}{mod}.py`` or
    ``{base}{mod}/__init__.py`` for the first base that has one."""
    here = posixpath.dirname(test_path)
    ups: list[str] = []
    d = here
    while d:
        ups.append(d + "/")
        d = posixpath.dirname(d)
    roots = (*_PY_ROOTS, *ups)
    mods: list[tuple[str, tuple[str, ...]]] = []  # (module as a path, its bases)
    for frm, names, plain in _PY_IMPORT.findall(text):
        if frm:
            dots = len(frm) - len(frm.lstrip("."))
            rest = frm[dots:].replace(".", "/")
            if dots:
                base = here
                for _ in range(dots - 1):
                    base = posixpath.dirname(base)
                bases: tuple[str, ...] = (base + "/" if base else "",)
            else:
                bases = roots
            for name in names.split(","):
                words = name.split()
                if words and words[0] != "*":  # a submodule: from lists import views
                    mods.append((f"{rest}/{words[0]}" if rest else words[0], bases))
            if rest:
                mods.append((rest, bases))
        else:
            for name in plain.split(","):
                words = name.split()
                if words:
                    mods.append((words[0].replace(".", "/"), roots))
    return mods


def js_candidates(test_path: str, text: str) -> list[tuple[str, ...]]:
    here = posixpath.dirname(test_path)
    out: list[tuple[str, ...]] = []
    for spec in _JS_IMPORT.findall(text):
        path = posixpath.normpath(posixpath.join(here, spec))
        if path.startswith(".."):
            continue
        path = "" if path == "." else path
        own = (path,) if path.endswith(_JS_EXT) else ()
        out.append(
            (
                *own,
                *(path + e for e in _JS_EXT),
                *(f"{path}/index{e}" if path else f"index{e}" for e in _JS_EXT),
            )
        )
    return out


class ImportResolver:
    """The production files a test imports, against the production paths seen so far."""

    def __init__(self, git_dir: str | None = None) -> None:
        self.known: set[str] = set()
        # how many paths of ``known`` each module name (a file's stem, a package's
        # directory) names: an import of a name no known path has (the standard library,
        # third-party packages: most of a test's imports) resolves to nothing, unbuilt
        self._names: dict[str, int] = {}
        self._git_dir = git_dir
        self._seed: str | None = None  # the tree to seed from, for a mid-history pass
        self._seeded = False
        self._started = False
        self._cache: dict[tuple[str, str], frozenset[str]] = {}
        self._chars = 0  # of the texts in _cache

    def saw(self, parents: tuple[str, ...], prods: Iterable[FileChange]) -> None:
        """A commit of the pass (parents first) that changes production files. The first
        one's parent, if it has one, seeds the tree: the files that existed before it."""
        if not self._started:
            self._started = True
            if parents:  # the pass starts after the root: seed from the tree before it
                self._seed = parents[0]
        known = self.known
        size = len(known)
        moved = False
        for f in prods:
            if f.status == "D":
                self._drop(f.path)
                moved = True
            else:
                if f.status == "R" and f.old_path:
                    self._drop(f.old_path)
                    moved = True
                if f.path not in known:
                    known.add(f.path)
                    self._name(f.path, 1)
        if moved or len(known) != size:
            # what a text resolves to depends on the tree: the same test text resolves
            # anew once the tree changed (a test written before its module)
            self._cache.clear()
            self._chars = 0

    def _seed_now(self) -> None:
        self._seeded = True
        if self._seed is None or self._git_dir is None:
            return
        try:
            out = subprocess.run(
                [
                    "git",
                    f"--git-dir={self._git_dir}",
                    "ls-tree",
                    "-r",
                    "--name-only",
                    "-z",
                    self._seed,
                ],
                capture_output=True,
                check=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError):
            return
        # Every path of that tree: resolution then keeps only the production ones it is
        # asked about (``is_production``).
        for raw in out.split(b"\0"):
            path = raw.decode("utf-8", "surrogateescape")
            if path and path not in self.known:
                self.known.add(path)
                self._name(path, 1)

    def _drop(self, path: str) -> None:
        if path in self.known:
            self.known.discard(path)
            self._name(path, -1)

    def _name(self, path: str, n: int) -> None:
        """Count ``path`` (``n`` 1) or stop counting it (-1) under the module name an
        import would use for it: ``views`` for ``lists/views.py``, ``lists`` for
        ``lists/__init__.py``."""
        head, _, base = path.rpartition("/")
        stem = base.split(".", 1)[0]
        if stem == "__init__":
            stem = head.rpartition("/")[2]
        names = self._names
        names[stem] = names.get(stem, 0) + n

    def resolve(
        self, test_path: str, text: str | None, is_production: Callable[[str], bool]
    ) -> frozenset[str]:
        """The production files ``text`` (the test file ``test_path``) imports."""
        if not text:
            return frozenset()
        if not self._seeded:
            self._seed_now()
        key = (test_path, text)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        known = self.known
        found: set[str] = set()
        if _is_python(test_path):
            # the candidate paths in the order Python looks, made only until one is
            # found (a test's import lines name hundreds of candidate paths: building
            # them all was most of a warm audit's resolution time)
            names = self._names
            for mod, bases in python_modules(test_path, text):
                if not names.get(mod.rpartition("/")[2]):
                    continue  # no known file has that name: not one of the project's
                for b in bases:
                    path = b + mod + ".py"
                    if path in known and path != test_path and is_production(path):
                        found.add(path)
                        break
                    path = b + mod + "/__init__.py"
                    if path in known and path != test_path and is_production(path):
                        found.add(path)
                        break
        elif _is_js(test_path):
            for group in js_candidates(test_path, text):
                for path in group:
                    if path in known and path != test_path and is_production(path):
                        found.add(path)
                        break
        # bounded by the characters of the texts held too: cold, they are whole test
        # files (hundreds of kilobytes on numpy or sympy)
        self._chars += len(text)
        if len(self._cache) >= 4096 or self._chars > _CACHE_CHARS:
            self._cache.clear()
            self._chars = len(text)
        out = self._cache[key] = frozenset(found)
        return out
