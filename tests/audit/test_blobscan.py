"""``hits_in``: the audit's screened per-blob analysis gives the detector's own findings.

Each case is checked against the unscreened detector (``test_metrics`` on the whole text,
then ``findings_for``): the screen may only skip work, never a finding.
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tddgit.audit import blobscan
from tddgit.audit.blobcache import Hit
from tddgit.audit.blobscan import forget, hits_in
from tddgit.audit.registry import DetectorSettings
from tddgit.detectors.js import analyze_js
from tddgit.detectors.python import findings_for, test_metrics

DEFAULT = DetectorSettings()
STRICT = DetectorSettings(max_mocks=1, max_asserts=1)


def unscreened(text: str, path: str, s: DetectorSettings) -> tuple[Hit, ...]:
    if path.endswith((".js", ".ts")):
        found = analyze_js(text, path, max_mocks=s.max_mocks)
        return tuple((f.rule, f.test or "", f.count, f.message) for f in found if f.test)
    out: list[Hit] = []
    for m in test_metrics(text, path).values():
        for f in findings_for(m, path, max_mocks=s.max_mocks, max_asserts=s.max_asserts):
            out.append((f.rule, f.test or m.name, f.count, f.message))
    return tuple(out)


def rules(hits: tuple[Hit, ...]) -> list[tuple[str, str]]:
    return [(rule, test) for rule, test, _, _ in hits]


FOUR_PATCHES = '@patch("a")\n@patch("b")\n@patch("c")\n@patch("d")\n'

# (id, source, path, expected (rule, test) pairs under the default thresholds)
CASES: list[tuple[str, str, str, list[tuple[str, str]]]] = [
    ("plain-ok", "def test_a():\n    assert f(1) == 2\n", "tests/test_a.py", []),
    (
        "four-patch-decorators",
        "from unittest.mock import patch\n\n\n" + FOUR_PATCHES + "def test_a(a, b, c, d):\n"
        "    assert a\n\n\ndef test_b():\n    assert g() == 1\n",
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "alias-module-as-m",
        "from unittest import mock as m\n\n\ndef test_a():\n"
        '    m.patch("a").start()\n    m.patch("b").start()\n    m.Mock()\n    m.MagicMock()\n'
        "    assert x\n",
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "alias-name-as-p",
        "from unittest.mock import patch as p\n\n\ndef test_a():\n"
        '    with p("a"), p("b"), p("c"), p("d"):\n        assert y\n',
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "no-assertion",
        "def test_a():\n    f()\n\n\ndef test_b():\n    assert f()\n",
        "tests/test_a.py",
        [("broad-assertion", "test_a")],
    ),
    (
        "constant-assertions",
        "def test_t():\n    assert True\n\n\ndef test_tuple():\n    assert (x == 1, 'm')\n\n\n"
        "def test_str():\n    assert 'yes'\n\n\ndef test_lit():\n    assert 1 == 1\n\n\n"
        "def test_paren():\n    assert(1)\n\n\ndef test_ok():\n    assert x == 1\n",
        "tests/test_a.py",
        [
            ("broad-assertion", "test_t"),
            ("broad-assertion", "test_tuple"),
            ("broad-assertion", "test_str"),
            ("broad-assertion", "test_lit"),
            ("broad-assertion", "test_paren"),
        ],
    ),
    (
        "many-subjects",
        "def test_a():\n" + "".join(f"    assert f{i}(1) == 1\n" for i in range(6)) + "\n\n"
        "def test_b():\n" + "".join(f"    assert f{i}(1) == 1\n" for i in range(5)),
        "tests/test_a.py",
        [("broad-assertion", "test_a")],
    ),
    (
        "and-chain",
        "def test_a():\n    assert a and b and c and d and e and f\n",
        "tests/test_a.py",
        [("broad-assertion", "test_a")],
    ),
    (
        "fixture-adds-mocks",
        "import pytest\n\n\n@pytest.fixture\ndef client(mocker):\n"
        '    mocker.patch("a")\n    mocker.patch("b")\n    return 1\n\n\n'
        'def test_a(client, mocker):\n    mocker.patch("c")\n    mocker.patch("d")\n'
        "    assert client\n\n\ndef test_b():\n    assert g() == 1\n",
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "autouse-fixture",
        "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef env(monkeypatch):\n"
        '    monkeypatch.setattr("a", 1)\n    monkeypatch.setattr("b", 1)\n'
        '    monkeypatch.setitem(d, "k", 1)\n\n\n'
        'def test_a(monkeypatch):\n    monkeypatch.delattr("c")\n    assert d\n',
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "class-setup-mocks",
        "import unittest\nfrom unittest.mock import MagicMock, patch\n\n\n"
        "class TestX(unittest.TestCase):\n    def setUp(self):\n        self.a = MagicMock()\n"
        "        self.b = MagicMock()\n        self.c = MagicMock()\n\n"
        '    @patch("os.x")\n    def test_a(self, p):\n        self.assertEqual(self.a.f(), 1)\n\n'
        "    def test_none(self):\n        self.a.f()\n",
        "tests/test_x.py",
        [("over-mocking", "TestX::test_a"), ("broad-assertion", "TestX::test_none")],
    ),
    (
        "parametrize-mocker-name",
        'import pytest\n\n\n@pytest.mark.parametrize("mocker", [1])\ndef test_a(mocker):\n'
        '    mocker.patch("a"); mocker.patch("b"); mocker.patch("c"); mocker.patch("d")\n'
        "    assert x\n",
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "module-level-patchers",
        'from unittest.mock import patch\n\nP = patch("x")\nQ = patch("y")\nR = patch("z")\n\n\n'
        "def test_a():\n    P.start()\n    patch('w').start()\n    assert x\n",
        "tests/test_a.py",
        [],
    ),
    (
        "def-test-inside-strings",
        "CODE = '''\ndef test_in_string():\n    pass\n'''\n\n\n"
        'def test_real():\n    src = """\ndef test_nested():\n    x = 1\n"""\n'
        "    assert compile(src, 'f', 'exec')\n\n\ndef test_after():\n    y = 1\n",
        "tests/test_a.py",
        [("broad-assertion", "test_after")],
    ),
    (
        "comment-between-decorators",
        "from unittest.mock import patch\n\n"
        '@patch("a")\n@patch("b")\n# note\n@patch("c")\n@patch("d")\n'
        "def test_a(a, b, c, d):\n    assert a\n",
        "tests/test_a.py",
        [("over-mocking", "test_a")],
    ),
    (
        "commented-out-file",
        "# def test_old():\n#     assert x\n",
        "tests/test_a.py",
        [],
    ),
    (
        "indented-only",
        "    def test_a():\n        pass\n",
        "tests/test_a.py",
        [],
    ),
    (
        "syntax-error",
        "def test_a(:\n    assert x\n",
        "tests/test_a.py",
        [],
    ),
    (
        "crlf",
        "def test_a():\r\n    f()\r\n\r\n\r\ndef test_b():\r\n    assert g() == 1\r\n",
        "tests/test_a.py",
        [("broad-assertion", "test_a")],
    ),
    (
        "template-twins",
        "def test_f1():\n    assert f1(1) == 1\n\n\ndef test_f2():\n    f2(1)\n",
        "tests/test_a.py",
        [("broad-assertion", "test_f2")],
    ),
    (
        "js-over-mocking",
        "describe('s', () => {\n  it('many', () => {\n    jest.fn(); jest.fn(); vi.fn();\n"
        "    sinon.stub(a, 'b');\n    expect(1).toBe(1);\n  });\n"
        "  it('one', () => { jest.fn(); expect(1).toBe(1); });\n});\n",
        "web/app.test.js",
        [("over-mocking", "s > many")],
    ),
    (
        "js-few-mocks",
        "it('one', () => { const f = jest.fn(); expect(f).toBeDefined(); });\n",
        "web/a.spec.ts",
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "path", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_hits_are_the_detectors_own(
    source: str, path: str, expected: list[tuple[str, str]]
) -> None:
    forget()
    got = hits_in(source, path, DEFAULT)
    assert rules(got) == expected
    assert got == unscreened(source, path, DEFAULT)
    forget()
    assert hits_in(source, path, STRICT) == unscreened(source, path, STRICT)


def test_a_remembered_verdict_gives_the_same_hits() -> None:
    forget()
    one = "def test_a1():\n    assert f(1) == 1\n\n\ndef test_b():\n    g()\n"
    two = one.replace("test_b", "test_c").replace("f(1)", "f(2)")
    first = hits_in(one, "tests/test_a.py", DEFAULT)
    assert hits_in(two, "tests/test_a.py", DEFAULT) == unscreened(two, "tests/test_a.py", DEFAULT)
    assert hits_in(one, "tests/test_a.py", DEFAULT) == first


def test_an_alias_with_a_digit_is_not_treated_as_its_twin() -> None:
    # with digits made 0, "p1(...)" would look like the aliased "p2"
    head = "from unittest.mock import patch as p2\n\n\n"
    calls = "    p1('a'); p1('b'); p1('c'); p1('d')\n    assert x\n"
    source = head + "def test_a():\n" + calls.replace("p1", "p2") + "\n\ndef test_b():\n" + calls
    forget()
    assert rules(hits_in(source, "tests/test_a.py", DEFAULT)) == [("over-mocking", "test_a")]


def test_a_file_without_any_statement_is_not_an_error() -> None:
    # every line indented or a comment: there is no top-level statement to cut at
    assert hits_in("# def test_x():\n#     pass\n", "tests/test_a.py", DEFAULT) == ()


def test_units_tile_the_text_after_its_head() -> None:
    text = textwrap.dedent(
        """\
        # head comment
        import os
        @a
        @b(
            1,
        )
        def test_x():
            pass
        x = [
            1,
        ]
        @c
        """
    )
    head, units = blobscan._units(text)
    assert head == "# head comment\n"
    decorated = "@a\n@b(\n    1,\n)\ndef test_x():\n    pass\n"
    assert units == ["import os\n", decorated, "x = [\n    1,\n]\n", "@c\n"]


_SNIPPETS = [
    "from unittest import mock\n",
    "from unittest import mock as m\n",
    "from unittest.mock import patch as p\n",
    "import pytest\n",
    "X = 1\n",
    'P = mock.patch("x")\n',
    '@mock.patch("a")\n',
    '@m.patch("b")\n',
    '@pytest.mark.parametrize("x", [1, 2])\n',
    "@pytest.fixture\n",
    "def test_ok():\n    assert f(1) == 2\n",
    "def test_ok():\n    assert g(1) == 2\n",
    "def test_none():\n    f()\n",
    "def test_const():\n    assert True\n",
    "def test_many():\n    assert a and b and c and d and e and f\n",
    'def test_mocks(mocker):\n    mocker.patch("a"); mocker.patch("b")\n    assert x\n',
    "def test_p():\n    with p('a'), p('b'):\n        assert y\n",
    "def helper(mocker):\n    mocker.patch('z')\n",
    "class TestK:\n    def test_k(self):\n        assert self\n",
    "s = '''\ndef test_in_string():\n    pass\n'''\n",
    "\n",
    "# def test_commented():\n",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_SNIPPETS), max_size=12), st.sampled_from([DEFAULT, STRICT]))
def test_random_files_get_the_detectors_findings(parts: list[str], s: DetectorSettings) -> None:
    source = "".join(parts)
    forget()
    assert hits_in(source, "tests/test_r.py", s) == unscreened(source, "tests/test_r.py", s)


def test_a_test_defined_twice_is_judged_by_its_last_definition() -> None:
    # Found by the random test above: the screen blanked the later, plain `test_ok` and
    # left the earlier one, so its two patches counted; Python (and pytest) keep the last.
    source = (
        "from unittest import mock\n"
        '@mock.patch("a")\n'
        '@mock.patch("a")\n'
        "def test_ok():\n    assert f(1) == 2\n"
        "def test_ok():\n    assert f(1) == 2\n"
    )
    s = DetectorSettings(max_mocks=1, max_asserts=1, use_cache=True)
    assert hits_in(source, "tests/test_r.py", s) == unscreened(source, "tests/test_r.py", s) == ()
