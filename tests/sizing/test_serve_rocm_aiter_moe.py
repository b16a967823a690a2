"""vLLM's AITER fused MoE on CDNA 4 (gpudesk.sizing.serve_rocm_aiter_moe): the measured time per MoE layer of the
Qwen3-235B-A22B block-FP8 expert-parallel slice (ROCm/aiter aiter/configs/model_configs/
a8w8_blockscale_tuned_fmoe_qwen3_235b.csv, cu_num 256), where it applies, and what it adds to the moreh-dev
mi355_benchmark layout (Qwen3-235B-A22B-FP8, vLLM, 8 x MI355X, TP 8 + expert parallelism, VLLM_ROCM_USE_AITER=1)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rocm_aiter_moe import (
    AITER_FUSED_MOE_S_BY_PAIRS,
    QWEN3_235B_EP_SHAPE,
    aiter_moe_layer_s,
    aiter_moe_points,
)
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import _spec, intra_link

QWEN3_POINTS = AITER_FUSED_MOE_S_BY_PAIRS[QWEN3_235B_EP_SHAPE]


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_layer_times_follow_the_tuned_table():
    # tuner rows of 1 and 8 tokens, top-8 among the GPU's 16 experts: 8 and 64 (token, expert) pairs
    assert aiter_moe_layer_s(QWEN3_POINTS, 8) == pytest.approx(44.4733e-6)
    assert aiter_moe_layer_s(QWEN3_POINTS, 64) == pytest.approx(65.7221e-6)
    assert aiter_moe_layer_s(QWEN3_POINTS, 1) == pytest.approx(44.4733e-6)  # below the first point: its time
    assert aiter_moe_layer_s(QWEN3_POINTS, 36) == pytest.approx((44.4733e-6 + 65.7221e-6) / 2)
    assert aiter_moe_layer_s(QWEN3_POINTS, 4096) == pytest.approx(249.0736e-6)  # 512 tuner tokens
    assert aiter_moe_layer_s(QWEN3_POINTS, 2 * 262144) == pytest.approx(2 * 10403.6177e-6)
    assert aiter_moe_layer_s(QWEN3_POINTS, 0) == 0.0


def test_applies_to_vllm_with_aiter_on_cdna4_and_the_measured_slice(catalog):
    mi355x = catalog.gpu("mi355x")
    args = ("fp8", 4096, 1536, 128, 8)
    assert aiter_moe_points("vllm", True, mi355x, 256, *args, tp=8, expert_parallel=8) == QWEN3_POINTS
    assert aiter_moe_points("vllm", None, mi355x, 256, *args, tp=8, expert_parallel=8) == ()  # AITER not said on
    assert aiter_moe_points("vllm", False, mi355x, 256, *args, tp=8, expert_parallel=8) == ()
    assert aiter_moe_points("sglang", True, mi355x, 256, *args, tp=8, expert_parallel=8) == ()
    # TP 8 without expert parallelism: 128 experts of a 192-wide slice, another shape (not measured)
    assert aiter_moe_points("vllm", True, mi355x, 256, *args, tp=8, expert_parallel=1) == ()
    # EP 4: 32 experts per GPU, not measured
    assert aiter_moe_points("vllm", True, mi355x, 256, *args, tp=4, expert_parallel=4) == ()
    assert aiter_moe_points("vllm", True, catalog.gpu("mi300x"), 304, *args, tp=8, expert_parallel=8) == ()
    assert aiter_moe_points("vllm", True, mi355x, 256, "bf16", 4096, 1536, 128, 8, tp=8, expert_parallel=8) == ()


def test_qwen3_235b_ep8_decode_on_mi355x_pays_the_fused_moe_call(catalog):
    """One decode token: every MoE layer pays AITER's ~44 us call, not the ~7 us stream of the experts its pairs
    touch; moreh-dev/mi355_benchmark team_ce/qwen3/rocm_tp_logs.csv at 12f29ad measures a 16.0 ms mean TPOT at
    concurrency 1 (the model stays below it: the rest of the gap is not explained, speedfix45/49 notes)."""
    spec = _spec("qwen3-235b-a22b")
    gpu = catalog.gpu("mi355x")
    link = intra_link(gpu, "infinity-fabric", 8)
    on = ServeLoad(engine="vllm", tp=8, expert_parallel=8, concurrency=1, weight_format="fp8", rocm_aiter=True)
    off = ServeLoad(engine="vllm", tp=8, expert_parallel=8, concurrency=1, weight_format="fp8", rocm_aiter=None)
    with_aiter = step_model(spec, gpu, on, link, "bf16")
    without = step_model(spec, gpu, off, link, "bf16")
    assert with_aiter.aiter_moe_points and not without.aiter_moe_points
    extra = with_aiter.rocm_aiter_moe_extra_s(1)
    assert extra == pytest.approx(with_aiter.step_s(1, 600.0) - without.step_s(1, 600.0))
    # 94 MoE layers x (44.5 us - the modelled ~7 us stream - 4 kernels at the floor): about 2 ms
    assert 1.5e-3 < extra < 3.0e-3
    assert without.step_s(1, 600.0) < with_aiter.step_s(1, 600.0) < 16.0e-3
    # a 4096-token prefill: 4096 pairs per GPU, 249 us per MoE layer, longer than the modelled experts' time
    assert with_aiter.rocm_aiter_moe_extra_s(4096) > 0.0
    assert any(a.name == "rocm_aiter_moe_layer_s" for a in with_aiter.assumptions)


def test_a_shorter_measured_table_still_names_its_points(catalog, monkeypatch):
    """A table with fewer than four points (a shape measured at fewer token counts) is shown by its first and last
    point instead of failing on a missing fourth."""
    import gpudesk.sizing.serve_rocm_aiter_moe as aiter

    monkeypatch.setitem(aiter.AITER_FUSED_MOE_S_BY_PAIRS, QWEN3_235B_EP_SHAPE, QWEN3_POINTS[:2])
    spec, gpu = _spec("qwen3-235b-a22b"), catalog.gpu("mi355x")
    load = ServeLoad(engine="vllm", tp=8, expert_parallel=8, concurrency=1, weight_format="fp8", rocm_aiter=True)
    model = step_model(spec, gpu, load, intra_link(gpu, "infinity-fabric", 8), "bf16")
    shown = next(a for a in model.assumptions if a.name == "rocm_aiter_moe_layer_s")
    assert dict(shown.quantities)["fourth_pairs"] == QWEN3_POINTS[1][0]
