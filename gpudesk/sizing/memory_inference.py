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
- Tensor parallelism splits KV heads, never below one per GPU: each rank keeps ``max(1, kv_heads // tp)``
  heads (KV heads are replicated when tp > kv_heads), and MLA's single latent is cached whole on every rank
  (vLLM ``vllm/config/model.py`` ModelConfig.get_num_kv_heads: "When using MLA during decode it becomes MQA",
  returns 1). Qwen3-30B-A3B (4 KV heads) at tp 8 keeps 1 head per GPU, not 0.5; DeepSeek-V3 keeps all 576
  latent values per token and layer on each of the 8 GPUs.
- Sliding-window layers hold at most the window: vLLM's hybrid KV-cache manager (v1, default since 0.10) gives
  them a ``SlidingWindowSpec`` whose per-request reservation is ``ceil(min(window - 1 + max_num_batched_tokens,
  max_model_len) / block) + 1`` blocks (``vllm/v1/kv_cache_interface.py`` SlidingWindowSpec.
  max_memory_usage_bytes), against ``ceil(max_model_len / block)`` for full attention. With
  ``--disable-hybrid-kv-cache-manager`` (or a KV connector that forces it off) sliding layers are regarded as
  full attention and get blocks for every token (FullAttentionSpec docstring, same file): pass
  ``hybrid_kv_cache=False`` for that.
- Prefill working memory is transient: one layer's ``b*s*(h + ffn)`` 16-bit activations, the ``a*s^2`` scores
  when attention is not fused, and fp32 logits of the last position (oom.md 1.2).
"""

from __future__ import annotations

import math
from dataclasses import replace

from gpudesk.i18n import _, ngettext
from gpudesk.sizing.bnb_compute import fp32_compute_extra_bytes, fp32_compute_note
from gpudesk.sizing.decode_attention import DECODE_ATTENTIONS, decode_attention_bytes, decode_attention_note
from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, choice, positive_float, positive_int
from gpudesk.sizing.dtypes import CHECKPOINT_WEIGHT_FORMAT, precision_bytes, weight_bits_per_param, weight_format_source
from gpudesk.sizing.engines.ggml_types import canonical_file_type
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.estimate import MemoryEstimate, ordered_breakdown
from gpudesk.sizing.fused_load import add_fused_qkv_load, fused_qkv_copy_bytes
from gpudesk.sizing.tuple_cache_step import first_decode_step_bytes, first_decode_step_note, leaked_prompt_logits_bytes
from gpudesk.sizing.gptq_scratch import DEFAULT_MAX_INPUT_TOKENS, gptq_scratch_bytes, gptq_scratch_note
from gpudesk.sizing.prefill_kv_kept import prefill_kv_kept_bytes, prefill_kv_kept_note
from gpudesk.sizing.load_cast import add_fp32_load_cast, check_load_dtype, first_cast_copy_bytes
from gpudesk.sizing.layer_split import Stage, balanced_split, even_split, stage_weight_bytes
from gpudesk.sizing.overheads import Overheads, add_overheads
from gpudesk.sizing.tp_vocab import replicated_vocab_extra_bytes, replicated_vocab_note
from gpudesk.sizing.shapes import ModelSpec

PAGED_BLOCK_TOKENS = 16  # vLLM default --block-size
# vLLM ``vllm serve`` default max_num_batched_tokens (one chunked-prefill step) on GPUs under 70 GiB or A100;
# 8192 on H100/H200/MI300 (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults).
PREFILL_CHUNK_TOKENS = 2048
# How the KV cache is held (see :func:`kv_cache_impl_extra_bytes`).
KV_CACHE_IMPLS = ("paged", "dynamic", "legacy-tuple", "static", "static-linear-mask")
# Which 16-bit matrices an engine builds for MLA's decode path after loading (see :func:`mla_decode_weight_bytes`).
MLA_DECODE_WEIGHTS = ("up-proj", "absorbed", "none")
# Which prompt positions the prefill forward computes logits for (see :func:`prefill_workspace_bytes`).
PROMPT_LOGITS = ("last", "all", "all-16bit")


def resolve_weight_format(spec: ModelSpec, weight_format: str | None = CHECKPOINT_WEIGHT_FORMAT) -> str:
    """``weight_format``, or for ``"checkpoint"`` / None the published checkpoint's format (gpt-oss ``mxfp4``,
    DeepSeek-V3 ``fp8``; ``bf16`` for a 16-bit checkpoint)."""
    if weight_format is None or weight_format.lower() == CHECKPOINT_WEIGHT_FORMAT:
        return spec.checkpoint_weight_format or "bf16"
    return weight_format


def weight_bytes(spec: ModelSpec, weight_format: str = CHECKPOINT_WEIGHT_FORMAT) -> float:
    """Bytes of the stored weights in ``weight_format`` (see :mod:`gpudesk.sizing.dtypes`; ``"checkpoint"``:
    the published checkpoint's format, :func:`resolve_weight_format`).

    Any format below 16 bits, weight-only int8/fp8 included, quantises the Linear layers only: the embeddings
    and LM head stay in bf16 (bitsandbytes ``llm_int8_skip_modules`` defaults to the LM head; vLLM's
    ``VocabParallelEmbedding`` / ``ParallelLMHead`` are unquantised under fp8 and w8a8,
    https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/quantization/fp8.py
    ``Fp8Config.get_quant_method`` returns a method for ``LinearBase`` only; torchao ``quantize_`` filters
    ``nn.Linear``, https://github.com/pytorch/ao/blob/main/torchao/quantization/quant_api.py ``_is_linear``).
    For a 128K vocabulary that alone is ~1 GB (oom.md 1.2).
    """
    weight_format = resolve_weight_format(spec, weight_format)
    bits = weight_bits_per_param(weight_format)
    if weight_format.lower() == "mxfp4" and spec.moe_experts and spec.expert_params:
        # gpt-oss quantises only the routed-expert weights to MXFP4; attention, router, embeddings and the LM
        # head stay bf16 (its config's quantization_config.modules_to_not_convert; OpenAI gpt-oss model card,
        # arXiv 2508.10925 section 2). 120b: 114.7 B expert params -> 60.9 GB + 2.2 B x 2 B = 65.2 GB (60.7 GiB).
        moe_layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
        experts = min(spec.params, moe_layers * spec.moe_experts * spec.expert_params)
        return experts * bits / 8 + (spec.params - experts) * 2
    if bits >= 16 or canonical_file_type(weight_format):  # a GGUF type's average already covers the embeddings
        return spec.params * bits / 8
    keep = kept_16bit_params(spec, weight_format)
    return (spec.params - keep) * bits / 8 + keep * 2 + block_fp8_scale_bytes(spec, weight_format)


def kept_16bit_params(spec: ModelSpec, weight_format: str) -> int:
    """Parameters a quantised ``weight_format`` (below 16 bits, not GGUF or MXFP4) leaves 16-bit: the embeddings
    and LM head; with the checkpoint's own format, the Linear layers its ignore list keeps (Llama 3.1 405B FP8: every
    self_attn and the first and last decoder layers, :mod:`gpudesk.sizing.quant_ignore`) and, for a block-FP8
    checkpoint, the MoE router gates (:func:`moe_router_params`)."""
    keep = spec.embedding_params
    if spec.unquantized_linear_params and weight_format.lower() == (spec.checkpoint_weight_format or "").lower():
        keep += spec.unquantized_linear_params
    if is_block_fp8_checkpoint(spec, weight_format):
        keep += moe_router_params(spec)
    return keep


def block_fp8_scale_bytes(spec: ModelSpec, weight_format: str) -> float:
    """Bytes of the float32 block scales of a block-FP8 checkpoint's quantised weights (the parameters not
    :func:`kept_16bit_params`, /16384), 0 for any other format; see :data:`FP8_WEIGHT_BLOCK`. A per-channel FP8
    checkpoint (``fbgemm_fp8``) has one scale per output row instead, as many where the input width is 16384."""
    if not is_block_fp8_checkpoint(spec, weight_format):
        return 0.0
    quantised = spec.params - kept_16bit_params(spec, weight_format)
    return quantised / (FP8_WEIGHT_BLOCK * FP8_WEIGHT_BLOCK) * FP8_BLOCK_SCALE_BYTES


# A published FP8 checkpoint (``quantization_config`` ``quant_method: fp8`` with ``weight_block_size: [128, 128]``:
# DeepSeek-V3/R1, MiniMax-M2.x, Qwen3 *-FP8) stores one float32 ``weight_scale_inv`` per 128 x 128 block of every
# quantised Linear weight, which vLLM and SGLang load as float32 parameters of that shape (vLLM
# ``vllm/model_executor/layers/quantization/fp8.py`` ``Fp8LinearMethod.create_weights`` with a ``weight_block_size``:
# ``ceil(out / 128) x ceil(in / 128)`` scales, and ``Fp8MoEMethod.create_weights`` ``w13_weight_scale_inv`` /
# ``w2_weight_scale_inv`` per expert). The shapes here are multiples of 128, so the count is quantised params / 16384.
FP8_WEIGHT_BLOCK = 128
FP8_BLOCK_SCALE_BYTES = 4


def is_block_fp8_checkpoint(spec: ModelSpec, weight_format: str) -> bool:
    """Whether ``weight_format`` serves the model's own published block-FP8 checkpoint (its
    ``checkpoint_weight_format`` is ``fp8``), not a 16-bit one quantised to FP8 on loading."""
    return weight_format.lower() == "fp8" and (spec.checkpoint_weight_format or "").lower() == "fp8"


def moe_router_params(spec: ModelSpec) -> int:
    """Parameters of the MoE router gates, ``moe_layers x hidden x experts``, which block-FP8 checkpoints keep in
    BF16 (Qwen3-MoE's ``mlp.gate`` and DeepSeek-V3's ``mlp.gate`` are built without a quantisation method: vLLM
    ``vllm/model_executor/models/qwen3_moe.py`` ``Qwen3MoeSparseMoeBlock`` ``ReplicatedLinear(..., quant_config=None)``;
    MiniMax-M2's config keeps ``gate`` unconverted); 0 for dense models."""
    if not (spec.moe_experts and spec.hidden_size):
        return 0
    moe_layers = spec.moe_layers if spec.moe_layers is not None else (spec.layers or 0)
    return moe_layers * spec.hidden_size * spec.moe_experts


def mla_decode_weight_bytes(spec: ModelSpec, weight_format: str, mla_decode_weights: str = "up-proj",
                            tensor_parallel: int = 1) -> float:
    """Bytes per GPU of the matrices a serving engine derives from an MLA model's weights for the decode path,
    held beside the stored weights (vLLM counts them in "model weights take"). Per layer, with ``N`` heads per
    GPU (tensor parallelism splits the heads), latent ``Lkv``, per-head widths ``P`` (no-RoPE query/key), ``R``
    (RoPE) and ``V`` (value), hidden ``H`` and the query input ``Lq`` (``q_lora_rank``, or ``H`` without one):

    - ``up-proj`` (vLLM since PR 14770 of 2025-03-13, "MLA get rid of materialization",
      https://github.com/vllm-project/vllm/pull/14770; ``vllm/v1/attention/backends/mla/common.py``
      ``process_weights_after_loading``: "we currently do not have quantized bmm's which are needed for `W_UV`
      and `W_UK_T`, we just store fp16/bf16 copies"): ``W_UK_T`` and ``W_UV`` are views of the dequantised
      ``kv_b_proj``, a 16-bit ``Lkv x N(P + V)`` copy when the weights are quantised, nothing when they are 16-bit.
    - ``absorbed`` (vLLM 0.7.1 to 0.7.3, ``VLLM_MLA_PERFORM_MATRIX_ABSORPTION=1``, PR 12528 of 2025-01-28,
      ``vllm/attention/backends/mla/utils.py`` ``process_weights_after_loading``: "we end up with absorbed weights
      for decode and another copy of raw weights for prefill"): ``W_Q_UK`` (``Lq x N Lkv``) and ``W_UV_O``
      (``N Lkv x H``) in the activation dtype (requantised to fp8 for fp8 checkpoints), ``W_QR``
      (``Lq x N R``, 16-bit), and the dequantised ``kv_b_proj`` kept through ``self.W_UK`` / ``self.W_UV``.
      DeepSeek-V2-Lite: 75 MB a layer, 1.9 GiB over 27 layers (vLLM PR 13109's AWQ log: "model weights take
      10.45GiB" against 8.3 GiB of AWQ weights).
    - ``none``: the engine runs MLA from the stored projections (HF transformers).

    Zero for models without MLA.

    Raises:
        SizingError: an unknown ``mla_decode_weights``.
    """
    mode = choice("mla_decode_weights", mla_decode_weights, MLA_DECODE_WEIGHTS)
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    if mode == "none" or spec.attention_kind != "mla" or not spec.kv_lora_rank or not spec.is_transformer:
        return 0.0
    hidden, layers = spec.hidden_size or 0, spec.layers or 0
    heads = max(1, (spec.num_attention_heads or 0) // t)
    latent, rope = spec.kv_lora_rank, spec.qk_rope_head_dim or 0
    nope, value = spec.qk_nope_head_dim or 128, spec.v_head_dim or 128
    quantised = weight_bits_per_param(weight_format) < 16
    kv_b_copy = 2.0 * latent * heads * (nope + value) if quantised else 0.0
    if mode == "up-proj":
        return layers * kv_b_copy
    q_in = spec.q_lora_rank or hidden
    absorbed_width = 1.0 if weight_format.lower().startswith("fp8") else 2.0
    absorbed = absorbed_width * (q_in * heads * latent + heads * latent * hidden)
    return layers * (absorbed + 2.0 * q_in * heads * rope + kv_b_copy)


def kv_bytes_per_token(spec: ModelSpec, kv_precision: str = "bf16") -> float:
    """KV-cache bytes per token over all GPUs, every layer full attention: ``2 * layers * n_kv_heads * head_dim *
    bytes(kv_precision)``, the global layers with their own heads and width (:func:`kv_token_bytes_all_layers`).
    Per GPU and with sliding windows: :func:`kv_sequence_bytes`.

    Raises:
        ShapeError: the model has no transformer shape.
    """
    if not spec.is_transformer:
        raise ShapeError("model", _("{model}: a KV cache needs layers, hidden size and attention heads.").format(
            model=spec.name))
    if spec.kv_latent_dim:
        # MLA caches one compressed latent (+ the decoupled RoPE key) per layer (DeepSeek-V2, arXiv 2405.04434).
        return (spec.layers or 0) * spec.kv_latent_dim * precision_bytes("kv_precision", kv_precision)
    return kv_token_bytes_all_layers(spec, kv_precision, 1)


def kv_head_token_bytes(spec: ModelSpec, kv_precision: str = "bf16", global_layer: bool = False) -> float:
    """Bytes one KV head caches per token for K (or for V): ``head_dim x bytes(kv_precision)`` (a global layer's
    ``global_head_dim`` where the model has one), plus, for an int8 cache of an architecture that quantises it per
    token and head, its 16-bit scale and zero point (:attr:`ModelSpec.kv_int8_affine_params`; Qwen v1
    ``modeling_qwen.py`` ``quantize_cache_v``)."""
    width = precision_bytes("kv_precision", kv_precision)
    affine = spec.kv_int8_affine_params * 2.0 if kv_precision.lower() == "int8" else 0.0
    head_dim = spec.global_head_dim_resolved if global_layer else spec.head_dim_resolved
    return head_dim * width + affine


def kv_heads_per_gpu(spec: ModelSpec, tensor_parallel: int = 1, global_layer: bool = False) -> int:
    """KV heads each tensor-parallel rank caches: ``max(1, kv_heads // tp)`` (a global layer's ``global_kv_heads``
    where the model has them); MLA's one latent on every rank."""
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    if spec.kv_latent_dim or spec.attention_kind == "mla":
        return 1
    heads = spec.global_kv_heads_resolved if global_layer else spec.kv_heads_resolved
    return max(1, heads // t)


def kv_layer_bytes_per_token(spec: ModelSpec, kv_precision: str = "bf16", tensor_parallel: int = 1,
                             global_layer: bool = False) -> float:
    """Bytes one layer caches per token on one GPU (K and V of its heads, or the MLA latent); ``global_layer``: a
    global (full-attention) layer's, with its own KV heads and width where the model has them
    (:func:`kv_global_layer_bytes_per_token`).

    Raises:
        ShapeError: the model has no transformer shape.
    """
    if not spec.is_transformer:
        raise ShapeError("model", _("{model}: a KV cache needs layers, hidden size and attention heads.").format(
            model=spec.name))
    if spec.kv_latent_dim:
        return spec.kv_latent_dim * precision_bytes("kv_precision", kv_precision)
    return (2 * kv_heads_per_gpu(spec, tensor_parallel, global_layer)
            * kv_head_token_bytes(spec, kv_precision, global_layer))


def kv_global_layer_bytes_per_token(spec: ModelSpec, kv_precision: str = "bf16", tensor_parallel: int = 1) -> float:
    """Bytes one global (full-attention) layer caches per token on one GPU: as :func:`kv_layer_bytes_per_token`,
    with the global layers' own KV heads and head width where the model has them (Gemma 4 31B in bf16: 2 x 4 x 512
    x 2 B = 8 KiB, against 16 KiB on a sliding layer; :attr:`ModelSpec.global_kv_heads`). Keys and values are two
    tensors even where the checkpoint derives both from one projection (``attention_k_eq_v``): SGLang
    ``models/gemma4_causal.py`` ``Gemma4Attention.forward`` caches ``k`` after ``k_norm`` and RoPE and ``v`` after
    ``v_norm``, and its pool sizes a full layer as ``kv_heads x (head_dim + v_head_dim)``
    (``model_runner_kv_cache_mixin.py`` ``get_cell_size_per_token``).

    Raises:
        ShapeError: the model has no transformer shape.
    """
    return kv_layer_bytes_per_token(spec, kv_precision, tensor_parallel, global_layer=True)


def kv_token_bytes_all_layers(spec: ModelSpec, kv_precision: str = "bf16", tensor_parallel: int = 1) -> float:
    """KV bytes one token takes over all layers on one GPU, every layer holding it (no window cap): the
    sliding-window layers at :func:`kv_layer_bytes_per_token`, the global ones at
    :func:`kv_global_layer_bytes_per_token`. Gemma 4 31B in bf16: 50 x 16 + 10 x 8 = 880 KiB (60 x 16 = 960 KiB
    with the sliding layers' heads everywhere).

    Raises:
        ShapeError: the model has no transformer shape.
    """
    local = spec.local_attention_layers
    return (local * kv_layer_bytes_per_token(spec, kv_precision, tensor_parallel)
            + spec.global_attention_layers * kv_global_layer_bytes_per_token(spec, kv_precision, tensor_parallel))


def kv_sequence_bytes(spec: ModelSpec, context_tokens: int, kv_precision: str = "bf16", tensor_parallel: int = 1,
                      block_tokens: int | None = PAGED_BLOCK_TOKENS, hybrid_kv_cache: bool = True,
                      prefill_chunk_tokens: int = PREFILL_CHUNK_TOKENS) -> float:
    """KV bytes one sequence of ``context_tokens`` holds on one tensor-parallel GPU.

    Full-attention layers hold every token (rounded up to whole blocks); sliding-window layers hold what vLLM
    reserves for them (module docstring): ``min(window - 1 + prefill_chunk_tokens, context)`` tokens plus one
    block when paged, ``min(window, context)`` for a contiguous cache. Gemma 3 27B at 128K tokens: 10 global
    layers x 131072 + 52 local x 3088 tokens -> 11.2 GiB in bf16 instead of 62 GiB.
    """
    n = positive_int("context_tokens", context_tokens, MAX_SEQ_LEN_TOKENS)
    per_layer = kv_layer_bytes_per_token(spec, kv_precision, tensor_parallel)
    per_global_layer = kv_global_layer_bytes_per_token(spec, kv_precision, tensor_parallel)
    full_tokens = paged_tokens(n, block_tokens) if block_tokens else n
    local_layers = spec.local_attention_layers if hybrid_kv_cache else 0
    local_tokens = 0
    if local_layers:
        window = int(spec.sliding_window or 0)
        if block_tokens:
            chunk = positive_int("prefill_chunk_tokens", prefill_chunk_tokens, MAX_SEQ_LEN_TOKENS)
            local_tokens = min(paged_tokens(min(window - 1 + chunk, n), block_tokens) + block_tokens, full_tokens)
        else:
            local_tokens = min(window, n)
    if not hybrid_kv_cache:
        # every layer holds every token: the sliding layers with their own geometry, the global ones with theirs
        return full_tokens * kv_token_bytes_all_layers(spec, kv_precision, tensor_parallel)
    full_layers = (spec.layers or 0) - local_layers
    return per_global_layer * full_layers * full_tokens + per_layer * local_layers * local_tokens


def paged_tokens(tokens_per_sequence: int, block_tokens: int = PAGED_BLOCK_TOKENS) -> int:
    """Tokens a sequence occupies once rounded up to whole KV blocks (``ceil(n / block) * block``)."""
    n = positive_int("context_tokens", tokens_per_sequence, MAX_SEQ_LEN_TOKENS)
    blk = positive_int("paged_block_tokens", block_tokens, 4096)
    return -(-n // blk) * blk


def kv_cache_bytes(spec: ModelSpec, context_tokens: int, concurrent_sequences: int = 1, kv_precision: str = "bf16",
                   block_tokens: int | None = PAGED_BLOCK_TOKENS, tensor_parallel: int = 1,
                   hybrid_kv_cache: bool = True) -> float:
    """KV cache on one of ``tensor_parallel`` GPUs for ``concurrent_sequences`` sequences of ``context_tokens``
    (prompt + output) each (:func:`kv_sequence_bytes` x sequences).

    ``block_tokens=None`` disables paged rounding (contiguous cache, as in Hugging Face generate()).
    """
    b = positive_int("concurrent_sequences", concurrent_sequences, MAX_BATCH)
    return kv_sequence_bytes(spec, context_tokens, kv_precision, tensor_parallel, block_tokens, hybrid_kv_cache) * b


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
        raise SizingError("max_model_len", _("the model's max seq len ({max_model_len}) is larger than the maximum "
                                             "number of tokens that can be stored in KV cache ({capacity}); raise the "
                                             "memory budget (gpu_memory_utilization) or lower max_model_len.").format(
            max_model_len=max_model_len, capacity=capacity))


def kv_budget_bytes(capacity_bytes: float, weights_bytes: float, peak_activation_bytes: float,
                    non_torch_bytes: float, gpu_memory_utilization: float = 0.9) -> float:
    """vLLM's KV-cache budget: ``capacity * utilization - weights - peak activations - non-torch memory``.

    Source: vLLM worker profiling (vllm-project/vllm PR 21489 log line "... GiB for weight, ... for peak
    activation, ... for non-torch memory"). May be negative: the model does not fit.
    """
    util = positive_float("gpu_memory_utilization", gpu_memory_utilization)
    if util > 1:
        raise SizingError("gpu_memory_utilization", _("must be at most 1, got {value:g}.").format(value=util))
    return capacity_bytes * util - weights_bytes - peak_activation_bytes - non_torch_bytes


def kv_cache_impl_extra_bytes(spec: ModelSpec, kv_cache_impl: str, kv_bytes: float, context_tokens: int) -> float:
    """Bytes a KV-cache implementation holds beyond the cache itself, at the peak of one decode step.

    - ``paged``: none (vLLM/SGLang blocks; rounding is in :func:`kv_sequence_bytes`).
    - ``dynamic`` (Hugging Face ``DynamicCache`` that ``generate`` keeps from start to end, transformers >= 4.42,
      PR 30536): each layer's ``torch.cat`` builds the grown K and V while the old ones are alive: one layer's cache
      (https://github.com/huggingface/transformers/blob/v4.36.0/src/transformers/cache_utils.py ``DynamicCache.update``).
    - ``legacy-tuple`` (``past_key_values`` tuples, transformers <= 4.41 ``generate``, also 4.36-4.41 models that
      rebuild a ``DynamicCache`` from the tuple each step): every layer concatenates into a new tuple while
      ``generate`` still holds the previous one until the forward returns: the whole cache twice; the first decode
      step also holds the prompt's logits (:mod:`gpudesk.sizing.tuple_cache_step`, added by the caller)
      (https://github.com/huggingface/transformers/blob/v4.35.0/src/transformers/models/llama/modeling_llama.py
      ``torch.cat([past_key_value[0], key_states], dim=2)``).
    - ``static`` (gpt-fast / torchao ``setup_caches``): a preallocated cache plus a boolean causal mask of
      ``cache x cache`` bytes, 16 GiB at 131072 tokens
      (https://github.com/pytorch-labs/gpt-fast/blob/main/model.py ``torch.tril(torch.ones(s, s, dtype=torch.bool))``).
    - ``static-linear-mask``: the same cache with a ``1 x cache`` mask (torchao ``--linear_causal_mask``,
      https://github.com/pytorch/ao/pull/738).

    Raises:
        SizingError: unknown implementation.
    """
    impl = choice("kv_cache_impl", kv_cache_impl, KV_CACHE_IMPLS)
    n = positive_int("context_tokens", context_tokens, MAX_SEQ_LEN_TOKENS)
    if impl == "dynamic":
        return kv_bytes / max(1, spec.layers or 1)
    if impl == "legacy-tuple":
        return kv_bytes
    if impl == "static":
        return float(n) * n
    if impl == "static-linear-mask":
        return float(n)
    return 0.0


def prefill_workspace_bytes(spec: ModelSpec, prefill_tokens: int, flash_attention: bool = True, batch: int = 1,
                            prompt_logits: str = "last", eager_mlp: bool = False, lm_head: bool = True,
                            layers: bool = True, layer_extra_bytes: float = 0.0) -> float:
    """Transient bytes of one prefill forward over ``batch`` prompts of ``prefill_tokens`` each (16-bit activations).

    A decoder layer's transient is counted as ``b*s*(h + ffn)`` 16-bit values (the residual stream and one MLP
    intermediate) plus, when attention is not fused, its ``b*a*s^2`` scores three times: 16-bit, the fp32
    softmax and its 16-bit cast (``softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)``,
    "upcast attention to fp32",
    https://github.com/huggingface/transformers/blob/v4.35.0/src/transformers/models/llama/modeling_llama.py
    ``LlamaAttention.forward``), 8 bytes a score. A gated MLP in eager PyTorch holds more at once
    (``act_fn(gate)``, ``up`` and their product, ``3 ffn`` a token; Qwen2.5-7B at a 30720-token prompt: 3.9 GB),
    but the prompt length is rarely known apart from the context (``--prompt-tokens`` is new), and counting a
    whole-context prefill at that width overstates short-prompt runs (gpt-fast at 131072 cached tokens with a
    5-token prompt); it is left at the narrower figure unless ``eager_mlp``: the prompt's length is stated
    (``--prompt-tokens``) and the MLP runs as eager PyTorch modules. Then a dense layer holds its input and the
    residual stream (``2 h``) beside the MLP's intermediates: ``act_fn(gate_proj(x))``, ``up_proj(x)`` and their
    product for a gated MLP (``3 ffn``; the 16-bit ``gate_proj`` output is freed once ``act_fn`` returns), ``fc1``'s
    output and its activation for a plain one (``2 ffn``)
    (https://github.com/huggingface/transformers/blob/v4.46.0/src/transformers/models/llama/modeling_llama.py
    ``LlamaMLP.forward``: ``down_proj(act_fn(gate_proj(x)) * up_proj(x))``; GPT-2 ``GPT2MLP.forward``). MoE layers
    keep the narrower figure (each expert sees a share of the tokens). Layer transients are freed before the LM
    head runs, so the peak is the larger of the layer transient and the logits:

    - ``prompt_logits="last"``: fp32 logits of the last position of each prompt (transformers >= 4.45
      ``num_logits_to_keep``, vLLM/SGLang ``LogitsProcessor`` on the last token only).
    - ``prompt_logits="all"``: the LM head runs over every prompt position and the result is upcast to fp32,
      the 16-bit and fp32 logits alive together: ``b*s*V*(2 + 4)`` bytes (transformers <= 4.44
      ``LlamaForCausalLM.forward``: ``logits = self.lm_head(hidden_states)`` then ``logits = logits.float()``,
      https://github.com/huggingface/transformers/blob/v4.35.0/src/transformers/models/llama/modeling_llama.py;
      ``generate`` keeps only ``outputs.logits[:, -1, :]`` afterwards,
      https://github.com/huggingface/transformers/blob/v4.35.0/src/transformers/generation/utils.py
      ``greedy_search``). Llama-2-13B, 8 prompts of 512 tokens: 0.79 GB.
    - ``prompt_logits="all-16bit"``: the LM head runs over every prompt position and the model's forward returns
      its output as computed, at the 16-bit activation dtype, with no upcast: ``b*s*V*2`` bytes (transformers
      v4.45 ``OPTForCausalLM.forward``: ``logits = self.lm_head(outputs[0]).contiguous()``, the fp32 cast only on
      the loss path, https://github.com/huggingface/transformers/blob/v4.45.0/src/transformers/models/opt/modeling_opt.py).

    Under a layer split (:mod:`gpudesk.sizing.layer_split`) a GPU without the LM head (``lm_head=False``) computes
    no logits, and one without decoder layers (``layers=False``) no layer transient. ``layer_extra_bytes``: what a
    layer holds beyond its 16-bit flow (fp32 compute of bitsandbytes 4-bit layers, :mod:`gpudesk.sizing.bnb_compute`).

    Raises:
        SizingError / ShapeError: invalid input, or a model without a transformer shape.
    """
    s = positive_int("prefill_tokens", prefill_tokens, MAX_SEQ_LEN_TOKENS)
    b = positive_int("concurrent_sequences", batch, MAX_BATCH)
    mode = choice("prompt_logits", prompt_logits, PROMPT_LOGITS)
    if not spec.is_transformer:
        raise ShapeError("model", _("{model}: prefill working memory needs a transformer shape.").format(model=spec.name))
    dims = spec.transformer_dims
    ffn = spec.ffn_size or 4 * dims.hidden_size
    layer = 2.0 * b * s * (dims.hidden_size + ffn)
    if eager_mlp and not spec.moe_ffn_size:
        layer = 2.0 * b * s * (2 * dims.hidden_size + (3 if spec.gated else 2) * ffn)
    scores = 0 if flash_attention else 8.0 * b * dims.num_attention_heads * s * s
    vocab = spec.vocab_size or 0
    logits = {"all": 6.0 * b * s * vocab, "all-16bit": 2.0 * b * s * vocab}.get(mode, 4.0 * b * vocab)
    return max(layer + scores + layer_extra_bytes if layers else 0.0, logits if lm_head else 0.0)


# Quantised checkpoints keep the embedding table in 16-bit (weight_bytes counts it so).
EMBEDDING_TABLE_BYTES_PER_PARAM = 2


def inference_memory(
    spec: ModelSpec,
    *,
    weight_format: str = CHECKPOINT_WEIGHT_FORMAT,
    kv_precision: str = "bf16",
    context_tokens: int = 4096,
    concurrent_sequences: int = 1,
    paged_block_tokens: int | None = PAGED_BLOCK_TOKENS,
    prefill_tokens: int | None = None,
    flash_attention: bool = True,
    tensor_parallel: int = 1,
    activation_bytes_per_sample: int | None = None,
    overheads: Overheads = Overheads(),
    hybrid_kv_cache: bool = True,
    kv_cache_impl: str = "paged",
    mla_decode_weights: str = "up-proj",
    prompt_logits: str = "last",
    fused_qkv_load: bool = False,
    tp_replicated_vocab: bool = False,
    embeddings_on_host: bool = False,
    no_kv_cache: bool = False,
    pipeline_parallel: int = 1,
    bnb_fp32_compute: bool = False,
    prefill_kv_kept: bool = False,
    gptq_kernel: str = "none",
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS,
    decode_attention: str = "fused",
    load_dtype: str = "weight-format",
) -> MemoryEstimate:
    """Per-GPU memory of serving ``concurrent_sequences`` requests of ``context_tokens`` each
    (:func:`_inference_at_stage`), on the fullest GPU when ``pipeline_parallel`` > 1 splits whole decoder layers
    over GPUs that run in turn (:mod:`gpudesk.sizing.layer_split`: accelerate's ``device_map="auto"`` for a
    contiguous cache, Hugging Face ``generate``; vLLM's even ``get_pp_indices`` split for a paged engine).

    Raises:
        SizingError / ShapeError: invalid input, named by field.
    """
    kwargs = dict(weight_format=weight_format, kv_precision=kv_precision, context_tokens=context_tokens,
                  concurrent_sequences=concurrent_sequences, paged_block_tokens=paged_block_tokens,
                  prefill_tokens=prefill_tokens, flash_attention=flash_attention, tensor_parallel=tensor_parallel,
                  activation_bytes_per_sample=activation_bytes_per_sample, overheads=overheads,
                  hybrid_kv_cache=hybrid_kv_cache, kv_cache_impl=kv_cache_impl, mla_decode_weights=mla_decode_weights,
                  prompt_logits=prompt_logits, fused_qkv_load=fused_qkv_load, tp_replicated_vocab=tp_replicated_vocab,
                  embeddings_on_host=embeddings_on_host, bnb_fp32_compute=bnb_fp32_compute, no_kv_cache=no_kv_cache,
                  prefill_kv_kept=prefill_kv_kept, gptq_kernel=gptq_kernel, max_input_tokens=max_input_tokens,
                  decode_attention=decode_attention, load_dtype=load_dtype)
    pp = positive_int("pipeline_parallel", pipeline_parallel, 1024)
    if pp == 1:
        return _inference_at_stage(spec, **kwargs)  # type: ignore[arg-type]
    if not spec.is_transformer or activation_bytes_per_sample is not None:
        raise SizingError("pipeline_parallel", _("a layer split needs a transformer's decoder layers; give a "
                                                 "config.json, or leave the pipeline stages out."))
    if pp > (spec.layers or 0):
        raise SizingError("pipeline_parallel", _("{stages} pipeline stages for {layers} layers: every GPU needs at "
                                                 "least one layer.").format(stages=pp, layers=spec.layers))
    if tp_replicated_vocab or embeddings_on_host:
        raise SizingError("pipeline_parallel", _("a layer split places the embedding and the LM head on its first "
                                                 "and last GPU; leave out the replicated vocabulary and the host "
                                                 "embeddings."))
    fmt = resolve_weight_format(spec, weight_format)
    total = weight_bytes(spec, fmt)
    # Generation without a KV cache is a plain transformers process (generate(use_cache=False)), split by accelerate.
    contiguous = choice("kv_cache_impl", kv_cache_impl, KV_CACHE_IMPLS) != "paged" or no_kv_cache
    stages = balanced_split(spec, total, fmt, pp) if contiguous else even_split(spec, pp)
    estimates = {i: _inference_at_stage(spec, stage=stage, stage_gpus=pp, **kwargs)  # type: ignore[arg-type]
                 for i, stage in enumerate(stages) if stage.layers or stage.lm_head or stage.embeddings}
    fullest = max(estimates, key=lambda i: estimates[i].total_bytes)
    est = estimates[fullest]
    note = (_("layers split over {gpus} GPUs that run in turn ({layers} layers a GPU); the fullest, GPU {index} "
              "({its} layers{extra}), is shown").format(
                gpus=pp, layers="/".join(str(st.layers) for st in stages), index=fullest, its=stages[fullest].layers,
                extra=(_(", the embedding and the LM head") if stages[fullest].embeddings and stages[fullest].lm_head
                       else _(", the embedding") if stages[fullest].embeddings
                       else _(", the LM head and the logits") if stages[fullest].lm_head else "")),
            "accelerate utils/modeling.py get_balanced_memory, infer_auto_device_map (device_map='auto')"
            if contiguous else "vllm/distributed/utils.py get_pp_indices")
    # Each stage's GPUs (tensor_parallel of them) hold that stage's share.
    per_gpu = tuple(estimates[i].allocated_bytes for i in sorted(estimates) for _gpu in range(est.gpus))
    return replace(est, assumptions=(note,) + est.assumptions, gpu_allocated_bytes=per_gpu)


def _inference_at_stage(
    spec: ModelSpec,
    *,
    weight_format: str,
    kv_precision: str,
    context_tokens: int,
    concurrent_sequences: int,
    paged_block_tokens: int | None,
    prefill_tokens: int | None,
    flash_attention: bool,
    tensor_parallel: int,
    activation_bytes_per_sample: int | None,
    overheads: Overheads,
    hybrid_kv_cache: bool,
    kv_cache_impl: str,
    mla_decode_weights: str,
    prompt_logits: str,
    fused_qkv_load: bool,
    tp_replicated_vocab: bool,
    embeddings_on_host: bool,
    bnb_fp32_compute: bool,
    stage: Stage | None = None,
    stage_gpus: int = 1,
    no_kv_cache: bool = False,
    prefill_kv_kept: bool = False,
    gptq_kernel: str = "none",
    decode_attention: str = "fused",
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS,
    load_dtype: str = "weight-format",
) -> MemoryEstimate:
    """Per-GPU memory of serving ``concurrent_sequences`` requests of ``context_tokens`` each (the settings and their
    defaults are :func:`inference_memory`'s, which passes every one); with ``stage``, the
    memory of that GPU of a layer split over ``stage_gpus`` GPUs (its layers' weights and KV cache, one of its
    layers' transient, the logits only where the LM head is). ``bnb_fp32_compute``: bitsandbytes 4-bit layers
    that compute in fp32 (:mod:`gpudesk.sizing.bnb_compute`). ``prefill_kv_kept``: a static cache whose fused
    attention also returns the prompt's keys and values, which the model keeps for every layer until the prefill
    returns (:mod:`gpudesk.sizing.prefill_kv_kept`). ``gptq_kernel``, ``max_input_tokens``: AutoGPTQ's ExLlama
    kernels' persistent scratch (:mod:`gpudesk.sizing.gptq_scratch`). ``load_dtype`` ``fp32``: the weights reach
    the GPU as fp32 and are cast there, so the peak may be the cast's first step (:mod:`gpudesk.sizing.load_cast`).

    Non-transformer models (CNN, tabular) skip the KV cache and use ``activation_bytes_per_sample`` x batch as
    the working memory. Weights are split over ``tensor_parallel`` GPUs; the KV cache by KV heads, at least one
    per GPU (:func:`kv_heads_per_gpu`).

    ``kv_cache_impl`` (:data:`KV_CACHE_IMPLS`): anything but ``paged`` holds a contiguous cache (no block rounding)
    and adds :func:`kv_cache_impl_extra_bytes` (``kv_cache_workspace``). ``mla_decode_weights``
    (:data:`MLA_DECODE_WEIGHTS`): the 16-bit matrices an engine derives for MLA decode, counted in the weights
    (:func:`mla_decode_weight_bytes`).

    A contiguous cache (``kv_cache_impl`` other than ``paged``: Hugging Face ``generate``, gpt-fast) runs the
    prompts of all ``concurrent_sequences`` in one prefill forward, so its working memory grows with the batch;
    ``paged`` engines bound one prefill step by their token budget and count one sequence's prompt.
    ``prompt_logits`` (:data:`PROMPT_LOGITS`): logits of the last prompt position or of all of them
    (:func:`prefill_workspace_bytes`). The concatenation copies of ``dynamic`` and ``legacy-tuple`` caches are made
    in decode steps, when the prefill's transients are gone: only the larger of the two counts.
    ``prefill_tokens``: the prompt's tokens (None: the whole context, the most a prefill can hold); when the
    context is at most one token longer, ``generate`` stops after the prompt's forward and no decode step copies
    the cache.
    ``fused_qkv_load``: the q, k and v projections are fused after loading (AutoAWQ ``fuse_layers=True``), so the
    allocated peak may be the loading moment that holds them twice (:mod:`gpudesk.sizing.fused_load`).
    ``embeddings_on_host``: the input embedding table stays in host memory and only the looked-up rows are copied
    to the GPU (ExLlama ``ExLlamaDeviceMap.embed_tokens = "cpu"``, ``ExLlama.__init__`` builds ``embed_tokens`` on
    that device and ``forward`` moves the hidden states to the first layer's GPU;
    https://github.com/turboderp/exllama/blob/master/model.py): the table's 16-bit bytes leave the weights. A
    tied table is the LM head too and stays on the GPU.
    ``no_kv_cache``: generation without a KV cache (transformers ``generate(use_cache=False)``, or a loop that feeds
    the whole sequence back each step): ``model_kwargs["past_key_values"]`` stays None, so every step runs the model
    over all tokens so far and keeps nothing between steps
    (https://github.com/huggingface/transformers/blob/v4.46.0/src/transformers/generation/utils.py
    ``_sample``, ``prepare_inputs_for_generation``: the input ids are cut to the uncached tokens only when a cache
    exists). The peak is the last step's forward over the whole context, run by eager modules: no ``kv_cache``,
    no cache growth, and a prefill working memory over ``context_tokens`` whatever the prompt; no engine pool.

    Raises:
        SizingError / ShapeError: invalid input, named by field.
    """
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    impl = choice("kv_cache_impl", kv_cache_impl, KV_CACHE_IMPLS)
    if prefill_tokens is not None and positive_int("prompt_tokens", prefill_tokens, MAX_SEQ_LEN_TOKENS) > context_tokens:
        raise SizingError("prompt_tokens", _("the prompt ({prompt} tokens) cannot be longer than the context ({context} "
                                             "tokens).").format(prompt=prefill_tokens, context=context_tokens))
    if impl != "paged":
        paged_block_tokens = None
    if prefill_kv_kept and impl not in ("static", "static-linear-mask"):
        raise SizingError("prefill_kv_kept", _("the prompt's keys and values are kept twice only beside a "
                                               "preallocated (static) KV cache; choose a static cache or leave "
                                               "this setting off."))
    # An unknown mode is named as such before the cache it needs is checked.
    decode_attention = choice("decode_attention", decode_attention, DECODE_ATTENTIONS)
    if decode_attention != "fused" and no_kv_cache:
        raise SizingError("decode_attention", _("the math attention backend is a decode step over a KV cache; "
                                                "without a KV cache leave the decode attention fused."))
    if decode_attention != "fused" and impl == "paged":
        # Paged is the inference default (a serving engine's block pool), so say which setting to change.
        raise SizingError("decode_attention", _("the math attention backend is a decode step over a contiguous KV "
                                                "cache in a PyTorch process, and the KV cache here is paged (a "
                                                "serving engine's, the default); set the KV cache to static, dynamic "
                                                "or legacy-tuple, or leave the decode attention fused."))
    if prefill_kv_kept and no_kv_cache:
        raise SizingError("prefill_kv_kept", _("without a KV cache no prompt keys and values are kept; leave "
                                               "one of these two settings off."))
    weight_format = resolve_weight_format(spec, weight_format)
    load = check_load_dtype(load_dtype, weight_format)
    scratch = gptq_scratch_bytes(spec, gptq_kernel, max_input_tokens)
    if scratch and (weight_bits_per_param(weight_format) >= 8 or t > 1):
        raise SizingError("gptq_kernel", _("the ExLlama kernels run 4-bit GPTQ weights on whole layers; give a 4-bit "
                                           "weight format without tensor parallelism, or choose no GPTQ kernel."))
    mla_extra = mla_decode_weight_bytes(spec, weight_format, mla_decode_weights, t)
    share = stage.layers / max(1, spec.layers or 1) if stage is not None else 1.0
    stored = weight_bytes(spec, weight_format)
    if stage is not None:
        stored = stage_weight_bytes(spec, stage, stored, weight_format)
    parts: dict[str, float] = {"weights": stored / t + mla_extra * share}
    assumptions = [(_("weights stored as {weight_format} ({bits:.3g} bit/param)").format(
                        weight_format=weight_format, bits=weight_bits_per_param(weight_format)),
                    weight_format_source(weight_format))]
    scale_bytes = block_fp8_scale_bytes(spec, weight_format)
    if scale_bytes:
        assumptions.append((_("block-FP8 checkpoint: one float32 scale per 128 x 128 weight block ({scales_mb:.0f} MB in "
                              "all), embeddings, LM head and {router_m:.1f} M MoE router parameters kept 16-bit").format(
            scales_mb=scale_bytes / 1e6, router_m=moe_router_params(spec) / 1e6),
            "vllm/model_executor/layers/quantization/fp8.py Fp8LinearMethod / Fp8MoEMethod weight_scale_inv"))
    if tp_replicated_vocab and t > 1:
        vocab_extra = replicated_vocab_extra_bytes(spec, weight_format, t)
        parts["weights"] += vocab_extra
        assumptions.append(replicated_vocab_note(vocab_extra))
    if embeddings_on_host and not spec.tied_embeddings and spec.vocab_size and spec.hidden_size:
        host_table = EMBEDDING_TABLE_BYTES_PER_PARAM * spec.vocab_size * spec.hidden_size / t
        parts["weights"] = max(0.0, parts["weights"] - host_table)
        assumptions.append((_("input embedding table in host memory ({gib:.2f} GiB off the GPU)").format(
            gib=host_table / 2**30), "turboderp/exllama model.py ExLlamaDeviceMap (embed_tokens = 'cpu')"))
    if mla_extra:
        assumptions.append((_("MLA decode matrices ({mode}) kept beside the weights: {gib:.2f} GiB per GPU").format(
            mode=mla_decode_weights, gib=mla_extra / 2**30),
            "vllm attention/backends/mla process_weights_after_loading; vllm PR 12528, PR 14770"))
    if no_kv_cache and spec.is_transformer and activation_bytes_per_sample is None:
        b = positive_int("concurrent_sequences", concurrent_sequences, MAX_BATCH)
        fp32_extra = fp32_compute_extra_bytes(spec, weight_format, b * context_tokens) if bnb_fp32_compute else 0.0
        parts["prefill_workspace"] = prefill_workspace_bytes(
            spec, context_tokens, flash_attention, b, prompt_logits, eager_mlp=True,
            lm_head=stage is None or stage.lm_head, layers=stage is None or stage.layers > 0,
            layer_extra_bytes=fp32_extra) / t
        if fp32_extra:
            assumptions.append(fp32_compute_note(fp32_extra / t))
        assumptions.append((_("no KV cache: each new token re-runs the whole sequence; the peak is one forward over "
                              "{batch} x {tokens} tokens ({gib:.2f} GiB transient)").format(
                                  batch=b, tokens=context_tokens, gib=parts["prefill_workspace"] / 2**30),
                            "transformers generation/utils.py (use_cache=False: no past_key_values)"))
    elif spec.is_transformer and activation_bytes_per_sample is None:
        full_kv = kv_cache_bytes(spec, context_tokens, concurrent_sequences, kv_precision, paged_block_tokens,
                                 t, hybrid_kv_cache)
        parts["kv_cache"] = full_kv * share
        prefill_batch = concurrent_sequences if impl != "paged" else 1
        # A stated prompt through Hugging Face modules (the dynamic and tuple caches are transformers'): the eager
        # MLP's intermediates. A serving engine bounds its prefill by its token budget and fuses the activation; a
        # static cache may be a runtime with its own fused MLP and preallocated buffers (ExLlama).
        eager_mlp = impl in ("dynamic", "legacy-tuple") and prefill_tokens is not None
        fp32_extra = fp32_compute_extra_bytes(spec, weight_format, prefill_batch * (prefill_tokens or context_tokens)
                                              ) if bnb_fp32_compute else 0.0
        parts["prefill_workspace"] = prefill_workspace_bytes(
            spec, prefill_tokens or context_tokens, flash_attention, prefill_batch, prompt_logits, eager_mlp,
            lm_head=stage is None or stage.lm_head, layers=stage is None or stage.layers > 0,
            layer_extra_bytes=fp32_extra) / t
        if fp32_extra:
            assumptions.append(fp32_compute_note(fp32_extra / t))
        prefill = dict(batch=prefill_batch, tokens=prefill_tokens or context_tokens,
                       gib=parts["prefill_workspace"] / 2**30)
        assumptions.append((_("prefill of {batch} x {tokens} prompt tokens: {gib:.2f} GiB transient (a layer's MLP or "
                              "attention, or the logits of every prompt position in fp32)").format(**prefill)
                            if prompt_logits == "all" else
                            _("prefill of {batch} x {tokens} prompt tokens: {gib:.2f} GiB transient (a layer's MLP or "
                              "attention, or the 16-bit logits of every prompt position)").format(**prefill)
                            if prompt_logits == "all-16bit" else
                            _("prefill of {batch} x {tokens} prompt tokens: {gib:.2f} GiB transient (a layer's MLP or "
                              "attention, or the last position's logits)").format(**prefill),
                            "transformers modeling_llama.py LlamaMLP / LlamaForCausalLM (v4.35: logits.float())"))
        if prefill_kv_kept:
            parts["prefill_kv_kept"] = prefill_kv_kept_bytes(
                spec, prefill_tokens or context_tokens, prefill_batch, layers=stage.layers if stage else None,
                tensor_parallel=t)
            assumptions.append(prefill_kv_kept_note(parts["prefill_kv_kept"]))
        if impl != "paged":
            # Under a layer split: one layer's copy (dynamic) is the same on every GPU that runs a layer, the tuple
            # cache's second copy scales with the GPU's share of the layers, a static cache's mask is on every GPU.
            extra = kv_cache_impl_extra_bytes(spec, impl, full_kv, context_tokens)
            if impl == "legacy-tuple":
                extra *= share
            if impl in ("dynamic", "legacy-tuple") and prefill_tokens and context_tokens <= prefill_tokens + 1:
                extra = 0.0  # the prompt's forward yields the only new token: no decode step grows the cache
            elif impl == "legacy-tuple" and prefill_tokens:
                # The first decode step still holds the prefill's output: the prompt's cache and its logits.
                leaked = leaked_prompt_logits_bytes(spec.vocab_size or 0, prefill_tokens, prefill_batch,
                                                    prompt_logits) / t if stage is None or stage.lm_head else 0.0
                step = first_decode_step_bytes(
                    kv_cache_bytes(spec, prefill_tokens, concurrent_sequences, kv_precision, None, t,
                                   hybrid_kv_cache) * share,
                    kv_cache_bytes(spec, prefill_tokens + 1, concurrent_sequences, kv_precision, None, t,
                                   hybrid_kv_cache) * share, leaked)
                if step - parts["kv_cache"] > extra:
                    extra = step - parts["kv_cache"]
                    if extra > parts["prefill_workspace"]:
                        assumptions.append(first_decode_step_note(step))
            if impl in ("dynamic", "legacy-tuple"):
                # Decode-step copies and prefill transients are not alive at once.
                extra = max(0.0, extra - parts["prefill_workspace"])
            parts["kv_cache_workspace"] = extra
            if decode_attention != "fused" and (stage is None or stage.layers > 0):
                # A decode step's attention copies and the prefill's transient are not alive at once.
                step = decode_attention_bytes(spec, decode_attention, context_tokens, concurrent_sequences,
                                              kv_precision, t)
                parts["decode_attention"] = max(0.0, step - parts["prefill_workspace"])
                assumptions.append(decode_attention_note(decode_attention, parts["decode_attention"]))
            assumptions.append((_("KV cache held as {impl}: {gib:.2f} GiB beyond the cache itself").format(
                impl=impl, gib=parts["kv_cache_workspace"] / 2**30),
                "transformers cache_utils.py DynamicCache; transformers <= 4.41 tuple cache (PR 30536); gpt-fast model.py setup_caches"))
        heads = kv_heads_per_gpu(spec, t)
        per_gpu = (ngettext("{n} KV head per GPU", "{n} KV heads per GPU", heads).format(n=heads)
                   if not spec.kv_latent_dim else _("the whole MLA latent on every GPU"))
        kv = dict(kib=kv_token_bytes_all_layers(spec, kv_precision, t) * share / 1024, per_gpu=per_gpu,
                  sequences=concurrent_sequences, tokens=context_tokens, block_tokens=paged_block_tokens)
        if paged_block_tokens:
            kv_text = _("KV cache {kib:.0f} KiB/token per GPU for full attention ({per_gpu}), {sequences} x {tokens} "
                        "tokens in {block_tokens}-token blocks").format(**kv)
        else:
            kv_text = _("KV cache {kib:.0f} KiB/token per GPU for full attention ({per_gpu}), {sequences} x {tokens} "
                        "tokens").format(**kv)
        assumptions.append((kv_text,
                            "PagedAttention (arXiv 2309.06180); GQA (arXiv 2305.13245); vllm/config/model.py "
                            "get_num_kv_heads"))
        if spec.local_attention_layers:
            window = dict(local=spec.local_attention_layers, layers=spec.layers, window=spec.sliding_window)
            assumptions.append((_("{local} of {layers} layers use a {window}-token sliding window and keep only that "
                                  "window's blocks").format(**window) if hybrid_kv_cache else
                                _("{local} of {layers} layers use a {window}-token sliding window, cached in full (hybrid "
                                  "KV-cache manager off)").format(**window),
                                "vllm/v1/kv_cache_interface.py SlidingWindowSpec.max_memory_usage_bytes"))
    elif activation_bytes_per_sample is not None:
        b = positive_int("concurrent_sequences", concurrent_sequences, MAX_BATCH)
        parts["prefill_workspace"] = positive_int("activation_bytes_per_sample", activation_bytes_per_sample) * b / t
        assumptions.append((_("working memory from the given activation bytes per sample x batch"), _("user input")))
    else:
        raise ShapeError("activation_bytes_per_sample",
                         _("{model} has no transformer shape; give activation bytes per sample.").format(model=spec.name))
    if scratch and (stage is None or stage.layers > 0):
        parts["kernel_scratch"] = scratch
        assumptions.append(gptq_scratch_note(gptq_kernel, scratch))
    if spec.shape_is_guess:
        assumptions.append((_("model shape inferred from the parameter count; KV assumes multi-head attention"),
                            _("a guess; give a config.json for exact figures")))
    if fused_qkv_load:
        fused = add_fused_qkv_load(parts, fused_qkv_copy_bytes(spec, weight_format, t))
        if fused:
            assumptions.append(fused)
    if load == "fp32":
        # The cast's first tensor is the input embedding, on the GPU that holds it.
        first = first_cast_copy_bytes(spec, weight_format, t) if stage is None or stage.embeddings else 0.0
        cast = add_fp32_load_cast(parts, weight_format, first)
        if cast:
            assumptions.append(cast)
    # A serving engine (paged KV cache) keeps CUDA-graph pools and buffers outside PyTorch's allocator; a contiguous
    # cache runs in a PyTorch process (HF generate, gpt-fast, AutoAWQ) whose only memory outside the allocator is the
    # CUDA context: its decode loop captures no graphs unless compiled, and a compiled graph's pool is allocator memory.
    engine_pool = impl == "paged" and not no_kv_cache
    # A layer split of a plain PyTorch process moves activations with .to() (no NCCL communicator); an engine's
    # pipeline stages communicate through NCCL.
    assumptions += add_overheads(parts, overheads.validated(), t * (stage_gpus if engine_pool else 1),
                                 inference=engine_pool)
    if not engine_pool and not no_kv_cache:
        assumptions.append((_("no serving-engine memory outside PyTorch: a {impl} KV cache runs in a plain PyTorch "
                              "process (no CUDA-graph pool or engine buffers)").format(impl=impl),
                            "transformers generation/utils.py (eager decode loop); vllm/v1/worker/gpu_model_runner.py "
                            "capture_model (the engine's CUDA graphs); torch/cuda/graphs.py (a compiled graph's pool is "
                            "caching-allocator memory)"))
    return MemoryEstimate(breakdown=ordered_breakdown(parts), gpus=t, assumptions=tuple(assumptions))


def max_concurrent_sequences(spec: ModelSpec, free_bytes: float, context_tokens: int, kv_precision: str = "bf16",
                             block_tokens: int = PAGED_BLOCK_TOKENS) -> int:
    """How many sequences of ``context_tokens`` fit in ``free_bytes`` of KV budget (0 when none)."""
    if free_bytes <= 0:
        return 0
    per_seq = kv_sequence_bytes(spec, context_tokens, kv_precision, block_tokens=block_tokens)
    return int(math.floor(free_bytes / per_seq))
