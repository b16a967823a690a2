"""Device memory of inference: weights at any precision, KV cache with grouped-query attention and paged
blocks, prefill working memory.

- KV cache: ``2 * L * n_kv * d_head * bytes`` per token (K and V for every layer). Llama-2-7B (32 layers, 32 KV
  heads of 128) in fp16: 512 KiB/token; Llama-3-8B (8 KV heads, GQA; Ainslie et al. 2023, arXiv 2305.13245):
  128 KiB/token. Calculators that use ``hidden_size`` instead of ``n_kv * d_head`` overestimate GQA models
  4-8x (gpu_poor; jranaraki/vllm-fit#2).
- Paged KV (Kwon et al. 2023, "Efficient Memory Management for LLM Serving with PagedAttention", arXiv
  2309.06180): the cache is allocated in blocks of 16 tokens; each sequence rounds up to whole blocks; the
  capacity is ``floor(budget / (16 * bytes_per_token))`` blocks. vllm-project/vllm#2418 logged 229 GPU blocks
  = 3664 tokens < max_model_len 4096 and refused to start.
- Prefill working memory is transient: one layer's ``b*s*(h + ffn)`` 16-bit activations, the ``a*s^2`` scores
  when attention is not fused, and fp32 logits of the last position (oom.md 1.2).
"""

from __future__ import annotations

import math

from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, positive_float, positive_int
from gpudesk.sizing.dtypes import precision_bytes, weight_bits_per_param
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.estimate import MemoryEstimate, ordered_breakdown
from gpudesk.sizing.overheads import Overheads, add_overheads
from gpudesk.sizing.shapes import ModelSpec

PAGED_BLOCK_TOKENS = 16  # vLLM default --block-size


def weight_bytes(spec: ModelSpec, weight_format: str = "bf16") -> float:
    """Bytes of the stored weights in ``weight_format`` (see :mod:`gpudesk.sizing.dtypes`).

    Below 8 bits the embeddings and LM head stay in bf16 (bitsandbytes, GPTQ and AWQ keep them unquantised);
    for a 128K vocabulary that alone is ~1 GB (oom.md 1.2).
    """
    bits = weight_bits_per_param(weight_format)
    if bits >= 8:
        return spec.params * bits / 8
    keep = spec.embedding_params
    return (spec.params - keep) * bits / 8 + keep * 2


def kv_bytes_per_token(spec: ModelSpec, kv_precision: str = "bf16") -> float:
    """KV-cache bytes per token: ``2 * layers * n_kv_heads * head_dim * bytes(kv_precision)``.

    Raises:
        ShapeError: the model has no transformer shape.
    """
    if not spec.is_transformer:
        raise ShapeError("model", f"{spec.name}: a KV cache needs layers, hidden size and attention heads.")
    if spec.kv_latent_dim:
        # MLA caches one compressed latent (+ the decoupled RoPE key) per layer (DeepSeek-V2, arXiv 2405.04434).
        return (spec.layers or 0) * spec.kv_latent_dim * precision_bytes("kv_precision", kv_precision)
    return 2 * spec.layers * spec.kv_heads_resolved * spec.head_dim_resolved * precision_bytes("kv_precision", kv_precision)


def paged_tokens(tokens_per_sequence: int, block_tokens: int = PAGED_BLOCK_TOKENS) -> int:
    """Tokens a sequence occupies once rounded up to whole KV blocks (``ceil(n / block) * block``)."""
    n = positive_int("context_tokens", tokens_per_sequence, MAX_SEQ_LEN_TOKENS)
    blk = positive_int("paged_block_tokens", block_tokens, 4096)
    return -(-n // blk) * blk


def kv_cache_bytes(spec: ModelSpec, context_tokens: int, concurrent_sequences: int = 1, kv_precision: str = "bf16",
                   block_tokens: int | None = PAGED_BLOCK_TOKENS) -> float:
    """KV cache for ``concurrent_sequences`` sequences of ``context_tokens`` (prompt + output) each.

    ``block_tokens=None`` disables paged rounding (contiguous cache, as in Hugging Face generate()).
    """
    b = positive_int("concurrent_sequences", concurrent_sequences, MAX_BATCH)
    tokens = paged_tokens(context_tokens, block_tokens) if block_tokens else positive_int("context_tokens", context_tokens, MAX_SEQ_LEN_TOKENS)
    return kv_bytes_per_token(spec, kv_precision) * tokens * b


def kv_cache_blocks(budget_bytes: float, bytes_per_token: float, block_tokens: int = PAGED_BLOCK_TOKENS) -> int:
    """Whole KV blocks that fit in ``budget_bytes``: ``floor(budget / (block_tokens * bytes_per_token))``.

    Raises:
        SizingError: budget negative or bytes_per_token not positive.
    """
    budget = positive_float("kv_budget_bytes", budget_bytes, allow_zero=True)
    per = positive_float("kv_bytes_per_token", bytes_per_token)
    blk = positive_int("paged_block_tokens", block_tokens, 4096)
    return int(budget // (blk * per))


def check_max_model_len(blocks: int, max_model_len: int, block_tokens: int = PAGED_BLOCK_TOKENS) -> None:
    """Raise like vLLM does when one sequence of ``max_model_len`` tokens cannot fit in ``blocks`` KV blocks.

    Raises:
        SizingError (field ``max_model_len``): with the token capacity, as in vllm-project/vllm#2418.
    """
    capacity = blocks * block_tokens
    if max_model_len > capacity:
        raise SizingError("max_model_len", f"the model's max seq len ({max_model_len}) is larger than the maximum "
                          f"number of tokens that can be stored in KV cache ({capacity}); raise the memory "
                          "budget (gpu_memory_utilization) or lower max_model_len.")


def kv_budget_bytes(capacity_bytes: float, weights_bytes: float, peak_activation_bytes: float,
                    non_torch_bytes: float, gpu_memory_utilization: float = 0.9) -> float:
    """vLLM's KV-cache budget: ``capacity * utilization - weights - peak activations - non-torch memory``.

    Source: vLLM worker profiling (vllm-project/vllm PR 21489 log line "... GiB for weight, ... for peak
    activation, ... for non-torch memory"). May be negative: the model does not fit.
    """
    util = positive_float("gpu_memory_utilization", gpu_memory_utilization)
    if util > 1:
        raise SizingError("gpu_memory_utilization", f"must be at most 1, got {util:g}.")
    return capacity_bytes * util - weights_bytes - peak_activation_bytes - non_torch_bytes


def prefill_workspace_bytes(spec: ModelSpec, prefill_tokens: int, flash_attention: bool = True) -> float:
    """Transient bytes of one prefill chunk: one layer's activations, attention scores if unfused, last logits."""
    s = positive_int("prefill_tokens", prefill_tokens, MAX_SEQ_LEN_TOKENS)
    if not spec.is_transformer:
        raise ShapeError("model", f"{spec.name}: prefill working memory needs a transformer shape.")
    ffn = spec.ffn_size or 4 * spec.hidden_size
    layer = 2 * s * (spec.hidden_size + ffn)
    scores = 0 if flash_attention else 2 * spec.num_attention_heads * s * s
    logits = 4 * (spec.vocab_size or 0)
    return layer + scores + logits


def inference_memory(
    spec: ModelSpec,
    *,
    weight_format: str = "bf16",
    kv_precision: str = "bf16",
    context_tokens: int = 4096,
    concurrent_sequences: int = 1,
    paged_block_tokens: int | None = PAGED_BLOCK_TOKENS,
    prefill_tokens: int | None = None,
    flash_attention: bool = True,
    tensor_parallel: int = 1,
    activation_bytes_per_sample: int | None = None,
    overheads: Overheads = Overheads(),
) -> MemoryEstimate:
    """Per-GPU memory of serving ``concurrent_sequences`` requests of ``context_tokens`` each.

    Non-transformer models (CNN, tabular) skip the KV cache and use ``activation_bytes_per_sample`` x batch as
    the working memory. Weights and KV are split over ``tensor_parallel`` GPUs.

    Raises:
        SizingError / ShapeError: invalid input, named by field.
    """
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    parts: dict[str, float] = {"weights": weight_bytes(spec, weight_format) / t}
    assumptions = [(f"weights stored as {weight_format} ({weight_bits_per_param(weight_format):.3g} bit/param)",
                    "QLoRA paper (NF4), GPTQ/AWQ (group-wise scales); gpudesk.sizing.dtypes")]
    if spec.is_transformer and activation_bytes_per_sample is None:
        parts["kv_cache"] = kv_cache_bytes(spec, context_tokens, concurrent_sequences, kv_precision, paged_block_tokens) / t
        parts["prefill_workspace"] = prefill_workspace_bytes(spec, prefill_tokens or context_tokens, flash_attention) / t
        assumptions.append((f"KV cache {kv_bytes_per_token(spec, kv_precision) / 1024:.0f} KiB/token "
                            f"({spec.kv_heads_resolved} KV heads), {concurrent_sequences} x {context_tokens} tokens"
                            + (f" in {paged_block_tokens}-token blocks" if paged_block_tokens else ""),
                            "PagedAttention (arXiv 2309.06180); GQA (arXiv 2305.13245)"))
    elif activation_bytes_per_sample is not None:
        b = positive_int("concurrent_sequences", concurrent_sequences, MAX_BATCH)
        parts["prefill_workspace"] = positive_int("activation_bytes_per_sample", activation_bytes_per_sample) * b / t
        assumptions.append(("working memory from the given activation bytes per sample x batch", "user input"))
    else:
        raise ShapeError("activation_bytes_per_sample",
                         f"{spec.name} has no transformer shape; give activation bytes per sample.")
    if spec.shape_is_guess:
        assumptions.append(("model shape inferred from the parameter count; KV assumes multi-head attention",
                            "a guess; give a config.json for exact figures"))
    assumptions += add_overheads(parts, overheads.validated(), t, inference=True)
    return MemoryEstimate(breakdown=ordered_breakdown(parts), gpus=t, assumptions=tuple(assumptions))


def max_concurrent_sequences(spec: ModelSpec, free_bytes: float, context_tokens: int, kv_precision: str = "bf16",
                             block_tokens: int = PAGED_BLOCK_TOKENS) -> int:
    """How many sequences of ``context_tokens`` fit in ``free_bytes`` of KV budget (0 when none)."""
    if free_bytes <= 0:
        return 0
    per_seq = kv_bytes_per_token(spec, kv_precision) * paged_tokens(context_tokens, block_tokens)
    return int(math.floor(free_bytes / per_seq))
