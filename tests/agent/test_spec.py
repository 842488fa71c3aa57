"""The spec loader: the documented YAML shape, free-form specs, and errors naming file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddgit.errors import EXIT_USAGE
from tddgit.spec import Component, Method, SpecError, TestCase, load_spec

GOOD = """\
spec_id: SPEC-7
title: Shopping cart totals
components:
  - name: Cart
    type: class
    file_path: src/shop/cart.py
    description: Holds items and computes totals
    interface:
      methods:
        - signature: "total(self) -> Decimal"
          description: Sum of price × quantity
      attributes: [items]
  - name: money
    type: module
    file_path: src/shop/money.py
test_cases:
  - id: TC-1
    component: Cart
    type: unit
    description: empty cart totals zero
    given: an empty cart
    when: total() is called
    then: 0
  - id: TC-2
    component: money
acceptance_criteria:
  - criterion: totals are exact decimals
  - rounding is half-even
implementation_order: [money, Cart]
"""


def write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_documented_shape_loads_whole(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, GOOD))
    assert spec.structured
    assert (spec.spec_id, spec.title) == ("SPEC-7", "Shopping cart totals")
    cart, money = spec.components
    assert cart == Component(
        name="Cart",
        type="class",
        file_path="src/shop/cart.py",
        description="Holds items and computes totals",
        methods=(Method("total(self) -> Decimal", "Sum of price × quantity"),),
    )
    assert cart.interface["attributes"] == ["items"]
    assert money.methods == () and money.description == ""
    assert spec.test_cases[0] == TestCase(
        id="TC-1",
        component="Cart",
        type="unit",
        description="empty cart totals zero",
        given="an empty cart",
        when="total() is called",
        then="0",
    )
    assert spec.test_cases[1] == TestCase(id="TC-2", component="money")
    assert spec.acceptance_criteria == ("totals are exact decimals", "rounding is half-even")
    assert spec.implementation_order == ("money", "Cart")
    assert spec.text == GOOD and spec.path.endswith("spec.yaml")
    assert spec.component("Cart") is cart and spec.component("nope") is None


@pytest.mark.parametrize(
    ("old", "new", "line", "where", "problem"),
    [
        ("spec_id: SPEC-7\n", "", 1, "spec_id", "required field is missing"),
        ("title: Shopping cart totals", "title: [a]", 2, "title", "expected a string"),
        ("    type: class", "    type: widget", 5, "components[0].type", "'widget' is not one of"),
        ("    file_path: src/shop/cart.py\n", "", 4, "components[0].file_path", "missing"),
        ("  - name: money", "  - name: Cart", 13, "components[1].name", "duplicate component"),
        ("  - id: TC-2", "  - id: TC-1", 24, "test_cases[1].id", "duplicate test case id"),
        (
            "    component: money",
            "    component: Money",
            25,
            "test_cases[1].component",
            "'Money' names no",
        ),
        ("[money, Cart]", "[money, Basket]", 29, "implementation_order[1]", "'Basket' names no"),
        ("    when: total() is called", "    when: [x]", 22, "test_cases[0].when", "expected text"),
        (
            '        - signature: "total(self) -> Decimal"\n',
            "        - returns: x\n",
            10,
            "components[0].interface.methods[0].signature",
            "missing",
        ),
        ("  - name: money", "  - name: 42", 13, "components[1].name", "expected a string"),
        ("title: Shopping cart totals", "title: a\ntitle: b", 3, "title", "duplicate key"),
    ],
)
def test_an_invalid_spec_names_file_line_and_field(
    tmp_path: Path, old: str, new: str, line: int, where: str, problem: str
) -> None:
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.exit_code == EXIT_USAGE
    assert caught.value.message.startswith(f"{path}:{line}: {where}: "), caught.value.message
    assert problem in caught.value.message


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("", 1, "the spec is empty"),
        ("- a list\n", 1, "expected a mapping"),
        ("spec_id: X\ntitle: T\ncomponents: []\ntest_cases: []\n", 3, "at least one component"),
        ("spec_id: X\ntitle: T\ncomponents: {a: 1}\n", 3, "expected a list"),
        ("spec_id: X\ntitle: 'unterminated\n", 3, "not valid YAML"),
    ],
)
def test_shape_errors(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = write(tmp_path, text, "spec.yml")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.message.startswith(f"{path}:{line}: ")
    assert problem in caught.value.message


def test_a_spec_needs_a_test_case(tmp_path: Path) -> None:
    text = GOOD.split("test_cases:")[0] + "test_cases: []\n"
    with pytest.raises(SpecError, match=r"spec.yaml:\d+: test_cases: at least one test case"):
        load_spec(write(tmp_path, text))


def test_a_markdown_spec_is_free_form(tmp_path: Path) -> None:
    text = "\n# Cart totals\n\nThe cart sums price × quantity.\n"
    spec = load_spec(write(tmp_path, text, "cart-totals.md"))
    assert not spec.structured
    assert (spec.spec_id, spec.title, spec.text) == ("cart-totals", "Cart totals", text)
    assert spec.components == () and spec.test_cases == ()


def test_a_missing_or_empty_free_form_spec_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="spec not found"):
        load_spec(tmp_path / "nope.md")
    with pytest.raises(SpecError, match="the spec is empty"):
        load_spec(write(tmp_path, "  \n", "empty.txt"))
