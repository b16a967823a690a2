"""Block-FP8 dense GEMMs stream their weights at a rate that grows with the GEMM's output tiles
(gpudesk/sizing/serve_block_fp8_tiles.py)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_block_fp8_tiles import ada_narrow_stream_bytes_per_s, block_fp8_linear_shapes, dense_peak_share
from gpudesk.sizing.serve_block_fp8_tiles import tile_scale
from gpudesk.sizing.serve_rates import BLOCK_FP8_WEIGHT_STREAM_SHARE, block_fp8_triton_peak_share
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.shapes import spec_from_catalog


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _spec(catalog, model_id):
    return spec_from_catalog(catalog.model(model_id))


def test_the_measured_narrow_projection_keeps_its_rate_and_wider_gemms_scale_with_their_tiles():
    """DeepSeek-V3's fused q_a / kv_a projection (N 2112: 17 tiles of 128) is the measured GEMM (vllm-project/vllm
    PR 23280); a narrower one is not taken slower, Qwen3-8B's gate_up (N 24576: 192 tiles) 11.3 x faster."""
    assert tile_scale(2112) == 1.0
    assert tile_scale(512) == 1.0
    assert tile_scale(24576) == pytest.approx(192 / 17)


def test_qwen3_8b_lists_its_four_dense_linears_and_an_moe_only_its_attention(catalog):
    """Qwen3-8B (config.json: hidden 4096, 32 query heads, 8 KV heads, head_dim 128, intermediate 12288)."""
    assert block_fp8_linear_shapes(_spec(catalog, "qwen3-8b-fp8"), 1, 1) == (
        (6144, 4096), (4096, 4096), (24576, 4096), (4096, 12288))
    # Qwen3-30B-A3B: QKV 32 x 128 + 2 x 4 x 128 wide, O back to hidden 2048; the routed experts are not listed
    assert block_fp8_linear_shapes(_spec(catalog, "qwen3-30b-a3b-fp8"), 1, 1) == ((5120, 2048), (2048, 4096))


def _stream_share(catalog, model: str, gpu_id: str, tp: int = 1) -> float:
    gpu = catalog.gpu(gpu_id)
    load = ServeLoad(engine="vllm", tp=tp, concurrency=4, input_tokens=1000, output_tokens=1000,
                     weight_format="checkpoint").validated()
    step = step_model(_spec(catalog, model), gpu, load, catalog.link("nvlink4") if tp > 1 else None, "bf16")
    stream = next(a for a in step.assumptions if a.name == "block_fp8_weight_stream")
    return dict(stream.quantities)["bytes_per_s"] / (gpu.memory_bandwidth_gbps * 1e9)


def test_dense_qwen3_streams_far_above_the_narrow_share_on_h100(catalog):
    """Qwen3-8B / 32B at TP1 on H100: 32-400 tiles per linear, not DeepSeek's 17 (0.133 of the bandwidth)."""
    for model in ("qwen3-8b-fp8", "qwen3-32b-fp8"):
        assert _stream_share(catalog, model, "h100-sxm5") > 3 * BLOCK_FP8_WEIGHT_STREAM_SHARE


def test_qwen3_8b_decode_is_near_the_online_fp8_model(catalog):
    """At concurrency 4 (memory bound) the checkpoint's block-FP8 step is within 1.6x of the same model with
    online per-tensor FP8 (was 2.9x at the narrow share everywhere)."""
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="vllm", tp=1, concurrency=4, input_tokens=1000, output_tokens=1000,
                     weight_format="checkpoint").validated()
    block = step_model(_spec(catalog, "qwen3-8b-fp8"), gpu, load, None, "bf16").step_s(4, 4000.0)
    online = step_model(_spec(catalog, "qwen3-8b"), gpu, ServeLoad(
        engine="vllm", tp=1, concurrency=4, input_tokens=1000, output_tokens=1000, weight_format="fp8").validated(),
        None, "bf16").step_s(4, 4000.0)
    assert 1.0 <= block / online < 1.6


def test_wide_gemms_reach_the_triton_rate_at_fewer_rows(catalog):
    """The Triton table's rise with M is the grid filling the SMs: a prefill chunk of 512 tokens on Qwen3-8B's
    wide linears runs faster than the N 2112 table's 512-row rate."""
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine="vllm", tp=1, concurrency=4, input_tokens=1000, output_tokens=1000,
                     weight_format="checkpoint").validated()
    step = step_model(_spec(catalog, "qwen3-8b-fp8"), gpu, load, None, "bf16")
    assert dense_peak_share(512, step.dense_tile_mix, block_fp8_triton_peak_share) > \
        1.2 * block_fp8_triton_peak_share(512)


def test_amd_instinct_keeps_the_measured_share_whatever_the_width(catalog):
    """The tile grid is the CUDA kernels'; on CDNA 4 (MI355X) the vendor-neutral measured share stays."""
    assert _stream_share(catalog, "qwen3-8b-fp8", "mi355x") == pytest.approx(BLOCK_FP8_WEIGHT_STREAM_SHARE)



def test_ada_runs_the_triton_kernel_at_its_latency_bound_rate():
    """17 CTAs of the default-configuration Triton kernel stream 263.8 GB/s (vllm-project/vllm PR 23939, H100 at
    M = 1); on Ada (8.9) that rate, at most the roofline; other GPUs keep the share (None)."""
    assert ada_narrow_stream_bytes_per_s("8.9", 864e9 * 0.87) == pytest.approx(0.52757e12 / 2)
    assert ada_narrow_stream_bytes_per_s("8.9", 200e9) == 200e9
    assert ada_narrow_stream_bytes_per_s("9.0", 3.35e12) is None
    assert ada_narrow_stream_bytes_per_s("10.0", 8e12) is None


def test_h200_keeps_the_share_of_its_bandwidth(catalog):
    """Hopper / Blackwell run CUTLASS or DeepGEMM block-FP8 kernels: the narrow share of the bandwidth stays."""
    assert _stream_share(catalog, "deepseek-v3", "h200-sxm", tp=8) < 0.5


def test_qwen3_32b_fp8_on_l40s_streams_near_the_roofline(catalog):
    """Qwen3-32B-FP8 on one L40S (vllm-project/vllm PR 29217's GPU): QKV 80 tiles, O / down 40, gate_up 400 at
    ~15.5 GB/s per CTA fill most of L40S's 864 GB/s; was 0.52 of the bandwidth as a share."""
    assert _stream_share(catalog, "qwen3-32b-fp8", "l40s") > 0.75
