"""One price model (issue 29): the Catalog (CLI list/show, the record every screen reads) and the planner show
the same price for every GPU, each dated and sourced; China-market SKUs are kept out of a global buyer's plan."""

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile, plan
from gpudesk.planner.prices import UserPrice, cloud_rate, resolve_gpu_price


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_catalog_cli_and_planner_show_the_same_price_for_every_gpu(catalog, capsys):
    assert main(["catalog", "list", "--json"]) == 0
    listed = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    for gpu in catalog.gpus():
        used = resolve_gpu_price(gpu, {}, {}, catalog.prices())
        assert listed[gpu.id]["price_usd"] == used.price_usd == gpu.price_usd, gpu.id
        rate = cloud_rate(gpu.id, catalog.prices())
        assert listed[gpu.id]["cloud_usd_per_gpu_hour"] == (rate.usd_per_gpu_hour if rate else None), gpu.id
        if gpu.price_usd is not None:  # dated and sourced, never a bare figure
            assert gpu.price_date and gpu.price_source and gpu.price_kind, gpu.id


def test_the_l20_street_price_is_on_the_catalog_and_in_the_plan(catalog, capsys):
    assert catalog.gpu("l20").price_usd == 4299 and catalog.gpu("l20").price_kind == "street"
    assert main(["catalog", "show", "l20"]) == 0
    out = capsys.readouterr().out
    assert "4,299 USD" in out and "N/A (no dated public price)" not in out and "china" in out


def test_market_decides_which_skus_a_plan_may_recommend(catalog):
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    china_made = {g.id for g in catalog.gpus() if g.market == "china"}
    assert {"l20", "h20", "rtx4090d", "a800-80-sxm4", "h800-sxm5"} <= china_made
    global_plan = plan(req, catalog)
    assert not {c.gpu_id for c in global_plan.candidates} & china_made
    reasons = {r.gpu_id: " ".join(r.reasons) for r in global_plan.rejected}
    assert "China market only" in reasons["h800-sxm5"]
    req.operations.market = "china"
    china_plan = plan(req, catalog)
    assert {c.gpu_id for c in china_plan.candidates} & china_made


def test_a_user_price_overrides_the_catalog_price(catalog):
    gpu = catalog.gpu("l20")
    mine = resolve_gpu_price(gpu, {}, {"l20": UserPrice(3900.0)}, catalog.prices())
    assert mine.price_usd == 3900.0 and mine.origin == "user"


def test_catalog_show_shows_your_price_the_planner_uses(capsys):
    from gpudesk.store import open_store
    from gpudesk.store.prices import set_price

    store = open_store()
    try:
        set_price(store, "l20", 3900.0, note="distributor quote")
    finally:
        store.close()
    assert main(["catalog", "show", "l20"]) == 0
    out = capsys.readouterr().out
    assert "Your price:" in out and "3,900 USD" in out and "plans use it instead of the catalog price" in out
