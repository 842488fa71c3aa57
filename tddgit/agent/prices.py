"""List prices per model, kept as data with the date they were taken, for cost estimates.

US dollars per million tokens: (input, output, cache read, cache write). A model not in
the table has no estimate (``None``), never a guess. Update the table and its date
together; ``tddgit`` prints the date beside every estimate.
"""

from __future__ import annotations

from tddgit.agent.providers import Usage

PRICES_AS_OF = "2026-11-24"

# From the provider's pricing page and model pages. A model whose price depends on more
# than its tokens (Haiku 5.5's two bands by prompt length) or whose id or cache prices
# could not be confirmed is left out: no estimate rather than a wrong one.
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-8": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-7": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-6": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": (15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-5-5": (2.0, 10.0, 0.10, 2.50),
    "claude-sonnet-5": (2.0, 10.0, 0.20, 2.50),
    "claude-sonnet-4-6": (3.0, 15.0, 0.30, 3.75),
    "claude-sonnet-4-5": (3.0, 15.0, 0.30, 3.75),
    "claude-sonnet-4-0": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": (0.80, 4.0, 0.08, 1.0),
}


def price_of(model: str) -> tuple[float, float, float, float] | None:
    """The model's prices; a dated id (``claude-sonnet-4-5-20250929``) costs as its alias,
    the longest that fits (``claude-sonnet-5-5-…`` is not ``claude-sonnet-5``)."""
    if model in PRICES:
        return PRICES[model]
    aliases = [m for m in PRICES if model.startswith(m + "-")]
    return PRICES[max(aliases, key=len)] if aliases else None


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
