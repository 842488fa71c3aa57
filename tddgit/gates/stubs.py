"""The stub a missing module or name calls for (issue 24, item 4).

A red whose test file cannot import what it tests fails as a whole file: one target that
hides each test's own outcome. A red may carry stubs (``red.allow_stubs``), so the verdict
says which stub makes each test its own target: ``def total(self): raise
NotImplementedError`` for a missing method, ``class Cart: ...`` for a missing class.
Read from the cause's message (the probe's words, see ``runners.pycauses``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence

from tddgit.model import Cause, RunResult
from tddgit.targets import belongs

# Patterns, compiled by ``re`` at their first use: a gate whose run names no missing
# Python module never needs them (compiling them at import is CPU beside its tests).
_NO_MODULE = r"No module named '([\w.]+)'"
_CANNOT_IMPORT = r"cannot import name '(\w+)' from '([\w.]+)'"
_MODULE_ATTR = r"module '([\w.]+)' has no attribute '(\w+)'"
_OBJECT_ATTR = r"'(\w+)' object has no attribute '(\w+)'"
# Words each of them needs: a message without any (a compiler's, another language's) is
# answered without compiling them (~0.5 ms of a Rust red after cargo's exit: issue 29).
_WORDS = ("No module named", "cannot import name", "has no attribute")


def _stub(name: str, method: bool = False) -> str:
    if name[:1].isupper() and not method:
        return f"class {name}: ..."
    args = "self" if method else "*args"
    return f"def {name}({args}): raise NotImplementedError"


def _module_file(module: str) -> str:
    return module.replace(".", "/") + ".py"


def stub_hint(message: str, imported: Sequence[str] = ()) -> str:
    """``add a stub: `...` in file`` for a missing module or name ('' when the message
    names neither); ``imported``: the names the test imports from a missing module."""
    if not any(word in message for word in _WORDS):
        return ""
    m = re.search(_CANNOT_IMPORT, message)
    if m:
        return f"add a stub: `{_stub(m.group(1))}` in {_module_file(m.group(2))}"
    m = re.search(_MODULE_ATTR, message)
    if m:
        return f"add a stub: `{_stub(m.group(2))}` in {_module_file(m.group(1))}"
    m = re.search(_OBJECT_ATTR, message)
    if m:
        return f"add a stub: `{_stub(m.group(2), method=True)}` in class {m.group(1)}"
    m = re.search(_NO_MODULE, message)
    if m:
        where = _module_file(m.group(1))
        stubs = "; ".join(f"`{_stub(n)}`" for n in imported[:3])
        return f"add a stub module {where}" + (f" with {stubs}" if stubs else "")
    return ""


def imported_from(source: str, module: str) -> list[str]:
    """The names a test file imports from ``module`` (``from module import a, b``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == module and not node.level:
            names.extend(a.name for a in node.names if a.name != "*")
    return names


def stub_notes(
    result: RunResult, targets: Sequence[str], read: Callable[[str], str | None]
) -> list[str]:
    """A note for each target that is a whole file failing to import a project name
    (``read``: a test file's source in the tree under test)."""
    notes: list[str] = []
    for t in result.tests:
        if "::" in t.id or t.cause is not Cause.NOT_IMPLEMENTED:
            continue
        if not any(belongs(t.id, t.file, tg) or tg.split("::", 1)[0] == t.id for tg in targets):
            continue
        missing = re.search(_NO_MODULE, t.message) if _WORDS[0] in t.message else None
        source = read(t.file or t.id) if missing else None
        names = imported_from(source, missing.group(1)) if missing and source else []
        hint = stub_hint(t.message, names)
        if hint:
            notes.append(
                f"{t.id}: one target for the whole file, which cannot import what it tests; "
                f"{hint}, so each test is its own target (a red may carry stubs)"
            )
    return notes
