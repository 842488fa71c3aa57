"""Reds judged by what really failed (issue 24, items 3-5): a second red while one is
open, an exception from the project's own code, and the stub a missing name calls for.
Real repositories, real pytest, the real CLI."""

from __future__ import annotations

import pytest

from tests.conftest import GitRepo
from tests.project import CALC_SUB, TEST_SUB, rules, stage_red, start_project, verdict


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    start_project(repo)
    return repo


MUL_TEST = TEST_SUB + "\n\ndef test_mul():\n    assert calc.mul(2, 3) == 6\n"
CALC_MUL = CALC_SUB + "\n\ndef mul(a, b):\n    return a * b\n"


def test_a_second_red_while_the_first_still_fails_opens_both(project: GitRepo) -> None:
    stage_red(project)
    project.tddgit("red", "-m", "sub", check=True)
    project.write("tests/test_calc.py", MUL_TEST, dedent=False)
    project.add()
    code, data = verdict(project, "red", "-m", "mul")
    assert code == 0, data
    ev = data["evidence"]
    assert [t["id"] for t in ev["targets"]] == ["tests/test_calc.py::test_mul"]
    assert any("test_sub" in n and "open red" in n for n in data["notes"]), data["notes"]
    # One green closes both reds.
    project.write("calc.py", CALC_MUL, dedent=False)
    project.add()
    code, data = verdict(project, "green", "-m", "sub and mul")
    assert code == 0, data
    ids = sorted(t["id"] for t in data["evidence"]["targets"])
    assert ids == ["tests/test_calc.py::test_mul", "tests/test_calc.py::test_sub"]


def test_a_second_red_that_breaks_the_first_red_test_differently_is_refused(
    project: GitRepo,
) -> None:
    """Stacking is allowed while the open red's targets still fail as expected: a syntax
    error in the first red's test file is not that."""
    stage_red(project)
    project.tddgit("red", "-m", "sub", check=True)
    project.write("tests/test_calc.py", MUL_TEST.replace("== 2\n", "== 2\n    x = (\n"))
    project.add()
    code, data = verdict(project, "red", "--no-commit")
    assert code == 1, data


PRICE = '''\
"""Prices."""


def total(prices):
    return sum(p["amount"] for p in prices)
'''

PRICE_TEST = """\
import price


def test_total():
    assert price.total([{"amount": 2}]) == 2
"""


def test_an_exception_from_production_code_is_a_red(repo: GitRepo) -> None:
    start_project(repo)
    repo.write("price.py", PRICE, dedent=False)
    repo.write("tests/test_price.py", PRICE_TEST, dedent=False)
    repo.commit("prices")
    repo.write(
        "tests/test_price.py",
        PRICE_TEST
        + "\n\ndef test_total_of_plain_numbers():\n    assert price.total([2, 3]) == 5\n",
        dedent=False,
    )
    repo.add()
    code, data = verdict(repo, "red", "--no-commit")
    assert code == 0, data
    [target] = data["evidence"]["targets"]
    assert (target["cause"], target["light"]) == ("wrong-behaviour", "red"), target
    assert "TypeError" in target["message"] and "price.py" in target["message"]


def test_an_exception_in_the_test_itself_stays_amber(project: GitRepo) -> None:
    project.write(
        "tests/test_calc.py",
        TEST_SUB.replace("calc.sub(5, 3) == 2", "calc.add(2, 3) == {}['x']"),
    )
    project.add()
    code, data = verdict(project, "red", "--no-commit")
    assert code == 1, data
    assert rules(data) == ["target-amber"]


def test_a_file_that_cannot_import_a_name_says_which_stub_to_add(project: GitRepo) -> None:
    """The import of a missing name fails the whole file, one target for all its tests:
    the verdict says which stub makes each test its own target."""
    project.write(
        "tests/test_calc.py",
        "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_sub():\n    assert sub(5, 3) == 2\n",
    )
    project.add()
    code, data = verdict(project, "red", "--no-commit")
    assert code == 0, data
    [target] = data["evidence"]["targets"]
    assert target["id"] == "tests/test_calc.py", target
    hint = [n for n in data["notes"] if "add a stub" in n]
    assert hint and "def sub(" in hint[0] and "calc.py" in hint[0], data["notes"]


def test_a_missing_module_says_which_stub_to_add(project: GitRepo) -> None:
    project.write("shop/__init__.py", "")
    project.write(
        "tests/test_cart.py",
        "from shop.cart import Cart\n\n\ndef test_empty():\n    assert Cart().total() == 0\n",
    )
    project.add()
    code, data = verdict(project, "red", "--no-commit")
    assert code == 0, data
    hint = [n for n in data["notes"] if "add a stub" in n]
    assert hint and "shop/cart.py" in hint[0] and "Cart" in hint[0], data["notes"]
