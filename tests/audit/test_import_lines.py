"""What the answers cache keeps of a test file in place of its text: its import lines
(``tddgit.audit.importlines``). Every reader finds in them exactly what it finds in the
whole text, and each import is kept once (issue 27 item 9: a warm audit of sympy spent a
fifth of its time reading import lines kept two and three times over)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddgit.audit import imports, naming
from tddgit.audit.importlines import import_lines, pack, unpack

_PY = '''"""Tests."""
from __future__ import annotations
import os, sys as system
import os
    import json  # inside a function
\timport textwrap
from lists.views import home, about as ab
from lists.views import home
from . import helpers
from ..pkg.mod import (thing,
    other)
from  models   import   Item\x20\t\x20
\x0cimport formfeed_is_not_an_import_line_start
import a.b.c
class T:
    def test(self):
        self.client.get("/")
'''

_JS = """import { add } from './calc'
import sub from "../lib/sub.js"
const m = require( './mul' )
const again = require('./mul')
const lazy = await import('./lazy')
import
  spread from './spread'
import React from 'react'
describe('x', () => { cy.visit('/') })
"""

_JVM = """package a.b;

import static org.junit.Assert.assertEquals;
import com.example.Calculator;
import com.example.Calculator;

   import com.example.util.Strings ;
"""

CASES = [
    ("tests/test_views.py", _PY),
    ("lists/tests.py", _PY.replace("self.client", "self.other")),
    ("src/calc.test.ts", _JS),
    ("web/cart.spec.js", _JS.replace("cy.visit", "cy.other")),
    ("src/test/java/CalculatorTest.java", _JVM),
    ("tests/test_crlf.py", _PY.replace("\n", "\r\n")),
    ("tests/test_empty.py", ""),
]


def _reading(path: str, text: str) -> tuple[object, ...]:
    """What every reader of a test's text finds in ``text``."""
    known = {
        "lists/views.py",
        "models.py",
        "tests/helpers.py",
        "pkg/mod.py",
        "src/calc.ts",
        "lib/sub.js",
        "src/mul.js",
        "src/lazy.ts",
        "src/spread.js",
        "a/b/c.py",
        "os.py",
    }
    resolver = imports.ImportResolver()
    resolver._seeded = True
    for p in known:
        resolver.known.add(p)
        resolver._name(p, 1)
    return (
        sorted(set(imports.python_modules(path, text))),
        sorted(set(imports.js_candidates(path, text))),
        sorted(resolver.resolve(path, text, lambda p: True)),
        {f: naming.imported_keys(text, f) for f in ("py", "js", "jvm")},
        imports.drives_app(text),
    )


@pytest.mark.parametrize(("path", "text"), CASES, ids=[c[0] for c in CASES])
def test_every_reader_finds_in_the_import_lines_what_it_finds_in_the_text(
    path: str, text: str
) -> None:
    assert _reading(path, import_lines(text)) == _reading(path, text)


def test_each_import_is_kept_once() -> None:
    """Both ``import x`` readers match the same line, and the JVM one again with the
    blank lines before it: one line each."""
    lines = import_lines(_PY).split("\n")
    assert lines.count("import os") == 1
    assert lines.count("from lists.views import home") == 1
    assert all(line == line.lstrip(" \t") for line in lines)
    text = "import py\n\nimport py\n\n\nimport py\n"
    assert import_lines(text) == "import py"


def test_the_real_test_files_of_this_project_read_the_same(tmp_path: Path) -> None:
    """Every test file of tddgit's own suite: the readers agree on their import lines."""
    root = Path(__file__).resolve().parents[1]
    files = sorted(root.rglob("test_*.py"))
    assert len(files) > 100
    for f in files:
        rel = f.relative_to(root.parent).as_posix()
        text = f.read_text(encoding="utf-8")
        assert _reading(rel, import_lines(text)) == _reading(rel, text), rel


def test_packed_lines_come_back_for_exactly_their_paths() -> None:
    texts: dict[str, str | None] = {"tests/test_views.py": _PY, "gone.py": None}
    value = pack(texts)
    assert unpack(value, ["gone.py", "tests/test_views.py"]) == {
        "tests/test_views.py": import_lines(_PY),
        "gone.py": None,
    }
    assert unpack(value, ["tests/test_views.py"]) is None
