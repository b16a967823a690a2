"""Rent vs buy and catalog prices in the plan (issue 12): the same GPUs rented at a sourced on-demand rate for the
job and over the TCO horizon, the break-even utilisation (catalog.md 5.1), the catalog's purchase price when the
GPU row has none, and an existing server that costs nothing to buy."""

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import load_profile, plan, plan_to_dict
from gpudesk.planner.prices import catalog_purchase_price, cloud_rate
from gpudesk.planner.tco import HOURS_PER_YEAR, CloudRate, TcoAssumptions, rent_vs_buy

LORA_14B = """version = 1
name = "LoRA Qwen2.5-14B on one workstation, budget 60k"
[data]
sample_count = 50000
[model]
model = "qwen2.5-14b"
mode = "lora"
seq_len_tokens = 2048
micro_batch_size = 8
global_batch_size = 32
[workload]
deadline_s = 604800.0
[operations]
max_gpus = 4
budget_usd = 60000
"""


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_rent_vs_buy_arithmetic():
    a = TcoAssumptions(years=3.0, utilisation=0.5)
    rate = CloudRate(2.0, "cloud-on-demand", "RunPod", "2026-05", "https://example.com/rates")
    r = rent_vs_buy(rate, count=8, job_hours=100.0, tco_total_usd=300_000.0, a=a)
    assert r.job_rent_usd == pytest.approx(1600.0)
    assert r.horizon_rent_usd == pytest.approx(16 * HOURS_PER_YEAR * 3 * 0.5)
    assert r.break_even_utilisation == pytest.approx(300_000 / (16 * HOURS_PER_YEAR * 3))
    assert r.verdict == "rent"  # 0.5 < 0.713
    assert rent_vs_buy(rate, count=8, job_hours=None, tco_total_usd=100_000.0, a=a).verdict == "buy"
    assert rent_vs_buy(rate, count=8, job_hours=None, tco_total_usd=None, a=a).verdict is None


def test_cloud_rate_is_the_lowest_on_demand(catalog):
    rate = cloud_rate("h100-sxm5", catalog.prices())
    on_demand = [p.price_usd for p in catalog.prices("h100-sxm5") if p.kind == "cloud-on-demand"]
    assert rate.usd_per_gpu_hour == min(on_demand) and rate.source_url.startswith("https://")
    assert cloud_rate("h100-sxm5", catalog.prices(), "cloud-committed").usd_per_gpu_hour == 1.85
    assert cloud_rate("gaudi3", catalog.prices()) is None


def test_catalog_purchase_price_says_its_kind(catalog):
    price = catalog_purchase_price("rtx-pro-6000-bw", catalog.prices())
    assert price.price_usd == 8565 and price.source.startswith("list: NVIDIA (MSRP)")  # list before street
    market = catalog_purchase_price("b200", catalog.prices())
    assert market.price_usd == 35000 and market.source.startswith("market-report, range $30,000-$40,000")


def test_lora_plan_answers_buy_or_rent(tmp_path, catalog):
    path = tmp_path / "p.toml"
    path.write_text(LORA_14B, encoding="utf-8")
    result = plan(load_profile(path), catalog)
    with_rent = [c for c in result.candidates if c.rent is not None]
    assert with_rent, "priced cards with public cloud rates get a rent-vs-buy line"
    c = with_rent[0]
    assert c.rent.job_rent_usd == pytest.approx(c.rent.rate.usd_per_gpu_hour * c.count * c.time_to_result_s / 3600)
    assert any(d.startswith(f"renting {c.count} GPU(s) at $") for d, _ in c.rationale)
    data = next(d for d in plan_to_dict(result)["candidates"] if d["gpu_id"] == c.gpu_id and d["count"] == c.count)
    assert data["rent"]["source_url"].startswith("https://") and data["rent"]["verdict"] in ("buy", "rent", None)


def test_existing_server_costs_no_host(tmp_path, catalog):
    path = tmp_path / "p.toml"
    path.write_text(LORA_14B.replace("budget_usd = 60000", 'budget_usd = 60000\nexisting_server = "workstation-pcie5"'),
                    encoding="utf-8")
    result = plan(load_profile(path), catalog)
    assert result.candidates and all(c.server_id == "workstation-pcie5" for c in result.candidates)
    assert all(c.tco_breakdown_usd["hosts"] == 0 for c in result.candidates)
