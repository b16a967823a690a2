"""Activation memory of transformer training, per layer and per model.

Source: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models"
(arXiv 2205.05198), Table 2, with 16-bit activations and 1-byte dropout masks:

====================================  ==========================================
Configuration                         Bytes per layer
====================================  ==========================================
no parallelism, no recompute          ``s*b*h*(34 + 5*a*s/h)``
tensor parallel t                     ``s*b*h*(10 + 24/t + 5*a*s/(h*t))``
TP + sequence parallel                ``s*b*h*(34/t + 5*a*s/(h*t))``
selective recompute (attention core)  the ``5*a*s/h`` term disappears
full recompute                        ``2*s*b*h`` (the layer input) per layer
====================================  ==========================================

The MLP term is generalised as in Megatron-LM's ``theoretical_memory_usage.py`` (``18 + 4*ffn/h``, = 34 for
ffn = 4h); a gated (SwiGLU) MLP stores one more ffn-wide tensor, ``18 + 6*ffn/h``. FlashAttention
(Dao et al. 2022, arXiv 2205.14135) never materialises the ``5*a*s^2*b`` softmax/dropout tensors and keeps
only softmax statistics, counted as ``4*a*s*b`` bytes as in cli99/llm-analysis.
Logits: ``b*s*V`` elements at 12 bytes each at the start of backward: the fp32 log-softmax output that
cross-entropy saves, its incoming gradient and the gradient of the (upcast) logits are alive together
(PyTorch ``log_softmax_backward_data``, https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/SoftMax.cpp;
furiousteabag/vram-calculator counts 8), divided by t for a vocabulary-parallel output layer (loss parallel).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.checks import MAX_BATCH, MAX_SEQ_LEN_TOKENS, choice, positive_int
from gpudesk.sizing.errors import SizingError

RECOMPUTE_MODES = ("none", "selective", "full")


def recompute_value_text(value: str) -> str:
    """A recompute mode (none / selective / full, the profile's and the CLI's words) in the reader's language."""
    return {"none": _("off"), "selective": _("selective"), "full": _("full")}.get(value, value)


LOGITS_BYTES_PER_ELEMENT = 12
LOSS_MODES = ("standard", "standard-kept", "standard-16bit", "standard-compiled", "chunked", "fused", "inplace-16bit",
              "vocab-chunked", "sum-16bit")
# ``standard`` with the fp32 logits the model returned still referenced through backward: the loop keeps the model's
# output (a dict or ModelOutput) in scope while ``loss.backward()`` runs. PyTorch's eager cross-entropy on fp32 logits
# is ``log_softmax`` + ``nll_loss`` (aten/src/ATen/native/LossNLL.cpp ``cross_entropy``): log_softmax saves its fp32
# output (tools/autograd/derivatives.yaml ``_log_softmax``: ``result``), nll_loss's backward writes a zeroed fp32
# gradient of that output and ``_log_softmax_backward_data`` writes the fp32 gradient of the logits while both are
# alive, 3 x 4 bytes a logit (``standard``); the kept fp32 logits add 4 more for the whole backward. prime-rl's SFT
# trainer does this (src/prime_rl/trainer/sft/train.py at b798a90d: ``out = forward(...)``, ``logits =
# out["logits"]``, ``del logits`` drops only the local name while ``out`` holds the fp32 tensor that model.py
# ``forward`` -> ``cast_float_and_contiguous`` made, and the default ``loss_impl`` "torch" is
# ``torch.nn.CrossEntropyLoss(reduction="none")``), as does any loop that keeps ``outputs = model(...)`` of a model
# whose forward upcasts its logits.
KEPT_LOGITS_BYTES_PER_ELEMENT = 16
# A loss on 16-bit logits without the fp32 upcast (models whose forward does not call ``logits.float()``, e.g. a
# plain ``F.cross_entropy`` on bf16 logits): log_softmax saves its bf16 output and the two backward gradients are
# bf16 too, 3 x 2 bytes per element (PyTorch ``log_softmax`` / ``nll_loss`` keep the input dtype,
# https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/SoftMax.cpp).
HALF_LOGITS_BYTES_PER_ELEMENT = 6
# The fp32 upcast done inside a loss function that torch.compile compiles (torchtitan since bbb1b616e, 2025-04-02,
# torchtitan/components/loss.py ``build_cross_entropy_loss``: ``cross_entropy(pred.flatten(0, 1).float(), ...)``
# under ``torch.compile`` when ``training.compile``; docs/composability.md "On upcasting the final output to fp32":
# the casts are fused with the loss forward and backward). Inductor's min-cut partitioner
# (torch/_functorch/partitioners.py ``min_cut_rematerialization_partition``) saves the 16-bit logits and the per-row
# log-sum-exp and recomputes the upcast and softmax in backward, which writes the 16-bit gradient of the logits:
# 2 + 2 bytes per element, against 12 when the upcast logits and their fp32 gradients live eagerly. (A model whose
# forward upcasts before a compiled loss, e.g. torchtune's ``output(h).float()``, hands fp32 logits to it: that is
# ``standard``.)
COMPILED_UPCAST_LOGITS_BYTES_PER_ELEMENT = 4
# torchtune CEWithChunkedOutputLoss / LinearCrossEntropyLoss split the output into 8 chunks and upcast one chunk at a
# time: the 16-bit logits stay (2 B/element) and one eighth is live in fp32 with its gradients (12/8 B/element).
# https://github.com/pytorch/torchtune/blob/main/torchtune/modules/loss/ce_chunked_output_loss.py
CHUNKED_LOSS_CHUNKS = 8
CHUNKED_LOGITS_BYTES_PER_ELEMENT = 2 + LOGITS_BYTES_PER_ELEMENT / CHUNKED_LOSS_CHUNKS
# Under torch.compile the loss is one Inductor graph: the fp32 upcast and log-softmax of each chunk are fused and
# recomputed in backward by the min-cut partitioner (https://github.com/pytorch/pytorch/blob/main/torch/_functorch/partitioners.py
# ``min_cut_rematerialization_partition``), so only the 16-bit logits stay saved, plus one chunk's 16-bit gradient in flight.
CHUNKED_COMPILED_LOGITS_BYTES_PER_ELEMENT = 2 + 2 / CHUNKED_LOSS_CHUNKS
# Liger fused linear cross-entropy never materialises the logits: it walks the tokens in chunks of about
# b*s*h/V tokens, so the live logits and their gradient are ~ b*s*h elements in fp32 (+ the bf16 chunk), ~10 B each.
# https://github.com/linkedin/Liger-Kernel/blob/main/src/liger_kernel/ops/fused_linear_cross_entropy.py
FUSED_LOSS_BYTES_PER_HIDDEN_ELEMENT = 10
# A cross-entropy kernel that saves the 16-bit logits with one fp32 log-sum-exp per row and writes the gradient of
# the logits into the logits' own buffer in backward (Unsloth ``Fast_CrossEntropyLoss``: ``ctx.save_for_backward(logits,
# logsumexp, labels)``, and ``backward`` runs ``_cross_entropy_backward`` on ``logits`` and returns ``logits`` as the
# gradient; https://github.com/unslothai/unsloth/blob/main/unsloth/kernels/cross_entropy_loss.py): one 16-bit copy,
# 2 B/element (the per-row fp32 statistics, 4 B a token, are negligible). When the model's forward casts the logits
# to another dtype first (Unsloth's ``logits = logits.to(self.config.torch_dtype)``, unsloth/models/llama.py, with fp16
# compute on a bf16 checkpoint), the cast's copy and its gradient add copies: ``standard-16bit`` is the closer count.
INPLACE_LOGITS_BYTES_PER_ELEMENT = 2
# An output layer and loss walked over the vocabulary in chunks of C columns, the whole logits never stored: the
# forward keeps an online log-sum-exp per token, the backward recomputes each chunk's logits from the saved hidden
# states and the weight (prime-rl ``FusedOutputLinear`` / ``_ChunkedLogProbEntropyFn``,
# src/prime_rl/trainer/models/layers/lm_head.py at b798a90d, chunk 2048 columns for RL: rl/config.py
# ``auto_setup_fused_lm_head_chunk_size``). What is live is one [tokens x C] chunk, not a function of the hidden
# size (Liger's ``fused``). The backward step of a chunk, written op by op, holds at its peak the previous chunk's
# fp32 logits, softmax and gradient (4 + 4 + 4: the loop's local names keep them until they are rebound) beside the new
# chunk's 16-bit logits (2), the fp32 cast and its temperature-scaled product (4 + 4): 22 bytes an element of the
# chunk; the forward's online log-sum-exp holds less (the 16-bit and fp32 logits, the shifted logits and their
# exponential, 14).
VOCAB_CHUNK_BYTES_PER_ELEMENT = 22
# A plain reduction of the 16-bit logits as the loss (``loss = outputs.logits.sum()``, the SDPA training
# micro-benchmarks of transformers' model docs and PRs #28802, #31031, #33298, #33724), with the model's output kept by
# the caller through ``backward``: ``sum``'s gradient is a stride-0 ``expand`` of a scalar
# (tools/autograd/derivatives.yaml ``sum``: ``grad.expand_symint(self.sym_sizes())``), and the output layer's
# ``addmm`` backward hands it to ``mm``, whose cuBLAS path copies an operand without a unit stride into a contiguous
# buffer (aten/src/ATen/native/cuda/Blas.cpp ``prepare_matrix_for_cublas``: ``clone(at::MemoryFormat::Contiguous)``):
# the kept 16-bit logits (2 B) and one dense 16-bit copy of their gradient (2 B) at the start of backward. Measured
# beside it (fresh-32 BERT-base doc table, typed with the encoder LM head): the residual slope of the estimate with 2
# bytes a logit is 62 KB a token, 2 x 30,522 bytes.
SUM_LOGITS_BYTES_PER_ELEMENT = 4
DEFAULT_VOCAB_CHUNK_COLUMNS = 2048


def vocab_chunk_width(vocab_chunk_columns: int, vocab_size: int, tensor_parallel: int = 1) -> int:
    """The columns one chunk really spans: a chunk wider than the vocabulary (its shard under tensor parallelism) is
    the whole vocabulary, walked in one step."""
    return min(vocab_chunk_columns, -(-vocab_size // tensor_parallel))


def loss_assumption(loss: str, vocab_chunk_columns: int = DEFAULT_VOCAB_CHUNK_COLUMNS, vocab_size: int | None = None,
                    tensor_parallel: int = 1) -> tuple[str, str]:
    """The (assumption, source) naming the loss the logits were counted for (and the chunk of ``vocab-chunked``)."""
    if loss == "vocab-chunked":
        source = "prime-rl src/prime_rl/trainer/models/layers/lm_head.py FusedOutputLinear at b798a90d"
        if vocab_size and vocab_chunk_width(vocab_chunk_columns, vocab_size, tensor_parallel) < vocab_chunk_columns:
            return (_("loss vocab-chunked, one chunk of the whole vocabulary ({columns} columns a GPU; {given} "
                      "given)").format(columns=vocab_chunk_width(vocab_chunk_columns, vocab_size, tensor_parallel),
                                       given=vocab_chunk_columns), source)
        return (_("loss vocab-chunked, {columns} vocabulary columns a chunk").format(columns=vocab_chunk_columns),
                source)
    return (_("loss {loss}").format(loss=loss), "gpudesk.sizing.activations.loss_logits_bytes (per-loss sources)")


def activation_bytes_per_layer(
    seq_len_tokens: int,
    micro_batch_size: int,
    hidden_size: int,
    num_attention_heads: int,
    ffn_size: int | None = None,
    *,
    gated_mlp: bool = False,
    recompute: str = "none",
    flash_attention: bool = True,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    bytes_per_element: float = 2.0,
    kv_width: int | None = None,
) -> float:
    """Bytes of activations one transformer layer keeps for backward (per GPU).

    Args:
        seq_len_tokens (s), micro_batch_size (b), hidden_size (h), num_attention_heads (a), ffn_size (default 4h).
        gated_mlp: SwiGLU-style MLP with three matrices.
        recompute: ``"none"``, ``"selective"`` (attention core recomputed) or ``"full"`` (only layer inputs kept).
        flash_attention: fused attention that never stores the s x s scores.
        tensor_parallel (t), sequence_parallel: Megatron-style partitioning.
        bytes_per_element: activation dtype size; Korthikanti's coefficients are for 2 (16-bit), fp32 training
            stores 4 (the 1-byte dropout masks are counted at the same scale, a < 3 % overcount).
        kv_width: the key and value projections' width (``kv_heads x head_dim``) of a grouped-query or
            multi-query attention layer (default: ``h``, multi-head). Korthikanti's ``QK^T`` (4 sbh) and ``V``
            (2 sbh) items count the keys and values at ``h`` wide; the attention kernel saves them at their own
            width (FlashAttention-2 ``flash_attn_func`` saves ``q, k, v, out, softmax_lse``, with ``k``/``v`` of
            ``nheads_k`` heads, https://github.com/Dao-AILab/flash-attention/blob/v2.3.6/flash_attn/
            flash_attn_interface.py ``FlashAttnFunc.forward``; PyTorch SDPA's flash/efficient backends likewise save
            the un-repeated key and value), so a GQA layer keeps ``2 x bytes x (h - kv_width)`` fewer bytes a token.
            Eager attention with ``repeat_kv`` (no FlashAttention) saves the repeated keys and values: the full
            count stays.

    Returns:
        bytes (float) for one layer on one GPU.

    Raises:
        SizingError: non-positive sizes, unknown recompute mode, or t not dividing the heads.
    """
    s = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    b = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
    h = positive_int("hidden_size", hidden_size)
    a = positive_int("num_attention_heads", num_attention_heads)
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    ffn = positive_int("ffn_size", ffn_size) if ffn_size else 4 * h
    mode = choice("recompute", recompute, RECOMPUTE_MODES)
    if a % t:
        raise SizingError("tensor_parallel", _("{tp} does not divide the {heads} attention heads.").format(tp=t, heads=a))
    sbh = s * b * h
    scale = bytes_per_element / 2.0
    if mode == "full":
        # Only the layer input is stored, sharded by SP when enabled.
        return bytes_per_element * sbh / (t if sequence_parallel else 1)
    mlp_coeff = (6 if gated_mlp else 4) * ffn / h
    total_coeff = 18 + mlp_coeff  # 34 for ffn = 4h, non-gated
    replicated = 10.0  # LayerNorm inputs, dropout masks and outputs not split by TP (Korthikanti Table 2)
    parallel = total_coeff - replicated
    if sequence_parallel:
        per_sbh = total_coeff / t
    else:
        per_sbh = replicated + parallel / t
    body = sbh * per_sbh * scale
    if flash_attention and kv_width is not None and 0 < kv_width < h:
        body -= 2.0 * bytes_per_element * s * b * (h - kv_width) / t  # K and V at their GQA width (docstring)
    if flash_attention:
        attention_core = 4 * a * s * b / t
    elif mode == "selective":
        attention_core = 0.0
    else:
        # Scores and softmax output at the activation dtype plus a 1-byte dropout mask: 5 for 16-bit, 9 for fp32.
        attention_core = (2 * bytes_per_element + 1) * a * s * s * b / t
    return body + attention_core


def full_recompute_working_bytes(
    seq_len_tokens: int, micro_batch_size: int, hidden_size: int, num_attention_heads: int,
    ffn_size: int | None = None, *, gated_mlp: bool = False, flash_attention: bool = True,
    tensor_parallel: int = 1, sequence_parallel: bool = False, bytes_per_element: float = 2.0,
    kv_width: int | None = None,
) -> float:
    """Bytes of the one layer being recomputed during backward under full recompute (its no-recompute set)."""
    return activation_bytes_per_layer(
        seq_len_tokens, micro_batch_size, hidden_size, num_attention_heads, ffn_size, gated_mlp=gated_mlp,
        recompute="none", flash_attention=flash_attention, tensor_parallel=tensor_parallel,
        sequence_parallel=sequence_parallel, bytes_per_element=bytes_per_element, kv_width=kv_width,
    )


def logits_bytes(seq_len_tokens: int, micro_batch_size: int, vocab_size: int, tensor_parallel: int = 1,
                 bytes_per_element: float = LOGITS_BYTES_PER_ELEMENT) -> float:
    """Bytes of output logits and the loss buffers: ``b*s*V*bytes_per_element/t``.

    A frequent hidden OOM source for 128K-256K vocabularies (oom.md 1.2, "Logits / cross-entropy").
    """
    s = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    b = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
    v = positive_int("vocab_size", vocab_size)
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    return s * b * v * bytes_per_element / t


def loss_logits_bytes(seq_len_tokens: int, micro_batch_size: int, vocab_size: int, hidden_size: int, loss: str = "standard",
                      tensor_parallel: int = 1, compiled: bool = False,
                      vocab_chunk_columns: int = DEFAULT_VOCAB_CHUNK_COLUMNS) -> float:
    """Logits + cross-entropy buffers for a loss implementation: ``standard`` (full fp32 logits and gradient,
    12 B/element), ``standard-kept`` (``standard`` with the returned fp32 logits kept through backward, 16
    B/element), ``standard-16bit`` (no fp32 upcast, 6 B/element), ``standard-compiled`` (the fp32 upcast inside a
    torch.compile'd loss, 4 B/element), ``chunked`` (torchtune, 3.5 B/element eager,
    2.25 under torch.compile), ``fused`` (Liger fused linear CE, ~10*b*s*h bytes) or ``inplace-16bit`` (16-bit logits
    whose gradient is written in place, 2 B/element: Unsloth's Triton cross-entropy) or ``vocab-chunked`` (the output
    layer and loss walked over ``vocab_chunk_columns`` vocabulary columns at a time, 22 B an element of one chunk:
    prime-rl's ``FusedOutputLinear``) or ``sum-16bit`` (``outputs.logits.sum()`` over 16-bit logits kept through
    backward, 4 B/element: :data:`SUM_LOGITS_BYTES_PER_ELEMENT`).
    Megatron-Core's ``vocab_parallel_cross_entropy`` (megatron/core/tensor_parallel/cross_entropy.py,
    github.com/NVIDIA/Megatron-LM) costs what ``standard-16bit`` counts, 6 B/element: beside the 16-bit logits it
    makes one fp32 copy, turns it into the softmax in place (``-=``, ``torch.exp(out=)``, ``div_``), saves it and
    writes the gradient into it in backward; ``standard`` (12 B) overstates a Megatron run.

    Raises:
        SizingError: unknown loss mode or non-positive sizes.
    """
    mode = choice("loss", loss, LOSS_MODES)
    if mode == "vocab-chunked":
        columns = positive_int("loss_vocab_chunk", vocab_chunk_columns)
        s = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
        b = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
        v = positive_int("vocab_size", vocab_size)
        t = positive_int("tensor_parallel", tensor_parallel, 1024)
        return float(VOCAB_CHUNK_BYTES_PER_ELEMENT * s * b * vocab_chunk_width(columns, v, t))
    if mode == "standard":
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel)
    if mode == "standard-kept":
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel, KEPT_LOGITS_BYTES_PER_ELEMENT)
    if mode == "standard-16bit":
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel, HALF_LOGITS_BYTES_PER_ELEMENT)
    if mode == "standard-compiled":
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel,
                            COMPILED_UPCAST_LOGITS_BYTES_PER_ELEMENT)
    if mode == "inplace-16bit":
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel, INPLACE_LOGITS_BYTES_PER_ELEMENT)
    if mode == "sum-16bit":
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel, SUM_LOGITS_BYTES_PER_ELEMENT)
    if mode == "chunked":
        per_element = CHUNKED_COMPILED_LOGITS_BYTES_PER_ELEMENT if compiled else CHUNKED_LOGITS_BYTES_PER_ELEMENT
        return logits_bytes(seq_len_tokens, micro_batch_size, vocab_size, tensor_parallel, per_element)
    h = positive_int("hidden_size", hidden_size)
    return float(FUSED_LOSS_BYTES_PER_HIDDEN_ELEMENT * seq_len_tokens * micro_batch_size * h / tensor_parallel)


# Sequence parallelism as PyTorch DTensor implements it (torchtitan ``parallelize_llama``: ``SequenceParallel`` on the
# norms, ``PrepareModuleInput(input_layouts=Shard(1), desired_input_layouts=Replicate())`` before attention and the
# MLP, ``ColwiseParallel(input_layouts=Shard(1))`` on the output layer,
# https://github.com/pytorch/torchtitan/blob/main/torchtitan/models/llama3/infra/parallelize.py) all-gathers the
# sequence-sharded activation before the column-parallel linears, and autograd saves that all-gathered tensor as the
# matmul input: the attention input and the MLP input of each layer, and the output layer's input, stay whole
# (``2*s*b*h`` bytes each) instead of ``1/t``. Megatron-LM saves the sharded input and all-gathers it again in
# backward (megatron/core/tensor_parallel/layers.py ``LinearWithGradAccumulationAndAsyncCommunication``), which is
# what Korthikanti et al.'s ``/t`` counts.
SP_GATHERED_INPUTS_PER_LAYER = 2


def sp_gathered_input_extra_bytes(seq_len_tokens: int, micro_batch_size: int, hidden_size: int,
                                  tensor_parallel: int, inputs: int, bytes_per_element: float = 2.0) -> float:
    """Bytes the all-gathered linear inputs of DTensor sequence parallelism keep beyond their ``1/t`` shards:
    ``inputs * bytes * s*b*h * (1 - 1/t)``."""
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    return inputs * bytes_per_element * seq_len_tokens * micro_batch_size * hidden_size * (1.0 - 1.0 / t)


def embedding_activation_bytes(seq_len_tokens: int, micro_batch_size: int, hidden_size: int,
                               tensor_parallel: int = 1, sequence_parallel: bool = False) -> float:
    """Embedding output + dropout mask kept for backward: ``3*s*b*h`` bytes (Megatron-LM; /t with SP)."""
    return 3 * seq_len_tokens * micro_batch_size * hidden_size / (tensor_parallel if sequence_parallel else 1)
