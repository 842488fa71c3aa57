"""Which Rust tests a step is about: the ``#[test]`` functions new or changed in a staged
integration test (``tests/name.rs``) or in the inline ``#[cfg(test)] mod`` of a source
file -- that module is the test side of its file, a region, not the file. Ids are the
``rust`` runner's: ``crate::tests::adds`` for a unit test of ``src/lib.rs``,
``crate::module::tests::adds`` for ``src/module.rs``, ``crate::name::multiplies`` for
``tests/name.rs`` (nextest's binary id, then the test's path).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from tddgit.bracetext import close_brace

_TEST_ATTR = re.compile(r"#\[\s*(?:tokio::)?test\s*\]")
_FN = re.compile(r"\bfn\s+(\w+)")
_MOD = re.compile(r"\bmod\s+(\w+)\s*\{")
_CFG_TEST = re.compile(
    r"#\[\s*cfg\s*\(\s*test\s*\)\s*\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{"
)
_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])'")
_RAW = re.compile(r'r(#*)"')
_PACKAGE_NAME = re.compile(r'(?ms)^\[package\][^\[]*?^\s*name\s*=\s*"([^"]+)"')


def mask(text: str, literals: bool = True) -> str:
    """``text`` with comments blanked (nested block comments too) and, with ``literals``,
    the insides of string, raw string and char literals as spaces; positions unchanged.
    A lifetime (``'a``) is not a char literal."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        out[a:b] = [ch if ch == "\n" else " " for ch in text[a:b]]

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c == "r" and (m := _RAW.match(text, i)) and (i == 0 or not text[i - 1].isalnum()):
            close = '"' + m.group(1)
            end = text.find(close, m.end())
            end = n if end == -1 else end
            if literals:
                blank(m.end(), end)
            i = end + len(close)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if literals:
                blank(i + 1, min(j, n))
            i = j + 1
        elif c == "'" and (m := _CHAR.match(text, i)):
            if literals:
                blank(i + 1, m.end() - 1)
            i = m.end()
        else:
            i += 1
    return "".join(out)


def test_regions(masked: str) -> list[tuple[int, int, str]]:
    """The ``#[cfg(test)] mod name { ... }`` blocks: (start, end, name)."""
    out = []
    for m in _CFG_TEST.finditer(masked):
        close = close_brace(masked, m.end() - 1)
        out.append((m.start(), close + 1, m.group(1)))
    return out


def _tests_in(source: str, start: int, end: int, prefix: str) -> dict[str, str]:
    """``#[test]`` functions between ``start`` and ``end``: path -> fingerprint."""
    masked = mask(source)
    code = mask(source, literals=False)
    found: dict[str, str] = {}
    mods = [
        (m.start(), close_brace(masked, m.end() - 1), m.group(1))
        for m in _MOD.finditer(masked, start, end)
    ]
    for attr in _TEST_ATTR.finditer(masked, start, end):
        fn = _FN.search(masked, attr.end(), end)
        if fn is None:
            continue
        open_at = masked.find("{", fn.end())
        if open_at == -1:
            continue
        close = close_brace(masked, open_at)
        inner = [name for a, b, name in mods if a < attr.start() < b and a >= start]
        path = "::".join([*([prefix] if prefix else []), *inner, fn.group(1)])
        found[path] = " ".join(code[attr.start() : close + 1].split())
    return found


def file_tests(path: str, source: str) -> dict[str, str]:
    """The tests of a Rust file: all of an integration test file's, only the inline
    test modules' of a source file (their module path included)."""
    if _is_integration_test(path):
        return _tests_in(source, 0, len(source), "")
    masked = mask(source)
    found: dict[str, str] = {}
    for start, end, _ in test_regions(masked):
        found.update(_tests_in(source, start, end, ""))
    return found


def _is_integration_test(path: str) -> bool:
    parts = path.split("/")
    return "tests" in parts[:-1]


def module_prefix(path: str) -> str:
    """The id prefix of a file's tests, after the crate: ``mul`` for ``tests/mul.rs``,
    ``foo::bar`` for ``src/foo/bar.rs``, nothing for ``src/lib.rs``."""
    parts = path.split("/")
    if "tests" in parts[:-1]:
        return (
            parts[-1][:-3]
            if len(parts) - parts.index("tests") == 2
            else parts[parts.index("tests") + 1]
        )
    if "src" in parts[:-1]:
        inner = parts[parts.index("src") + 1 :]
        inner[-1] = inner[-1][:-3]
        if inner[-1] in ("lib", "main", "mod"):
            inner = inner[:-1]
        return "::".join(inner)
    return ""


def package_name(cargo_toml: str) -> str | None:
    m = _PACKAGE_NAME.search(cargo_toml)
    return m.group(1) if m else None


def rust_targets(path: str, crate: str, new: str, old: str | None) -> list[str]:
    """Target ids in Rust file ``path`` of ``crate`` (``old`` None: a new file)."""
    base = "::".join(p for p in (crate, module_prefix(path)) if p)
    new_tests = file_tests(path, new)
    if not new_tests:
        return [base] if _is_integration_test(path) else []
    old_tests = file_tests(path, old) if old is not None else {}
    return [f"{base}::{name}" for name, fp in new_tests.items() if old_tests.get(name) != fp]


def manifests_above(path: str) -> list[str]:
    """The Cargo.toml files that could hold ``path``'s package, nearest first."""
    found = []
    directory = posixpath.dirname(path)
    while True:
        found.append(posixpath.join(directory, "Cargo.toml") if directory else "Cargo.toml")
        if not directory:
            return found
        directory = posixpath.dirname(directory)


def crate_of(path: str, read: Callable[[str], str | None]) -> str | None:
    """The package name of the Cargo.toml nearest above ``path`` (``read`` gives a
    repository file's text, or None)."""
    for manifest in manifests_above(path):
        text = read(manifest)
        if text is not None:
            name = package_name(text)
            if name is not None:
                return name
    return None


def _split_sides(source: str) -> tuple[str, str]:
    """(the file without its test modules, the test modules), comments and layout gone."""
    code = mask(source, literals=False)
    masked = mask(source)
    tests: list[str] = []
    rest = code
    for start, end, _ in reversed(test_regions(masked)):
        tests.insert(0, code[start:end])
        rest = rest[:start] + rest[end:]
    return " ".join(rest.split()), " ".join(" ".join(tests).split())


def changed_sides(old: str | None, new: str) -> tuple[bool, bool]:
    """Whether a change to a Rust source file touches (its production code, its inline
    test modules)."""
    before = _split_sides(old) if old is not None else ("", "")
    after = _split_sides(new)
    return before[0] != after[0], before[1] != after[1]
