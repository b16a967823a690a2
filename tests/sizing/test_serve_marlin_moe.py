"""Marlin MoE on narrow tensor-parallel expert slices (gpudesk.sizing.serve_marlin_moe): the block rows
``fused_marlin_moe`` picks, where the fixed time per active expert applies, and what it does to the decode step of
Kimi-K2.5 INT4 on 8 x H200 (SGLang Cookbook, Kimi-K2.5.md section 5.2: TPOT 9.22 ms at 1 request, 53.25 ms at 16)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_marlin_moe import (
    MARLIN_EXPERT_LAYER_S,
    marlin_block_rows,
    narrow_expert_block_s,
)
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import _spec, intra_link

KIMI = "tests/fixtures/sizing/configs/kimi-k2-thinking.config.json"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_block_rows_follow_fused_marlin_moe():
    # 384 experts, top-8: 16 decoding tokens put 0.33 rows on an expert -> 8-row blocks; a 610-token prompt 12.7
    # rows -> 16; a 4194-token prompt 87 rows -> 64 (none of the sizes keeps the ratio under 0.9).
    assert marlin_block_rows(1, 384, 8) == 8
    assert marlin_block_rows(16, 384, 8) == 8
    assert marlin_block_rows(610, 384, 8) == 16
    assert marlin_block_rows(4194, 384, 8) == 64


def test_fixed_time_only_for_narrow_4bit_slices_on_nvidia(catalog):
    h200 = catalog.gpu("h200-sxm")
    # Kimi at TP 8
    assert narrow_expert_block_s("sglang", h200, "int4-g32", 7168, 2048, 8, 384) == MARLIN_EXPERT_LAYER_S
    # DeepSeek-V3 AWQ
    assert narrow_expert_block_s("vllm", h200, "int4-awq", 7168, 2048, 8, 256) == MARLIN_EXPERT_LAYER_S
    # TensorRT-LLM's own CUTLASS int4 MoE GEMM, not Marlin
    assert narrow_expert_block_s("trtllm", h200, "int4-awq", 7168, 2048, 8, 256) == 0.0
    assert narrow_expert_block_s("sglang", h200, "int4-g32", 7168, 2048, 2, 384) == 0.0  # TP 2: 2048 columns, 16 tiles
    # Qwen3-30B-A3B, one GPU: 1536 columns
    assert narrow_expert_block_s("sglang", h200, "int4-awq", 2048, 768, 1, 128) == 0.0
    # narrow, but a shape not measured
    assert narrow_expert_block_s("sglang", h200, "int4-awq", 4096, 1536, 8, 128) == 0.0
    assert narrow_expert_block_s("sglang", h200, "fp8", 7168, 2048, 8, 256) == 0.0
    assert narrow_expert_block_s("sglang", h200, "int4-awq", 8192, 28672, 8, 0) == 0.0  # dense model
    # no Marlin on ROCm
    assert narrow_expert_block_s("sglang", catalog.gpu("mi350x"), "int4-g32", 7168, 2048, 4, 384) == 0.0


def test_kimi_k25_int4_decode_grows_with_the_experts_touched(catalog):
    """Cookbook H200 TP8: the step grows about 6x from 1 to 16 requests (9.22 -> 53.25 ms TPOT); the experts'
    weight stream alone grows it 2x. A 4194-token prefill (64-row blocks) is not charged."""
    spec = _spec(KIMI)
    gpu = catalog.gpu("h200-sxm")
    load = ServeLoad(engine="sglang", tp=8, concurrency=16, weight_format="int4-g32", engine_version="0.5.6.post2")
    model = step_model(spec, gpu, load, intra_link(gpu, "nvlink"), "bf16")
    one, sixteen = model.step_s(1, 900), model.step_s(16, 16 * 900)
    assert one == pytest.approx(9.22e-3, rel=0.2)
    assert sixteen == pytest.approx(53.25e-3, rel=0.2)
    active = 384 * (1 - (1 - 8 / 384) ** 16)
    assert model.marlin_extra_s(16) > 0.8 * 60 * active * MARLIN_EXPERT_LAYER_S
    assert model.marlin_extra_s(4194) == 0.0
    assert any(a.name == "marlin_moe_expert_s" for a in model.assumptions)


def test_qwen3_30b_a3b_awq_on_one_gpu_keeps_the_weight_stream(catalog):
    spec = spec_from_catalog(catalog.model("qwen3-30b-a3b"))
    gpu = catalog.gpu("rtx4090")
    load = ServeLoad(engine="vllm", tp=1, concurrency=200, weight_format="int4-awq")
    model = step_model(spec, gpu, load, None, "fp16")
    assert model.marlin_expert_s == 0.0 and model.marlin_extra_s(200) == 0.0
