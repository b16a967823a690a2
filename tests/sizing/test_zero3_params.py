"""DeepSpeed ZeRO-3's gathered parameters over a step's module trace (PartitionedParameterCoordinator)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.zero3_params import (
    Zero3Settings,
    peak_gathered_params,
    step_trace,
    zero3_frozen_gathered_bytes,
    zero3_gathered_bytes,
)

CONFIGS = FIXTURES / "sizing" / "configs"
PYTHIA_1B = spec_from_hf_config(CONFIGS / "pythia-1b.config.json")
PYTHIA_69B = spec_from_hf_config(CONFIGS / "pythia-6.9b.config.json")
BLOOMZ_7B = spec_from_hf_config(CONFIGS / "bloomz-7b1.config.json")


def test_trace_runs_forward_then_backward_with_recompute():
    plain, recompute = step_trace(PYTHIA_1B, False), step_trace(PYTHIA_1B, True)
    layers = PYTHIA_1B.layers
    assert len(recompute) - len(plain) == layers * 6  # q, k, v, o and two MLP matrices run again before backward
    assert plain[0][0] == 0 and plain[-1][0] == 0  # the embedding opens the forward and closes the backward
    forward_params = sum(n for _id, n in plain[: len(plain) // 2])
    assert forward_params == pytest.approx(PYTHIA_1B.params, rel=0.01)


def test_reuse_distance_sets_what_stays_gathered():
    # Nothing kept: one module (the 50k x 2048 LM head) plus the prefetch bucket.
    none_kept = peak_gathered_params(PYTHIA_1B, Zero3Settings(max_reuse_distance=0), recompute=False)
    assert none_kept < 0.2e9
    # A window longer than the step: every module met again in backward stays gathered, the whole model.
    all_kept = peak_gathered_params(PYTHIA_1B, Zero3Settings(max_reuse_distance=10**13), recompute=False)
    assert all_kept == pytest.approx(PYTHIA_1B.params, rel=0.02)
    # DeepSpeed's default 1e9: the layers met again within 1e9 elements, half of it behind the turn of the step.
    default = peak_gathered_params(PYTHIA_69B, Zero3Settings(), recompute=False)
    assert 0.4e9 < default < 0.7e9


def test_bytes_add_the_reduce_bucket_and_one_module_gradient():
    s = Zero3Settings(max_reuse_distance=0, prefetch_bucket_size=0, param_persistence_threshold=1)
    h = PYTHIA_1B.hidden_size
    table = PYTHIA_1B.vocab_size * h
    assert zero3_gathered_bytes(PYTHIA_1B, s, 2, 2, recompute=False) == 2 * table + 2 * (table + h * h)
    bucket = zero3_gathered_bytes(PYTHIA_1B, Zero3Settings(max_reuse_distance=0, prefetch_bucket_size=0,
                                                           param_persistence_threshold=1, reduce_bucket_size=5 * 10**8),
                                  2, 2, recompute=False)
    assert bucket - zero3_gathered_bytes(PYTHIA_1B, s, 2, 2, recompute=False) == 2 * (5 * 10**8 - h * h)


def _h2o(**kw):
    # h2o-llmstudio PR #288: pythia-6.9b, fp16, ZeRO-3 over 3 GPUs, optimizer on the CPU, batch 1 x 512, checkpointing.
    return estimate_memory(PYTHIA_69B, MemoryWorkload(
        mode="train", precision="fp16", optimizer="adamw", gpus=3, sharding="zero3", offload="optimizer",
        seq_len_tokens=512, micro_batch_size=1, recompute="full", flash_attention=False, **kw))


def test_longer_reuse_distance_keeps_more_on_the_gpu():
    base, longer = _h2o(), _h2o(zero3_max_reuse_distance=10**10)
    assert longer.breakdown["gathered_layers"] > base.breakdown["gathered_layers"] + 4 * 2**30


def test_settings_refused_where_nothing_reads_them():
    with pytest.raises(SizingError) as err:
        estimate_memory(PYTHIA_1B, MemoryWorkload(mode="train", sharding="zero2", gpus=2, zero3_reduce_bucket=10**6))
    assert err.value.field == "zero3_reduce_bucket"
    with pytest.raises(SizingError) as err:
        estimate_memory(PYTHIA_1B, MemoryWorkload(mode="train", sharding="zero3", gpus=2, zero3_max_live_parameters=-1))
    assert err.value.field == "zero3_max_live_parameters"


def test_frozen_base_gathers_the_same_modules_and_the_bucket_without_a_gradient():
    # Nothing kept or prefetched: the largest module is BLOOM's 250,880 x 4,096 tied embedding, in fp32 here; the
    # reduce bucket (auto: hidden^2) is allocated whatever is trained; a frozen module has no gradient to reduce.
    s = Zero3Settings(max_reuse_distance=0, prefetch_bucket_size=0, param_persistence_threshold=1)
    h = BLOOMZ_7B.hidden_size
    table = BLOOMZ_7B.vocab_size * h
    assert zero3_frozen_gathered_bytes(BLOOMZ_7B, s, 4, recompute=False) == 4 * (table + h * h)
    full = zero3_gathered_bytes(BLOOMZ_7B, s, 4, 4, recompute=False)
    assert full - zero3_frozen_gathered_bytes(BLOOMZ_7B, s, 4, recompute=False) == 4 * table  # the module's gradient


def _peft779(**kw):
    # PEFT issue 779 / peft_lora_clm_accelerate_ds_zero3_offload.py: bloomz-7b1 LoRA r8 on query_key_value in fp32,
    # ZeRO-3 with parameters and optimizer on the CPU, 6 GPUs, batch 8 x 64; max_memory_allocated 11,487 MiB.
    args = dict(mode="lora", precision="fp32", optimizer="adamw", gpus=6, sharding="zero3", offload="all",
                seq_len_tokens=64, micro_batch_size=8, recompute="none", flash_attention=False, lora_rank=8,
                lora_targets=("query_key_value",), lora_dropout=0.1)
    args.update(kw)
    return estimate_memory(BLOOMZ_7B, MemoryWorkload(**args))


def test_lora_under_deepspeed_zero3_gathers_through_the_coordinator():
    table_fp32 = 4 * BLOOMZ_7B.vocab_size * BLOOMZ_7B.hidden_size
    deepspeed, fsdp = _peft779(), _peft779(sharding="fsdp")
    # The embedding is gathered whole (4.1 GB in fp32), not two decoder blocks as FSDP's per-block wrap gathers.
    assert deepspeed.breakdown["gathered_layers"] > table_fp32 > fsdp.breakdown["gathered_layers"]
    assert abs(deepspeed.allocated_bytes / (11487 * 2**20) - 1) < 0.15
    assert any("DeepSpeed ZeRO-3 gathers" in a for a, _src in deepspeed.assumptions)
    # Parameters offloaded on one GPU: the gathered copies are still on the GPU (they were counted as nothing).
    one = _peft779(gpus=1)
    assert not one.breakdown.get("weights") and one.breakdown["gathered_layers"] == deepspeed.breakdown["gathered_layers"]
    bucket = _peft779(zero3_reduce_bucket=5 * 10**8)
    h = BLOOMZ_7B.hidden_size
    assert bucket.breakdown["gathered_layers"] - deepspeed.breakdown["gathered_layers"] == 4 * (5 * 10**8 - h * h)


def test_lora_zero3_settings_refused_for_qlora_and_fsdp():
    for kw in (dict(mode="qlora", precision="bf16"), dict(sharding="fsdp")):
        with pytest.raises(SizingError) as err:
            _peft779(zero3_reduce_bucket=10**6, **kw)
        assert err.value.field == "zero3_reduce_bucket"
