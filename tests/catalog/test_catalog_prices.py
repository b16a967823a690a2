"""Sourced prices (issue 12): every GPU has a purchase price with kind, date and URL or says no public price
was found; cloud rates per GPU-hour from several providers; bad rows stop the build."""

import importlib.util
import shutil
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.catalog.records import CLOUD_KINDS, PURCHASE_KINDS

DB = Path(__file__).resolve().parents[2] / "db"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_every_gpu_has_a_sourced_price_or_says_none_is_public(catalog):
    priced = {p.item_id for p in catalog.prices() if p.kind in PURCHASE_KINDS and p.unit == "per-gpu"}
    for gpu in catalog.gpus():
        if gpu.price_usd is not None or gpu.id in priced:
            continue
        text = (gpu.price_source or "").lower()
        assert "no public price" in text or "not found" in text or "no official list price" in text, gpu.id


def test_price_rows_carry_kind_date_and_url(catalog):
    rows = catalog.prices()
    assert len(rows) >= 40
    for p in rows:
        assert p.source_url.startswith("https://"), p.id
        assert p.price_date and p.price_usd > 0
        assert (p.kind in CLOUD_KINDS) == (p.unit == "per-gpu-hour"), p.id
        if p.price_low_usd and p.price_high_usd:
            assert p.price_low_usd <= p.price_usd <= p.price_high_usd, p.id


def test_cloud_rates_from_at_least_three_providers(catalog):
    providers = {p.provider.split(" ")[0] for p in catalog.prices() if p.is_cloud and p.provider}
    assert {"RunPod", "Lambda", "AWS", "packet.ai"} <= providers
    h100 = [p for p in catalog.prices("h100-sxm5") if p.is_cloud]
    assert {p.kind for p in h100} == {"cloud-on-demand", "cloud-committed", "cloud-spot"}
    assert len({p.provider for p in h100}) >= 4


def test_new_gpus_are_in_with_dense_figures(catalog):
    for gpu_id in ("rtx-pro-6000-bw", "rtx-pro-6000-bw-server", "rtx-pro-5000-bw", "rtx-pro-4500-bw", "b300", "gb200",
                   "gb300", "h200-nvl", "a800-80-pcie", "h800-sxm5", "h20", "l20", "rtx4090d", "mi325x", "mi355x", "gaudi3"):
        gpu = catalog.gpu(gpu_id)
        assert gpu.source_url.startswith("https://") and gpu.date_checked
        assert gpu.bf16_dense_tflops is not None
    # Dense, not the sparse headline: RTX PRO 6000 "4000 AI TOPS" is FP4 with sparsity -> 2000 dense FP4.
    assert catalog.gpu("rtx-pro-6000-bw").fp4_dense_tflops == 2000
    assert catalog.gpu("h20").bf16_dense_tflops == 148  # 15 % of the H100's 989.4
    assert catalog.gpu("h800-sxm5").nvlink_gbps == 400 and catalog.gpu("h100-sxm5").nvlink_gbps == 900
    assert catalog.server("gb200-nvl72").max_gpus == 72 and catalog.server("gb200-nvl72").cooling == "liquid"
    assert catalog.find_gpu("4090").id == "rtx4090" and catalog.find_gpu("4090 d").id == "rtx4090d"


def test_price_for_an_unknown_gpu_stops_the_build(tmp_path):
    spec = importlib.util.spec_from_file_location("build_catalog_prices", DB / "build_catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    src = tmp_path / "db"
    shutil.copytree(DB, src, ignore=shutil.ignore_patterns("__pycache__"))
    with (src / "prices.csv").open("a", encoding="utf-8") as handle:
        handle.write("bad,gpu,h100-sxm6,list,per-gpu,1,,,,2026,https://example.com,2026-12-01,\n")
    with pytest.raises(module.BuildError, match="h100-sxm6"):
        module.build(tmp_path / "out.db", src)
    with (src / "prices.csv").open("w", encoding="utf-8") as handle:
        handle.write((DB / "prices.csv").read_text(encoding="utf-8"))
        handle.write("bad2,gpu,h100-sxm5,cloud-on-demand,per-gpu,1,,,,2026,https://example.com,2026-12-01,\n")
    with pytest.raises(module.BuildError, match="per-gpu-hour"):
        module.build(tmp_path / "out.db", src)


def test_catalog_show_states_the_smallest_purchase_the_planner_prices(capsys):
    # One truth: `catalog show` says a GB200 is bought 72 at a time (a whole NVL72 rack), as the planner prices it;
    # an H100 SXM5 comes on an HGX board of 8; a PCIe L40S one card at a time.
    from gpudesk.cli import main

    for gpu, unit in (("gb200", 72), ("h100-sxm5", 8), ("l40s", 1)):
        assert main(["catalog", "show", gpu]) == 0
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Smallest purchase (GPUs):"))
        assert line.split(":", 1)[1].strip() == str(unit), (gpu, line)
