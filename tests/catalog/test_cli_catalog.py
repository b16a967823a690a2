"""``gpudesk catalog list|show|compare``: JSON keys with units, datasheet values, exit codes."""

from __future__ import annotations

import json

import pytest

from gpudesk.cli import main

ISSUE_KEYS = [
    "id", "name", "vendor", "architecture", "memory_gb", "memory_bandwidth_gbps", "fp32_tflops",
    "tf32_dense_tflops", "fp16_dense_tflops", "bf16_dense_tflops", "fp8_dense_tflops", "int8_dense_tops", "tdp_w",
    "host_interface", "nvlink_gbps", "mig_max_instances", "ecc", "launch_year", "price_usd", "price_kind", "price_date",
    "cloud_usd_per_gpu_hour", "market", "source_url",
]


def test_list_json(capsys):
    assert main(["catalog", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 97
    assert all(list(r) == ISSUE_KEYS for r in rows)
    by_id = {r["id"]: r for r in rows}
    assert by_id["a100-80-sxm4"]["fp8_dense_tflops"] is None  # unsupported is null, never 0
    assert by_id["rtx4090"]["nvlink_gbps"] == 0
    assert by_id["t4"]["price_usd"] is None


def test_show_h100_sxm_gives_datasheet_values(capsys):
    assert main(["catalog", "show", "h100 sxm", "--json"]) == 0
    gpu = json.loads(capsys.readouterr().out)
    assert set(ISSUE_KEYS) <= set(gpu)
    assert gpu["id"] == "h100-sxm5"
    assert gpu["bf16_dense_tflops"] == 989.4 and gpu["fp16_dense_tflops"] == 989.4
    assert gpu["fp8_dense_tflops"] == 1978.9 and gpu["tf32_dense_tflops"] == 494.7
    assert gpu["memory_gb"] == 80 and gpu["memory_bandwidth_gbps"] == 3350
    assert gpu["nvlink_gbps"] == 900 and gpu["tdp_w"] == 700 and gpu["mig_max_instances"] == 7
    assert gpu["host_interface"] == "PCIe Gen5 x16" and gpu["ecc"] is True
    assert gpu["memory_bytes"] == 80 * 2**30
    assert gpu["source_url"].startswith("https://www.nvidia.com/")


def test_show_text_has_units(capsys):
    assert main(["catalog", "show", "rtx4090"]) == 0
    out = capsys.readouterr().out
    assert "1008 GB/s" in out and "165.2 TFLOPS" in out and "450 W" in out
    assert "N/A (no FP4 support)" in out
    assert "FP32-accumulate" in out
    assert main(["catalog", "show", "a30"]) == 0
    assert "All sources:" in capsys.readouterr().out  # datasheet plus the MIG supported-GPU list


def test_show_says_sold_worldwide_plainly(capsys):
    # no market restriction is an answer, not a missing value: never "N/A (sold worldwide)"
    assert main(["catalog", "show", "rtx4090"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Made for market:"))
    assert line.split(":", 1)[1].strip() == "sold worldwide"
    assert main(["catalog", "show", "h20"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Made for market:"))
    assert line.split(":", 1)[1].strip() == "china"


def test_ambiguous_fragment_lists_matches_and_fails(capsys):
    assert main(["catalog", "show", "h100"]) == 2
    err = capsys.readouterr().err
    assert "matches 3 GPUs" in err
    for gpu_id in ("h100-pcie", "h100-sxm5", "h100-nvl"):
        assert gpu_id in err


def test_unknown_gpu_fails(capsys):
    assert main(["catalog", "show", "voodoo5"]) == 2
    assert "No GPU matches 'voodoo5'" in capsys.readouterr().err


def test_compare(capsys):
    assert main(["catalog", "compare", "a100 80gb sxm", "h100 sxm", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["a100-80-sxm4", "h100-sxm5"]
    assert main(["catalog", "compare", "a100-80-sxm4", "h100-sxm5", "4090"]) == 0
    out = capsys.readouterr().out
    assert "* = values differ" in out
    assert any(line.startswith("*") and "Memory bandwidth" in line for line in out.splitlines())
    assert any(line.startswith(" ") and "Vendor" in line for line in out.splitlines())


def test_compare_needs_two_and_reports_ambiguity(capsys):
    assert main(["catalog", "compare", "h100-sxm5"]) == 2
    assert "at least two" in capsys.readouterr().err
    assert main(["catalog", "compare", "h100-sxm5", "a100"]) == 2
    assert "a100-40-pcie" in capsys.readouterr().err


def test_list_text_is_an_aligned_table(capsys):
    assert main(["catalog", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Memory (GiB)" in lines[0] and "BF16 dense (TFLOPS)" in lines[0] and "Price (USD)" in lines[0]
    widths = {len(line) for line in lines[2:28]}
    assert max(widths) <= len(lines[1])


def test_missing_catalog_exit_status(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPUDESK_CATALOG", str(tmp_path / "none.db"))
    assert main(["catalog", "list"]) == 1
    assert "missing" in capsys.readouterr().err


def test_catalog_needs_an_action(capsys):
    with pytest.raises(SystemExit) as info:
        main(["catalog"])
    assert info.value.code == 2


def test_show_says_sold_worldwide_in_chinese(capsys, zh_cn):
    assert main(["catalog", "show", "rtx4090"]) == 0
    out = capsys.readouterr().out
    assert "全球销售" in out and "N/A" not in next(x for x in out.splitlines() if "全球销售" in x)


def test_models_lists_the_ids_that_model_flags_take(capsys):
    # A new user who reads "--model: catalog model id" needs the ids: `catalog models` lists them, the models added
    # on 2026-12-05 included, with their sizes from db/models.csv.
    assert main(["catalog", "models", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["qwen3-coder-480b-a35b"]["params"] == 480_154_875_392
    assert rows["qwen3-coder-480b-a35b"]["moe_experts"] == 160
    assert rows["minimax-m2.7"]["checkpoint_weight_format"] == "fp8"
    assert rows["gemma-4-31b"]["context_length_tokens"] == 262_144 and rows["gemma-4-31b"]["active_params"] is None
    assert main(["catalog", "models"]) == 0
    text = capsys.readouterr().out
    line = next(ln for ln in text.splitlines() if ln.startswith("minimax-m2.7 "))
    assert "228.7" in line and "10.0" in line and "256 / 8" in line and "204,800" in line
    assert f"{len(rows)} models." in text
    assert main(["estimate", "memory", "--model", "gemma-4-31b", "--mode", "inference", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"]["params"] == rows["gemma-4-31b"]["params"]
    assert main(["--lang", "zh_CN", "catalog", "models"]) == 0
    assert "个模型" in capsys.readouterr().out
