"""Reading a Python module piece by piece gives what the whole module gives (issue 27,
item 9: the audit's speed must not change its answers)."""

from __future__ import annotations

import ast

import pytest

from tddgit.audit import addedlines, pytestchecks
from tddgit.audit.pychunks import pieces, units
from tddgit.audit.pycode import _whole, same_code

BASE = '''# -*- coding: utf-8 -*-
"""
Module docstring
with a line at column 0
"""
import sys

PY2 = sys.version_info[0] == 2
if PY2:
    text = unicode
else:
    text = str

TEMPLATE = """
def not_code():
    pass
"""


@decorator
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


class Thing:
    """A thing."""

    def value(self) -> int:
        return 1


try:
    import json
except ImportError:
    json = None
'''

CHANGES = [
    ("docstring of a function", BASE.replace('"""Add."""', '"""Add two numbers."""'), True),
    ("module docstring", BASE.replace("Module docstring", "The module"), True),
    (
        "module docstring removed",
        BASE.replace('"""\nModule docstring\nwith a line at column 0\n"""\n', ""),
        True,
    ),
    ("annotation", BASE.replace("a: int, b: int", "a: float, b: float"), True),
    ("comment", BASE.replace("import sys\n", "import sys  # the system\n# more\n"), True),
    ("code in a function", BASE.replace("return a + b", "return a - b"), False),
    ("code in the else", BASE.replace("text = str", "text = bytes"), False),
    ("inside a string at column 0", BASE.replace('    pass\n"""', '    return 1\n"""'), False),
    ("layout inside a string", BASE.replace("def not_code():", "def  not_code():"), False),
    ("decorator", BASE.replace("@decorator", "@other"), False),
    ("code in a method", BASE.replace("return 1\n", "return 2\n"), False),
    ("docstring of a class", BASE.replace('"""A thing."""', '"""A thing, documented."""'), True),
    ("class docstring removed", BASE.replace('    """A thing."""\n\n', ""), True),
    ("annotation of a method", BASE.replace("value(self) -> int", "value(self) -> float"), True),
    ("a base of a class", BASE.replace("class Thing:", "class Thing(Base):"), False),
    ("statement added", BASE + "\nVALUE = 1\n", False),
    ("string statement added first", '"""Doc."""\n' + BASE, False),
    ("python 2", BASE.replace("json = None", "print 'no json'"), False),
    (
        "except clause",
        BASE.replace("except ImportError:", "except (ImportError, ValueError):"),
        False,
    ),
]


@pytest.mark.parametrize(
    "new,expected", [(n, e) for _, n, e in CHANGES], ids=[c[0] for c in CHANGES]
)
def test_same_code_piece_by_piece_is_the_whole_modules_answer(new: str, expected: bool) -> None:
    assert units(BASE) is not None  # the base is read piece by piece
    assert _whole(BASE, new) is expected
    assert same_code(BASE, new) is expected
    assert same_code(new, BASE) is _whole(new, BASE)


def test_pieces_join_back_and_keep_decorators_with_their_function() -> None:
    ps = pieces(BASE)
    assert "".join(ps) == BASE
    assert any(p.startswith("@decorator\ndef add") for p in ps)


TESTS = '''"""Tests."""
import pytest


@pytest.mark.parametrize("a, b", [(1, 2), (3, 4)])
def test_add(a, b):
    assert add(a, b) == a + b


class TestThing:
    def test_value(self):
        assert Thing().value() == 1

    def helper(self):
        assert True


def test_add():
    """Defined twice: the last one counts."""
    assert add(1, 1) == 2


assert add(0, 0) == 0
'''


def _whole_analysis(text: str) -> tuple[object, ...]:
    """The analysis of a test module in one walk of its whole tree (what the audit made
    of a test file before it read it piece by piece and member by member)."""
    tree = pytestchecks._parse(text)
    constants: set[object] = set()
    funcs = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant):
            if isinstance(n.value, (str, bytes, int, float, complex)):
                constants.add(n.value)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"):
            funcs.append(n)
    checks, cases = pytestchecks._py_checks(tree, funcs)
    return list(pytestchecks._py_tests(tree).items()), checks, cases, constants


def _by_pieces(text: str) -> tuple[object, ...]:
    found = pytestchecks.analysed(text)
    assert found is not None
    return list(found.tests.items()), found.checks, found.cases, found.constants


def test_a_test_file_analysed_by_pieces_is_analysed_as_a_whole() -> None:
    by_pieces = pytestchecks.analysed(TESTS)
    assert by_pieces is not None and len(by_pieces.texts) > 1
    assert _by_pieces(TESTS) == _whole_analysis(TESTS)


CLASSES = '''import pytest


@pytest.mark.usefixtures("db")
class TestOne(Base, metaclass=Meta, flag=3):
    """Docstring."""

    limit = 7
    assert limit  # not a check: outside a test function

    @pytest.mark.parametrize("x, y", [(1, "one"), (2, "two")])
    def test_x(self, x, y):
        assert name(x) == y

    def test_twice(self):
        self.assertEqual(f(1), 2, "message")

    def test_twice(self):
        def test_nested():
            assert 5
        assert g() == 3

    class TestInner:
        def test_deep(self):
            assert h() is None

    class Small: a = 1; b = 2


class Tiny: pass; x = 4


def test_top():
    assert 1 == 1


if FLAG:  # a test defined under a condition: its checks count twice (module and test)
    def test_flagged():
        assert flagged() == 1
'''

CLASS_CHANGES = [
    ("a method's check", CLASSES.replace("g() == 3", "g() == 4")),
    (
        "a method added",
        CLASSES.replace(
            "    class TestInner",
            "    def test_z(self):\n        assert z()\n\n    class TestInner",
        ),
    ),
    ("a nested class renamed", CLASSES.replace("TestInner", "TestOther")),
    ("a base's keyword", CLASSES.replace("flag=3", "flag=4")),
    ("a one-line member", CLASSES.replace("a = 1; b = 2", "a = 1; b = 5")),
    ("a decorator", CLASSES.replace('usefixtures("db")', 'usefixtures("web")')),
    ("a parametrized case", CLASSES.replace('(2, "two")', '(2, "two"), (3, "three")')),
]


@pytest.mark.parametrize("new", [n for _, n in CLASS_CHANGES], ids=[c[0] for c in CLASS_CHANGES])
def test_classes_analysed_member_by_member_are_analysed_as_a_whole(new: str) -> None:
    # the base first: the changed version's members come from what it left remembered
    assert _by_pieces(CLASSES) == _whole_analysis(CLASSES)
    assert _by_pieces(new) == _whole_analysis(new)
    assert new != CLASSES


STUB_CHANGES = [
    *CHANGES,
    ("a stub added", BASE + "\n\ndef later():\n    raise NotImplementedError\n", None),
    ("a function added at the end", BASE + "\n\ndef later():\n    return 2\n", None),
    ("a method changed", BASE.replace("return 1\n\n\ntry", "return 2\n\n\ntry"), None),
    ("a module statement changed", BASE.replace("PY2 = sys", "PY3 = sys"), None),
    ("does not parse", BASE + "\ndef broken(:\n", None),
]


@pytest.mark.parametrize("new", [n for _, n, _ in STUB_CHANGES], ids=[c[0] for c in STUB_CHANGES])
def test_the_stub_judgement_unit_by_unit_is_the_whole_modules(new: str) -> None:
    # Line numbers included: the units' lines are moved to where their unit sits.
    from tddgit.audit.stubunits import non_stub_additions_py
    from tddgit.detectors.stubs import non_stub_additions

    for old, text in ((BASE, new), (new, BASE), (None, new), ("x = (\n", new)):
        assert non_stub_additions_py(old, text, "m.py") == non_stub_additions(old, text, "m.py")
    lines = non_stub_additions_py(BASE, BASE + "\n\ndef later():\n    return 2\n", "m.py")
    assert lines == [f"m.py:{BASE.count(chr(10)) + 3}: new `later` has a body that is not a stub"]


def _added_lines_reference(old: str, new: str) -> list[str]:
    """The multiset difference as the audit first computed it, line by line."""
    from collections import Counter

    have = Counter(addedlines._TRAILING.sub("", ln).rstrip() for ln in old.splitlines())
    hidden = addedlines._block_comment_lines(new) if "/*" in new else set()
    out = []
    for j, line in enumerate(new.splitlines()):
        bare = addedlines._TRAILING.sub("", line).rstrip()
        if have[bare] > 0:
            have[bare] -= 1
        elif j not in hidden:
            out.append(line)
    return out


def test_added_lines_from_remembered_counts_is_the_line_by_line_answer() -> None:
    import random

    rnd = random.Random(27)
    vocab = ["x = 1", "x = 1  # one", "", "/* a", "b */", "y()", "  y()", "/* c */ z", "}", "# c"]
    for _ in range(400):
        old = "\n".join(rnd.choice(vocab) for _ in range(rnd.randrange(12)))
        new = "\n".join(rnd.choice(vocab) for _ in range(rnd.randrange(12)))
        assert addedlines.added_lines(old, new) == _added_lines_reference(old, new), (old, new)
