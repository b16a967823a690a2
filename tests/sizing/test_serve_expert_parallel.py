"""Expert parallelism in the serving step model (gpudesk.sizing.serve_expert_parallel)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.sizing.serve_expert_parallel import busiest_rank_experts, expected_max_standard_normal
from gpudesk.sizing.speed_serve_cases import _gpu, _spec, intra_link
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.errors import SizingError


def test_expected_largest_normal_follows_the_order_statistics() -> None:
    assert expected_max_standard_normal(1) == 0.0
    assert expected_max_standard_normal(2) == pytest.approx(0.564, abs=0.03)  # exact: 1 / sqrt(pi)
    assert expected_max_standard_normal(8) == pytest.approx(1.424, abs=0.02)


def test_busiest_gpu_reads_more_experts_than_the_mean_at_decode() -> None:
    # DeepSeek-R1: 256 routed experts, 8 per token. One token on EP 8: 8 experts over 8 GPUs, 1 each on average,
    # but the step waits for the GPU that holds the most of them.
    assert busiest_rank_experts(1, 256, 8, 1) == pytest.approx(8.0)
    busiest = busiest_rank_experts(1, 256, 8, 8)
    assert 2.0 < busiest < 3.0
    # a prefill chunk touches every expert: no imbalance left, each GPU reads its 32 experts
    assert busiest_rank_experts(1600, 256, 8, 8) == pytest.approx(32.0)


def _r1_load(ep: int) -> ServeLoad:
    # TensorRT-LLM issue 5929: DeepSeek-R1 FP8 on 8 H200, TP 8 with --ep_size none / 4 / 8, 1600-token prompts
    return ServeLoad(engine="trtllm", input_tokens=1600, output_tokens=600, concurrency=1, tp=8,
                     engine_version="0.21.0rc2", expert_parallel=ep)


def test_expert_parallel_step_on_deepseek_r1_h200() -> None:
    spec, gpu = _spec("deepseek-r1"), _gpu("h200-sxm")
    link = intra_link(gpu, "nvlink", 8)
    tp_only = step_model(spec, gpu, _r1_load(1), link, "bf16")
    ep8 = step_model(spec, gpu, _r1_load(8), link, "bf16")
    # each GPU gathers, writes and sums only its own experts' routed rows: the prompt step moves fewer bytes
    # only the gather pass shrinks (7/8 of one hidden-wide bf16 row per routed pair and MoE layer); the zero rows
    # written for the other GPUs' pairs and the top-k sum stay whole
    saved = tp_only.elementwise_bytes_per_token - ep8.elementwise_bytes_per_token
    assert saved == pytest.approx(ep8.moe_layers * 8 * spec.transformer_dims.hidden_size * 2 * (1 - 1 / 8))
    assert ep8.gpu_s(0, 0.0, 1600) < tp_only.gpu_s(0, 0.0, 1600)
    # at one decode token the busiest GPU reads ~2.4 whole experts per layer where TP reads 8 slices of 1/8
    ratio = (ep8.weight_bytes_read(1) - ep8.dense_weight_bytes) / (
        tp_only.weight_bytes_read(1) - tp_only.dense_weight_bytes)
    assert ratio == pytest.approx(busiest_rank_experts(1, 256, 8, 8), rel=1e-6)
    # same bytes on average once every expert is touched
    assert ep8.weight_bytes_read(4096) == pytest.approx(tp_only.weight_bytes_read(4096))


def test_expert_parallel_needs_experts_and_must_divide_tp() -> None:
    gpu = _gpu("h200-sxm")
    with pytest.raises(SizingError) as err:
        dataclasses.replace(_r1_load(3)).validated()
    assert err.value.field == "expert_parallel"
    with pytest.raises(SizingError) as err:
        step_model(_spec("llama-3-8b"), gpu, dataclasses.replace(_r1_load(2), tp=2), intra_link(gpu, "nvlink", 2),
                   "bf16")
    assert err.value.field == "expert_parallel"
