"""Which production file a test file is about: by name, or by what the test imports.

Used by ``test-after-fact``. A *key* is (lower-case stem, language family), so
``pprint.py`` matches ``test_pprint.py`` and ``pprint_test.py``, ``foo.js`` matches
``foo.test.js`` and ``foo.spec.ts``, ``Foo.java`` matches ``FooTest.java`` and
``foo.go`` matches ``foo_test.go``. Computing a key is a few string operations, so the
audit can index every file once and look tests up in O(1).
"""

from __future__ import annotations

import re

Key = tuple[str, str]

_FAMILY = {
    **dict.fromkeys(("py", "pyi", "pyx"), "py"),
    **dict.fromkeys(("js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte"), "js"),
    **dict.fromkeys(("java", "kt", "scala", "groovy"), "jvm"),
    **dict.fromkeys(("c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx"), "c"),
    **dict.fromkeys(("cs", "fs", "vb"), "dotnet"),
    **dict.fromkeys(("ex", "exs"), "ex"),
}
# Names too generic to tie a test to one production file.
_GENERIC = frozenset(
    {"__init__", "__main__", "index", "main", "mod", "lib", "conftest", "setup", "utils", "util"}
)
_TEST_AFFIX = re.compile(
    r"^(?:tests?_)(?P<a>.+)$|^(?P<b>.+?)(?:[._-](?:tests?|spec))$|^(?P<c>.+?)(?:Tests?|Spec|IT)$"
    r"|^Test(?P<d>[A-Z].*)$"
)


def _split(path: str) -> tuple[str, str] | None:
    base = path.rsplit("/", 1)[-1]
    stem, dot, ext = base.rpartition(".")
    if not dot or not stem:
        return None
    return stem, _FAMILY.get(ext.lower(), ext.lower())


def production_key(path: str) -> Key | None:
    """The key of a production file, or None for names too generic to match."""
    parts = _split(path)
    if parts is None or parts[0].lower() in _GENERIC:
        return None
    return parts[0].lower(), parts[1]


def module_key(path: str) -> Key | None:
    """``production_key``, and for a package's ``__init__``/``index`` the package's own
    name (``from pkg import X`` imports ``pkg/__init__.py``)."""
    key = production_key(path)
    if key is not None or "/" not in path:
        return key
    parts = _split(path)
    if parts is None or parts[0] not in ("__init__", "index"):
        return None
    package = path.rsplit("/", 2)[-2].lower()
    return None if package in _GENERIC or package in ("src", "lib") else (package, parts[1])


def test_key(path: str) -> Key | None:
    """The key of the production file a test file is named after (its affixes removed)."""
    parts = _split(path)
    if parts is None:
        return None
    stem, family = parts
    m = _TEST_AFFIX.match(stem)
    if m:
        stem = next(g for g in m.groups() if g)
    stem = stem.lower()
    if stem in _GENERIC or stem in ("test", "tests", "spec"):
        return None
    return stem, family


try:
    test_key.__test__ = False  # type: ignore[attr-defined]  # not a pytest test function
except AttributeError:  # compiled by mypyc: a builtin function, which pytest never collects
    pass

_PY_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+([\w, \t()]+)|import[ \t]+([\w., \t]+))", re.M
)
_JS_IMPORT = re.compile(r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(?\s*)['"]([^'"\n]+)['"]""")
# one line each: ``\s`` around it read the next line's indent as its own, and an
# indented import right after an import without a semicolon (Kotlin) went unread
_JVM_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)[ \t]*;?", re.M)
_NAME = re.compile(r"\w+")


def _first_words(items: str) -> list[str]:
    """``a as b, c`` -> ``[a, c]``: the imported names, not their aliases."""
    return [part.split()[0] for part in items.split(",") if part.split()]


def imported_keys(text: str, family: str) -> set[Key]:
    """Keys of the modules a test file imports (last name of each dotted or path import)."""
    names: set[str] = set()
    if family == "py":
        for frm, what, plain in _PY_IMPORT.findall(text):
            if frm:
                names.add(frm.rsplit(".", 1)[-1])
                names.update(_first_words(what.replace("(", " ").replace(")", " ")))
            else:
                names.update(w.rsplit(".", 1)[-1] for w in _first_words(plain))
    elif family == "js":
        for spec in _JS_IMPORT.findall(text):
            if spec.startswith("."):  # only the project's own modules, not packages
                base = spec.rstrip("/").rsplit("/", 1)[-1]
                names.add(base.split(".", 1)[0])
    elif family == "jvm":
        names.update(m.rsplit(".", 1)[-1] for m in _JVM_IMPORT.findall(text))
    return {(n.lower(), family) for n in names if n and n.lower() not in _GENERIC}
