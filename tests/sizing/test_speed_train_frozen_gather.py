"""ZeRO-3 / FSDP gather a LoRA run's frozen base weights (speed_parallel.frozen_weight_gather_bytes).

ZeRO-3 partitions every parameter, trained or frozen (Rajbhandari et al. 2019, arXiv 1910.02054, section 5.3), so a
LoRA run gathers the whole base model for each forward and backward while only the adapters have gradients. Checked
on MLPerf Training v4.0's Llama2-70B LoRA layout under DeepSpeed ZeRO-3 (Juniper's 32 H100 submission, fresh11 row
mlperf-t40-juniper-h100-32gpu-llama2-70b-lora-zero3: GBS 32, MBS 1, seq 8192), moved onto one GPU per node on 100 Gb/s
Ethernet so that the gathers cannot hide under the compute.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_parallel import LinkSpeed, data_parallel_bytes, frozen_weight_gather_bytes
from gpudesk.sizing.speed_train import TrainSetup, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates


@pytest.fixture(scope="module")
def lora_run():
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.find_model("llama-2-70b"))
    rates = gpu_rates(catalog.find_gpu("h100-sxm5"), catalog.gpus())
    setup = TrainSetup(gpus=32, seq_len=8192, global_batch=32, micro_batch=1, sharding="zero3", recompute="full",
                       framework="deepspeed", gpus_per_node=1, intra_gbps=12.5, inter_gbps=12.5,
                       adapter_params=44_564_480)
    return spec, rates, setup


def test_frozen_gather_bytes_formula():
    assert frozen_weight_gather_bytes(1e9, 1) == 0.0
    assert frozen_weight_gather_bytes(1e9, 8) == pytest.approx(2 * 7 / 8 * 1e9 * 2)


def test_lora_under_zero3_gathers_the_base_model(lora_run):
    spec, rates, setup = lora_run
    speed = train_speed(spec, rates, setup)
    b = speed.breakdown
    compute = b["gemm_s"] + b["attention_s"] + b["other_kernels_s"]
    # DeepSpeed under full recompute gathers the weights for the recomputed forward too: 3 gathers per micro-batch
    # (speed_train Framework.regathers_for_recompute).
    moved = (data_parallel_bytes(setup.adapter_params, 32, "zero3", weight_gathers=3)
             + frozen_weight_gather_bytes(spec.params, 32, weight_gathers=3))
    expected = LinkSpeed("ring", 12.5).seconds(moved, hops=2 * 32) - compute
    assert expected > 10.0  # 3 x 138 GB over one 100 Gb/s port per GPU is far beyond the step's compute
    assert b["data_parallel_exposed_s"] == pytest.approx(expected, rel=1e-9)


def test_zero1_lora_keeps_the_base_whole(lora_run):
    spec, rates, setup = lora_run
    # ZeRO-1 does not partition the weights: only the adapters' gradients travel.
    zero1 = train_speed(spec, rates, replace(setup, sharding="zero1")).breakdown["data_parallel_exposed_s"]
    assert zero1 == pytest.approx(LinkSpeed("ring", 12.5).seconds(data_parallel_bytes(setup.adapter_params, 32, "zero1"),
                                                                 hops=2 * 32))
