"""transformers' Llama 4 MoE block runs every token through every routed expert (gpudesk.sizing.shapes
HF_DENSE_ROUTED_MODEL_TYPES, gpudesk.sizing.speed_train.routed_copies): ``Llama4TextMoe.forward`` repeats the hidden
states once per expert and zeroes the unselected ones by the router score, so a trainer on transformers' modeling
files (hf-trainer, deepspeed profiles; axolotl maps to hf-trainer) computes all 16 of Scout's experts, while
Megatron-Core and torchtitan route sparsely. Checked on axolotl's published Scout QLoRA runs (fresh108)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import bundle_root
from gpudesk.sizing.shapes import spec_from_catalog, spec_from_hf_config
from gpudesk.sizing.speed_train import FRAMEWORKS, TrainSetup, _shape, routed_copies, train_speed
from gpudesk.sizing.speed_train_cases import case_setup, gpu_rates, predict_train_case

FRESH108 = bundle_root() / "tests/fixtures/speed/fresh108_train_runs.jsonl"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _row(case_id: str) -> dict:
    for line in FRESH108.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == case_id:
            return row
    raise AssertionError(case_id)


def test_llama4_is_dense_routed_in_transformers_others_not(catalog) -> None:
    assert spec_from_catalog(catalog.find_model("llama-4-scout")).hf_dense_routed_experts
    assert spec_from_catalog(catalog.find_model("llama-4-maverick")).hf_dense_routed_experts
    moonlight = spec_from_hf_config(bundle_root() / "tests/fixtures/speed/configs/moonlight-16b-a3b.config.json")
    assert not moonlight.hf_dense_routed_experts


def test_routed_copies_every_expert_only_on_transformers_modeling(catalog) -> None:
    spec = spec_from_catalog(catalog.find_model("llama-4-scout"))
    sh = _shape(spec, 4096)
    assert routed_copies(spec, sh, FRAMEWORKS["hf-trainer"]) == 16
    assert routed_copies(spec, sh, FRAMEWORKS["deepspeed"]) == 16
    assert routed_copies(spec, sh, FRAMEWORKS["torchtitan-compile"]) == 1
    assert routed_copies(spec, sh, FRAMEWORKS["megatron"]) == 1


def test_axolotl_maps_to_hf_trainer(catalog) -> None:
    row = _row("axolotl-9f986f5-llama4-scout-qlora-1xh100-fa2-mbs1-s4096")
    assert case_setup(row, catalog, catalog.find_gpu(row["gpu"])).framework == "hf-trainer"


def test_scout_qlora_single_h100_within_20_percent() -> None:
    # README at 9f986f5: "546 tokens/second" on one H100, 4k packed, QLoRA (before: 5.7x too fast).
    row = _row("axolotl-9f986f5-llama4-scout-qlora-1xh100-fa2-mbs1-s4096")
    predicted, _speed = predict_train_case(row)
    assert abs(predicted / row["measured"]["value"] - 1) <= 0.2


def test_dense_routing_costs_the_unselected_experts(catalog) -> None:
    spec = spec_from_catalog(catalog.find_model("llama-4-scout"))
    gpu = catalog.find_gpu("h100-sxm5")
    setup = TrainSetup(gpus=1, seq_len=4096, global_batch=1, micro_batch=1, framework="hf-trainer",
                       recompute="full", sharding="ddp", adapter_params=1.1e8)
    dense = train_speed(spec, gpu_rates(gpu), setup)
    sparse = train_speed(replace(spec, hf_dense_routed_experts=False), gpu_rates(gpu), setup)
    # 16 experts instead of 1 of ~97B expert parameters against ~11B others: several times the GEMM time.
    assert dense.breakdown["gemm_s"] > 3 * sparse.breakdown["gemm_s"]
    assert dense.breakdown["other_kernels_s"] > sparse.breakdown["other_kernels_s"]


def test_dense_routing_is_stated_only_where_it_applies(catalog) -> None:
    spec = spec_from_catalog(catalog.find_model("llama-4-scout"))
    gpu = gpu_rates(catalog.find_gpu("h100-sxm5"))
    hf = TrainSetup(gpus=1, seq_len=4096, global_batch=1, micro_batch=1, framework="hf-trainer", recompute="full")
    names = {a.name for a in train_speed(spec, gpu, hf).assumptions}
    assert "hf_dense_routed_experts" in names
    titan = replace(hf, framework="torchtitan-eager")
    assert "hf_dense_routed_experts" not in {a.name for a in train_speed(spec, gpu, titan).assumptions}
