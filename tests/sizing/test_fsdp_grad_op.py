"""FSDP SHARD_GRAD_OP keeps each rank's parameter shard beside the unsharded parameters (``--sharding
fsdp-grad-op``), on the published lightning-thunder lit-gpt runs (open_llama_3b, bf16-true, SGD, 2 x A100-40GB)."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.fsdp_grad_op import grad_op_shard_bytes
from gpudesk.sizing.validation import UNIT_BYTES, case_workload, load_cases

SIZING = FIXTURES / "sizing"
SPEC = spec_from_hf_config(SIZING / "configs" / "open-llama-3b-v2.config.json")
ROWS = {c["id"]: c for c in load_cases(SIZING / "measured_peaks_fresh19.jsonl") if "thunder-litgpt-openllama3b" in c["id"]}


def _weights(precision: str, sharding: str, gpus: int = 2) -> int:
    w = MemoryWorkload(mode="train", precision=precision, optimizer="sgd_plain", seq_len_tokens=2048,
                       micro_batch_size=2, gpus=gpus, sharding=sharding)
    return estimate_memory(SPEC, w).breakdown["weights"]


def test_the_shard_is_extra_only_without_a_master_copy():
    assert grad_op_shard_bytes(1000, (2.0, 0.0, 2.0, 0.0), 2) == 1000
    assert grad_op_shard_bytes(1000, (2.0, 4.0, 2.0, 8.0), 2) == 0  # the fp32 shard is the master, counted
    assert grad_op_shard_bytes(1000, (2.0, 0.0, 2.0, 0.0), 1) == 0
    # bf16-pure over 2 GPUs: the unsharded bf16 parameters plus half of them as the rank's shard.
    assert _weights("bf16-pure", "fsdp-grad-op") == pytest.approx(_weights("bf16-pure", "zero2") * 1.5, abs=2)
    assert _weights("bf16", "fsdp-grad-op") == _weights("bf16", "zero2")


def test_published_shard_grad_op_runs_sit_above_the_one_gpu_run_by_the_shard():
    one = ROWS["fresh19-thunder-litgpt-openllama3b-1gpu-eager"]
    measured_one = one["value"] * UNIT_BYTES[one["unit"]]
    for case_id in ("fresh19-thunder-litgpt-openllama3b-2gpu-fsdp-stage2-nowrap-eager",
                    "fresh19-thunder-litgpt-openllama3b-2gpu-fsdp-stage2-block-eager"):
        case = ROWS[case_id]
        est = estimate_memory(SPEC, case_workload(case))
        measured = case["value"] * UNIT_BYTES[case["unit"]]
        assert abs(est.allocated_bytes / measured - 1) <= 0.05
        # The published step from one GPU to SHARD_GRAD_OP on two is the bf16 half-model shard (within 10 %).
        assert (measured - measured_one) == pytest.approx(SPEC.params * 2 / 2, rel=0.10)


def test_unsharded_parameters_are_freed_before_the_step():
    """Lightning's FSDP guide (demo Transformer 1.01 B, fp32, Adam, 2 x A100, fresh49): SHARD_GRAD_OP measured
    11.5 GiB; the unsharded parameters are freed after backward (``_should_free_in_backward``) and FSDP keeps no
    DeepSpeed fp32 clone, so neither the step's temporaries nor a clone sit on top of them (1.30 before)."""
    from gpudesk.sizing.fsdp_grad_op import grad_op_unsharded_bytes
    assert grad_op_unsharded_bytes(1000, (4.0, 0.0, 4.0, 8.0), 2) == 4000
    assert grad_op_unsharded_bytes(1000, (4.0, 0.0, 4.0, 8.0), 1) == 0
    spec = spec_from_hf_config(SIZING / "configs" / "lightning-demo-transformer-1b.config.json")
    rows = [c for c in load_cases(SIZING / "measured_peaks_fresh49.jsonl") if c["id"].endswith("fsdp1-gradop")]
    assert len(rows) == 2
    for case in rows:
        est = estimate_memory(spec, case_workload(case))
        assert "master_weights" not in est.breakdown
        measured = case["value"] * UNIT_BYTES[case["unit"]]
        assert abs(est.statistic_bytes(case["statistic"]) / measured - 1) <= 0.15, case["id"]
