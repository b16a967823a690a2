"""Recipe knobs of the memory account: optimizer names, parameter precision, loss modes, optimizer in backward,
activation offload, context parallel, LoRA/QLoRA sharding and offload, and the three statistics."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.sizing import (
    MemoryWorkload,
    SizingError,
    estimate_memory,
    spec_from_hf_config,
)
from gpudesk.sizing.activations import loss_logits_bytes
from gpudesk.sizing.optimizers import optimizer_bytes_per_param

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"
GIB = 1024**3


@pytest.fixture(scope="module")
def llama8b():
    return spec_from_hf_config(CONFIGS / "llama-3.1-8b.config.json")


@pytest.fixture(scope="module")
def llama70b():
    return spec_from_hf_config(CONFIGS / "llama-3.1-70b.config.json")


@pytest.mark.parametrize("name,precision,expected", [
    ("adamw", "bf16", (2, 4, 2, 8)),            # ZeRO paper mixed precision: 16 B/param
    ("adamw_torch", "fp32", (4, 0, 4, 8)),
    ("adamw", "bf16-pure", (2, 0, 2, 4)),       # torch AdamW keeps states in the parameter dtype
    ("paged_adamw_8bit", "bf16-pure", (2, 0, 2, 2)),
    ("adamw_8bit", "fp32", (4, 0, 4, 2)),
    ("adafactor", "fp32", (4, 0, 4, 0)),        # factored second moment: rows + cols per matrix
    ("sgd", "bf16", (2, 4, 2, 4)),
    ("adam-18", "bf16", (2, 4, 4, 8)),
])
def test_optimizer_names_users_type(name, precision, expected):
    assert optimizer_bytes_per_param(name, precision) == expected


def test_unknown_optimizer_is_named():
    with pytest.raises(SizingError) as info:
        optimizer_bytes_per_param("lion9000", "bf16")
    assert info.value.field == "optimizer"


def test_loss_modes_order(llama8b):
    args = (8192, 2, llama8b.vocab_size, llama8b.hidden_size)
    standard, chunked, fused = (loss_logits_bytes(*args, loss=m) for m in ("standard", "chunked", "fused"))
    assert standard == 8192 * 2 * 128256 * 12
    assert fused < chunked < standard


def test_fp32_training_charges_4_byte_activations(llama8b):
    w = {"optimizer": "adamw", "seq_len_tokens": 2048, "gradient_accumulation": True, "compiled": True}
    bf16 = estimate_memory(llama8b, MemoryWorkload(precision="bf16", **w))
    fp32 = estimate_memory(llama8b, MemoryWorkload(precision="fp32", **w))
    assert fp32.component("activations") == pytest.approx(2 * bf16.component("activations"), rel=0.05)


def test_encoder_classifier_has_no_vocabulary_logits():
    bert = spec_from_hf_config(CONFIGS / "bert-large-uncased.config.json")
    est = estimate_memory(bert, MemoryWorkload(precision="fp32", optimizer="adamw", seq_len_tokens=512,
                                               micro_batch_size=4, flash_attention=False, gradient_accumulation=True))
    assert est.component("logits") == 0


def test_optimizer_in_backward_keeps_one_gradient(llama8b):
    w = {"precision": "bf16-pure", "optimizer": "paged_adamw_8bit", "seq_len_tokens": 2048, "micro_batch_size": 2,
             "recompute": "full", "loss": "chunked", "gradient_accumulation": True}
    plain = estimate_memory(llama8b, MemoryWorkload(**w))
    fused = estimate_memory(llama8b, MemoryWorkload(**w, optimizer_in_backward=True))
    assert plain.component("gradients") == pytest.approx(2 * llama8b.params, rel=0.01)
    assert fused.component("gradients") == pytest.approx(2 * 128256 * 4096, rel=0.01)  # the output layer


def test_paged_states_are_outside_the_allocator(llama8b):
    est = estimate_memory(llama8b, MemoryWorkload(precision="bf16-pure", optimizer="paged_adamw_8bit"))
    assert est.component("paged_optimizer_states") == pytest.approx(2 * llama8b.params, rel=0.01)
    assert est.allocated_bytes + est.component("paged_optimizer_states") <= est.device_bytes
    assert est.allocated_bytes <= est.reserved_bytes <= est.device_bytes


def test_activation_offload_keeps_two_layers(llama8b):
    # A fused AdamW step (no foreach temporaries): the peak is at the start of backward, where activations live.
    w = {"precision": "bf16-pure", "optimizer": "adamw", "seq_len_tokens": 4096, "micro_batch_size": 2, "recompute": "full",
         "optimizer_impl": "fused"}
    kept = estimate_memory(llama8b, MemoryWorkload(**w)).component("activations")
    offloaded = estimate_memory(llama8b, MemoryWorkload(**w, activation_offload=True)).component("activations")
    assert offloaded < kept / 4


def test_context_parallel_splits_the_sequence(llama8b):
    w = {"optimizer": "adamw", "gpus": 8, "sharding": "fsdp", "recompute": "full", "compiled": True}
    cp1 = estimate_memory(llama8b, MemoryWorkload(**w, seq_len_tokens=32768))
    cp2 = estimate_memory(llama8b, MemoryWorkload(**w, seq_len_tokens=65536, context_parallel=2))
    assert cp2.component("activations") == cp1.component("activations")
    with pytest.raises(SizingError):
        estimate_memory(llama8b, MemoryWorkload(**w, seq_len_tokens=65536, context_parallel=3))


def test_lora_honours_gpus_sharding_and_offload(llama70b):
    w = {"mode": "lora", "precision": "bf16", "optimizer": "adamw", "lora_rank": 16, "recompute": "full", "seq_len_tokens": 2048}
    one = estimate_memory(llama70b, MemoryWorkload(**w))
    fsdp = estimate_memory(llama70b, MemoryWorkload(**w, gpus=8, sharding="fsdp"))
    assert fsdp.component("weights") == pytest.approx(one.component("weights") / 8, rel=0.001)
    assert fsdp.total_bytes < one.total_bytes / 3
    qlora_off = estimate_memory(llama70b, MemoryWorkload(**{**w, "mode": "qlora"}, gpus=8, sharding="fsdp",
                                                         offload="all"))
    assert qlora_off.component("weights") == 0


def test_peak_is_start_or_end_of_backward(llama8b):
    # Small batch: all gradients (end of backward) outweigh the activations of one short sequence.
    small = estimate_memory(llama8b, MemoryWorkload(optimizer="adamw", seq_len_tokens=128, recompute="full"))
    assert small.component("activations") == 0 and small.component("gradients") > 0
    # Long batch: activations at the start of backward dominate; only the output layer's gradient exists yet.
    big = estimate_memory(llama8b, MemoryWorkload(optimizer="adamw", seq_len_tokens=8192, micro_batch_size=4))
    assert big.component("activations") > 0 and big.component("gradients") < 0.2 * 2 * llama8b.params


def test_eager_saves_more_than_compiled(llama8b):
    # Batch 4: activations are the peak (at batch 2 the optimizer step, with the fp32 master gradients, is).
    w = {"optimizer": "adamw", "seq_len_tokens": 4096, "micro_batch_size": 4}
    eager = estimate_memory(llama8b, MemoryWorkload(**w)).component("activations")
    compiled = estimate_memory(llama8b, MemoryWorkload(**w, compiled=True)).component("activations")
    assert 1.2 < eager / compiled < 1.6
