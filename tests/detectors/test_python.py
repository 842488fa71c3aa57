"""Python anti-pattern detectors on real test files (PRODUCT.md §9)."""

from __future__ import annotations

import textwrap

import pytest

from tddgit.detectors import BROAD_ASSERTION, OVER_MOCKING, PARSE_ERROR
from tddgit.detectors.python import analyze_python, test_metrics


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def metrics(source: str, conftests: dict[str, str] | None = None) -> dict[str, object]:
    cf = {k: _src(v) for k, v in (conftests or {}).items()}
    return {k: v for k, v in test_metrics(_src(source), "tests/test_x.py", cf).items()}


def mocks_of(source: str, conftests: dict[str, str] | None = None) -> dict[str, int]:
    cf = {k: _src(v) for k, v in (conftests or {}).items()}
    return {k: m.mocks for k, m in test_metrics(_src(source), "tests/test_x.py", cf).items()}


# --- counting mocks ------------------------------------------------------------------------

MOCK_CASES: list[tuple[str, str, dict[str, int]]] = [
    (
        "stacked patch decorators and MagicMock",
        """
        from unittest.mock import MagicMock, patch

        @patch("app.a")
        @patch("app.b")
        @patch.object(Thing, "c")
        def test_one(a, b, c):
            m = MagicMock()
            assert m.called is False
        """,
        {"test_one": 4},
    ),
    (
        "from unittest import mock as m",
        """
        from unittest import mock as m

        def test_alias():
            with m.patch("x.y"), m.patch.dict("os.environ", {}), m.patch.multiple("z", a=1):
                fake = m.Mock(spec=int)
                assert fake
        """,
        {"test_alias": 4},
    ),
    (
        "import unittest.mock as um and patch as p",
        """
        import unittest.mock as um
        from unittest.mock import patch as p, create_autospec as auto

        def test_aliases():
            with p("a"):
                with p.object(obj, "b") as b:
                    um.AsyncMock()
                    auto(obj)
                    um.PropertyMock()
                    um.NonCallableMock()
            assert b
        """,
        {"test_aliases": 6},
    ),
    (
        "import unittest.mock and the mock backport",
        """
        import unittest.mock
        import mock

        def test_full_names():
            unittest.mock.patch("a").start()
            mock.patch("b").start()
            mock.MagicMock()
            assert True is not False
        """,
        {"test_full_names": 3},
    ),
    (
        "names that only look like mocks are not mocks",
        """
        from myapp.fakes import Mock
        from myapp import patch

        def test_fakes():
            Mock()
            patch("x")
            assert 1
        """,
        {"test_fakes": 0},
    ),
    (
        "mocker and monkeypatch",
        """
        def test_fixtures(mocker, monkeypatch):
            mocker.patch("a.b")
            mocker.patch.object(obj, "c")
            mocker.MagicMock()
            mocker.spy(obj, "d")
            monkeypatch.setattr(obj, "e", 1)
            monkeypatch.setitem(d, "k", 1)
            monkeypatch.delattr(obj, "f")
            monkeypatch.setenv("HOME", "/tmp")
            assert obj
        """,
        {"test_fixtures": 7},
    ),
    (
        "patch(...).start() is one mock, stopall is none",
        """
        from unittest import mock

        def test_start():
            mock.patch("a").start()
            mock.patch.stopall()
            assert x
        """,
        {"test_start": 1},
    ),
    (
        "nested helper functions are not tests but count for their test",
        """
        from unittest.mock import Mock

        def test_outer():
            def make():
                return Mock()
            def test_inner_is_not_a_test():
                pass
            assert make() is not make()
        """,
        {"test_outer": 1},
    ),
    (
        "helpers outside the test and non-test functions are not counted",
        """
        from unittest.mock import Mock

        def build():
            return Mock(), Mock()

        def helper_test():
            Mock()

        def test_uses_helper():
            assert build()
        """,
        {"test_uses_helper": 0},
    ),
    (
        "pytest classes, nested classes and class decorators",
        """
        from unittest.mock import patch, Mock

        @patch("app.clock")
        class TestOuter:
            def test_a(self, clock):
                Mock()
                assert clock

            def helper(self):
                Mock()

            class TestInner:
                def test_b(self):
                    assert 1 == int("1")

        class NotATest:
            def test_ignored(self):
                Mock()

        class TestWithInit:
            def __init__(self):
                pass

            def test_not_collected(self):
                pass
        """,
        {"TestOuter::test_a": 2, "TestOuter::TestInner::test_b": 1},
    ),
    (
        "unittest TestCase with setUp patches and subclasses",
        """
        import unittest
        from unittest import mock

        class Base(unittest.TestCase):
            def setUp(self):
                patcher = mock.patch("app.db")
                self.db = patcher.start()
                self.addCleanup(patcher.stop)

            def test_base(self):
                self.assertTrue(self.db)

        class Derived(Base):
            @mock.patch("app.net")
            def test_derived(self, net):
                self.assertEqual(net.call_count, 0)
        """,
        {"Base::test_base": 1, "Derived::test_derived": 2},
    ),
    (
        "async tests",
        """
        from unittest.mock import AsyncMock

        async def test_async():
            client = AsyncMock()
            await client.get()
            client.get.assert_awaited_once()
        """,
        {"test_async": 1},
    ),
    (
        "fixtures in the same file, transitively, counted once per test",
        """
        import pytest
        from unittest.mock import MagicMock, patch

        @pytest.fixture
        def db():
            return MagicMock()

        @pytest.fixture
        def service(db, clock):
            with patch("app.mailer"):
                yield MagicMock(db=db)

        @pytest.fixture
        def clock(db):
            return MagicMock()

        def test_service(service, db):
            assert service.db is db

        def test_plain():
            assert 2 + 2 == 4
        """,
        {"test_service": 4, "test_plain": 0},
    ),
    (
        "fixture renamed with name= and requested through usefixtures",
        """
        import pytest
        from pytest import fixture
        from unittest import mock

        @fixture(name="api")
        def _api_fixture():
            with mock.patch("app.api") as api:
                yield api

        @pytest.fixture()
        def env(monkeypatch):
            monkeypatch.setattr("os.sep", "/")

        @pytest.mark.usefixtures("env")
        def test_marks(api):
            api.get.assert_not_called()
        """,
        {"test_marks": 2},
    ),
    (
        "autouse fixtures count for every test; class fixtures only in the class",
        """
        import pytest
        from unittest.mock import Mock

        @pytest.fixture(autouse=True)
        def _no_network(monkeypatch):
            monkeypatch.setattr("socket.socket", Mock())

        class TestThing:
            @pytest.fixture
            def thing(self):
                return Mock()

            def test_in_class(self, thing):
                assert thing

        def test_outside(thing):
            assert thing
        """,
        {"TestThing::test_in_class": 3, "test_outside": 2},
    ),
    (
        "a parametrized argument is not a fixture request",
        """
        import pytest
        from unittest.mock import Mock

        @pytest.fixture
        def value():
            return Mock()

        @pytest.mark.parametrize("value", [1, 2])
        def test_param(value):
            assert value > 0

        @pytest.mark.parametrize(("a", "b"), [(1, 2)])
        def test_two(a, b, value):
            assert a < b
        """,
        {"test_param": 0, "test_two": 1},
    ),
    (
        "fixtures are not tests even when named test_*",
        """
        import pytest

        @pytest.fixture
        def test_data():
            return [1]

        def test_real(test_data):
            assert test_data == [1]
        """,
        {"test_real": 0},
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in MOCK_CASES], ids=[c[0] for c in MOCK_CASES]
)
def test_mock_counts(source: str, expected: dict[str, int]) -> None:
    assert mocks_of(source) == expected


CONFTEST_TEST = """
    from unittest.mock import Mock

    def test_uses_conftest(client, settings):
        assert client.get() is not None
"""


def test_fixtures_from_conftests_nearest_first() -> None:
    conftests = {
        "conftest.py": """
            import pytest
            from unittest import mock as m

            @pytest.fixture
            def settings():
                return m.Mock()

            @pytest.fixture
            def client(settings):
                return m.Mock()
            """,
        "tests/conftest.py": """
            import pytest
            from unittest.mock import patch, MagicMock

            @pytest.fixture
            def client(client):
                # overrides the root one and wraps it: both count
                with patch("app.session"):
                    yield MagicMock(wraps=client)
            """,
    }
    assert mocks_of(CONFTEST_TEST, conftests) == {"test_uses_conftest": 4}
    assert mocks_of(CONFTEST_TEST, {"conftest.py": conftests["conftest.py"]}) == {
        "test_uses_conftest": 2
    }
    assert mocks_of(CONFTEST_TEST) == {"test_uses_conftest": 0}


def test_an_unparseable_conftest_is_ignored() -> None:
    assert mocks_of(CONFTEST_TEST, {"conftest.py": "def (:\n"}) == {"test_uses_conftest": 0}


def test_a_conftest_fixture_cannot_see_the_test_modules_fixtures() -> None:
    source = """
        import pytest
        from unittest.mock import Mock

        @pytest.fixture
        def helper():
            return Mock()

        def test_x(client):
            assert client
    """
    conftest = {
        "conftest.py": "import pytest\n@pytest.fixture\ndef client(helper):\n    return 1\n"
    }
    assert mocks_of(source, conftest) == {"test_x": 0}


def test_mock_kinds_are_listed_in_the_message() -> None:
    source = _src(MOCK_CASES[0][1])
    (finding,) = analyze_python(source, "tests/test_a.py", max_mocks=3, max_asserts=5)
    assert finding.rule == OVER_MOCKING
    assert finding.severity == "warning"
    assert finding.test == "test_one"
    assert finding.line == 6
    assert finding.count == 4
    assert finding.message.startswith("4 mocks (max 3): ")
    assert "patch×2" in finding.message and "MagicMock" in finding.message


def test_at_the_threshold_is_not_a_finding() -> None:
    source = _src(MOCK_CASES[0][1])
    assert analyze_python(source, "t.py", max_mocks=4, max_asserts=5) == []


# --- assertions ----------------------------------------------------------------------------

SUBJECT_CASES: list[tuple[str, str, tuple[str, ...], bool]] = [
    (
        "compare left sides, yoda, and constant subscripts",
        """
        def test_x():
            resp = get()
            assert resp.status == 200
            assert resp.json()["id"] == 1
            assert resp.json()["name"] == "n"
            assert 3 == len(items)
            assert not errors
            assert isinstance(resp, Response)
            assert a and b.c
        """,
        ("resp.status", "resp.json()[…]", "len(items)", "errors", "resp", "a", "b.c"),
        True,
    ),
    (
        "unittest assert methods use the first non-literal argument",
        """
        import unittest

        class TestU(unittest.TestCase):
            def test_u(self):
                self.assertEqual(total, 3)
                self.assertEqual(3, count)
                self.assertIn("a", names)
                self.assertRaises(ValueError, parse, "")
                self.assertTrue(ok)
        """,
        ("total", "count", "names", "ValueError", "ok"),
        True,
    ),
    (
        "pytest.raises and mock assert_* calls",
        """
        import pytest

        async def test_r(client):
            with pytest.raises(KeyError):
                lookup("x")
            client.send.assert_called_once_with(1)
            await client.close.assert_awaited()
        """,
        ("raises(KeyError)", "client.send", "client.close"),
        True,
    ),
    (
        "helpers named assert_*, check_*, expect*",
        """
        def test_h(page):
            check_invariants(tree)
            expect(page).to_have_title("x")
            assert_valid("const")
        """,
        ("tree", "page", "assert_valid"),
        True,
    ),
    (
        "pytest.fail and self.fail are assertions without subject",
        """
        import pytest
        import unittest

        def test_f():
            if broken():
                pytest.fail("broken")

        class TestF(unittest.TestCase):
            def test_g(self):
                if broken():
                    self.fail("broken")
        """,
        (),
        True,
    ),
    (
        "no assertion at all",
        """
        def test_none(tmp_path):
            run(tmp_path)
            print("done")
        """,
        (),
        False,
    ),
]


@pytest.mark.parametrize(
    ("source", "subjects", "has"),
    [c[1:] for c in SUBJECT_CASES],
    ids=[c[0] for c in SUBJECT_CASES],
)
def test_assertion_subjects(source: str, subjects: tuple[str, ...], has: bool) -> None:
    found = test_metrics(_src(source), "tests/test_s.py")
    got = tuple(s for m in found.values() for s in m.subjects)
    assert got == subjects
    assert all(m.has_assertion is has for m in found.values())


def test_too_many_subjects_is_broad() -> None:
    source = _src(SUBJECT_CASES[0][1])
    findings = analyze_python(source, "tests/test_b.py", max_mocks=3, max_asserts=5)
    assert [(f.rule, f.count, f.line) for f in findings] == [(BROAD_ASSERTION, 7, 1)]
    assert "7 different subjects (max 5)" in findings[0].message
    assert analyze_python(source, "t.py", max_mocks=3, max_asserts=7) == []


def test_repeating_one_subject_is_not_broad() -> None:
    lines = "\n".join(f"    assert result[{i}] == {i}" for i in range(20))
    source = f"def test_list():\n    result = list(range(20))\n{lines}\n"
    assert analyze_python(source, "t.py", max_mocks=3, max_asserts=1) == []


CONSTANT_CASES: list[tuple[str, str]] = [
    ("assert True", "def test_c():\n    assert True\n"),
    ("assert 1", "def test_c():\n    assert 1\n"),
    ("assert a non-empty string", "def test_c():\n    assert 'it works'\n"),
    ("assert a tuple", "def test_c(x):\n    assert (x == 1, 'x must be 1')\n"),
    ("compare of constants", "def test_c():\n    assert 1 == 1\n"),
    (
        "self.assertTrue(True)",
        "import unittest\nclass T(unittest.TestCase):\n    def test_c(self):\n"
        "        self.assertTrue(True)\n",
    ),
    (
        "self.assertEqual(1, 1)",
        "import unittest\nclass T(unittest.TestCase):\n    def test_c(self):\n"
        "        self.assertEqual(1, 1)\n",
    ),
    ("a constant next to a real assertion", "def test_c(x):\n    assert x == 2\n    assert True\n"),
]


@pytest.mark.parametrize(
    "source", [c[1] for c in CONSTANT_CASES], ids=[c[0] for c in CONSTANT_CASES]
)
def test_assertions_on_constants(source: str) -> None:
    findings = analyze_python(source, "tests/test_c.py", max_mocks=3, max_asserts=5)
    assert len(findings) == 1, findings
    assert findings[0].rule == BROAD_ASSERTION
    assert findings[0].message.startswith("assertion on a constant always passes: `")


@pytest.mark.parametrize(
    "source",
    [
        "def test_f():\n    assert False, 'unreachable'\n",
        "def test_f(x):\n    assert x\n",
        "def test_f():\n    assert 0 < compute()\n",
    ],
)
def test_not_constant_assertions(source: str) -> None:
    assert analyze_python(source, "t.py", max_mocks=3, max_asserts=5) == []


def test_no_assertion_finding() -> None:
    source = _src(SUBJECT_CASES[-1][1])
    (finding,) = analyze_python(source, "tests/test_n.py", max_mocks=3, max_asserts=5)
    assert finding.rule == BROAD_ASSERTION
    assert finding.test == "test_none"
    assert finding.message.startswith("no assertion")


def test_constant_line_is_reported() -> None:
    found = test_metrics("def test_c(x):\n    assert x\n\n    assert True\n", "t.py")
    assert found["test_c"].constant_assertion == "assert True"
    assert found["test_c"].constant_line == 4
    (finding,) = analyze_python(
        "def test_c(x):\n    assert x\n\n    assert True\n", "t.py", max_mocks=3, max_asserts=5
    )
    assert finding.line == 4


@pytest.mark.parametrize("source", ["def test_x(:\n    pass\n", "x = 'a\0b'\n"])
def test_syntax_errors_give_one_note(source: str) -> None:
    (finding,) = analyze_python(source, "tests/test_bad.py", max_mocks=3, max_asserts=5)
    assert finding.rule == PARSE_ERROR
    assert finding.severity == "note"
    assert finding.test is None
    assert test_metrics(source, "tests/test_bad.py") == {}


def test_metrics_fields() -> None:
    m = test_metrics(_src(MOCK_CASES[0][1]), "t.py")["test_one"]
    assert m.line == 6
    assert m.mock_kinds == ("patch", "patch", "patch.object", "MagicMock")
    assert m.subjects == ("m.called",)
    assert m.has_assertion and m.constant_assertion is None


def test_pathologically_nested_source_is_a_note_not_a_crash() -> None:
    deep = "def test_x():\n    assert " + "(" * 300 + "x" + ")" * 300 + "\n"
    (finding,) = analyze_python(deep, "t.py", max_mocks=3, max_asserts=5)
    assert finding.rule == PARSE_ERROR
    assert test_metrics(deep, "t.py") == {}
