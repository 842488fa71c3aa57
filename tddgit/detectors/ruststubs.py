"""Stub detection for ``red.allow_stubs`` in Rust production files (``gostubs.py`` for
Go); nothing is compiled or run.

A function is a *stub* when its body is empty or is one ``todo!()`` /
``unimplemented!()`` (with or without a message) or ``panic!("…")``. A red step may add
stubs, ``use`` lines, modules and type declarations (``struct``, ``enum``, ``trait``,
``type``), and anything inside the file's ``#[cfg(test)] mod`` -- that region is the
test side of the file. Functions are compared by their text without comments and
layout, so moving or reformatting one is not a change.
"""

from __future__ import annotations

import re

from tddgit.bracetext import close_brace, non_stub_functions, squash
from tddgit.targets_rust import mask, test_regions

_FN = re.compile(r"\bfn\s+(\w+)")
_IMPL = re.compile(r"\bimpl\b[^{;]*\{")
_STUB_BODY = re.compile(
    r'^(?:|(?:todo|unimplemented)!\(\s*(?:"(?:[^"\\]|\\.)*"[^)]*)?\)|panic!\(\s*"(?:[^"\\]|\\.)*"[^)]*\));?$'
)
_ITEM = re.compile(
    r"(?m)^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(use|mod|struct|enum|trait|type|const|static|let|impl|extern|macro_rules!)\b"
)
_FIELD = re.compile(r"[\w\s,:<>&'()\[\]]*[,{}]?")
_DECLARING = frozenset({"use", "mod", "struct", "enum", "trait", "type", "impl", "extern"})


def _production(source: str) -> tuple[str, str]:
    """The file's masked text and its code (literals kept), test regions blanked."""
    masked = mask(source)
    code = mask(source, literals=False)
    for start, end, _ in test_regions(masked):
        blank = "".join(ch if ch == "\n" else " " for ch in source[start:end])
        masked = masked[:start] + blank + masked[end:]
        code = code[:start] + blank + code[end:]
    return masked, code


def _units(source: str) -> tuple[dict[str, tuple[str, str]], set[str]]:
    masked, code = _production(source)
    impls = [
        (m.start(), close_brace(masked, m.end() - 1), squash(code[m.start() : m.end() - 1]))
        for m in _IMPL.finditer(masked)
    ]
    funcs: dict[str, tuple[str, str]] = {}
    rest = list(code)
    for m in _FN.finditer(masked):
        open_at = masked.find("{", m.end())
        semi = masked.find(";", m.end())
        if open_at == -1 or (semi != -1 and semi < open_at):
            continue  # a declaration without a body (a trait's)
        close = close_brace(masked, open_at)
        owner = next((name for a, b, name in impls if a < m.start() < b), "")
        key = f"{owner} {m.group(1)}".strip()
        funcs[key] = (squash(code[m.start() : close + 1]), squash(code[open_at + 1 : close]))
        start = masked.rfind("\n", 0, m.start()) + 1
        rest[start : close + 1] = " " * (close + 1 - start)
    outside = "".join(rest)
    items = {
        squash(line) for line in outside.splitlines() if line.strip() and line.strip() not in "{}"
    }
    return funcs, items


def non_stub_additions_rust(old: str | None, new: str, path: str) -> list[str]:
    """One line per addition in ``new`` (vs ``old``) that is not a stub, a declaration,
    or inside the file's test module."""
    new_funcs, new_items = _units(new)
    old_funcs, old_items = _units(old) if old is not None else ({}, set())
    out = non_stub_functions(
        new_funcs,
        old_funcs,
        lambda body: bool(_STUB_BODY.match(body)),
        lambda key: f"{path}: fn {key.split()[-1]}",
    )
    for item in sorted(new_items - old_items):
        m = _ITEM.match(item)
        if m is not None and m.group(1) in _DECLARING:
            continue
        if m is not None or not _FIELD.fullmatch(item):  # a struct's field or variant is fine
            out.append(f"{path}: `{item[:60]}`: code in a red step, not a declaration")
    return out
