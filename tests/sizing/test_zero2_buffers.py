"""DeepSpeed ZeRO-2 optimizer offload keeps 16-bit gradient buffers on the GPU (gpudesk.sizing.zero2_buffers),
on the published gpjt/fine-tune-2024-04 runs (HF Trainer + DeepSpeed 0.14.2, fresh48)."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import FIXTURES
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import UNIT_BYTES, case_workload, load_cases
from gpudesk.sizing.zero2_buffers import DEFAULT_REDUCE_BUCKET_ELEMENTS, applies, zero2_offload_buffers

SIZING = FIXTURES / "sizing"
LLAMA3 = spec_from_hf_config(SIZING / "configs" / "llama-3-8b.config.json")
QWEN = spec_from_hf_config(SIZING / "configs" / "qwen1.5-0.5b.config.json")
ROWS = {c["id"]: c for c in load_cases(SIZING / "measured_peaks_fresh48.jsonl") if "z2-offopt" in c["id"]}


def _ratio(case_id: str) -> float:
    case = ROWS[case_id]
    spec = LLAMA3 if "llama" in case_id else QWEN
    est = estimate_memory(spec, case_workload(case))
    return est.statistic_bytes(case["statistic"]) / (case["value"] * UNIT_BYTES[case["unit"]])


def test_only_deepspeed_zero2_with_the_optimizer_offloaded():
    assert applies("zero2", "optimizer", False, 1)
    assert not applies("zero2", "none", False, 1)
    assert not applies("zero3", "optimizer", False, 1)
    assert not applies("zero2", "optimizer", True, 1)  # PyTorch FSDP offloads differently
    assert not applies("zero2", "optimizer", False, 2)


def test_buffers_follow_the_source():
    p, n = LLAMA3.params, 8
    b = zero2_offload_buffers(LLAMA3, p, n, 2.0)
    vocab_table = 128256 * 4096
    assert b.resident == b.head_grad == vocab_table * 2  # temp_grad_buffer_for_gpu_offload, largest param
    assert b.bucket == DEFAULT_REDUCE_BUCKET_ELEMENTS * 2  # one ipg_buffer (overlap_comm off below ZeRO-3)
    assert b.head_fp32 == min(vocab_table, p / n) * 4  # untied head: cast to fp32 beside the loss gradients
    assert b.step == p / n * 4  # fp32 partition moved to the GPU at the step
    tied = zero2_offload_buffers(QWEN, QWEN.params, 1, 2.0)
    assert tied.head_fp32 == 0  # tied embedding: its gradient completes at the end of backward


def test_the_part_is_shown_only_for_zero2_offload():
    w = MemoryWorkload(mode="train", precision="fp16", optimizer="adamw", seq_len_tokens=2048, micro_batch_size=1,
                       gpus=8, sharding="zero2", offload="optimizer", recompute="full", flash_attention=True)
    est = estimate_memory(LLAMA3, w)
    assert est.breakdown["zero_gradient_buffers"] > 0
    assert any("ZeRO-2 optimizer offload" in text for text, _source in est.assumptions)
    none = estimate_memory(LLAMA3, dataclasses.replace(w, offload="none"))
    assert "zero_gradient_buffers" not in none.breakdown


@pytest.mark.parametrize("case_id", [
    "fresh48-gpjt-qwen1.5-0.5b-full-z2-offopt-gc-1gpu-s2048-b1-active",
    "fresh48-gpjt-llama-3-8b-full-z2-offopt-gc-8gpu-s1001-b1-active",
    "fresh48-gpjt-llama-3-8b-full-z2-offopt-gc-8gpu-s2001-b1-active",
    "fresh48-gpjt-llama-3-8b-full-z2-offopt-gc-8gpu-s2048-b1-active",
])
def test_batch_one_runs_are_within_fifteen_percent(case_id):
    # Under-estimated at 0.71-0.79 before the buffers were counted.
    assert abs(_ratio(case_id) - 1) <= 0.15


def test_larger_batches_stay_within_fifteen_percent():
    for case_id in ROWS:
        assert abs(_ratio(case_id) - 1) <= 0.15, case_id


def test_plain_zero2_counts_the_reduce_bucket_in_backward_only():
    """rasbt/pytorch-memory-optim DistilBERT, Lightning deepspeed_stage_2 fp16, 4 GPUs (fresh49): 0.65 before the
    bucket was counted."""
    from gpudesk.sizing.zero2_buffers import bucket_applies
    assert bucket_applies("zero2", "none", False, "zero2", 1)
    assert not bucket_applies("zero2", "none", False, "fsdp-grad-op", 1)
    assert not bucket_applies("zero1", "none", False, "zero1", 1)
    assert not bucket_applies("zero2", "optimizer", False, "zero2", 1)  # counted with the offload buffers
    spec = spec_from_hf_config(SIZING / "configs" / "distilbert-base-uncased.config.json")
    case = next(c for c in load_cases(SIZING / "measured_peaks_fresh49.jsonl")
                if c["id"] == "fresh49-rasbtmemopt-distilbert-full-dszero2-fp16-4gpu-b12-s512")
    est = estimate_memory(spec, case_workload(case))
    assert est.breakdown["zero_gradient_buffers"] == DEFAULT_REDUCE_BUCKET_ELEMENTS * 2
    assert any("reduce bucket" in text for text, _source in est.assumptions)
    measured = case["value"] * UNIT_BYTES[case["unit"]]
    assert abs(est.statistic_bytes(case["statistic"]) / measured - 1) <= 0.15
