"""Stub detection: which production additions a red step may make (PRODUCT.md §5)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tddgit.detectors.stubs import is_stub_body, non_stub_additions


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _body(text: str) -> list[ast.stmt]:
    func = ast.parse(_src(text)).body[0]
    assert isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
    return func.body


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n    pass\n", True),
        ("def f():\n    ...\n", True),
        ('def f():\n    """Doc."""\n', True),
        ("def f():\n    raise NotImplementedError\n", True),
        ("def f():\n    raise NotImplementedError('later')\n", True),
        ("def f():\n    raise builtins.NotImplementedError()\n", True),
        ('def f():\n    """Doc."""\n    raise NotImplementedError\n', True),
        ('def f():\n    """Doc."""\n    ...\n', True),
        ("async def f():\n    ...\n", True),
        ("def f():\n    raise NotImplementedError from None\n", True),
        ("def f():\n    return 1\n", False),
        ("def f():\n    return None\n", False),
        ("def f():\n    raise ValueError('x')\n", False),
        ("def f():\n    pass\n    pass\n", False),
        ('def f():\n    """Doc."""\n    return 0\n', False),
        ("def f():\n    raise NotImplementedError(msg=1)\n", False),
        ("def f():\n    return NotImplemented\n", False),
        ("def f():\n    x = 1\n    raise NotImplementedError\n", False),
    ],
)
def test_is_stub_body(source: str, expected: bool) -> None:
    assert is_stub_body(_body(source)) is expected


# (old source or None, new source, number of non-stub lines, a fragment of the first line)
CASES: list[tuple[str, str | None, str, int, str]] = [
    (
        "new file of stubs",
        None,
        '''
        """Calculator."""
        from __future__ import annotations
        import math
        __all__ = ["add", "Calc"]

        def add(a: int, b: int) -> int:
            """Add."""
            raise NotImplementedError

        class Calc:
            """A calculator."""
            total: int
            __slots__ = ("total",)

            def push(self, x: int) -> None: ...

            async def flush(self) -> None:
                pass

            class Inner:
                pass
        ''',
        0,
        "",
    ),
    ("new function with code", None, "def add(a, b):\n    return a + b\n", 1, "new `add`"),
    (
        "new method with code",
        None,
        """
        class Calc:
            def add(self, a, b):
                return a + b
        """,
        1,
        "`Calc.add`",
    ),
    ("module constant is code", None, "LIMIT = 10\n", 1, "code at module level: `LIMIT = 10`"),
    (
        "class attribute with value is code",
        None,
        """
        class C:
            x: int = 0
        """,
        1,
        "in class `C`",
    ),
    ("annotation without value", None, "x: int\n", 0, ""),
    (
        "type alias annotation",
        None,
        "from typing import TypeAlias\nIds: TypeAlias = list[int]\n",
        0,
        "",
    ),
    (
        "TYPE_CHECKING imports",
        None,
        """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from collections.abc import Sequence
        """,
        0,
        "",
    ),
    (
        "guarded import",
        None,
        """
        try:
            import tomllib
        except ImportError:
            tomllib = None
        """,
        0,
        "",
    ),
    ("main guard is code", None, 'if __name__ == "__main__":\n    print(1)\n', 1, "module level"),
    (
        "stub added next to existing code",
        "def a():\n    return 1\n",
        "def a():\n    return 1\n\ndef b():\n    ...\n",
        0,
        "",
    ),
    (
        "existing body changed",
        "def a():\n    return 1\n",
        "def a():\n    return 2\n",
        1,
        "`a` has a changed body",
    ),
    (
        "existing body replaced by a stub",
        "def a():\n    return 1\n",
        "def a():\n    raise NotImplementedError\n",
        0,
        "",
    ),
    (
        "functions reordered",
        "def a():\n    return 1\n\ndef b():\n    return 2\n",
        "def b():\n    return 2\n\ndef a():\n    return 1\n",
        0,
        "",
    ),
    (
        "function moved into a class",
        "def helper(x):\n    return x * 2\n",
        "class Box:\n    def helper(x):\n        return x * 2\n",
        0,
        "",
    ),
    (
        "only the annotation changed",
        "def a(x):\n    return x\n",
        "def a(x: int) -> int:\n    return x\n",
        0,
        "",
    ),
    (
        "a default changed",
        "def a(x=1):\n    return x\n",
        "def a(x=2):\n    return x\n",
        1,
        "changed body",
    ),
    (
        "a decorator added",
        "def a():\n    return 1\n",
        "import functools\n@functools.cache\ndef a():\n    return 1\n",
        1,
        "changed body",
    ),
    (
        "same name in two classes is compared per class",
        "class A:\n    def run(self):\n        return 1\nclass B:\n    def run(self):\n        ...\n",
        "class A:\n    def run(self):\n        return 1\nclass B:\n    def run(self):\n        return 1\n",
        1,
        "`B.run`",
    ),
    ("duplicate statement counted once per copy", "X = 1\n", "X = 1\nX = 1\n", 1, "`X = 1`"),
    ("existing constant untouched", "X = 1\n", "X = 1\ndef f():\n    pass\n", 0, ""),
    ("docstring edit", '"""Old."""\n', '"""New."""\n', 0, ""),
    ("deletion is not an addition", "def a():\n    return 1\nY = 2\n", "", 0, ""),
    ("unparseable old is like a new file", "def (:", "def f():\n    return 1\n", 1, "new `f`"),
    (
        "nested function is part of its parent",
        None,
        """
        def outer():
            def inner():
                return 1
            ...
        """,
        1,
        "new `outer`",
    ),
    ("expression statement is code", None, "print('hi')\n", 1, "print('hi')"),
    ("long statements are shortened", None, "X = " + " + ".join(["1"] * 40) + "\n", 1, "…"),
]


@pytest.mark.parametrize(
    ("old", "new", "count", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_non_stub_additions(old: str | None, new: str, count: int, fragment: str) -> None:
    lines = non_stub_additions(None if old is None else _src(old), _src(new), "src/calc.py")
    assert len(lines) == count, lines
    if count:
        assert fragment in lines[0]
        assert lines[0].startswith("src/calc.py:")


def test_lines_point_at_the_offending_line() -> None:
    new = _src("""
        def a():
            ...

        def b():
            return 2
        """)
    assert non_stub_additions(None, new, "m.py") == [
        "m.py:4: new `b` has a body that is not a stub"
    ]


@pytest.mark.parametrize("new", ["def f(:\n", "x = 'unterminated\n", "a\0b\n"])
def test_unparseable_new_source_is_one_line(new: str) -> None:
    lines = non_stub_additions(None, new, "pkg/mod.py")
    assert len(lines) == 1
    assert lines[0].startswith("pkg/mod.py: cannot parse the new source")


def test_pathologically_nested_source_is_one_line() -> None:
    (line,) = non_stub_additions(None, "x = " + "[" * 1000 + "]" * 1000, "m.py")
    assert line.startswith("m.py: cannot parse the new source")
