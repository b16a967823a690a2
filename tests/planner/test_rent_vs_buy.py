"""Rent vs buy and catalog prices in the plan (issue 12): the same GPUs rented at a sourced on-demand rate for the
job and over the TCO horizon, the break-even utilisation (catalog.md 5.1), the catalog's purchase price when the
GPU row has none, and an existing server that costs nothing to buy."""

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import load_profile, plan, plan_to_dict
from gpudesk.planner.prices import catalog_purchase_price, cloud_rate
from gpudesk.planner.tco import HOURS_PER_YEAR, CloudRate, TcoAssumptions, rent_vs_buy

from helpers.planner_cases import LORA_14B


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
    gpus = "GPU" if c.count == 1 else "GPUs"  # qa51 D16: "renting 8 GPU(s)" had no plural form
    assert any(d.startswith(f"renting {c.count} {gpus} at $") for d, _ in c.rationale)
    assert not any("GPU(s)" in d for d, _ in c.rationale if d.startswith("renting"))
    data = next(d for d in plan_to_dict(result)["candidates"] if d["gpu_id"] == c.gpu_id and d["count"] == c.count)
    assert data["rent"]["source_url"].startswith("https://") and data["rent"]["verdict"] in ("buy", "rent", None)


def test_existing_server_costs_no_host(tmp_path, catalog):
    path = tmp_path / "p.toml"
    path.write_text(LORA_14B.replace("budget_usd = 60000", 'budget_usd = 60000\nexisting_server = "workstation-pcie5"'),
                    encoding="utf-8")
    result = plan(load_profile(path), catalog)
    assert result.candidates and all(c.server_id == "workstation-pcie5" for c in result.candidates)
    assert all(c.tco_breakdown_usd["hosts"] == 0 for c in result.candidates)


def test_one_off_job_verdict_weighs_the_job_not_the_assumed_utilisation():
    # The tryout's article plan: 8 x A100 80GB for a 6.5-day job, $1.89/GPU-hour, $271,203 to own over 3 years.
    a = TcoAssumptions()  # utilisation 0.7, an assumption, not work the user has
    rate = CloudRate(1.89, "cloud-on-demand", None, "2025-09", "https://example.com/rates")
    r = rent_vs_buy(rate, count=8, job_hours=558619 / 3600, tco_total_usd=271_203.0, a=a)
    assert r.basis == "job" and r.verdict == "rent"
    assert r.job_gpu_hours == pytest.approx(8 * 558619 / 3600)
    assert r.break_even_utilisation == pytest.approx(271_203 / (8 * 1.89 * HOURS_PER_YEAR * 3))
    assert r.break_even_gpu_hours_per_year == pytest.approx(r.break_even_utilisation * 8 * HOURS_PER_YEAR)
    text = r.describe(8)
    assert "so rent: buy only if you have 47,831 GPU-hours of work a year" in text
    assert "so buy" not in text
    # A job long enough to cost more rented than owned is a buy on its own.
    long_job = rent_vs_buy(rate, count=8, job_hours=3 * HOURS_PER_YEAR * 0.9, tco_total_usd=271_203.0, a=a)
    assert long_job.verdict == "buy" and long_job.describe(8).endswith("so buy")
    # A service (or GPUs that also serve) runs all the time: the expected utilisation is the work.
    service = rent_vs_buy(rate, count=8, job_hours=558619 / 3600, tco_total_usd=271_203.0, a=a, ongoing=True)
    assert service.basis == "service" and service.verdict == "buy"


def test_article_plan_says_rent_for_its_one_off_job(catalog):
    from gpudesk.paths import examples_dir

    result = plan(load_profile(examples_dir() / "article-13b-finetune.toml"), catalog)
    rented = [c for c in result.candidates[:5] if c.rent is not None and c.rent.verdict is not None]
    assert rented
    for c in rented:
        assert c.rent.basis == "job" and c.rent.verdict == "rent"
        assert any("buy only if you have" in d for d, _ in c.rationale)
    data = plan_to_dict(result)["candidates"][0]["rent"]
    assert data["basis"] == "job" and data["break_even_gpu_hours_per_year"] > data["job_gpu_hours"]


def test_stated_growth_is_weighed_against_the_break_even(catalog):
    from gpudesk.paths import examples_dir

    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    req.operations.growth_gpus_6_months = 8
    result = plan(req, catalog)
    c = next(c for c in result.candidates if c.rent is not None and c.rent.basis == "job" and c.rent.verdict)
    line = next(d for d, s in c.rationale if s == "requirement: operations.growth_gpus_6_months")
    assert line.startswith("you plan 8 more GPUs within 6 months") and f"{c.rent.break_even_gpu_hours_per_year:,.0f}" in line
