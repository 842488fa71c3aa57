"""``test-after-fact`` from the modules a test really imports, resolved against the tree
(issue 27 item 4): each false-positive kind the issue lists, in a real repository."""

from __future__ import annotations

from tests.audit.helpers import Steps, audit, note, rules_fired

CALC = "def add(a, b):\n    return a + b\n"


def after_fact(repo) -> list[str]:
    return [subject for rule, subject in rules_fired(audit(repo)) if rule == "test-after-fact"]


def test_code_created_with_its_test_is_not_an_older_module_of_the_same_name(repo):
    s = Steps(repo)
    s.commit("an old calc", {"calc.py": CALC})
    s.commit(
        "the package's calc with its test",
        {
            "pkg/__init__.py": "",
            "pkg/calc.py": CALC,
            "tests/test_calc.py": "from pkg.calc import add\n\n\ndef test_add():\n"
            "    assert add(1, 2) == 3\n",
        },
    )
    assert after_fact(repo) == []


def test_an_imported_functions_name_is_not_a_module(repo):
    s = Steps(repo)
    s.commit("a parse module", {"parse.py": "def parse(s):\n    return s\n"})
    s.commit(
        "calc with its test",
        {"calc.py": CALC + "\n\ndef parse(s):\n    return int(s)\n",
         "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
    )  # fmt: skip
    s.commit(
        "numbers",
        {"tests/test_numbers.py": "from calc import parse\n\n\ndef test_parse():\n"
         "    assert parse('1') == 1\n"},
    )  # fmt: skip
    assert after_fact(repo) == []


def test_a_file_covered_at_its_creation_by_a_differently_named_test_even_after_a_rename(repo):
    s = Steps(repo)
    s.commit(
        "shapes with the geometry tests",
        {"shapes.py": "def area(w, h):\n    return w * h\n",
         "tests/test_geometry.py": "from shapes import area\n\n\ndef test_area():\n"
         "    assert area(2, 3) == 6\n"},
    )  # fmt: skip
    s.repo.git("mv", "shapes.py", "figures.py")
    s.repo.write(
        "tests/test_geometry.py",
        "from figures import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n",
    )
    s.repo.add("tests/test_geometry.py")
    s.commit("rename shapes to figures")
    s.commit(
        "figures tests",
        {"tests/test_figures.py": "from figures import area\n\n\ndef test_square():\n"
         "    assert area(2, 2) == 4\n"},
    )  # fmt: skip
    s.commit(
        "shape tests",
        {"tests/test_shapes.py": "from figures import area\n\n\ndef test_one():\n"
         "    assert area(1, 1) == 1\n"},
    )  # fmt: skip
    assert after_fact(repo) == []


def test_an_empty_placeholder_file_covered_later_is_not_test_after(repo):
    s = Steps(repo)
    s.commit("scaffold", {"models.py": "# Create your models here.\n"})
    s.commit(
        "model tests",
        {"tests/test_models.py": "from models import Item\n\n\ndef test_item():\n"
         "    assert Item().text == ''\n"},
    )  # fmt: skip
    assert after_fact(repo) == []


def test_a_red_its_evidence_proves_failed_is_never_test_after(repo):
    s = Steps(repo)
    s.commit("calc", {"calc.py": CALC})
    red = s.commit(
        "test sub",
        {"tests/test_calc.py": "from calc import sub\n\n\ndef test_sub():\n"
         "    assert sub(3, 1) == 2\n"},
        phase="red",
    )  # fmt: skip
    note(repo, red, "red")
    assert after_fact(repo) == []


def test_a_test_written_long_after_the_code_it_imports_is_still_test_after(repo):
    s = Steps(repo)
    s.commit("an old calc", {"calc.py": CALC})
    s.commit("docs", {"README.md": "calc\n"})
    s.commit(
        "tests at last",
        {"tests/test_sums.py": "from calc import add\n\n\ndef test_add():\n"
         "    assert add(1, 2) == 3\n"},
    )  # fmt: skip
    assert after_fact(repo) == ["tests at last"]
