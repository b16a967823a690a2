"""Cost per million tokens of a serving option: its TCO over the tokens it serves at the target load. Qt-free.

Serving is judged per token (API price lists are per million tokens: https://openai.com/api/pricing/), so the
results page and the sheet put the option's TCO on that scale: the output tokens of ``target_qps`` requests a
second, each ``output_tokens`` long, around the clock over the TCO horizon (``tco.years``). The prompt tokens are
work the option does but not what a user buys, so they are not counted; a service with no output tokens
(a classifier) has no such figure (None).
"""

from __future__ import annotations

SECONDS_PER_YEAR = 365.25 * 86400


def output_tokens_served(target_qps: float | None, output_tokens: int | None, years: float) -> float | None:
    """Output tokens served at ``target_qps`` around the clock over ``years``; None when not a token service."""
    if not target_qps or not output_tokens or years <= 0:
        return None
    return float(target_qps) * float(output_tokens) * years * SECONDS_PER_YEAR


def cost_per_million_tokens_usd(tco_usd: float | None, target_qps: float | None, output_tokens: int | None,
                                years: float) -> float | None:
    """US dollars per million output tokens: ``tco_usd`` over :func:`output_tokens_served`; None when the TCO
    (an unpriced option) or the token count is unknown."""
    tokens = output_tokens_served(target_qps, output_tokens, years)
    if tco_usd is None or not tokens:
        return None
    return tco_usd / tokens * 1e6
