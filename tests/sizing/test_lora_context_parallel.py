"""Context / sequence parallelism under LoRA and QLoRA (ms-swift ``--sequence_parallel_size``, DeepSpeed Ulysses):
each GPU of a ``cp`` group holds ``seq / cp`` tokens of the activations and logits, the frozen base and the
adapters do not shrink, and a ``cp`` that does not divide the data-parallel GPUs is refused, as in full training
(gpudesk.sizing.memory_lora module docstring)."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.sizing import lora_memory, spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.mode_settings import check_mode_settings
from gpudesk.sizing.validation import evaluate_case

CONFIGS = FIXTURES / "sizing" / "configs"
QWEN25_3B = spec_from_hf_config(CONFIGS / "qwen2.5-3b.config.json")


def _lora(**kw):
    base = dict(mode="lora", rank=8, targets="all-linear", precision="bf16-pure", optimizer="adamw",
                recompute="full", seq_len_tokens=9000, micro_batch_size=4, gpus=8, sharding="ddp", lora_dropout=0.05)
    return lora_memory(QWEN25_3B, **{**base, **kw})


@pytest.mark.parametrize("mode", ["lora", "qlora"])
def test_cp_splits_activations_and_logits_only(mode):
    one = _lora(mode=mode).breakdown
    whole_at_quarter = _lora(mode=mode, seq_len_tokens=9000 // 4).breakdown
    four = _lora(mode=mode, context_parallel=4).breakdown
    # The rank's activations and logits are those of its 2250 tokens.
    assert four["activations"] == pytest.approx(whole_at_quarter["activations"])
    assert four["logits"] == pytest.approx(whole_at_quarter["logits"])
    assert four["logits"] == pytest.approx(one["logits"] / 4, rel=1e-3)
    # The frozen base and the adapters do not shrink.
    assert four["weights"] == one["weights"] and four["lora_adapters"] == one["lora_adapters"]


def test_cp_is_named_in_the_assumptions():
    text = " ".join(a for a, _ in _lora(context_parallel=8).assumptions)
    assert "context parallel 8" in text and "1,125 of the 9,000 tokens" in text


def test_cp_that_does_not_divide_the_data_parallel_gpus_is_refused():
    with pytest.raises(SizingError) as err:
        _lora(context_parallel=3)
    assert err.value.field == "context_parallel"
    with pytest.raises(SizingError) as err:
        _lora(gpus=4, tensor_parallel=2, context_parallel=4)
    assert err.value.field == "context_parallel"


def test_cp_is_a_setting_of_every_training_mode():
    for mode in ("train", "lora", "qlora"):
        check_mode_settings(MemoryWorkload(mode=mode, gpus=8, context_parallel=2))
    with pytest.raises(SizingError) as err:
        check_mode_settings(MemoryWorkload(mode="inference", gpus=8, context_parallel=2))
    assert err.value.field == "context_parallel"
    est = estimate_memory(QWEN25_3B, MemoryWorkload(mode="qlora", gpus=2, context_parallel=2, lora_rank=8))
    assert est.total_bytes > 0


def test_ms_swift_sequence_parallel_rows_are_estimated():
    rows = [json.loads(line) for line in (FIXTURES / "sizing" / "measured_peaks_fresh50.jsonl").read_text()
            .splitlines() if "swiftpr5522" in line]
    ratios = {r["context_parallel"]: evaluate_case(r, CONFIGS, "fresh-50") for r in rows}
    assert set(ratios) == {1, 2, 4, 8}
    for result in ratios.values():
        assert not result.error
    # Each doubling of the group cuts the estimate, as it cut the measured peak (75.35 -> 48.50 -> 27.78 -> 17.92).
    totals = [ratios[cp].estimated_bytes for cp in (1, 2, 4, 8)]
    assert totals == sorted(totals, reverse=True)
