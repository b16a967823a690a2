"""Transient memory of one forward pass over ``tokens`` tokens in a serving engine (the profile run's peak).

vLLM's profile run (``vllm/v1/worker/gpu_model_runner.py`` ``profile_run``: ``_dummy_run(max_num_tokens)`` then
``_dummy_sampler_run``) and TensorRT-LLM's activation buffers size the largest step the scheduler can issue. In the
decoder layer (``vllm/model_executor/models/llama.py``: ``LlamaMLP`` gate_up_proj -> SiluAndMul -> down_proj),
the live 16-bit tensors at the MLP are the residual, the normed hidden state and the attention output still
referenced by the layer (``tokens x hidden`` each), the merged gate/up output (``tokens x 2 ffn / tp``) and the
activated half (``tokens x ffn / tp``). vLLM 0.6.4 on an RTX 3090 with Llama-3.1-8B printed a torch peak 0.92 GiB
higher at 29,000 than at 20,000 profiled tokens (vllm-project/vllm#10517): 110 KB per token, against
``(3 x 4096 + 3 x 14336) x 2`` = 108 KiB here; at attention the
QKV output (``tokens x (heads + 2 kv_heads) x head_dim / tp``). A MoE layer's fused kernel
(``vllm/model_executor/layers/fused_moe/fused_moe.py``, intermediate_cache1/2/3, chunked at
``VLLM_FUSED_MOE_CHUNK_SIZE`` = 32768 tokens) holds ``tokens x top_k x (3 moe_ffn / tp + hidden)`` values.
The sampler holds the logits of one token per sequence (16-bit from the LM head, then fp32) and fp32
probabilities: ``seqs x vocab x (2 + 4 + 4)`` bytes (vLLM 0.7 printed a 0.19 GiB peak for 256 sequences over
Qwen2.5's 152,064-token vocabulary, vllm-project/vllm#13061).

vLLM's V0 profile run samples with ``SamplingParams(top_p=0.99, top_k=vocab_size - 1)`` "to reflect the accurate
memory usage" (``vllm/worker/model_runner.py`` ``profile_run``), so its sampler sorts the logits
(``vllm/model_executor/layers/sampler.py`` ``_apply_top_k_top_p``). Live at its last step, per sequence and vocab
entry: the 16-bit logits the model runner still holds (2 bytes), their fp32 copy (``logits.to(torch.float)``, 4),
``logits_sort`` (4), ``logits_idx`` (int64, 8), ``top_k_mask`` (bool, 1), ``probs_sort`` (4), ``probs_sum`` (4),
``top_p_mask`` (1) and the scatter's output (4): 32 bytes. The full ``tokens x hidden`` output of the forward is
still referenced. Only the driver worker (rank 0) samples, on logits gathered to the full vocabulary, and the
executor keeps the smallest block count of all workers (``vllm/executor/distributed_gpu_executor.py``), so rank 0's
peak sets the KV cache. Qwen2.5-32B at TP 2 over 10,000 tokens: ``256 x 152,064 x 32 + 10,000 x 5,120 x 2`` bytes =
1.26 GiB, the peak vLLM 0.7.3 printed (vllm-project/vllm#15815).

V1 profiles the sampler too, with ``top_p=0.9`` and ``top_k=vocab_size - 1`` on ``min(max_num_seqs,
max_num_batched_tokens)`` rows (``vllm/v1/worker/gpu_model_runner.py`` ``_dummy_sampler_run``, the same in the
0.8.0, 0.9.2, 0.10.1 and 0.11.0 wheels). Without FlashInfer (not a dependency of the ``vllm`` wheel; an optional
extra from 0.10) the PyTorch path runs (``vllm/v1/sample/ops/topk_topp_sampler.py`` ``apply_top_k_top_p``): live at
its ``scatter``, per row and vocabulary entry, the 16-bit logits of ``compute_logits`` (2 bytes, all-gathered to the
full vocabulary on every rank), their fp32 copy (``Sampler.forward``: ``logits.to(torch.float32)``, 4),
``logits_sort`` (4), ``logits_idx`` (int64, 8), ``top_k_mask`` (bool, 1), ``probs_sort`` (4; the cumsum writes into
it), ``top_p_mask`` (1) and the scatter's output (4): 28 bytes (:func:`v1_profile_peak_bytes`). With FlashInfer's
sampling kernels (``forward_cuda``) the sorted copies do not exist.

The peak of that path is not the ``scatter`` but the ``logits.sort`` before it: PyTorch's CUDA sort
(``aten/src/ATen/native/cuda/SortStable.cu`` ``launch_stable_sort_kernel``, PyTorch 2.x) writes the sorted values
(4) and int64 indices (8) and, for 128 rows or more (``segmented_sort_pairs``), allocates int64 reverse indices (8)
and calls CUB's ``DeviceSegmentedRadixSort::SortPairs``, whose non-DoubleBuffer form keeps alternate key and value
buffers in its temporary storage (4 + 8; CUB documents "~2N auxiliary storage"); with the 16-bit and fp32 logits
still live that is 38 bytes per logit (:func:`torch_sort_peak_bytes_per_logit`, which also covers the 2-127 row
``segmented_sort_pairs_by_full_sort`` path, two int2 buffers and a keys output: 50, and one row: 30). vLLM 0.11
on H100 (llm-d config_explorer, four models, 1024 rows) printed activation peaks 38.4 bytes per logit of
``rows x vocab`` (Llama-3.1-8B 4.76 GiB, Qwen3-32B 5.64, gpt-oss-20b 7.38, Llama-3.3-70B TP 2 4.84), and a 0.10.1
log that says "FlashInfer is not available. Falling back to the PyTorch-native implementation" (dennislee22/
vLLM-benchmarking, Qwen2-7B TP 2 on two nodes) gets its KV cache within 0.4 % with it.

With FlashInfer installed, V1 uses it by default (``VLLM_USE_FLASHINFER_SAMPLER`` unset means on in V1:
``vllm/v1/sample/ops/topk_topp_sampler.py`` 0.10.1 and 0.11.0 log "Using FlashInfer for top-p & top-k
sampling."); ``flashinfer_sample`` calls ``flashinfer.sampling.top_k_top_p_sampling_from_logits`` with
``filter_apply_order="top_k_first"`` (``flashinfer/sampling.py``): ``top_k_mask_logits`` writes a masked copy of the
fp32 logits (4) and ``torch.softmax`` the probabilities (4), rejection sampling needs no sort: with the 16-bit and
fp32 logits 14 bytes per logit (:data:`V1_FLASHINFER_SAMPLER_BYTES_PER_LOGIT`). FlashInfer is in the vLLM Docker
images, an optional pip extra from 0.10 (vllm-project/vllm PR 21959) and a default CUDA dependency only after
0.11.0 (PR 26443); the user says which (``vllm_use_flashinfer_sampler``). Once it was a default dependency the
FlashInfer sampler became opt-in (vllm-project/vllm PR 26859, merged 2025-10-15, "Disable FlashInfer sampler by
default", so from 0.11.1; ``topk_topp_sampler.py``: "Users must opt in explicitly via
VLLM_USE_FLASHINFER_SAMPLER=1", read in the 0.14.1, 0.17.0 and 0.19.0 wheels). PR 40376 (merged 2026-04-20, "Enable
FlashInfer top-k/top-p sampler by default") turned it back on after 0.19; the release that first carries it is not
identified here, so an unnumbered ``v1`` keeps the Triton path below (the same 14 bytes a logit, plus its cached
scratch rows).

From vLLM 0.17 (absent in the 0.16.0 wheel, present in 0.17.0 and 0.19.0) the PyTorch path no longer sorts when
there are 8 rows or more: ``apply_top_k_top_p`` calls ``apply_top_k_top_p_triton``
(``vllm/v1/sample/ops/topk_topp_triton.py``), which masks the fp32 logits in place with one scratch row per
program (at most one per SM: 132 rows on an H100, under 4 % of a 1,024-row run, not counted). Live at its end, per
row and vocabulary entry: the 16-bit logits (2), the fp32 logits (4), ``softmax`` probabilities (4) and
``random_sample``'s exponential draws (``torch.empty_like(probs)``, 4): 14 bytes, as with FlashInfer
(:func:`v1_sampler_bytes_per_logit` with ``triton_top_k_top_p``). The kernel's scratch rows are not freed with the
sampler: ``apply_top_k_top_p_triton`` keeps them in the module-level ``_TRITON_BUFFER_CACHE`` (keyed on device,
dtype and vocabulary size; read in the 0.17.0 and 0.19.0 wheels), ``min(next_power_of_2(programs), num_sm)`` fp32
rows with ``programs = min(num_sm, rows)`` and ``num_sm`` the device's multiprocessor count
(``vllm/utils/platform_utils.py`` ``num_compute_units``), so they are still allocated when the probabilities and draws reach the
peak (:func:`triton_buffer_bytes`): 132 rows x 4 bytes a vocabulary entry on an H100, 0.07 GiB for Qwen2.5's
152,064 tokens, the torch peak vLLM 0.19.0 prints above the 14 bytes per logit (llm-d-planner v0.19.0 logs).
"""

from __future__ import annotations

from gpudesk.sizing.shapes import ModelSpec

ACT_BYTES = 2  # bf16/fp16 activations
MOE_CHUNK_TOKENS = 32768
SAMPLER_BYTES_PER_LOGIT = 4 + 4
#: V0's sorted top-k/top-p sampler at its peak, bytes per sequence and vocabulary entry (module docstring).
V0_SORTED_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 8 + 1 + 4 + 4 + 1 + 4


def layer_peak_bytes(spec: ModelSpec, tokens: int, tensor_parallel: int = 1) -> float:
    """The largest set of live activations inside one decoder layer for ``tokens`` tokens (module docstring)."""
    t = max(1, tensor_parallel)
    h = spec.hidden_size or 0
    heads = spec.num_attention_heads or 0
    hd = spec.head_dim_resolved if spec.is_transformer else 0
    kv = spec.kv_heads_resolved if spec.is_transformer else 0
    attn = tokens * (3 * h + (heads + 2 * kv) * hd / t + heads * hd / t) * ACT_BYTES
    if spec.moe_experts and spec.moe_active_experts:
        width = spec.moe_ffn_size or spec.ffn_size or 4 * h
        chunk = min(tokens, MOE_CHUNK_TOKENS)
        mlp = (3 * tokens * h + chunk * spec.moe_active_experts * (3 * width / t + h)) * ACT_BYTES
    else:
        ffn = spec.ffn_size or 4 * h
        mlp = tokens * (3 * h + 3 * ffn / t) * ACT_BYTES
    return max(attn, mlp)


def sampler_peak_bytes(spec: ModelSpec, sequences: int, tensor_parallel: int = 1) -> float:
    """fp32 logits of one token per sequence and the sampler's working copies (module docstring)."""
    vocab = spec.vocab_size or 0
    return sequences * vocab * SAMPLER_BYTES_PER_LOGIT + sequences * vocab * ACT_BYTES / max(1, tensor_parallel)


def profile_peak_bytes(spec: ModelSpec, tokens: int, sequences: int, tensor_parallel: int = 1) -> float:
    """Peak activation of a profile run: the forward's largest layer, or the sampler, whichever is larger."""
    return max(layer_peak_bytes(spec, tokens, tensor_parallel),
               sampler_peak_bytes(spec, min(sequences, tokens), tensor_parallel)
               + 2 * min(sequences, tokens) * (spec.hidden_size or 0) * ACT_BYTES)


#: V1's PyTorch top-k/top-p sampler at its ``scatter``, bytes per row and vocabulary entry (module docstring).
V1_SORTED_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 8 + 1 + 4 + 1 + 4
#: V1's FlashInfer top-k/top-p sampler: 16-bit and fp32 logits, the top-k masked copy, the probabilities.
V1_FLASHINFER_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
#: Live logits while the sampler sorts them: the 16-bit output of the LM head and its fp32 copy.
SORT_INPUT_BYTES_PER_LOGIT = 2 + 4


def torch_sort_peak_bytes_per_logit(rows: int) -> int:
    """Bytes per element live while ``torch.sort`` sorts ``rows`` fp32 rows on CUDA, the 16-bit and fp32 logits
    included (module docstring; ``aten/src/ATen/native/cuda/SortStable.cu``): values 4 + int64 indices 8, plus
    int64 reverse indices 8 and CUB's alternate keys and values 4 + 8 from 128 rows, two int2 buffers 8 + 8, a keys
    output 4 and CUB's alternates 4 + 8 for 2-127 rows, CUB's alternates alone for one row."""
    out = 4 + 8
    if rows >= 128:
        extra = 8 + 4 + 8
    elif rows >= 2:
        extra = 8 + 8 + 4 + 4 + 8
    else:
        extra = 4 + 8
    return SORT_INPUT_BYTES_PER_LOGIT + out + extra


#: vLLM 0.17+'s Triton top-k/top-p: 16-bit and fp32 logits (masked in place), probabilities, exponential draws.
V1_TRITON_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
#: Rows from which vLLM 0.17+ takes the Triton top-k/top-p path (``logits.shape[0] >= 8``).
TRITON_TOP_K_TOP_P_MIN_ROWS = 8


def v1_sampler_bytes_per_logit(rows: int, flashinfer: bool = False, triton_top_k_top_p: bool = False) -> int:
    """Peak bytes per row and vocabulary entry of V1's dummy sampler run: FlashInfer's kernels, the Triton
    top-k/top-p masking of vLLM 0.17+ (from 8 rows), or the PyTorch path at the larger of its sort and its scatter
    (module docstring)."""
    if flashinfer:
        return V1_FLASHINFER_SAMPLER_BYTES_PER_LOGIT
    if triton_top_k_top_p and rows >= TRITON_TOP_K_TOP_P_MIN_ROWS:
        return V1_TRITON_SAMPLER_BYTES_PER_LOGIT
    return max(torch_sort_peak_bytes_per_logit(rows), V1_SORTED_SAMPLER_BYTES_PER_LOGIT)


def triton_buffer_bytes(rows: int, vocab: int, sm_count: int) -> int:
    """The fp32 scratch rows vLLM 0.17+'s Triton top-k/top-p kernel caches for ``rows`` rows of ``vocab`` logits
    on a GPU of ``sm_count`` streaming multiprocessors (module docstring); 0 below 8 rows (the sort path)."""
    if rows < TRITON_TOP_K_TOP_P_MIN_ROWS or sm_count <= 0:
        return 0
    programs = min(sm_count, rows)
    return min(1 << (programs - 1).bit_length(), sm_count) * vocab * 4


def v1_profile_peak_bytes(spec: ModelSpec, tokens: int, sequences: int, tensor_parallel: int = 1,
                          flashinfer: bool = False, triton_top_k_top_p: bool = False, sm_count: int = 0) -> float:
    """vLLM V1's profile peak: the forward's largest layer, or the top-k/top-p sampler (PyTorch, or FlashInfer when
    ``flashinfer``) over ``min(sequences, tokens)`` full-vocabulary rows with the dummy run's ``tokens x hidden``
    output still referenced; on the Triton path (``triton_top_k_top_p``) with the kernel's cached scratch rows for a
    GPU of ``sm_count`` multiprocessors."""
    rows = min(sequences, tokens)
    vocab = spec.vocab_size or 0
    sampler = rows * vocab * v1_sampler_bytes_per_logit(rows, flashinfer, triton_top_k_top_p)
    if triton_top_k_top_p and not flashinfer:
        sampler += triton_buffer_bytes(rows, vocab, sm_count)
    return max(layer_peak_bytes(spec, tokens, tensor_parallel),
               sampler + tokens * (spec.hidden_size or 0) * ACT_BYTES)


def v0_profile_peak_bytes(spec: ModelSpec, tokens: int, sequences: int, tensor_parallel: int = 1) -> float:
    """vLLM V0's profile peak on the driver worker: the forward's largest layer, or the sorted top-k/top-p sampler
    over ``sequences`` full-vocabulary rows (at the larger of its sort and its last step) with the forward's output
    still alive, whichever is larger."""
    rows = min(sequences, tokens)
    per_logit = max(torch_sort_peak_bytes_per_logit(rows), V0_SORTED_SAMPLER_BYTES_PER_LOGIT)
    sampler = rows * (spec.vocab_size or 0) * per_logit
    return max(layer_peak_bytes(spec, tokens, tensor_parallel),
               sampler + tokens * (spec.hidden_size or 0) * ACT_BYTES)
