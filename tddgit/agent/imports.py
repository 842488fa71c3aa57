"""The project modules a green's target tests import, for its first message: the code the
model is about to change, so it need not spend its first turns reading it.

Python tests are parsed (``ast``): ``import a.b`` and ``from a.b import c`` resolve to
``a/b.py`` or ``a/b/__init__.py`` (and ``a/b/c.py`` when ``c`` is a module), looked up
where pytest finds them: the test's own directory (rootdir insertion), the project
directory and its ``src/``; relative imports from the test's package. JavaScript and
TypeScript tests: the relative specifiers of ``import``/``require`` with the usual
extensions and ``index`` files. What resolves to no file of the project (the standard
library, third-party packages) is left out. Every file passes the sandbox's rules (secret
names and contents, git-ignored files, size), and the whole is bounded: a module past the
bound is named, not shown. Paths are repository-relative.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from tddgit.agent.sandbox import Denied, Sandbox
from tddgit.config import Config
from tddgit.git import Repo

MAX_IMPORTED = 24_000  # bytes of module text in the first message, at most
MAX_MODULE = 12_000  # bytes of one module shown
_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_SPEC = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bimport\s+)['"](\.{1,2}/[^'"]+)['"]"""
)


def imported_modules(
    repo: Repo, config: Config, sandbox: Sandbox, tests: Sequence[tuple[str, str]]
) -> str:
    """The section of the first message: each module with its text, in the order the tests
    import them; "" when they import no file of the project."""
    tracked = {p for p in repo.git("ls-files", "-z").split("\0") if p}
    tested = {path for path, _ in tests}
    found: list[str] = []
    for path, text in tests:
        for rel in _resolve(path, text, config.project, tracked):
            if rel not in found and rel not in tested:
                found.append(rel)
    parts: list[str] = []
    named: list[str] = []
    room = MAX_IMPORTED
    for rel in found:
        try:
            _, body = sandbox.read_text(rel)
        except Denied:
            continue  # a secret, an ignored file: never sent, not even named
        size = len(body.encode())
        if size > MAX_MODULE or size > room:
            named.append(rel)
            continue
        room -= size
        parts.append(f"Module {rel} (imported by the target tests):\n```\n{body.rstrip()}\n```")
    if named:
        parts.append(
            "Also imported by the target tests, too long to show here (read_file with "
            "offset and limit): " + ", ".join(named)
        )
    return "\n\n".join(parts)


def _resolve(path: str, text: str, project: str, tracked: set[str]) -> Iterable[str]:
    if path.endswith(".py"):
        return _python(path, text, project, tracked)
    if path.endswith(_JS_EXTS):
        return _javascript(path, text, tracked)
    return ()


def _python(path: str, text: str, project: str, tracked: set[str]) -> list[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    here = PurePosixPath(path).parent
    base = PurePosixPath(project) if project else PurePosixPath()
    roots = [here, base, base / "src"]
    out: list[str] = []
    for node in ast.walk(tree):
        names: list[tuple[PurePosixPath, list[str]]] = []
        if isinstance(node, ast.Import):
            names = [(r, a.name.split(".")) for a in node.names for r in roots]
        elif isinstance(node, ast.ImportFrom):
            dotted = (node.module or "").split(".") if node.module else []
            subs = [a.name for a in node.names if a.name != "*"]
            if node.level:
                package = here
                for _ in range(node.level - 1):
                    package = package.parent
                starts = [package]
            else:
                starts = roots
            for r in starts:
                names.append((r, dotted))
                names += [(r, [*dotted, s]) for s in subs]
        for root, parts in names:
            if not parts:
                continue
            stem = root.joinpath(*parts)
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                rel = _clean(candidate)
                if rel in tracked and rel not in out:
                    out.append(rel)
                    break
    return out


def _javascript(path: str, text: str, tracked: set[str]) -> list[str]:
    here = PurePosixPath(path).parent
    out: list[str] = []
    for spec in _JS_SPEC.findall(text):
        stem = _clean(str(here / spec))
        candidates = [stem, *(stem + e for e in _JS_EXTS), *(f"{stem}/index{e}" for e in _JS_EXTS)]
        if stem.endswith(".js"):  # TypeScript's ESM style: "./cart.js" is cart.ts
            candidates += [stem[:-3] + e for e in (".ts", ".tsx")]
        rel = next((c for c in candidates if c in tracked), None)
        if rel is not None and rel not in out:
            out.append(rel)
    return out


def _clean(path: str) -> str:
    """``a/./b/../c`` as ``a/c``, repository-relative, without a leading ``./``."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)
