"""The replay bench's second project shape: a small library as such libraries are laid out
(a src layout, a package of a few modules, a README and a changelog, pytest configured in
pyproject.toml) with a test file in the style such libraries write (a fixture, a
parametrized table, ``pytest.raises`` with ``match``, a class grouping related cases).

Nothing here is filler: every file is one a library of this size has, at a size it has; the
test file is what the model is shown as the style to follow, as tddgit shows any project's.
The change asked for is the same size as the toy project's (one function, two test cases),
so the two shapes differ in the project around the change, not in the change.
"""

from __future__ import annotations

PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "centsplit"
version = "0.4.1"
description = "Exact money arithmetic on integer cents: parse, format, allocate."
readme = "README.md"
requires-python = ">=3.9"
license = {text = "MIT"}

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]
addopts = "-ra --strict-markers"
"""

README = """\
# centsplit

Exact money arithmetic on integer cents. Amounts are `int` cents end to end: no floats,
no rounding surprises.

```python
>>> from centsplit import parse, fmt
>>> parse("12.30")
1230
>>> fmt(1230, "EUR")
'12.30 EUR'
```

## Install

    pip install centsplit

## Development

    python -m pip install -e . pytest
    python -m pytest
"""

CHANGELOG = """\
# Changelog

## 0.4.1
- `fmt` keeps the sign in front of the currency symbol's amount (`-1.05 EUR`).

## 0.4.0
- `parse` accepts a leading `+` and surrounding whitespace.
- Currencies with no minor unit (JPY) format without a decimal point.

## 0.3.0
- First public release: `parse`, `fmt`, `Currency`.
"""

INIT = '''\
"""Exact money arithmetic on integer cents."""

from centsplit.amounts import fmt, parse
from centsplit.currency import Currency, currency

__all__ = ["Currency", "currency", "fmt", "parse"]
__version__ = "0.4.1"
'''

CURRENCY = '''\
"""The currencies centsplit knows: their code and how many minor units they have."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Currency:
    code: str
    digits: int  # minor units: 2 for EUR (cents), 0 for JPY

    @property
    def factor(self) -> int:
        return 10**self.digits


_KNOWN = {
    "EUR": Currency("EUR", 2),
    "USD": Currency("USD", 2),
    "GBP": Currency("GBP", 2),
    "CHF": Currency("CHF", 2),
    "JPY": Currency("JPY", 0),
    "KWD": Currency("KWD", 3),
}


def currency(code: str) -> Currency:
    """The currency named ``code`` (case-insensitive); ValueError for an unknown one."""
    try:
        return _KNOWN[code.upper()]
    except KeyError:
        raise ValueError(f"unknown currency: {code!r}") from None
'''

AMOUNTS = '''\
"""Parsing and formatting amounts held as integer minor units."""

from __future__ import annotations

import re

from centsplit.currency import currency

_AMOUNT = re.compile(r"^\\s*([+-]?)(\\d+)(?:\\.(\\d+))?\\s*$")


def parse(text: str, code: str = "EUR") -> int:
    """``"12.30"`` -> 1230 (minor units of ``code``); ValueError for anything else."""
    match = _AMOUNT.match(text)
    if match is None:
        raise ValueError(f"not an amount: {text!r}")
    sign, whole, frac = match.groups()
    digits = currency(code).digits
    frac = frac or ""
    if len(frac) > digits:
        raise ValueError(f"{text!r} has more than {digits} decimals for {code}")
    value = int(whole) * 10**digits + int(frac.ljust(digits, "0") or 0)
    return -value if sign == "-" else value


def fmt(amount: int, code: str = "EUR") -> str:
    """1230 -> ``"12.30 EUR"``."""
    cur = currency(code)
    sign = "-" if amount < 0 else ""
    whole, frac = divmod(abs(amount), cur.factor)
    if cur.digits == 0:
        return f"{sign}{whole} {cur.code}"
    return f"{sign}{whole}.{frac:0{cur.digits}d} {cur.code}"
'''

TEST_AMOUNTS = '''\
"""parse and fmt: the round trip between text and integer minor units."""

import pytest

from centsplit import amounts


@pytest.fixture
def euro():
    return "EUR"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12.30", 1230),
        ("0.05", 5),
        ("7", 700),
        ("-1.05", -105),
        (" +3.5 ", 350),
    ],
)
def test_parse(text, expected, euro):
    assert amounts.parse(text, euro) == expected


@pytest.mark.parametrize("text", ["", "abc", "1.2.3", "1,50"])
def test_parse_rejects_what_is_not_an_amount(text):
    with pytest.raises(ValueError, match="not an amount"):
        amounts.parse(text)


def test_parse_rejects_too_many_decimals():
    with pytest.raises(ValueError, match="more than 0 decimals"):
        amounts.parse("1.5", "JPY")


class TestFmt:
    def test_two_digits(self, euro):
        assert amounts.fmt(1230, euro) == "12.30 EUR"

    def test_keeps_the_sign(self):
        assert amounts.fmt(-105) == "-1.05 EUR"

    def test_no_minor_unit(self):
        assert amounts.fmt(500, "JPY") == "500 JPY"

    @pytest.mark.parametrize("amount", [0, 1, 99, 100, 123456, -7])
    def test_round_trip(self, amount, euro):
        assert amounts.parse(amounts.fmt(amount, euro).split()[0], euro) == amount
'''

TEST_CURRENCY = """\
import pytest

from centsplit.currency import Currency, currency


def test_known_currency_is_case_insensitive():
    assert currency("eur") == Currency("EUR", 2)


def test_unknown_currency():
    with pytest.raises(ValueError, match="unknown currency"):
        currency("XYZ")
"""

SPEC = """\
spec_id: SPEC-ALLOCATE
title: Split an amount into equal parts
components:
  - name: amounts
    type: module
    file_path: src/centsplit/amounts.py
    interface:
      methods:
        - signature: "allocate(amount, parts)"
          description: the amount in parts that differ by at most one minor unit, the larger first, summing to the amount
test_cases:
  - id: TC-1
    component: amounts
    description: 100 cents in three parts
    then: "[34, 33, 33]"
  - id: TC-2
    component: amounts
    description: fewer than one part is a ValueError
"""

TESTS = '''\
"""allocate: an amount split into parts that sum to it exactly."""

import pytest

from centsplit import amounts


def test_tc_1_hundred_in_three_parts():
    assert amounts.allocate(100, 3) == [34, 33, 33]


def test_tc_2_fewer_than_one_part():
    """TC-2: fewer than one part is a ValueError."""
    with pytest.raises(ValueError, match="at least one part"):
        amounts.allocate(100, 0)
'''

_ALLOCATE_WRONG = '''

def allocate(amount: int, parts: int) -> list[int]:
    """``amount`` in ``parts`` near-equal parts, the larger first, summing to it."""
    return [amount // parts] * parts
'''

_ALLOCATE = '''

def allocate(amount: int, parts: int) -> list[int]:
    """``amount`` in ``parts`` near-equal parts, the larger first, summing to it."""
    if parts < 1:
        raise ValueError(f"allocate needs at least one part, not {parts}")
    share, rest = divmod(amount, parts)
    return [share + 1] * rest + [share] * (parts - rest)
'''

# The green adds the function at the module's end (edit_file without old_text: only the
# new code); the refactor names a value. Each an edit_file call's input, as a model edits a
# module of this size.
_BODY = "    share, rest = divmod(amount, parts)\n    return [share + 1] * rest + [share] * (parts - rest)\n"
PROD = "src/centsplit/amounts.py"
EDIT_WRONG = {"path": PROD, "new_text": _ALLOCATE_WRONG}
EDIT_RIGHT = {"path": PROD, "new_text": _ALLOCATE}
EDIT_FIX = {
    "path": PROD,
    "old_text": "    return [amount // parts] * parts\n",
    "new_text": _ALLOCATE.split('to it."""\n', 1)[1],
}
EDIT_REFACTOR = {
    "path": PROD,
    "old_text": _BODY,
    "new_text": "    share, rest = divmod(amount, parts)\n"
    "    larger = [share + 1] * rest\n"
    "    return larger + [share] * (parts - rest)\n",
}

# The big module a long session re-reads: a table of daily reference rates, the kind of
# data module a library vendors.
RATES = (
    '"""Daily reference rates against the euro (vendored)."""\n\nRATES = {\n'
    + "".join(
        f'    "2024-{1 + d // 28:02d}-{1 + d % 28:02d}": {{"USD": "1.{(d * 37) % 1000:04d}", '
        f'"GBP": "0.{8500 + (d * 13) % 400:04d}", "CHF": "0.{9300 + (d * 7) % 600:04d}", '
        f'"JPY": "{150 + (d * 11) % 40}.{(d * 3) % 100:02d}"}},\n'
        for d in range(330)
    )
    + "}\n"
)

FILES = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    "CHANGELOG.md": CHANGELOG,
    ".gitignore": "__pycache__/\n.pytest_cache/\n*.egg-info/\nbuild/\ndist/\n",
    "src/centsplit/__init__.py": INIT,
    "src/centsplit/currency.py": CURRENCY,
    "src/centsplit/amounts.py": AMOUNTS,
    "tests/test_amounts.py": TEST_AMOUNTS,
    "tests/test_currency.py": TEST_CURRENCY,
}
