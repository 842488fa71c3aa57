"""Causes of JS/TS failures that only the test file can explain: a feature not written yet.

``x is not a function``, ``x is not a constructor`` and ``Cannot read properties of
undefined (reading 'y')`` are the everyday failures of a test of a function that does not
exist yet -- or of a broken test. They are red ``not-implemented`` only when the test
file imports the name from a project module (a relative or absolute path, by a named,
namespace, default or ``require`` import) and that module's source does not mention it
at all; anything else stays what the report said (amber ``other``). A missing export of
an ESM import is decided from the message alone (``missing_export``).

The test file and the module are read with the detectors' tolerant tokenizer; nothing is
run, and an unreadable file leaves the cause as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from tddgit.detectors import language_of
from tddgit.detectors.jstokens import Token, tokenize
from tddgit.model import Cause, TestResult

MAX_SOURCE = 1024 * 1024  # bytes of a test file or module read

_MISSING_EXPORT = re.compile(
    r"The requested module '([^'\n]+)' does not provide an export named '([^'\n]+)'"
)
_NOT_CALLABLE = re.compile(r"([\w$.]+)\)? is not a (?:function|constructor)\b")
_READING = re.compile(r"Cannot read properties of undefined \(reading '([\w$]+)'\)")
_RESOLVE = ("", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".jsx")
_INDEX = ("/index.js", "/index.ts", "/index.mjs", "/index.cjs")


def is_project(spec: str) -> bool:
    """A module named by a path (the project's own) rather than by a package name."""
    return spec.startswith((".", "/", "file:")) and "/node_modules/" not in spec


def missing_export(text: str) -> tuple[Cause, str] | None:
    """An ESM import of a name the module does not export: the project's module lacks a
    feature (red); a package's lacks it (the installed version is wrong: amber)."""
    m = _MISSING_EXPORT.search(text)
    if m is None:
        return None
    cause = Cause.NOT_IMPLEMENTED if is_project(m.group(1)) else Cause.ENVIRONMENT
    return cause, m.group(0)


@dataclass(frozen=True)
class _Imports:
    named: dict[str, tuple[str, str]]  # local binding -> (module, exported name)
    whole: dict[str, str]  # namespace / default / require binding -> module
    order: list[str]  # every import statement's module, in order (vite numbers them so)
    tokens: list[Token]


def _string_after(tokens: list[Token], k: int, word: str) -> str | None:
    """The module of ``word 'spec'`` / ``word('spec')`` at ``tokens[k]``."""
    if k < len(tokens) and tokens[k].text == word:
        k += 1
        if k < len(tokens) and tokens[k].text == "(":
            k += 1
        if k < len(tokens) and tokens[k].kind == "str":
            return tokens[k].text
    return None


def _names(tokens: list[Token], k: int, sep: str) -> tuple[list[tuple[str, str]], int]:
    """``{ a, b as c }`` (``sep`` "as") or ``{ a, b: c }`` (":") at ``tokens[k]`` (the
    ``{``): (exported, local) pairs and the index after the ``}``."""
    out: list[tuple[str, str]] = []
    k += 1
    while k < len(tokens) and tokens[k].text != "}":
        if tokens[k].kind == "id" and tokens[k].text != "type":
            name = tokens[k].text
            if k + 2 < len(tokens) and tokens[k + 1].text == sep and tokens[k + 2].kind == "id":
                out.append((name, tokens[k + 2].text))
                k += 3
                continue
            out.append((name, name))
        k += 1
    return out, k + 1


def _imports(source: str) -> _Imports:
    tokens = tokenize(source)
    named: dict[str, tuple[str, str]] = {}
    whole: dict[str, str] = {}
    order: list[str] = []
    n = len(tokens)
    for k, tok in enumerate(tokens):
        if tok.text == "import" and (k == 0 or tokens[k - 1].text != "."):
            j = k + 1
            local_whole: list[str] = []
            pairs: list[tuple[str, str]] = []
            if j < n and tokens[j].kind == "id" and tokens[j].text != "from":
                local_whole.append(tokens[j].text)  # default import
                j += 2 if j + 1 < n and tokens[j + 1].text == "," else 1
            if j + 2 < n and tokens[j].text == "*" and tokens[j + 1].text == "as":
                local_whole.append(tokens[j + 2].text)
                j += 3
            elif j < n and tokens[j].text == "{":
                pairs, j = _names(tokens, j, "as")
            spec = tokens[j].text if j < n and tokens[j].kind == "str" else None  # import 'x'
            spec = spec if spec is not None else _string_after(tokens, j, "from")
            if spec is not None and not (j < n and tokens[j].text == "("):
                order.append(spec)
        elif tok.text in ("const", "let", "var") and k + 1 < n:
            j = k + 1
            local_whole, pairs = [], []
            if tokens[j].text == "{":
                pairs, j = _names(tokens, j, ":")
            elif tokens[j].kind == "id":
                local_whole.append(tokens[j].text)
                j += 1
            is_assignment = j < n and tokens[j].text == "="
            spec = _string_after(tokens, j + 1, "require") if is_assignment else None
        else:
            continue
        if spec is None or not is_project(spec):
            continue
        whole.update((name, spec) for name in local_whole)
        named.update((local, (spec, exported)) for exported, local in pairs)
    return _Imports(named, whole, order, tokens)


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_SOURCE).decode("utf-8", "replace")
    except OSError:
        return None


def _module_source(root: Path, test_file: str, spec: str) -> str | None:
    base = Path(spec.removeprefix("file://"))
    if not base.is_absolute():
        base = (root / test_file).parent / base
    stem = base.with_suffix("") if base.suffix in (".js", ".mjs", ".cjs", ".jsx") else None
    candidates = [Path(f"{base}{ext}") for ext in (*_RESOLVE, *_INDEX)]
    if stem is not None:  # TypeScript's ESM convention: './calc.js' is calc.ts
        candidates += [Path(f"{stem}{ext}") for ext in (".ts", ".tsx", ".mts", ".cts")]
    for path in candidates:
        if path.is_file():
            return _read(path)
    return None


_VITE_IMPORT = re.compile(r"^__vite_ssr_import_(\d+)__$")


def _compiled_import(head: str, order: list[str]) -> str | None:
    """The module behind a compiler's name for an import: vite numbers the import
    statements (``__vite_ssr_import_2__``), babel names them after the file (``_calc``)."""
    m = _VITE_IMPORT.match(head)
    if m is not None:
        index = int(m.group(1))
        return order[index] if index < len(order) else None
    if head.startswith("_"):
        stems = {re.sub(r"\W", "", Path(s).stem.split(".")[0]): s for s in order}
        return stems.get(head[1:])
    return None


class _Explainer:
    """Answers "is ``name`` missing from the project module the test imported it from?"
    for one run, reading each file once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._imports: dict[str, _Imports | None] = {}
        self._names: dict[tuple[str, str], set[str] | None] = {}

    def imports(self, test_file: str) -> _Imports | None:
        if test_file not in self._imports:
            source = _read(self.root / test_file)
            self._imports[test_file] = _imports(source) if source is not None else None
        return self._imports[test_file]

    def absent(self, test_file: str, spec: str, name: str) -> bool:
        key = (test_file, spec)
        if key not in self._names:
            source = _module_source(self.root, test_file, spec)
            self._names[key] = (
                None if source is None else {t.text for t in tokenize(source) if t.kind == "id"}
            )
        names = self._names[key]
        return names is not None and name != "default" and name not in names

    def not_callable(self, test_file: str, expr: str) -> bool:
        """``expr`` (``sub``, ``calc.sub``, ``__vite_ssr_import_1__.sub``, babel's
        ``_calc.sub``) names an export missing from a project module."""
        found = self.imports(test_file)
        if found is None:
            return False
        parts = expr.split(".")
        if len(parts) == 1:
            origin = found.named.get(parts[0])
            return origin is not None and self.absent(test_file, *origin)
        if len(parts) != 2:
            return False
        head, name = parts
        if head in found.whole:
            return self.absent(test_file, found.whole[head], name)
        if head in found.named or any(t.text == head for t in found.tokens if t.kind == "id"):
            return False  # a binding of the test file's own, not an import
        spec = _compiled_import(head, found.order)
        return spec is not None and is_project(spec) and self.absent(test_file, spec, name)

    def reads_missing(self, test_file: str, prop: str) -> bool:
        """The test reads ``.prop`` of an import (``x.prop`` / ``ns.x.prop``) whose ``x``
        is missing from its project module."""
        found = self.imports(test_file)
        if found is None:
            return False
        toks = found.tokens
        for k in range(len(toks) - 2):
            if toks[k + 1].text != "." or toks[k + 2].text != prop:
                continue
            name = toks[k].text
            origin = found.named.get(name)
            if origin is not None and self.absent(test_file, *origin):
                return True
            ns = toks[k - 2].text if k >= 2 and toks[k - 1].text == "." else ""
            if ns in found.whole and self.absent(test_file, found.whole[ns], name):
                return True
        return False


def explain(tests: tuple[TestResult, ...], root: Path) -> tuple[TestResult, ...]:
    """``tests`` with the failures of a feature not written yet marked ``not-implemented``."""
    explainer = _Explainer(root)
    out: list[TestResult] = []
    for t in tests:
        js = t.cause is Cause.OTHER and t.file is not None and language_of(t.file) == "js"
        if js and t.file is not None and _missing(explainer, t.file, t.message):
            t = replace(t, cause=Cause.NOT_IMPLEMENTED)
        out.append(t)
    return tuple(out)


def _missing(explainer: _Explainer, test_file: str, message: str) -> bool:
    m = _NOT_CALLABLE.search(message)
    if m is not None:
        expr = m.group(1).split("(")[-1].strip()
        return explainer.not_callable(test_file, expr)
    m = _READING.search(message)
    return m is not None and explainer.reads_missing(test_file, m.group(1))
