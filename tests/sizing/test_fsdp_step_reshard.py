"""FSDP holds no gathered unit at the optimizer step; the reserved pool keeps them
(gpudesk.sizing.fsdp_step_reshard)."""

import json

import pytest

from gpudesk.sizing.fsdp_step_reshard import (
    fsdp_end_of_backward_gathered_bytes,
    fsdp_stream_cache_bytes,
    step_phase_bytes,
)
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.validation import default_cases_path, evaluate_case

FIXTURES = default_cases_path().parent
CONFIGS = FIXTURES / "configs"
MISTRAL = spec_from_hf_config(CONFIGS / "mistral-7b.config.json")
GEMMA = spec_from_hf_config(CONFIGS / "gemma-7b.config.json")
# Fused loss, full recompute, batch 32 x 512 on 4 GPUs: the optimizer step (foreach AdamW) is the peak.
STEP_PEAK = dict(mode="train", optimizer="adamw", seq_len_tokens=512, micro_batch_size=32, gpus=4, sharding="fsdp",
                 fsdp_version=1, recompute="full", loss="fused", fused_norm=True)


def _row(name: str, case_id: str) -> dict:
    for line in (FIXTURES / name).read_text().splitlines():
        row = json.loads(line)
        if row["id"] == case_id:
            return row
    raise AssertionError(case_id)


def test_the_step_holds_twenty_bytes_a_parameter_of_the_shard_and_no_gathered_unit():
    # bf16 compute over fp32 sharded parameters: fp32 parameter, gradient, two Adam moments and _foreach_sqrt's
    # copy, 20 bytes a parameter of the shard. Liger-Kernel's FSDP1 log for Mistral-7B (38411af3,
    # results/mistral_use_liger_False_patching_type_None.log) reads 34,547.7-34,547.9 MiB at every step.
    est = estimate_memory(MISTRAL, MemoryWorkload(precision="bf16", **STEP_PEAK))
    assert est.breakdown.get("activations", 0) == 0
    assert est.breakdown.get("gathered_layers", 0) == 0
    assert est.allocated_bytes == pytest.approx(20 * MISTRAL.params / 4, rel=1e-6)
    assert est.allocated_bytes / 2**20 == pytest.approx(34547.8, rel=0.002)


def test_the_reserved_pool_still_holds_the_units_gathered_in_backward():
    est = estimate_memory(MISTRAL, MemoryWorkload(precision="bf16", **STEP_PEAK))
    backward = estimate_memory(MISTRAL, MemoryWorkload(precision="bf16", **dict(STEP_PEAK, micro_batch_size=256)))
    gathered = backward.component("gathered_layers")
    assert gathered > 0  # the start of backward (big activations) keeps its gathered units
    assert est.component("fsdp_stream_cache") == pytest.approx(gathered)
    assert est.reserved_bytes == pytest.approx(est.allocated_bytes + gathered + est.component("fragmentation"))
    assert backward.component("fsdp_stream_cache") == 0


def test_the_end_of_backward_keeps_the_root_unit_when_the_step_builds_nothing():
    # A fused AdamW step makes no temporary: the end of backward, the root unit (embeddings and LM head) still
    # gathered with its unsharded gradient, is the later moment.
    small = dict(STEP_PEAK, micro_batch_size=1, seq_len_tokens=128)
    est = estimate_memory(GEMMA, MemoryWorkload(precision="bf16", optimizer_impl="fused", **small))
    root = fsdp_end_of_backward_gathered_bytes(GEMMA, (2.0, 4.0, 2.0, 8.0))
    assert root == GEMMA.embedding_params * 4
    assert est.breakdown.get("optimizer_step_temporaries", 0) == 0
    assert est.component("gathered_layers") == pytest.approx(root)


def test_phase_helpers():
    assert step_phase_bytes(5.0, 3.0) == (5.0, 0.0)
    assert step_phase_bytes(2.0, 3.0) == (0.0, 3.0)
    whole = fsdp_end_of_backward_gathered_bytes(MISTRAL, (2.0, 0.0, 2.0, 4.0), root_only=True)
    assert whole == MISTRAL.params * 4
    # The peak in backward: nothing beyond it is reserved; at the step: the gathered units are.
    assert fsdp_stream_cache_bytes(gathered_bytes=2, fwd_bwd_bytes=10, step_bytes=8, after_backward_bytes=8) == 0
    assert fsdp_stream_cache_bytes(gathered_bytes=2, fwd_bwd_bytes=5, step_bytes=8, after_backward_bytes=8) == 2


@pytest.mark.parametrize(("name", "case_id"), [
    ("measured_peaks_later.jsonl", "fms-full-mistral-7b-2gpu-bs2"),
    ("measured_peaks_later.jsonl", "fms2025-02-full-mistral-7b-2gpu-bs2"),
    ("measured_peaks_fresh7.jsonl", "fresh7-fms2405-full-mistral-7b-2gpu-bs2"),
])
def test_published_fsdp_steps(name, case_id):
    # fms-acceleration's pure-bf16 Mistral-7B FSDP runs on 2 GPUs: 10 bytes a parameter of the shard at the step
    # (was 1.05-1.06 with two gathered blocks and the root counted there).
    result = evaluate_case(_row(name, case_id), CONFIGS)
    assert result.ratio == pytest.approx(1.0, abs=0.02)
