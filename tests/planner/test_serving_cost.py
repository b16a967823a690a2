"""Cost per million output tokens of a serving option (gpudesk.planner.serving_cost)."""

import pytest

from gpudesk.planner.serving_cost import cost_per_million_tokens_usd, output_tokens_served


def test_cost_per_million_tokens_is_tco_over_tokens_served_at_the_target():
    # 20 req/s x 256 output tokens around the clock for 3 years = 484.6 billion tokens
    tokens = output_tokens_served(20, 256, 3)
    assert tokens == pytest.approx(20 * 256 * 3 * 365.25 * 86400)
    assert cost_per_million_tokens_usd(540_000.0, 20, 256, 3) == pytest.approx(540_000.0 / tokens * 1e6)
    assert cost_per_million_tokens_usd(540_000.0, 20, 256, 3) == pytest.approx(1.114, rel=1e-3)


def test_unpriced_or_tokenless_options_have_no_cost_per_token():
    assert cost_per_million_tokens_usd(None, 20, 256, 3) is None  # unpriced: never drawn as cheap
    assert cost_per_million_tokens_usd(1e5, 40, 0, 3) is None  # a classifier serves no output tokens
    assert cost_per_million_tokens_usd(1e5, None, 256, 3) is None
