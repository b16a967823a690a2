"""Data-parallel attention inside one tensor-parallel replica (SGLang ``--enable-dp-attention --dp D``, TensorRT-LLM
``enable_attention_dp``, vLLM ``--data-parallel-size`` with expert parallelism).

The replica's ``tp`` GPUs run the MoE / MLP layers tensor-parallel as usual, but the attention in ``D`` groups of
``tp / D`` GPUs each (the attention tensor-parallel size): every group holds the attention projections of its
``tp / D`` ranks whole, takes ``1 / D`` of the running requests and keeps only their KV cache; before the MLP the
tokens of all groups are gathered and after it scattered back (SGLang ``python/sglang/srt/layers/dp_attention.py``,
``_compute_parallelism_ranks``: ``attn_tp_size = tp_size // dp_size``; DeepSeek-V2/V3 attention built with
``attn_tp_size``; LMSYS blog "SGLang v0.4: Zero-Overhead Batch Scheduler, Cache-Aware Load Balancer, Faster
Structured Outputs", 2024-12-04, section "Data Parallelism Attention for DeepSeek Models",
https://lmsys.org/blog/2024-12-04-sglang-v0-4/; TensorRT-LLM ``tensorrt_llm/_torch/models/modeling_deepseekv3.py``
``enable_attention_dp``). What it changes per GPU:

- Weights: the attention projections are split ``tp / D`` ways instead of ``tp``: ``D`` times more attention
  weight bytes on every GPU, read by every step (at a small batch this is what makes DP attention slower).
- KV cache: a multi-head latent attention (DeepSeek MLA) caches one latent per token on every attention-TP rank,
  so under plain TP each of the ``tp`` GPUs holds the KV of every request; with DP attention each holds only its
  group's ``1 / D`` of the requests: ``D`` times the replica's KV capacity in tokens, and ``1 / D`` of the KV read
  per step. Grouped-query KV heads already split over ``tp`` only gain where ``tp`` exceeds the KV heads.
- Running requests: each DP rank runs its own scheduler. SGLang's default cap is half the rank's KV pool, and a
  published ``--max-running-requests`` is divided among the ``D`` ranks (``python/sglang/srt/managers/
  tp_worker.py``: ``max_running_requests // dp_size`` when ``enable_dp_attention``); TensorRT-LLM's and vLLM's
  ``max_batch_size`` / ``max_num_seqs`` are per rank (trtllm-bench ``--max_batch_size`` with
  ``enable_attention_dp``: a batch per rank).
- Collectives: the attention's all-reduce runs within its group (none at ``D = tp``); the MLP's gather and
  scatter of every group's tokens move what an all-reduce of the replica's tokens moves.
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

DP_ATTENTION_SOURCE = ("data-parallel attention: SGLang python/sglang/srt/layers/dp_attention.py (attn_tp_size = "
                       "tp_size // dp_size), managers/tp_worker.py (max_running_requests // dp_size) "
                       "(https://github.com/sgl-project/sglang); LMSYS blog 2024-12-04 'SGLang v0.4', Data "
                       "Parallelism Attention for DeepSeek Models (https://lmsys.org/blog/2024-12-04-sglang-v0-4/); "
                       "TensorRT-LLM enable_attention_dp (https://github.com/NVIDIA/TensorRT-LLM)")

MLA_DEFAULT_HEAD_DIM = 128


def attention_params_per_layer(spec: ModelSpec) -> int:
    """Parameters of one decoder layer's attention projections: MLA's low-rank query, latent KV, up-projections and
    output (DeepSeek-V2, arXiv 2405.04434 section 2.1), else Q, K, V and O of ``heads`` x ``head_dim`` queries and
    ``kv_heads`` x ``head_dim`` keys and values."""
    dims = spec.transformer_dims
    h, heads = dims.hidden_size, dims.num_attention_heads
    if spec.attention_kind == "mla" and spec.kv_lora_rank:
        rope = spec.qk_rope_head_dim or 0
        # Unpublished head widths: DeepSeek-V2/V3's 128 (config.json qk_nope_head_dim, v_head_dim), as
        # gpudesk.sizing.memory_inference.mla_decode_weight_bytes takes them.
        nope = spec.qk_nope_head_dim or MLA_DEFAULT_HEAD_DIM
        v_dim = spec.v_head_dim or MLA_DEFAULT_HEAD_DIM
        q_lora = spec.q_lora_rank or 0
        query = h * q_lora + q_lora * heads * (nope + rope) if q_lora else h * heads * (nope + rope)
        latent = h * (spec.kv_lora_rank + rope) + spec.kv_lora_rank * heads * (nope + v_dim)
        return query + latent + heads * v_dim * h
    head_dim = spec.head_dim_resolved
    return h * heads * head_dim + 2 * h * spec.kv_heads_resolved * head_dim + heads * head_dim * h


def attention_tp(tp: int, attention_dp: int) -> int:
    """GPUs one attention group spans: ``tp / D`` (the replica's tensor-parallel GPUs over the attention groups)."""
    return max(1, tp // max(1, attention_dp))


def per_rank_batch_scale(engine: str, attention_dp: int, user_given: bool) -> int:
    """How many times a per-rank request cap the replica runs at once: ``D`` for a default cap (each rank's own) and
    for TensorRT-LLM's / vLLM's published per-rank caps, 1 for SGLang's published ``--max-running-requests``
    (already the replica's total, divided among the ranks)."""
    if attention_dp <= 1:
        return 1
    if user_given and engine == "sglang":
        return 1
    return attention_dp


# MLA's down-projections (the query's ``q_a_proj`` to ``q_lora_rank`` and the latent KV's ``kv_a_proj_with_mqa`` to
# ``kv_lora_rank + qk_rope_head_dim``) are not split by tensor parallelism: every attention-TP rank holds and reads
# them whole (SGLang python/sglang/srt/models/deepseek_v2.py: ``fused_qkv_a_proj_with_mqa = ReplicatedLinear(
# hidden_size, q_lora_rank + kv_lora_rank + qk_rope_head_dim)``; vLLM vllm/model_executor/models/deepseek_v2.py:
# ``q_a_proj`` and ``kv_a_proj_with_mqa`` as ``ReplicatedLinear``, later one merged replicated linear). For
# DeepSeek-V3 that is 7168 x 2112 values per layer, 15.1 MB in FP8, on each of the 8 GPUs of a TP8 replica.
REPLICATED_MLA_SOURCE = ("MLA down-projections replicated on every TP rank: SGLang deepseek_v2.py "
                         "fused_qkv_a_proj_with_mqa = ReplicatedLinear (https://github.com/sgl-project/sglang); "
                         "vLLM deepseek_v2.py q_a_proj / kv_a_proj_with_mqa ReplicatedLinear "
                         "(https://github.com/vllm-project/vllm)")


def replicated_attention_params_per_layer(spec: ModelSpec) -> int:
    """Parameters of one layer's attention that every attention-TP rank holds whole: MLA's query and latent-KV
    down-projections (module comment); 0 for other attention."""
    if spec.attention_kind != "mla" or not spec.kv_lora_rank:
        return 0
    h = spec.transformer_dims.hidden_size
    return h * ((spec.q_lora_rank or 0) + spec.kv_lora_rank + (spec.qk_rope_head_dim or 0))
