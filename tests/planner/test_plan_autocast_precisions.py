"""The planner plans the precisions ``estimate memory`` takes: torchtune's all-bf16 recipes (``bf16-pure``) and
torch.autocast over fp32 parameters (``fp16-amp``, ``bf16-amp``). The speed model once refused them ("precision:
'bf16-pure' is not one of: bf16, fp16, fp32, fp8"), so every card was rejected although the memory estimate fitted.

The case: torchtune's ``llama3_1/8B_full_single_device`` recipe (dtype bf16, no mixed precision: all-bf16 weights
and states) and the same job under autocast over fp32 weights, on one H100-class card, 2048-token sequences.
"""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import plan
from gpudesk.planner.requirement import Requirement


def _full_finetune(precision: str) -> Requirement:
    req = Requirement()
    m = req.model
    m.model, m.mode, m.precision = "llama-3.1-8b", "train", precision
    m.seq_len_tokens, m.micro_batch_size, m.global_batch_size = 2048, 1, 8
    m.recompute, m.sharding = "full", "ddp"
    req.data.sample_count = 10_000
    req.operations.max_gpus = 8
    return req


@pytest.mark.parametrize("precision", ["bf16-pure", "fp16-amp", "bf16-amp"])
def test_the_plan_times_autocast_and_all_bf16_jobs(precision):
    result = plan(_full_finetune(precision), open_catalog())
    timed = [c for c in result.candidates if c.step_time_s and c.time_to_result_s]
    assert timed, [r for r in result.rejected][:3]
    # No card is turned away for the precision itself.
    assert not [r for r in result.rejected if "is not one of" in str(r)]


def test_autocast_pays_for_fp32_gradients_where_the_all_bf16_job_does_not():
    pure = plan(_full_finetune("bf16-pure"), open_catalog())
    amp = plan(_full_finetune("bf16-amp"), open_catalog())
    best_pure = {(c.gpu_id, c.count): c for c in pure.candidates}
    pairs = [(best_pure[(c.gpu_id, c.count)], c) for c in amp.candidates if (c.gpu_id, c.count) in best_pure
             and c.count > 1 and c.step_time_s and best_pure[(c.gpu_id, c.count)].micro_batch_size == c.micro_batch_size
             and best_pure[(c.gpu_id, c.count)].recompute == c.recompute]
    assert pairs
    assert all(a.step_time_s >= p.step_time_s for p, a in pairs)
