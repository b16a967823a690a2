"""The Triton fused MoE's serial K loop (gpudesk.sizing.serve_moe_kloop): where it applies, the chain of tile loads
it sets per grouped GEMM, and what it does to the decode step of Qwen3-235B-A22B BF16 at TP 8 on B200 (SGLang
Cookbook: TPOT 10.12 ms at one request; the weight stream alone gave 7.2 ms) while a one-GPU Qwen3-30B-A3B, whose
expert slices outlast the chain, keeps its weight-stream time."""

from __future__ import annotations

import math

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_moe_kloop import (
    HBM_LOAD_LATENCY_S,
    KLOOP_IN_FLIGHT,
    KLOOP_TILE_K_BYTES,
    kloop_applies,
    kloop_chain_s,
)
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import _spec, intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_chain_counts_round_trips_of_tile_loads():
    # hidden 4096 in BF16: 8192 bytes of a weight row, 64 tiles of 128 bytes, 3 in flight -> 22 round trips
    assert kloop_chain_s(4096, 2.0) == pytest.approx(math.ceil(64 / KLOOP_IN_FLIGHT) * HBM_LOAD_LATENCY_S)
    # the same row in FP8 is half the bytes: half the tiles
    assert kloop_chain_s(4096, 1.0) == pytest.approx(math.ceil(32 / KLOOP_IN_FLIGHT) * HBM_LOAD_LATENCY_S)
    # Qwen3-235B's down GEMM at TP 8: K = 1536 / 8 = 192 -> 3 tiles, one round trip
    assert kloop_chain_s(192, 2.0) == pytest.approx(HBM_LOAD_LATENCY_S)
    assert KLOOP_TILE_K_BYTES == 128


def test_applies_to_the_triton_fused_moe_only(catalog):
    b200, mi300x = catalog.gpu("b200"), catalog.gpu("mi300x")
    assert kloop_applies("sglang", b200, "bf16", False)
    assert kloop_applies("vllm", b200, "fp8", False)
    assert not kloop_applies("vllm", b200, "fp8", True)  # block FP8: serve_moe_tiles
    assert not kloop_applies("trtllm", b200, "bf16", False)  # CUTLASS grouped GEMM
    assert not kloop_applies("vllm", b200, "int4-awq", False)  # Marlin
    assert not kloop_applies("sglang", mi300x, "bf16", False)  # no CDNA latency sourced


def _step(catalog, model, gpu_id, engine, tp, fmt="bf16"):
    gpu = catalog.gpu(gpu_id)
    load = ServeLoad(engine=engine, tp=tp, concurrency=1, weight_format=fmt)
    link = intra_link(gpu, "nvlink") if tp > 1 else None
    return step_model(_spec(model), gpu, load, link, "bf16")


def test_qwen3_235b_tp8_decode_is_set_by_the_k_loop(catalog):
    model = _step(catalog, "qwen3-235b-a22b", "b200", "sglang", 8)
    assert model.moe_kloop_up_s == pytest.approx(kloop_chain_s(4096, 2.0))
    assert model.moe_kloop_down_s == pytest.approx(kloop_chain_s(192, 2.0))
    extra = model.moe_kloop_extra_s(1)
    # 8 active slices of 4.7 MB: 3.6 us of gate/up weights at the HBM rate against a 13.2 us chain, 94 MoE layers
    up_stream = 8 * model.expert_bytes * 2 / 3 / model.bytes_per_s
    assert extra == pytest.approx(94 * (model.moe_kloop_up_s - up_stream), rel=0.05)
    assert 0.8e-3 < extra < 1.0e-3
    names = {a.name for a in model.assumptions}
    assert "fused_moe_k_loop_s" in names
    # at 16 tokens 82 experts are touched: their bytes outlast the chain, nothing is added
    assert model.moe_kloop_extra_s(16) == 0.0


def test_one_gpu_slices_outlast_the_chain(catalog):
    model = _step(catalog, "qwen3-30b-a3b", "h200-sxm", "vllm", 1)
    assert model.moe_kloop_up_s > 0
    assert model.moe_kloop_extra_s(1) == 0.0


def test_dense_models_and_other_engines_get_nothing(catalog):
    assert _step(catalog, "llama-3.1-8b", "h100-sxm5", "vllm", 1).moe_kloop_up_s == 0.0
    assert _step(catalog, "qwen3-235b-a22b", "b200", "trtllm", 8).moe_kloop_extra_s(1) == 0.0
