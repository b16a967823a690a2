"""Tuned vs default fused-MoE configurations (gpudesk.sizing.serve_moe_configs): the GPU's local expert shape keys
the engines' tuned files; a shape without one runs the default block-FP8 tiles (64 rows in SGLang and vLLM before
v0.17, 16 up to 64 tokens after vLLM PR 34846)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_moe_configs import local_expert_shape, tuned_block_fp8_config
from gpudesk.sizing.serve_moe_tiles import fused_moe_tiles
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_local_shape_under_tensor_and_expert_parallelism():
    # DeepSeek-R1 (256 experts, width 2048): TP 8 slices every expert, EP 8 holds 32 whole experts.
    assert local_expert_shape(256, 2048, 8, 1) == (256, 256)
    assert local_expert_shape(256, 2048, 8, 8) == (32, 2048)
    # Qwen3-Coder-480B at TP 8 with EP 2 (SGLang moe_tp_size = tp / ep = 4): 80 experts of width 640.
    assert local_expert_shape(160, 2560, 8, 2) == (80, 640)
    with pytest.raises(ValueError):
        local_expert_shape(256, 2048, 0, 1)


def test_shipped_shapes_are_tuned_and_others_are_not():
    assert tuned_block_fp8_config(256, 256)  # DeepSeek-V3 / R1 at TP 8
    assert tuned_block_fp8_config(32, 2048)  # DeepSeek-V3 / R1 at EP 8 (vLLM, H200)
    assert not tuned_block_fp8_config(256, 192)  # MiniMax-M2 at TP 8
    assert not tuned_block_fp8_config(32, 1536)  # MiniMax-M2 at EP 8


def test_default_tiles_by_engine_release():
    sglang = fused_moe_tiles("sglang", "0.5.9", tuned=False)
    assert (sglang.rows(1), sglang.rows(16), sglang.rows(512)) == (64, 64, 64)
    old_vllm = fused_moe_tiles("vllm", "0.11.0", tuned=False)
    assert (old_vllm.rows(1), old_vllm.rows(64)) == (64, 64)
    new_vllm = fused_moe_tiles("vllm", "0.17.0", tuned=False)
    assert (new_vllm.rows(64), new_vllm.rows(65)) == (16, 64)
    assert fused_moe_tiles("vllm", None, tuned=False).rows(64) == 16
    # TensorRT-LLM has no Triton fused MoE: its tiles stay as they were.
    assert fused_moe_tiles("trtllm", None, tuned=False).rows(16) == 16


def test_minimax_m2_at_ep8_pays_default_tiles_where_deepseek_does_not(catalog):
    """MiniMax-M2.5 FP8 on 8x H100, SGLang 0.5.9, TP 8 + EP 8 (the sgl-cookbook MiniMax-M2.5 page's layout): each GPU
    holds 32 experts of width 1536, a shape with no tuned file, so a 16-request decode step computes 64-row tiles;
    DeepSeek-R1 at TP 8 on the same GPUs has the tuned 16-row tiles and pays no padding."""
    gpu = catalog.gpu("h100-sxm5")
    link = intra_link(gpu, "nvlink")
    minimax = spec_from_catalog(catalog.model("minimax-m2.7"))
    load = ServeLoad(engine="sglang", tp=8, expert_parallel=8, concurrency=16, engine_version="0.5.9",
                     weight_format="fp8")
    model = step_model(minimax, gpu, load, link, "bf16")
    assert model.moe_tiles is not None and model.moe_tiles.rows(16) == 64
    assert model.moe_tile_padding_s(16) > 0.5e-3
    assert any(a.name == "fused_moe_default_config" for a in model.assumptions)
    deepseek = spec_from_catalog(catalog.model("deepseek-r1"))
    tuned = step_model(deepseek, gpu, ServeLoad(engine="sglang", tp=8, concurrency=16, engine_version="0.5.9"),
                       link, "bf16")
    assert tuned.moe_tiles is not None and tuned.moe_tiles.rows(16) == 16
    assert not any(a.name == "fused_moe_default_config" for a in tuned.assumptions)


def test_fused_moe_quantizes_fp8_expert_inputs_in_two_kernels_per_moe_layer(catalog):
    """MiniMax-M2.5 FP8 (62 MoE layers) in vLLM: the fused-MoE op quantizes both grouped GEMMs' inputs itself, 124
    kernels per step at any release; SGLang's per-tensor FP8 quantizations are already charged per linear; BF16
    experts and TensorRT-LLM pay none (gpudesk.sizing.serve_rates.expert_quant_kernels)."""
    from gpudesk.sizing.serve_rates import expert_quant_kernels

    minimax = spec_from_catalog(catalog.model("minimax-m2.7"))
    assert expert_quant_kernels(minimax, "vllm", (0, 15), "fp8", None) == 124
    assert expert_quant_kernels(minimax, "sglang", (0, 5), "fp8", None) == 124  # block FP8: not charged per linear
    assert expert_quant_kernels(minimax, "sglang", (0, 5), "fp8", "fp8") == 0  # per-tensor: already charged
    assert expert_quant_kernels(minimax, "vllm", (0, 15), "bf16", "bf16") == 0
    assert expert_quant_kernels(minimax, "trtllm", None, "fp8", None) == 0
    gpu = catalog.gpu("h200-sxm")
    load = ServeLoad(engine="vllm", tp=8, expert_parallel=8, concurrency=4, weight_format="fp8")
    model = step_model(minimax, gpu, load, intra_link(gpu, "nvlink"), "bf16")
    assert any(a.name == "expert_quant_kernels" for a in model.assumptions)
