"""LoRA under Megatron tensor parallelism (Megatron-SWIFT): the frozen base, the adapters (PEFT
``LoraParallelLinear`` layout), the activations and the vocab-parallel logits split over the TP ranks instead of
the TP flag being dropped; QLoRA, which has no such model here, is refused (context parallelism under LoRA:
test_lora_context_parallel.py)."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.sizing import lora_memory, lora_trainable_params, spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.memory_lora import lora_params_per_tp_rank
from gpudesk.sizing.validation import evaluate_case

CONFIGS = FIXTURES / "sizing" / "configs"
QWEN25_7B = spec_from_hf_config(CONFIGS / "qwen2.5-7b.config.json")
SWIFT_ROW = "fresh13-swift2507-megatron-lora-qwen2.5-7b-tp2sp"


def _row(case_id: str) -> dict:
    for line in (FIXTURES / "sizing" / "measured_peaks_fresh13.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            return case
    raise AssertionError(case_id)


def _lora(**kw):
    base = dict(mode="lora", rank=8, targets="all-linear", precision="bf16", optimizer="adam-18", recompute="full",
                seq_len_tokens=2048, micro_batch_size=16, gpus=2, sharding="zero1", lora_dropout=0.05)
    return lora_memory(QWEN25_7B, **{**base, **kw}).breakdown


def test_tp2_halves_the_frozen_base_and_the_vocab_parallel_logits():
    one, two = _lora(tensor_parallel=1, gpus=1), _lora(tensor_parallel=2, sequence_parallel=True)
    assert two["weights"] == pytest.approx(one["weights"] / 2)
    assert two["logits"] == pytest.approx(one["logits"] / 2)
    assert two["activations"] < one["activations"] * 0.6


def test_adapter_split_follows_the_base_layer():
    # Qwen2.5-7B: h 3584, kv 512, ffn 18944, 28 layers. Column-parallel bases split lora_B (d_out), row-parallel
    # ones (o_proj, down_proj) split lora_A (d_in).
    r, t = 8, 2
    column = (3584 + 3584 / t) + 2 * (3584 + 512 / t) + 2 * (3584 + 18944 / t)
    row = (3584 / t + 3584) + (18944 / t + 3584)
    assert lora_params_per_tp_rank(QWEN25_7B, r, "all-linear", t) == int(28 * r * (column + row))
    assert lora_params_per_tp_rank(QWEN25_7B, r, "all-linear", 1) == lora_trainable_params(QWEN25_7B, r, "all-linear")


def test_megatron_swift_row_no_longer_drops_the_tp_flag():
    case = _row(SWIFT_ROW)
    result = evaluate_case(case, CONFIGS, "fresh-13")
    # 14 GiB reserved measured; with TP ignored the estimate was 91 GiB (6.5x). The row's --seq 2048 is the
    # truncation cap, an upper bound on the padded batch, so it stays above the measurement.
    assert 2.0 < result.ratio < 4.0


def test_qlora_with_tensor_parallel_and_context_parallel_beside_tensor_parallel_are_refused():
    with pytest.raises(SizingError) as err:
        _lora(mode="qlora", tensor_parallel=2)
    assert err.value.field == "tensor_parallel"
    with pytest.raises(SizingError) as err:
        _lora(tensor_parallel=3)
    assert err.value.field == "tensor_parallel"
    # tp 2 on 2 GPUs leaves one data-parallel GPU: a context-parallel group of 2 does not fit.
    workload = MemoryWorkload(mode="lora", gpus=2, tensor_parallel=2, context_parallel=2, lora_rank=8)
    with pytest.raises(SizingError) as err:
        estimate_memory(QWEN25_7B, workload)
    assert err.value.field == "context_parallel"
