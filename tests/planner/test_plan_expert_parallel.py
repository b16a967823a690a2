"""The planner with expert parallelism (qa51 D1, D9): it searches GPU counts the expert-parallel layout divides
and refuses only when none fits the GPU-count limit, naming the counts that would."""

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import PlanInputError, plan
from gpudesk.planner.requirement import ModelMemory, Operations, Requirement, WorkloadMix
from gpudesk.planner.workload import gpu_count_step


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _req(max_gpus, *, ep=8, model="qwen3-30b-a3b", sharding="auto", tp=1):
    return Requirement(model=ModelMemory(model=model, mode="train", expert_parallel=ep, sharding=sharding,
                                         tensor_parallel=tp),
                       workload=WorkloadMix(tokens_to_train=2e9, deadline_s=7 * 86400),
                       operations=Operations(max_gpus=max_gpus))


def test_plans_an_expert_parallel_moe_on_multiples_of_ep(catalog):
    result = plan(_req(16), catalog)
    assert result.candidates
    assert {c.count for c in result.candidates} <= {8, 16}
    assert result.top.fits
    # The whole job's memory ("one GPU, no sharding") is the model without the split, not refused on 1 GPU.
    assert result.memory.gpus == 1 and result.memory.experts is None
    # Each option's own memory holds 16 of the 128 experts per GPU where the chosen sharding splits them.
    split = [c for c in result.candidates if c.memory.experts is not None]
    assert split and all(c.memory.experts.experts_per_gpu == 16 for c in split)
    assert all(c.expert_parallel == 8 for c in split)
    assert any("multiples of expert parallel" in text for text, _src in result.rationale)


def test_step_is_tp_times_ep_where_expert_parallel_acts():
    assert gpu_count_step(_req(16)) == 8
    assert gpu_count_step(_req(16, tp=2)) == 16
    # Full training under ZeRO-3 / FSDP shards the experts over the expert-data-parallel ranks (Megatron-FSDP): the
    # layout still needs multiples of ep.
    assert gpu_count_step(_req(16, sharding="zero3")) == 8


def test_refused_only_below_the_first_valid_count_naming_the_counts(catalog):
    with pytest.raises(PlanInputError) as info:
        plan(_req(4), catalog)
    assert info.value.field == "model.expert_parallel"
    text = info.value.reason
    assert "8, 16, 24" in text and "4" in text
    assert "expert-tensor-parallel" not in text and "1 GPUs" not in text


def test_dense_model_still_refused_with_its_reason(catalog):
    with pytest.raises(PlanInputError) as info:
        plan(_req(16, model="llama-3-8b"), catalog)
    assert "no experts" in info.value.reason
