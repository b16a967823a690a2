"""Regressions from the new-user test (issue 3, defects 5, 6, 7, 19, 20, 21, 22, 24): each failed before its fix."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.catalog import open_catalog
from helpers.catalog_variants import build_without_prices
from gpudesk.cli import main
from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile, plan, plan_to_dict
from gpudesk.planner.rank import rank_key
from gpudesk.planner.sheet import build_sheet
from gpudesk.planner.sheet_csv import plan_to_csv
from gpudesk.planner.sheet_markdown import sheet_to_markdown
from gpudesk.units import format_duration
from gpudesk.sizing import time as tm
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import spec_from_hf_config

ARTICLE = examples_dir() / "article-13b-finetune.toml"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    # These cases were written with the A100 80GB SXM4 unpriced; the shipped catalog has its 2026 refurbished
    # street price (tests/helpers/catalog_variants.py).
    return open_catalog(build_without_prices(tmp_path_factory.mktemp("cat"), {"a100-80-sxm4-street", "a100-80-pcie-market"}))


@pytest.fixture(scope="module")
def nvl_priced(catalog):
    """The tester's case: the Article example with a $25,000 price of their own for H100 NVL."""
    return plan(load_profile(ARTICLE), catalog, price_overrides={"h100-nvl": 25000})


def _find(result, gpu_id, count):
    return next(c for c in result.candidates if c.gpu_id == gpu_id and c.count == count)


# Defect 5 ------------------------------------------------------------------------------------------------------
def test_paired_collective_time_model():
    flat8 = tm.ring_allreduce_bytes(26e9, 8)
    # One pair is a flat ring over the bridge.
    two = tm.ring_allreduce_bytes(26e9, 2)
    assert tm.paired_collective_time_s(two, 2, 300, 63) == pytest.approx(tm.collective_time_s(two, 300, 2))
    # Four pairs: bridge inside, PCIe between pairs; faster than a flat PCIe ring, slower than all-NVLink.
    paired = tm.paired_collective_time_s(flat8, 8, 300, 63)
    assert tm.collective_time_s(flat8, 300, 8) < paired < tm.collective_time_s(flat8, 63, 8)
    # M = 26 GB: M / (300 x 0.8) + 3/4 x M / (63 x 0.8) + latency
    assert paired == pytest.approx(26e9 / 240e9 + 0.75 * 26e9 / 50.4e9, rel=1e-3)
    with pytest.raises(SizingError):
        tm.paired_collective_time_s(flat8, 3, 300, 63)


def test_h100_nvl_is_planned_as_nvlink_bridged_pairs(nvl_priced, catalog):
    eight = _find(nvl_priced, "h100-nvl", 8)
    assert eight.interconnect.startswith("nvlink-bridge+pcie")
    assert "NVLink bridge pairs (600 GB/s" in eight.interconnect_name and "between pairs" in eight.interconnect_name
    assert any("PCIe between pairs" in w for w in eight.warnings)
    assert any("hierarchical all-reduce" in s for _d, s in eight.rationale)
    two = next((c for c in nvl_priced.candidates if c.gpu_id == "h100-nvl" and c.count == 2), None)
    if two is not None:
        assert two.interconnect == "nvlink-bridge"
    # A card without an NVLink connector stays on plain PCIe.
    l40s = [c for c in nvl_priced.candidates if c.gpu_id == "l40s" and c.count > 1]
    assert l40s and all(c.interconnect.startswith("pcie") for c in l40s)


def test_top_reason_states_the_rule_that_chose_it(nvl_priced):
    top = nvl_priced.candidates[0]
    assert top.rank_reason.startswith("#1: fits under the safe line, meets the deadline, NVLink between all its GPUs")
    assert "lowest 3-year TCO" in top.rank_reason and "among the priced options that do all of this" in top.rank_reason
    # ... and it is true: no priced candidate that passes the same earlier rules is cheaper.
    tier = rank_key(top, None, prefer_nvlink=True)[:5]
    same = [c for c in nvl_priced.candidates
            if c.tco_3y_usd is not None and rank_key(c, None, prefer_nvlink=True)[:5] == tier]
    assert min(c.tco_3y_usd for c in same) == top.tco_3y_usd
    # The cheaper H100 NVL option that meets the deadline says why it ranks lower.
    eight = _find(nvl_priced, "h100-nvl", 8)
    assert eight.meets_deadline and eight.tco_3y_usd < top.tco_3y_usd
    assert "sync crosses PCIe rank after NVLink ones, even when cheaper" in eight.rank_reason


# Defect 6 ------------------------------------------------------------------------------------------------------
def test_hgx_h100_gpus_plus_host_equal_the_system_price(catalog):
    result = plan(load_profile(ARTICLE), catalog)
    c = next(c for c in result.candidates if c.gpu_id == "h100-sxm5" and c.count == 8 and c.server_id == "hgx-h100")
    hardware = c.tco.breakdown_usd["gpus"] + c.tco.breakdown_usd["hosts"]
    assert hardware == pytest.approx(269_000, rel=0.01)  # DGX H100 analyst price, May 2023 (Epoch AI)
    assert "not the rest of the system" in c.gpu_price.source
    assert "not counted twice" in catalog.server("hgx-h100").host_price_source


# Defect 7 ------------------------------------------------------------------------------------------------------
def test_config_json_model_name_is_not_its_folder(tmp_path):
    spec = spec_from_hf_config(FIXTURES / "plan" / "llama-2-7b-hf.config.json")
    assert spec.name == "LlamaForCausalLM (llama-2-7b-hf.config.json)"
    folder = tmp_path / "cfg"
    folder.mkdir()
    (folder / "config.json").write_bytes((FIXTURES / "plan" / "llama-2-7b-hf.config.json").read_bytes())
    assert spec_from_hf_config(folder / "config.json").name == "LlamaForCausalLM (cfg/config.json)"
    named = json.loads((FIXTURES / "plan" / "llama-2-7b-hf.config.json").read_text())
    named["_name_or_path"] = "meta-llama/Llama-2-7b-hf"
    (folder / "config.json").write_text(json.dumps(named))
    assert spec_from_hf_config(folder / "config.json").name == "meta-llama/Llama-2-7b-hf"


def test_estimate_cli_prints_the_config_name(capsys):
    assert main(["estimate", "memory", "--config", str(FIXTURES / "plan" / "llama-2-7b-hf.config.json")]) == 0
    assert capsys.readouterr().out.startswith("LlamaForCausalLM (llama-2-7b-hf.config.json): 6,738,415,616 parameters")


# Defect 24 (estimate) ------------------------------------------------------------------------------------------
def test_estimate_says_which_model_a_loose_name_matched(capsys):
    assert main(["estimate", "memory", "--model", "lama 2 7b"]) == 0
    captured = capsys.readouterr()
    assert "--model 'lama 2 7b' matched catalog model Llama 2 7B (id llama-2-7b)" in captured.err
    assert captured.out.startswith("Llama 2 7B:")
    assert main(["estimate", "memory", "--model", "llama-2-7b"]) == 0
    assert capsys.readouterr().err == ""


# Defects 19, 20, 21, 22 (sheet) --------------------------------------------------------------------------------
def test_short_durations_read_in_milliseconds():
    assert format_duration(0.0042) == "4.2 ms"
    assert format_duration(0.61) == "610 ms"
    assert format_duration(1.5) == "1.5 s"


def test_risk_model_sheet_step_time_is_not_zero_seconds(catalog):
    data = plan_to_dict(plan(load_profile(examples_dir() / "risk-model-qps40.toml"), catalog))
    md = sheet_to_markdown(build_sheet(data, 0, catalog=catalog))
    assert "| Step time |" not in md  # a served classifier has no training step (issue 29): its latency is the TTFT
    step = data["candidates"][0]["step_time_s"]
    assert data["candidates"][0]["ttft_s"] == step
    assert step < 1 and f"| TTFT (time to first token) | {format_duration(step)} |" in md
    assert format_duration(step).endswith((" ms", " µs"))  # never "0 s": below a millisecond in µs
    assert not format_duration(step).startswith("0 ")


@pytest.fixture(scope="module")
def article_data(catalog):
    return plan_to_dict(plan(load_profile(ARTICLE), catalog))


def test_sheet_assumptions_describe_the_recommended_layout(article_data, catalog):
    top = article_data["candidates"][0]
    # Gradients and activations peak at different moments of backward, so ZeRO-2 can fit where ZeRO-3 was needed.
    assert top["count"] == 8 and top["sharding"] in ("zero2", "zero3")
    md = sheet_to_markdown(build_sheet(article_data, 0, catalog=catalog))
    assumptions = md.split("## Assumptions", 1)[1].split("##", 1)[0]
    assert f"{top['sharding']} over 8 data-parallel GPUs" in assumptions
    assert "over 1 data-parallel GPUs" not in assumptions
    # A plan saved before candidates carried their own assumptions drops the whole-job layout lines.
    old = json.loads(json.dumps(article_data))
    for c in old["candidates"]:
        c.pop("memory_assumptions")
    md_old = sheet_to_markdown(build_sheet(old, 0, catalog=catalog))
    assert "over 1 data-parallel GPUs" not in md_old.split("## Assumptions", 1)[1]


def test_no_internal_path_in_any_sheet(article_data, catalog):
    sheet = build_sheet(article_data, 0, catalog=catalog)
    texts = [sheet_to_markdown(sheet), plan_to_csv(article_data, 0), json.dumps(article_data)]
    for text in texts:
        assert "shared/data" not in text and "epoch_ml_hardware.csv" not in text
    assert "Epoch AI ML Hardware database (CC BY 4.0)" in texts[0]
    for gpu in catalog.gpus():
        assert "shared/" not in (gpu.price_source or "")


def test_alternatives_show_sharding_and_recompute(article_data, catalog):
    md = sheet_to_markdown(build_sheet(article_data, 0, catalog=catalog))
    section = md.split("## Alternatives considered", 1)[1].split("## ", 1)[0]
    assert "| GPU | GPUs | Interconnect | Sharding / recompute | Memory per GPU |" in section
    alt = article_data["candidates"][1]
    line = next(line for line in section.splitlines() if f"{alt['gpu_name']} | {alt['count']} |" in line)
    recompute = {"none": "no recompute", "selective": "selective recompute", "full": "full recompute"}[alt["recompute"]]
    assert f"| {alt['sharding']} / {recompute} |" in line


def test_bridged_pairs_put_the_bridges_on_the_bill_of_materials(nvl_priced, catalog):
    data = plan_to_dict(nvl_priced)
    index = next(i for i, c in enumerate(data["candidates"]) if c["gpu_id"] == "h100-nvl" and c["count"] == 8)
    bom = build_sheet(data, index, catalog=catalog).bom
    bridge = next(line for line in bom if "NVLink bridge" in line.item)
    assert bridge.quantity == 4 and bridge.total_usd is None
    top = build_sheet(data, 0, catalog=catalog).bom
    assert not [line for line in top if "NVLink bridge" in line.item]
