"""Frozen weights of 1-10 MiB loaded one tensor at a time leave the ends of 20 MiB allocator segments reserved."""

import json

import pytest

from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.validation import default_cases_path, evaluate_case
from gpudesk.sizing.weight_segments import MIB, frozen_segment_waste_bytes, replay_reserved_bytes

FIXTURES = default_cases_path().parent
QWEN_MOE = spec_from_hf_config(FIXTURES / "configs" / "qwen1.5-moe-a2.7b.config.json")
LLAMA7B = spec_from_hf_config(FIXTURES / "configs" / "llama-2-7b.config.json")
MOE_ROW = "fresh81-swift2403-lora-qwen1.5-moe-a2.7b-all-1xa100-s1024"


def _row(case_id):
    for line in (FIXTURES / "measured_peaks_fresh81.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == case_id:
            return row
    raise AssertionError(case_id)


def test_allocator_rounding_rules():
    expert = 2048 * 1408 * 2  # 5.5 MiB: three share a 20 MiB segment, 3.5 MiB stays free
    assert replay_reserved_bytes([expert] * 3) == (20 * MIB, 3 * expert)
    assert replay_reserved_bytes([expert] * 4) == (40 * MIB, 4 * expert)
    # 1 MiB and below: the small pool; 10 MiB and above: a segment of its own rounded to 2 MiB.
    assert replay_reserved_bytes([MIB]) == (0, 0)
    assert replay_reserved_bytes([11 * MIB]) == (12 * MIB, 11 * MIB)
    # A smaller later matrix takes the remainder a larger one left (best fit).
    assert replay_reserved_bytes([8 * MIB, 8 * MIB, 3 * MIB]) == (20 * MIB, 19 * MIB)


def test_small_experts_waste_and_large_matrices_do_not():
    # Qwen1.5-MoE-A2.7B: 24 layers x 60 segments x 3.5 MiB (experts) + 2 x 4 MiB (the 8 MiB attention matrices).
    assert frozen_segment_waste_bytes(QWEN_MOE, 2.0) == 24 * (60 * 3.5 + 8) * MIB
    assert frozen_segment_waste_bytes(LLAMA7B, 2.0) == 0.0  # 32 MiB and 86 MiB matrices: whole 2 MiB multiples


def test_reserved_not_allocated_and_not_under_fsdp():
    work = dict(mode="lora", precision="bf16-pure", optimizer="adamw", seq_len_tokens=1024, micro_batch_size=1,
                recompute="full", lora_rank=8)
    ddp = estimate_memory(QWEN_MOE, MemoryWorkload(**work))
    fsdp = estimate_memory(QWEN_MOE, MemoryWorkload(**work, gpus=2, sharding="fsdp"))
    waste = 24 * (60 * 3.5 + 8) * MIB
    assert ddp.reserved_bytes - ddp.allocated_bytes >= waste
    assert fsdp.reserved_bytes - fsdp.allocated_bytes < waste / 2


@pytest.mark.parametrize("case_id", [MOE_ROW, "fresh81-swift2403-lora-qwen1.5-moe-a2.7b-chat-all-1xa100-s1024"])
def test_ms_swift_qwen15_moe_lora_rows_within_15_percent(case_id):
    result = evaluate_case(_row(case_id), FIXTURES / "configs")
    assert result.abs_error <= 0.15
