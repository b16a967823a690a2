"""Tensor parallelism that keeps the embedding and LM head whole on every GPU (lit-gpt generate/tp.py)."""

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.tp_vocab import replicated_vocab_extra_bytes

GB = 1e9
LLAMA_70B = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-70b.config.json")


def _estimate(tp, replicated, weight_format="bf16"):
    return estimate_memory(LLAMA_70B, MemoryWorkload(
        mode="inference", precision="bf16", weight_format=weight_format, kv_cache_impl="static", context_tokens=264,
        concurrent_sequences=1, tensor_parallel=tp, gpus=tp, tp_replicated_vocab=replicated))


def test_extra_is_the_vocab_matrices_beyond_an_even_split():
    vocab_bytes = 2 * 32000 * 8192 * 2  # untied embedding + LM head, bf16
    assert replicated_vocab_extra_bytes(LLAMA_70B, "bf16", 8) == vocab_bytes * 7 / 8
    assert replicated_vocab_extra_bytes(LLAMA_70B, "nf4-dq", 4) == vocab_bytes * 3 / 4  # kept 16-bit
    assert replicated_vocab_extra_bytes(LLAMA_70B, "bf16", 1) == 0.0


def test_litgpt_tp8_bf16_row_and_vocab_parallel_default():
    # lit-gpt tutorials/inference.md (2024-01): Llama-2-70B over 8 A100s, bf16: 18.19 GB max_memory_allocated.
    split, replicated = _estimate(8, False), _estimate(8, True)
    assert replicated.breakdown["weights"] - split.breakdown["weights"] == round(
        replicated_vocab_extra_bytes(LLAMA_70B, "bf16", 8))
    assert abs(replicated.allocated_bytes / (18.19 * GB) - 1) < abs(split.allocated_bytes / (18.19 * GB) - 1)
    assert abs(replicated.allocated_bytes / (18.19 * GB) - 1) < 0.03
    assert any("replicated on every tensor-parallel GPU" in text for text, _source in replicated.assumptions)


def test_one_gpu_is_unchanged():
    assert _estimate(1, True).breakdown == _estimate(1, False).breakdown
