"""Cards added for the cards users name (issues 24, 27, 28), many without a dated price: the planner plans with them,
ranks a price-less card after every priced option of its tier (never as the cheapest), and the CLI shows them."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile, plan
from gpudesk.planner.rank import hardware_usd


@pytest.fixture(scope="module")
def student():
    # ResNet-50 training on one or two desktop cards under USD 3,000 (the bundled example).
    return plan(load_profile(examples_dir() / "student-project.toml"), open_catalog())


def test_price_less_cards_are_planned_and_ranked_after_priced_ones(student):
    ranked = student.candidates
    ids = {c.gpu_id for c in ranked}
    # New GeForce cards with launch prices, and ones without a dated price (RTX 3080 12GB, RTX 3060 8GB).
    assert {"rtx3060", "rtx4070", "rtx4070tis", "rtx3080-12", "rtx3060-8"} <= ids
    assert ranked[0].gpu_price.known and ranked[0].gpu_price.price_usd is not None
    # Options that fit and meet the deadline, less those whose known hardware price is over the budget (ranked last).
    budget = student.requirement.operations.budget_usd
    tier = [c for c in ranked if c.fits and c.meets_deadline and not ((hardware_usd(c) or 0) > budget)]
    priced = [i for i, c in enumerate(tier) if c.gpu_price.known]
    unpriced = [i for i, c in enumerate(tier) if not c.gpu_price.known]
    assert priced and unpriced and max(priced) < min(unpriced)
    unknown = next(c for c in ranked if c.gpu_id == "rtx3080-12")
    assert unknown.tco_3y_usd is None and any("TCO unknown" in w for w in unknown.warnings)


def test_turing_and_pascal_cards_are_gated_on_bf16(student):
    # The example trains in BF16: GeForce RTX 20 (Turing) and Pascal cards have no BF16 (precision_support).
    ids = {c.gpu_id for c in student.candidates}
    assert not ids & {"rtx2080ti", "rtx2060", "titan-rtx", "gtx1080ti", "p40", "p100-pcie-16"}


@pytest.mark.parametrize("gpu_id", ["rtx3080-12", "a10g", "p40", "k80", "mi50-32", "rx7900xtx"])
def test_cli_shows_a_new_card(capsys, gpu_id):
    assert main(["catalog", "show", gpu_id]) == 0
    out = capsys.readouterr().out
    assert open_catalog().gpu(gpu_id).name in out and "Price:" in out
