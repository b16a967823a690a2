"""A GPU with no price is "possibly within the budget" only while its known hardware cost (the host) is under the
budget; else it is over the budget like the priced options, and ranks after them. Before the fix a 7B LoRA with
a $1,500 budget recommended an unpriced H100 NVL in a $6,000 workstation as "possibly within the budget"."""

from __future__ import annotations

import json

import pytest

from gpudesk.cli import main

LORA_7B = ["plan", "--model", "llama-2-7b", "--mode", "lora", "--tokens", "50M", "--deadline", "3d", "--max-gpus", "2",
           "--format", "json", "--no-my-prices"]


def _candidates(capsys, budget_usd: int) -> list[dict]:
    assert main(LORA_7B + ["--budget", str(budget_usd)]) == 0
    return json.loads(capsys.readouterr().out)["candidates"]


def test_unpriced_option_whose_host_exceeds_the_budget_is_over_it(capsys):
    ranked = _candidates(capsys, 1500)
    top = ranked[0]
    assert top["tco_3y_usd"] is not None  # a priced option leads: nothing is within $1,500 once a host is bought
    assert "over the budget, as every option is" in top["rank_reason"]
    unpriced = [c for c in ranked if c["tco_3y_usd"] is None]
    assert unpriced and all(c["tco_breakdown_usd"]["hosts"] > 1500 for c in unpriced)
    first_unpriced = ranked.index(unpriced[0])
    assert all(c["tco_3y_usd"] is not None for c in ranked[:first_unpriced])


def test_possibly_within_the_budget_says_the_quote_it_needs(capsys):
    top = _candidates(capsys, 8000)[0]
    assert top["tco_3y_usd"] is None and "possibly within the budget" in top["rank_reason"]
    ceiling = (8000 - top["tco_breakdown_usd"]["hosts"]) / (top["gpus_bought"] or top["count"])
    assert ceiling == pytest.approx(2000.0)  # a $6,000 workstation host leaves $2,000 for one GPU
    assert "within it only at a quote up to $2,000 per GPU" in top["rank_reason"]
