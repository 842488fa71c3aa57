"""``wrong-behaviour`` for JavaScript (issue 24, item 5): a new test failing with an error
thrown inside the project's own code is a red, for node's runner, jest and vitest; the
same error thrown by the test's own lines stays amber. Real repositories, the real
runners, the real CLI."""

from __future__ import annotations

import pytest

from tests.conftest import GitRepo
from tests.runners.test_js_gates import FLAVOURS, Flavour, gate, reasons, stage, start, targets

CART = """\
export class PriceError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PriceError';
  }
}

export function total(items) {
  return items.reduce((sum, item) => sum + item.price, 0);
}

export function price(n) {
  if (n < 0) throw new PriceError(`negative price ${n}`);
  return n;
}

export function percent(n) {
  return n.toFixed(200);
}
"""


@pytest.fixture(params=sorted(FLAVOURS))
def js(request: pytest.FixtureRequest, repo: GitRepo) -> tuple[GitRepo, Flavour]:
    flavour = FLAVOURS[request.param]
    start(repo, flavour)
    return repo, flavour


def _cart_test(f: Flavour, body: str) -> str:
    return f.header + "import { total, price, percent } from '../src/cart.js';\n\n" + body


def _committed_cart(repo: GitRepo) -> None:
    """Production code already committed (a red may not add it), behaving wrongly."""
    repo.write("src/cart.js", CART, dedent=False)
    repo.commit("cart")


def test_errors_thrown_in_production_code_are_red(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    _committed_cart(repo)
    rounded = f.eq("percent(1)", "'1'")
    body = (
        f"test('totals nothing', () => {{\n  {f.eq('total(null)', '0')}\n}});\n\n"
        f"test('refunds', () => {{\n  {f.eq('price(-1)', '1')}\n}});\n\n"
        f"test('rounds', () => {{\n  {rounded}\n}});\n"
    )
    stage(repo, {"test/cart.test.js": _cart_test(f, body)})
    code, data = gate(repo, "red")
    assert code == 0, data
    assert targets(data) == {
        "test/cart.test.js::totals nothing": ("failed", "wrong-behaviour"),
        "test/cart.test.js::refunds": ("failed", "wrong-behaviour"),
        "test/cart.test.js::rounds": ("failed", "wrong-behaviour"),
    }, data
    messages = {t["id"]: t["message"] for t in data["evidence"]["targets"]}  # type: ignore[index]
    assert "TypeError" in messages["test/cart.test.js::totals nothing"]
    assert "(raised in src/cart.js:9)" in messages["test/cart.test.js::totals nothing"]
    assert messages["test/cart.test.js::refunds"].startswith("PriceError: negative price -1")
    assert "RangeError" in messages["test/cart.test.js::rounds"]


def test_the_same_error_in_the_test_itself_stays_amber(js: tuple[GitRepo, Flavour]) -> None:
    repo, f = js
    _committed_cart(repo)
    body = (
        "test('reads a cart', () => {\n  const cart = null;\n"
        f"  {f.eq('total(cart.items)', '0')}\n}});\n"
    )
    stage(repo, {"test/cart.test.js": _cart_test(f, body)})
    code, data = gate(repo, "red")
    assert code != 0, data
    assert ("target-amber", "test/cart.test.js::reads a cart", "other") in reasons(data), data
