"""Host (server) prices in the planner: never invented. An 8-GPU board or rack system without a sourced host price
is "price unknown" like a GPU (ranked by the unknown-price rule, with a break-even host quote); an NVL72 rack's
per-GPU price is all-in, so its host adds nothing (issue 12, item 2)."""

from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import plan
from gpudesk.planner.profile import load_profile
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.tco import TcoAssumptions, compute_tco

from helpers.planner_cases import article_requirement


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


@pytest.fixture(scope="module")
def article(catalog):
    # The deadline the 8 x A100 meets under the speed model (helpers.planner_cases): these tests are about prices.
    return plan(article_requirement(), catalog)


def _tight_70b() -> Requirement:
    # The tryout profile /tmp/try/p_tight2.toml: Llama 3.1 70B full training, 1e9 samples x 8192 tokens, 8 GPUs.
    req = Requirement()
    req.model.model = "meta-llama/Llama-3.1-70B"
    req.model.seq_len_tokens = 8192
    req.data.sample_count = 1_000_000_000
    req.operations.max_gpus = 8
    req.workload.deadline_s = 86400.0
    return req


def test_no_board_system_carries_an_assumed_host_price(article, catalog):
    boards = [c for c in article.candidates if catalog.server(c.server_id).kind == "hgx"]
    assert boards
    for c in boards:
        assert not any("assumed" in d and "host price" in d for d, _ in c.rationale), c.label


def test_hgx_a100_without_a_sourced_host_is_price_unknown(article, catalog):
    assert catalog.server("hgx-a100").host_price_usd is None
    a100 = next(c for c in article.candidates if c.gpu_id == "a100-80-sxm4" and c.count == 8)
    assert a100.price_known and not a100.host_price_known and a100.tco_3y_usd is None
    assert a100.unpriced_items == ["host"]
    assert any("host price of hgx-a100" in w and "price unknown" in w for w in a100.warnings)
    # The unknown-price rule: after the priced options of its tier, with the host quote that would make it #1.
    top = article.top
    assert top.tco_3y_usd is not None and article.candidates.index(a100) > 0
    assert a100.break_even_rank == 1 and a100.break_even_host_price_usd and a100.break_even_host_price_usd > 0
    assert "per HGX A100" in a100.rank_reason and "host would put it above #1" in a100.rank_reason


@pytest.mark.parametrize("server_id", ["hgx-a100", "hgx-h200", "hgx-b200", "mi300x-oam-8", "mi355x-oam-8", "hgx-b300"])
def test_board_systems_have_no_default_host_price(catalog, server_id):
    s = catalog.server(server_id)
    assert s.host_price_usd is None
    tco = compute_tco(gpu_id="x", gpu_price_usd=10000.0, gpu_tdp_w=700.0, count=8, server_id=s.id, server_kind=s.kind,
                      servers=1, host_price_usd=s.host_price_usd, server_power_w=s.power_w, server_max_gpus=s.max_gpus,
                      delay_days=0.0, a=TcoAssumptions())
    assert tco.total_usd is None and tco.breakdown_usd["hosts"] is None
    assert tco.missing == (f"host price of {server_id}",)


@pytest.mark.parametrize("server_id", ["gb200-nvl72", "gb300-nvl72"])
def test_nvl72_host_is_included_in_the_all_in_gpu_price(catalog, server_id):
    s = catalog.server(server_id)
    assert s.host_price_usd == 0 and "Included in the per-GPU price" in (s.host_price_source or "")


def test_tight_70b_plan_prices_nvl72_without_a_host_and_unpriced_gb300(catalog):
    result = plan(_tight_70b(), catalog)
    gb300 = next(c for c in result.candidates if c.gpu_id == "gb300")
    assert gb300.tco_breakdown_usd["hosts"] == 0.0 and gb300.tco_3y_usd is None
    assert gb300.unpriced_items == ["GPU"]
    gb200 = next(c for c in result.candidates if c.gpu_id == "gb200")
    # The rack is sold whole: the job runs on 8 GPUs, the buyer pays for 72 x the all-in USD 43,056 (rack / 72),
    # i.e. the USD 3.1 million rack, and no host on top: the rack is not counted twice.
    assert gb200.count == 8 and gb200.bought == 72
    assert gb200.tco_breakdown_usd["hosts"] == 0.0 and gb200.tco_breakdown_usd["gpus"] == pytest.approx(72 * 43056)
    assert any("sold only as a whole rack of 72 GPUs" in w and "runs on 8 of them (64 spare)" in w
               for w in gb200.warnings)
    assert gb200.tco_3y_usd is not None


def test_sheet_server_row_says_where_the_host_price_comes_from(catalog, article):
    from gpudesk.planner import plan_to_dict
    from gpudesk.planner.prices import PRICE_UNKNOWN_TEXT
    from gpudesk.planner.sheet_markdown import plan_to_markdown

    tight = plan_to_dict(plan(_tight_70b(), catalog))
    gb300 = next(i for i, c in enumerate(tight["candidates"]) if c["gpu_id"] == "gb300")
    row = next(line for line in plan_to_markdown(tight, gb300).splitlines() if line.startswith("| Server | GB300") and "catalog id" in line)
    assert "| $0 | $0 |" in row and "Included in the per-GPU price" in row
    data = plan_to_dict(article)
    a100 = next(i for i, c in enumerate(data["candidates"]) if c["gpu_id"] == "a100-80-sxm4" and c["count"] == 8)
    row = next(line for line in plan_to_markdown(data, a100).splitlines() if line.startswith("| Server | HGX A100") and "catalog id" in line)
    assert f"host {PRICE_UNKNOWN_TEXT}" in row


def test_a_rack_sold_whole_is_priced_as_bought_and_says_how_many_gpus_it_uses(catalog):
    # Issue 29: "serve Llama 3.1 70B at 20 req/s" recommended 5 x GB200 in an NVL72 rack, a count nobody can buy.
    # NVIDIA sells the rack whole (servers.csv sale_unit rack, 72 GPUs): the option runs on 5, the buyer pays for 72.
    from gpudesk.planner.document import PlanDocument

    nvl72 = catalog.server("gb200-nvl72")
    assert (nvl72.sale_unit, nvl72.sale_unit_gpus, nvl72.gpus_bought(5), nvl72.gpus_bought(73)) == ("rack", 72, 72, 144)
    hgx = catalog.server("hgx-h100")
    assert (hgx.sale_unit, hgx.gpus_bought(16)) == ("board", 16)
    assert catalog.server("pcie-4u-gen5").gpus_bought(3) == 3  # PCIe cards are bought one by one
    assert catalog.gpu("gb200").sale_unit_gpus == 72 and catalog.gpu("l40s").sale_unit_gpus == 1

    result = plan(load_profile(Path("tests/fixtures/plan/buyer/serve-llama31-70b-20qps.toml")), catalog)
    gb200 = next(c for c in result.candidates if c.gpu_id == "gb200")
    assert gb200.count < 72 and gb200.bought == 72
    assert gb200.tco_breakdown_usd["gpus"] == pytest.approx(72 * 43056)  # the USD 3.1 million rack
    doc = PlanDocument.from_plan(result)
    option = next(o for o in doc.candidates if o.gpu_id == "gb200")
    assert option.to_dict()["gpus_bought"] == 72 and option.count_text == f"{gb200.count} of 72 bought"
    assert result.candidates[0].gpu_id != "gb200"
