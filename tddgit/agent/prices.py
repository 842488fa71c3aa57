"""List prices per model, kept as data with the date they were taken, for cost estimates.

US dollars per million tokens: (input, output, cache read, cache write). A model not in
the table has no estimate (``None``), never a guess. Update the table and its date
together; ``tddgit`` prints the date beside every estimate.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tddgit.agent.providers import Usage

Prices = tuple[float, float, float, float]

PRICES_AS_OF = "2026-11-24"

# From the provider's pricing page and model pages. A model whose price depends on more
# than its tokens (Haiku 5.5's two bands by prompt length) or whose id or cache prices
# could not be confirmed is left out: no estimate rather than a wrong one.
PRICES: dict[str, Prices] = {
    "claude-opus-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-8": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-7": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-6": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": (15.0, 75.0, 1.50, 18.75),
    "claude-opus-4-0": (15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-5-5": (2.0, 10.0, 0.20, 2.50),
    "claude-sonnet-5": (2.0, 10.0, 0.20, 2.50),
    "claude-sonnet-4-6": (3.0, 15.0, 0.30, 3.75),
    "claude-sonnet-4-5": (3.0, 15.0, 0.30, 3.75),
    "claude-sonnet-4-0": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-3-7-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-3-5-haiku": (0.80, 4.0, 0.08, 1.0),
}

# A dated id whose alias ends in "-0" is written without it: claude-sonnet-4-20250514 is
# claude-sonnet-4-0, claude-opus-4-20250514 is claude-opus-4-0.
_DATE = re.compile(r"-(?:\d{8}|latest)$")

# The user's own rows (llm.prices), consulted before the table; set once per run.
_configured: dict[str, Prices] = {}


def configure(prices: Mapping[str, Prices]) -> None:
    """Use ``llm.prices`` (model id -> input, output, cache read, cache write per MTok)."""
    _configured.clear()
    _configured.update(prices)


def price_of(model: str) -> Prices | None:
    """The model's prices (``llm.prices`` first); a dated id (``claude-sonnet-4-5-20250929``)
    costs as its alias, the longest that fits (``claude-sonnet-5-5-…`` is not
    ``claude-sonnet-5``), and ``claude-sonnet-4-20250514`` as ``claude-sonnet-4-0``."""
    table = {**PRICES, **_configured}
    if model in table:
        return table[model]
    family = _DATE.sub("", model)
    for name in (family, family + "-0"):
        if name in table:
            return table[name]
    aliases = [m for m in table if model.startswith(m + "-")]
    return table[max(aliases, key=len)] if aliases else None


def estimate_cost(model: str, usage: Usage) -> float | None:
    prices = price_of(model)
    if prices is None:
        return None
    p_in, p_out, p_read, p_write = prices
    dollars = (
        usage.input * p_in
        + usage.output * p_out
        + usage.cache_read * p_read
        + usage.cache_write * p_write
    ) / 1_000_000
    return round(dollars, 6)
