"""The price table: every row consistent, dated ids priced as their family, the user's
own rows (llm.prices), and --max-cost with an unknown model saying how to price it."""

from __future__ import annotations

import pytest

from tddgit.agent.prices import PRICES, price_of
from tests.agent.conftest import generate
from tests.agent.fakeapi import FakeMessagesAPI
from tests.conftest import GitRepo


@pytest.mark.parametrize("model", sorted(PRICES))
def test_every_row_reads_cache_at_a_tenth_and_writes_it_at_a_quarter_more(model: str) -> None:
    p_in, p_out, p_read, p_write = PRICES[model]
    assert p_out > p_in > 0
    assert p_read == pytest.approx(p_in * 0.10), "cache read is 10% of input"
    assert p_write == pytest.approx(p_in * 1.25), "cache write (5 min) is 125% of input"


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-20250514", "claude-sonnet-4-0"),
        ("claude-opus-4-20250514", "claude-opus-4-0"),
        ("claude-3-7-sonnet-20250219", "claude-3-7-sonnet"),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
    ],
)
def test_a_dated_id_is_priced_as_its_family(model: str, family: str) -> None:
    assert price_of(model) is not None
    assert price_of(model) == PRICES[family]


def test_an_unknown_model_with_a_cost_limit_says_how_to_price_it(
    project: GitRepo, fake_api: FakeMessagesAPI
) -> None:
    code, _, err = generate(project, "specs/sub.yaml", "--model", "acme-7", "--max-cost", "1")
    assert code == 2
    assert "no price is known for acme-7" in err
    assert "llm.prices: {acme-7: [input, output, cache read, cache write]}" in err
    assert fake_api.requests == []
    project.write(".tddgit.yaml", "llm:\n  prices:\n    acme-7: [1, 5, 0.1, 1.25]\n")
    project.commit("price acme-7", ".tddgit.yaml")
    fake_api.push()  # nothing scripted: the first request fails loudly, after the check
    code, _, err = generate(project, "specs/sub.yaml", "--model", "acme-7", "--max-cost", "1")
    assert "no price is known" not in err
    assert len(fake_api.requests) == 1
