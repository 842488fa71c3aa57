"""The stub a red's missing name calls for (``tddgit.gates.stubs``): Python's import
errors get one; another language's compile error is answered without Python's patterns."""

from __future__ import annotations

import pytest

from tddgit.gates import stubs
from tddgit.model import Cause, Outcome, RunResult, TestResult


def _red(message: str, test_id: str, file: str | None) -> RunResult:
    failed = TestResult(test_id, Outcome.ERROR, Cause.NOT_IMPLEMENTED, message, file)
    return RunResult("rust", ("cargo", "test"), 101, (failed,))


def test_a_compile_error_is_answered_without_python_s_patterns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Rust red that does not compile yet: its note is judged after cargo's exit, on
    the gate's wall, so Python's import-error patterns are not even compiled for it."""

    def compiled(*args: object) -> None:
        raise AssertionError(f"a Python pattern was searched: {args[0]!r}")

    monkeypatch.setattr(stubs.re, "search", compiled)
    result = _red("error[E0425]: cannot find function `triple` in crate `calc`", "calc", "t.rs")
    assert stubs.stub_notes(result, ["t.rs"], lambda path: "") == []
    assert stubs.stub_hint("error[E0433]: failed to resolve: use of undeclared type `Cart`") == ""


@pytest.mark.parametrize(
    ("message", "hint"),
    [
        (
            "ImportError: cannot import name 'total' from 'cart' (cart.py)",
            "add a stub: `def total(*args): raise NotImplementedError` in cart.py",
        ),
        (
            "AttributeError: module 'shop.cart' has no attribute 'Cart'",
            "add a stub: `class Cart: ...` in shop/cart.py",
        ),
        (
            "AttributeError: 'Cart' object has no attribute 'total'",
            "add a stub: `def total(self): raise NotImplementedError` in class Cart",
        ),
        ("ModuleNotFoundError: No module named 'cart'", "add a stub module cart.py"),
    ],
)
def test_python_s_import_errors_still_get_their_stub(message: str, hint: str) -> None:
    assert stubs.stub_hint(message) == hint


def test_a_test_file_that_cannot_import_its_module_gets_a_note() -> None:
    result = _red("ModuleNotFoundError: No module named 'cart'", "tests/test_cart.py", None)
    source = "from cart import Cart, total\n"
    notes = stubs.stub_notes(result, ["tests/test_cart.py"], lambda path: source)
    assert notes == [
        "tests/test_cart.py: one target for the whole file, which cannot import what it "
        "tests; add a stub module cart.py with `class Cart: ...`; "
        "`def total(*args): raise NotImplementedError`, so each test is its own target "
        "(a red may carry stubs)"
    ]
