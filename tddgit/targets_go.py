"""Which Go tests a step is about: the ``TestXxx`` functions of a staged ``_test.go`` file
that are new or whose text changed (comments and layout do not count), named as the
``go`` runner names them: ``dir::TestName``, ``dir`` the file's directory (``.`` at the
root). A table-driven test whose only change is its rows targets the rows that are new
or changed, by their literal names (``dir::TestName/row_name``, spaces as ``_`` the way
``go test`` names subtests). A file without any test function targets its directory.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from tddgit.bracetext import close_brace, squash

_TEST_FUNC = re.compile(r"(?m)^func\s+(Test(?:[^a-z\W]\w*)?)\s*\(\s*\w+\s+\*testing\.T\s*\)")
_RUN_FIELD = re.compile(r"\bt\.Run\(\s*\w+\.(\w+)\s*,")


def mask(text: str, literals: bool = True) -> str:
    """``text`` with comments blanked and (``literals``) the insides of string and rune
    literals replaced by spaces, their quotes kept: braces and keywords in them no longer
    count, and every position is unchanged."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            out[i:end] = " " * (end - i)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in text[i:end]]
            i = end
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c and (c == "`" or text[j] != "\n"):
                j += 2 if text[j] == "\\" and c != "`" else 1
            end = min(j, n)
            if literals:
                out[i + 1 : end] = [ch if ch == "\n" else " " for ch in text[i + 1 : end]]
            i = end + 1
        else:
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class GoTest:
    fingerprint: str  # the function without comments, whitespace collapsed
    core: str  # the same without the table's rows
    rows: tuple[tuple[str, str], ...]  # (subtest name, the row's fingerprint)


def go_tests(source: str) -> dict[str, GoTest]:
    """Every test function of a Go test file, by name."""
    masked = mask(source)
    code = mask(source, literals=False)
    found: dict[str, GoTest] = {}
    for m in _TEST_FUNC.finditer(masked):
        open_at = masked.find("{", m.end())
        if open_at == -1:
            continue
        close = close_brace(masked, open_at)
        found[m.group(1)] = _test(source, masked, code, m.start(), close + 1)
    return found


def _test(source: str, masked: str, code: str, start: int, end: int) -> GoTest:
    text = code[start:end]
    run = _RUN_FIELD.search(masked, start, end)
    rows: list[tuple[str, str]] = []
    core = text
    if run is not None:
        field = run.group(1)
        for row_start, row_end, name in _rows(source, masked, start, end, field):
            row = code[row_start:row_end]
            rows.append((_subtest_name(name), squash(row)))
            core = core.replace(row, "\0", 1)
    core = re.sub(r"\0\s*,?", "", core)  # a row and its comma: the table's other rows stay
    return GoTest(squash(text), squash(core), tuple(rows))


def _rows(source: str, masked: str, start: int, end: int, field: str) -> list[tuple[int, int, str]]:
    """The composite literals between ``start`` and ``end`` that are rows of a table:
    ``{field: "name", ...}`` or ``{"name", ...}``, at their own top level."""
    named = re.compile(rf"(?:^|[{{,])\s*{re.escape(field)}\s*:\s*\"")
    positional = re.compile(r"^\{\s*\"")
    rows = []
    i = masked.find("{", start + 1)
    while i != -1 and i < end:
        close = close_brace(masked, i)
        top = _top_level(masked, i, close)
        quote = -1
        m = named.search(top)
        if m is not None:
            quote = i + m.end() - 1
        elif positional.match(top):
            quote = masked.find('"', i)
        if quote != -1 and _has_no_inner_row(masked, i, close):
            closing = masked.find('"', quote + 1)
            rows.append((i, close + 1, source[quote + 1 : closing]))
            i = masked.find("{", close)
        else:
            i = masked.find("{", i + 1)
    return rows


def _top_level(masked: str, open_at: int, close: int) -> str:
    """The block's text with nested blocks' insides blanked (positions unchanged)."""
    out = list(masked[open_at : close + 1])
    depth = 0
    for k, ch in enumerate(out):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth > 1:
            out[k] = " "
    return "".join(out)


def _has_no_inner_row(masked: str, open_at: int, close: int) -> bool:
    """A row holds data, not the loop that runs the rows."""
    return "t.Run(" not in masked[open_at:close]


def _subtest_name(name: str) -> str:
    """The name ``go test`` gives a subtest: spaces become underscores."""
    return re.sub(r"\s", "_", name)


def go_targets(path: str, new: str, old: str | None) -> list[str]:
    """The target ids in Go test file ``path`` (``old`` is None for a new file)."""
    directory = posixpath.dirname(path) or "."
    new_tests = go_tests(new)
    if not new_tests:
        return [directory]
    old_tests = go_tests(old) if old is not None else {}
    targets: list[str] = []
    for name, test in new_tests.items():
        before = old_tests.get(name)
        if before is not None and before.fingerprint == test.fingerprint:
            continue
        test_id = f"{directory}::{name}"
        if before is not None and before.core == test.core and test.rows:
            was = dict(before.rows)
            changed = [f"{test_id}/{row}" for row, fp in test.rows if was.get(row) != fp]
            if changed:
                targets.extend(changed)
                continue
        targets.append(test_id)
    return targets
