"""Device memory of full training / full fine-tuning: model states, sharding, activations, logits, overheads.

Optimizer accountings (bytes per parameter before sharding; weights + master + gradients + states):

=============  ==============================  ====  ===========================================================
name           what is stored                  B/p   source
=============  ==============================  ====  ===========================================================
adam-16        bf16 w, fp32 master, bf16 g,    16    Rajbhandari et al. 2019, ZeRO (arXiv 1910.02054) section 3.1
               fp32 m+v
adam-18        bf16 w, fp32 master, fp32 g,    18    Megatron-LM theoretical_memory_usage.py; NVIDIA/Megatron-LM#654;
               fp32 m+v                              Stas Bekman, ML Engineering
adam-20        bf16 w, fp32 master, bf16+fp32  20    Smith et al. 2022, MT-NLG 530B (arXiv 2201.11990); DeepSpeed
               g, fp32 m+v                           estimate_zero2 ``2P + 18P/N``; Azure/MS-AMP#173
adamw-bf16     bf16 w, g, m, v (no master)      8    huggingface/transformers PR 21312 (pure-bf16 AdamW)
adam-8bit      bf16 w, fp32 master, bf16 g,    10    Dettmers et al. 2021, 8-bit optimizers (arXiv 2110.02861);
               8-bit m+v                             catalog.md 4l
sgd            bf16 w, fp32 master, bf16 g,    12    EleutherAI Transformer Math 101 (SGD+momentum 8 B/param
               fp32 momentum                         optimizer state incl. master)
=============  ==============================  ====  ===========================================================

With ``precision="fp32"`` there is no separate master copy: weights 4, gradients 4, states 8 (Adam), 2 (8-bit),
4 (SGD) or 8 (adamw-bf16 is then invalid).

Sharding (Rajbhandari et al. 2019 section 5; DeepSpeed memory docs; PyTorch FSDP docs): ``ddp`` replicates
everything; ``zero1`` divides master weights and optimizer states by N; ``zero2`` (= FSDP SHARD_GRAD_OP) also
divides gradients; ``zero3`` (= ``fsdp`` FULL_SHARD) also divides weights and gathers the largest layer
(DeepSpeed estimate_zero3: ``4 * largest_layer_params`` bytes). Offload (ZeRO-Offload, Ren et al. 2021, arXiv
2101.06840): ``optimizer`` moves master weights, fp32 gradients and states to the host; ``all`` (ZeRO-3 only)
also the weights. These reproduce DeepSpeed's documented t5-3b per-GPU figures (tests/sizing).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gpudesk.i18n import _, ngettext
from gpudesk.sizing.eager_gelu import unfused_gelu_extra_bytes_per_layer
from gpudesk.sizing.eager_softmax import eager_softmax_extra_bytes_per_layer
from gpudesk.sizing.decoder_length import (
    checked_decoder_length,
    cross_attention_bytes_per_layer,
    encoder_decoder_layers,
)
from gpudesk.sizing.encoder_lm_head import check_encoder_lm_head, encoder_lm_head_transform_bytes
from gpudesk.sizing.tied_embedding_grad import TIED_EMBEDDING_GRAD_SOURCE, tied_embedding_grad_bytes
from gpudesk.units import format_bytes
from gpudesk.sizing.activations import (
    SP_GATHERED_INPUTS_PER_LAYER,
    DEFAULT_VOCAB_CHUNK_COLUMNS,
    activation_bytes_per_layer,
    embedding_activation_bytes,
    full_recompute_working_bytes,
    loss_assumption,
    loss_logits_bytes,
    recompute_value_text,
    sp_gathered_input_extra_bytes,
)
from gpudesk.sizing.checks import MAX_BATCH, MAX_GPUS, MAX_SEQ_LEN_TOKENS, choice, positive_int
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.estimate import EXPERT_PARTS, ExpertShare, MemoryEstimate, ordered_breakdown
from gpudesk.sizing.fp32_grad_buffer import resident_grad_buffer, with_fp32_grads
from gpudesk.sizing.fsdp2_no_sync import check_fsdp2_no_sync, fsdp2_no_sync_gradient_bytes
from gpudesk.sizing.tp_training_vocab import logits_tensor_parallel, replicated_embedding_extra_params
from gpudesk.sizing.main_grads_kept import check_main_grads_kept, flat_allreduce_copy_bytes, kept_main_grad_bytes
from gpudesk.sizing.loading import add_loading_reserve, load_staging_bytes
from gpudesk.sizing.overheads import Overheads, add_overheads
from gpudesk.sizing.optimizers import (
    LEGACY_ACCOUNTING,
    PARAM_PRECISIONS,
    is_muon,
    is_paged,
    MUON_ADAMW_EXTRA_STATES,
    muon_adamw_params,
    muon_step_temporary_bytes,
    optimizer_bytes_per_param,
    optimizer_source,
    ZERO3_SUB_GROUP_ELEMENTS,
    step_temporary_bytes_per_param,
    ddp_master_grad_step_bytes,
    zero3_sub_group_step_bytes,
    zero12_step_bytes,
)
from gpudesk.sizing.fsdp_grad_op import grad_op_shard_bytes, grad_op_unsharded_bytes
from gpudesk.sizing.fsdp1_rate_limiter import check_fsdp1_limit_all_gathers, unlimited_blocks_params
from gpudesk.sizing.fsdp_step_reshard import (
    fsdp_end_of_backward_gathered_bytes,
    fsdp_stream_cache_bytes,
    step_phase_bytes,
)
from gpudesk.sizing.recompute_layers import (
    check_recompute_layers,
    check_recompute_layers_count,
    recompute_layers_note,
    recomputed_share,
)
from gpudesk.sizing.pipeline import (
    MAX_PIPELINE_MICROBATCHES,
    fullest_stage_params,
    pipeline_peak,
    stages_per_rank_for,
)
from gpudesk.sizing.zero3_grad_buffer import zero3_resident_grad_partition
from gpudesk.sizing.zero2_buffers import (
    DEFAULT_REDUCE_BUCKET_ELEMENTS,
    applies as zero2_offload_applies,
    bucket_applies as zero2_bucket_applies,
    zero2_offload_buffers,
    zero2_reduce_bucket_bytes,
)
from gpudesk.sizing.zero3_params import Zero3Settings, gathered_assumption, zero3_gathered_bytes, zero3_gathered_split
from gpudesk.sizing.zero3_outside_init import add_engine_start_model, outside_init_assumption, retained_extra_bytes
from gpudesk.sizing.zero3_stream_pools import zero3_stream_cache_bytes
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.train_expert_parallel import (
    DISPATCH_SOURCE,
    EXPERT_PARALLEL_SOURCE,
    check_expert_parallel,
    check_expert_tensor_parallel,
    dispatch_activation_bytes,
    dispatch_saved_bytes,
    expert_nccl_bytes,
    expert_split,
)

# name -> (weights, master_weights, gradients, optimizer_states) bytes/param in mixed precision; the table and
# its citations (optimizer_source) live in gpudesk.sizing.optimizers.
OPTIMIZER_ACCOUNTING = LEGACY_ACCOUNTING
_FP32_STATES = {"adam-16": 8, "adam-18": 8, "adam-20": 8, "adam-8bit": 2, "sgd": 4}
SHARDING_MODES = ("none", "ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp-grad-op")
FSDP_VERSIONS = (1, 2)
OFFLOAD_MODES = ("none", "optimizer", "all")
TRAIN_PRECISIONS = PARAM_PRECISIONS


def model_state_bytes_per_param(optimizer: str, precision: str = "bf16") -> tuple[float, float, float, float]:
    """(weights, master_weights, gradients, optimizer_states) bytes per parameter, before sharding.

    Accepts the legacy accounting names (``adam-18`` ...) and the names users type (``adamw``, ``adamw_torch``,
    ``adamw_8bit``, ``paged_adamw_8bit``, ``adafactor``, ``sgd``); see :mod:`gpudesk.sizing.optimizers`.

    Raises:
        SizingError: unknown optimizer or precision, or ``adamw-bf16`` with ``fp32``.
    """
    return optimizer_bytes_per_param(optimizer, precision)


def normalise_sharding(sharding: str) -> str:
    """Map aliases onto the ZeRO stage names: ``fsdp`` -> ``zero3``, ``fsdp-grad-op`` -> ``zero2``, ``none`` -> ``ddp``."""
    mode = choice("sharding", sharding, SHARDING_MODES)
    return {"fsdp": "zero3", "fsdp-grad-op": "zero2", "none": "ddp"}.get(mode, mode)


def ddp_bucket_bytes(rank_params: float, gradient_bytes_per_param: float, data_parallel: int, stage: str,
                     offload: str = "none", bucket_view: bool = False) -> float:
    """Bytes of PyTorch DDP's all-reduce buckets: a second, flat copy of every gradient.

    ``DistributedDataParallel`` builds its ``Reducer`` at construction; ``Reducer::initialize_buckets`` allocates
    each bucket's flat ``gradients`` tensor (``at::empty({offset}, options)``, the sum of its parameters' sizes in
    the gradient dtype) and keeps it for the whole run; after backward each ``param.grad`` is copied into its
    bucket, all-reduced, and copied back
    (https://github.com/pytorch/pytorch/blob/v2.1.0/torch/csrc/distributed/c10d/reducer.cpp). The
    ``gradient_as_bucket_view`` argument (default False) makes the gradients views into the buckets instead:
    "This can reduce peak memory usage, where the saved memory size will be equal to the total gradients size"
    (https://github.com/pytorch/pytorch/blob/v2.1.0/torch/nn/parallel/distributed.py). Megatron-Core's DDP
    keeps one contiguous gradient buffer that is the bucket (``bucket_view``). Only plain data parallelism
    over more than one rank builds them (ZeRO stages and FSDP reduce-scatter their own buffers); with the
    optimizer offloaded to the CPU they are not counted here.
    """
    if stage != "ddp" or data_parallel <= 1 or bucket_view or offload != "none":
        return 0.0
    return rank_params * gradient_bytes_per_param


def deepspeed_fp32_master_clone_bytes(rank_params: float, per_param: tuple[float, float, float, float],
                                      data_parallel: int, stage: str, offload: str, fsdp: bool) -> float:
    """Bytes of the fp32 master partition DeepSpeed ZeRO clones even when the model itself is fp32.

    With fp16/bf16 off (``precision="fp32"``: no separate master weights in the accounting), DeepSpeed's ZeRO
    optimizers still build their own fp32 copy of this rank's partition and step that copy, then copy it back
    into the model's partition: ZeRO-1/2 ``single_partition_of_fp32_groups`` from
    ``parallel_partitioned_bit16_groups[i][partition_id].detach().clone()``
    (https://github.com/deepspeedai/DeepSpeed/blob/v0.13.1/deepspeed/runtime/zero/stage_1_and_2.py, unchanged at
    the 2026 head), ZeRO-3 ``fp32_partitioned_groups_flat`` from ``fp16_partitioned_groups_flat[i].to(device)
    .clone().float()`` (https://github.com/deepspeedai/DeepSpeed/blob/v0.13.1/deepspeed/runtime/zero/stage3.py
    ``_create_fp32_partitions``). DeepSpeed 0.18.2 (PR #7651, 2025-10-28) reuses the fp32 partition under ZeRO-3
    instead of cloning it; earlier releases, which the published cases ran, hold both. With the optimizer offloaded
    the clone lives in host memory; PyTorch FSDP keeps no such copy.
    """
    if fsdp or offload != "none" or stage not in ("zero1", "zero2", "zero3") or per_param[1] or per_param[0] != 4.0:
        return 0.0
    return rank_params * per_param[0] / data_parallel


def offload_value_text(value: str) -> str:
    """An offload mode (none / optimizer / all, the profile's and the CLI's words) in the reader's language: what
    ZeRO-Offload keeps in host memory (optimizer: fp32 master weights, gradients and optimizer states; all: the
    weights too), https://www.deepspeed.ai/tutorials/zero-offload/."""
    return {"none": _("off"), "optimizer": _("optimizer states to CPU"),
            "all": _("weights and optimizer states to CPU")}.get(value, value)


def sharded_model_states(params: int, per_param: tuple[float, float, float, float], data_parallel: int,
                         sharding: str, offload: str = "none", largest_layer_params: int = 0) -> dict[str, float]:
    """Per-GPU bytes of weights, master weights, gradients, optimizer states and gathered layers.

    Args:
        params: parameters held by this model-parallel rank (P / tensor_parallel).
        per_param: from :func:`model_state_bytes_per_param`.
        data_parallel: N, the GPUs the states are sharded over.
        sharding: ``ddp``/``zero1``/``zero2``/``zero3`` (aliases accepted).
        offload: ``none``, ``optimizer`` or ``all`` (``all`` needs ZeRO-3).
        largest_layer_params: gathered at once under ZeRO-3 (``4 * LL`` bytes, DeepSpeed estimate_zero3).

    Raises:
        SizingError: unknown sharding/offload, or ``offload="all"`` without ZeRO-3.
    """
    n = positive_int("gpus", data_parallel, MAX_GPUS)
    stage = normalise_sharding(sharding)
    off = choice("offload", offload, OFFLOAD_MODES)
    if off == "all" and stage != "zero3":
        raise SizingError("offload", _("offloading the weights too ('all') needs ZeRO-3 / FSDP full sharding."))
    w, master, grads, states = (params * x for x in per_param)
    if stage in ("zero1", "zero2", "zero3"):
        master, states = master / n, states / n
    if stage in ("zero2", "zero3"):
        grads = grads / n
    gathered = 0.0
    if stage == "zero3":
        w = w / n
        gathered = 4.0 * largest_layer_params
        grads_on_gpu = 0.0 if off != "none" else grads  # fp16 grads of the live layer are in `gathered`
    else:
        grads_on_gpu = grads
    if off != "none":
        # Master weights, fp32 gradients and optimizer states live in host memory (ZeRO-Offload).
        master, states = 0.0, 0.0
        grads_on_gpu = 0.0 if stage in ("zero2", "zero3") else grads_on_gpu
    if off == "all":
        w = 0.0
    return {"weights": w, "master_weights": master, "gradients": grads_on_gpu, "optimizer_states": states,
            "gathered_layers": gathered}


def fsdp_gathered_bytes(spec: ModelSpec, per_param: tuple[float, float, float, float], tensor_parallel: int = 1,
                        fsdp_version: int = 2, root_only: bool = False, limit_all_gathers: bool = True) -> float:
    """Unsharded parameters and gradients FSDP holds at once: two transformer blocks (the one computing and the
    one prefetched) at the compute dtype plus one block's unsharded gradient, or the embedding / output layer when
    that is larger (PyTorch FSDP2 ``fully_shard`` per block, https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html).

    FSDP1 (``FullyShardedDataParallel``) reduce-scatters a whole ``FlatParameter``: the unsharded flat gradient of
    a block lives until its reduce-scatter has finished while the next block's backward (with
    ``BACKWARD_PRE`` prefetch) already produces its own, so two unsharded block gradients are counted
    (``torch/distributed/fsdp/_runtime_utils.py`` ``_post_backward_hook`` / ``_reduce_grad``,
    https://github.com/pytorch/pytorch/blob/v2.2.0/torch/distributed/fsdp/_runtime_utils.py). Its root unit
    (what the wrap policy leaves out: embeddings, final norm, an untied LM head) stays unsharded from forward to
    backward and is counted beside the blocks.

    ``root_only``: FSDP wraps only the root module (no auto-wrap policy: Lightning's ``FSDPStrategy()`` without
    ``auto_wrap_policy``, ``fully_shard(model)`` alone), so the whole model is one unit. The root is not resharded
    after forward (FSDP1 ``_runtime_utils.py`` ``_post_forward_reshard``: ``free_unsharded_flat_param = not
    state._is_root and ...``; FSDP2 ``fully_shard``: ``reshard_after_forward`` is set to False for the root), so
    every parameter is unsharded from the first forward to the end of backward. Its gradient exists twice before
    the reduce-scatter: FSDP1's original parameters are ``torch.split`` views of the one ``FlatParameter``
    (``_flat_param.py`` ``_get_unflat_views_aligned``), so autograd holds each view's gradient until the last
    one arrives and then concatenates them into the flat gradient (``SplitWithSizesBackward``); FSDP2's
    ``foreach_reduce`` copies the unit's unsharded gradients, still alive, into a ``reduce_scatter_input`` of
    the unit's whole size (``_fully_shard/_fsdp_collectives.py``), both at torch v2.5.1
    (https://github.com/pytorch/pytorch/tree/v2.5.1/torch/distributed/fsdp). Counted, as for the per-block wrap,
    beside the whole activations: the allocated peak is lower (backward frees activations as the gradients
    grow); the caching allocator's reserved pool keeps both.

    ``limit_all_gathers=False`` (FSDP1 without its rate limiter): every block unit is unsharded at once beside the
    root, not two (:mod:`gpudesk.sizing.fsdp1_rate_limiter`); the gradients stay two blocks in flight.
    """
    compute = min(per_param[0], 2.0) if per_param[1] else per_param[0]
    if root_only:
        return spec.params * (compute + 2 * per_param[2]) / tensor_parallel
    block = spec.params / max(1, spec.layers or 1)
    if spec.vocab_size and spec.hidden_size:
        block = (spec.params - spec.embedding_params) / max(1, spec.layers or 1)
    embed = (spec.vocab_size or 0) * (spec.hidden_size or 0)
    if fsdp_version == 1:
        # The modules no auto-wrap unit covers (embeddings, final norm, an untied LM head) form the root
        # FlatParameter, which FSDP1 does not reshard after forward ("free_unsharded_flat_param = not
        # state._is_root and ...", ``_runtime_utils.py`` ``_post_forward``): unsharded beside the blocks.
        root = spec.embedding_params * compute
        gathered_blocks = 2 * block if limit_all_gathers else unlimited_blocks_params(spec)
        return (root + gathered_blocks * compute + 2 * block * per_param[2]) / tensor_parallel
    return max(2 * block * compute + block * per_param[2], embed * (compute + per_param[2])) / tensor_parallel


def fsdp1_offload_gradient_shard_bytes(params: float, per_param: tuple[float, float, float, float],
                                       data_parallel: int) -> float:
    """Sharded gradients FSDP1 keeps on the GPU under ``CPUOffload(offload_params=True)``: ``P / N`` x the gradient
    bytes, beside the compute stream's own peak.

    FSDP1 reduce-scatters each ``FlatParameter``'s gradient into a new shard allocated on its post-backward stream,
    keeps that shard on the GPU as ``flat_param._saved_grad_shard`` after starting its copy to
    ``flat_param._cpu_grad``, and deletes it only in ``prepare_gradient_for_optim`` at the end of the whole
    backward (``torch/distributed/fsdp/_runtime_utils.py`` ``_reduce_grad`` / ``_accumulate_sharded_grad`` /
    ``_offload_grad``, ``_flat_param.py`` ``prepare_gradient_for_optim``,
    https://github.com/pytorch/pytorch/blob/v2.5.1/torch/distributed/fsdp/_runtime_utils.py). The caching
    allocator keeps a pool per stream (https://pytorch.org/docs/stable/notes/cuda.html#memory-management), so the
    shards do not reuse the blocks the compute stream frees as backward releases the activations: reserved memory
    is the compute stream's peak plus every shard. FSDP2 (``fully_shard`` with ``offload_policy``) moves each
    sharded gradient to the host as it is reduced.
    """
    return params * per_param[2] / positive_int("gpus", data_parallel, MAX_GPUS)


def selective_ac_bytes_per_layer(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int, tensor_parallel: int = 1,
                                 sequence_parallel: bool = False, flash_attention: bool = True) -> float:
    """Bytes one layer keeps under per-op selective activation checkpointing (torchtitan ``ac_config.mode=selective``,
    ``selective_ac_option=op``): the layer input, the attention output, and every other matmul output; norms,
    activation functions and the other matmuls are recomputed
    (https://github.com/pytorch/torchtitan/blob/main/torchtitan/distributed/activation_checkpoint.py ``_save_list``).

    With FlashAttention, Korthikanti's selective recompute (attention core only) stores the same as no recompute,
    so ``selective`` means this per-op policy.

    "Every other" is counted per layer in forward order (the policy's ``{mode}_mm_count`` lives in a ``meta`` dict
    made per checkpointed call; it saves the ``aten.mm`` calls of odd count): wq, wv, the gate (w1) and the down
    projection (w2) of a gated MLP; wq, wv and the up projection without a gate. Under tensor parallelism the
    row-parallel down projection's ``mm`` output is the rank's full-width partial sum (``s*b*h``, reduced after the
    ``mm``), not ``1/t``; with sequence parallelism the ``reduce_scatter_tensor`` outputs of the attention and MLP
    outputs are on the save list too (``2*s*b*h/t`` each;
    https://github.com/pytorch/torchtitan/blob/c233ecdd9f498b6c49c36179908cbcab289275a9/torchtrain/parallelisms/parallelize_llama.py
    ``no_recompute_list``, ``_custom_policy``).
    """
    h = spec.hidden_size or 1
    heads = spec.num_attention_heads or 1
    q = heads * spec.head_dim_resolved / h
    kv = spec.kv_heads_resolved * spec.head_dim_resolved / h
    ffn = (spec.ffn_size or 4 * h) / h
    t = tensor_parallel
    # (width in units of h, row-parallel) of each matmul output in forward order: q, k, v, o, (gate, up,) down.
    mms = [(q, False), (kv, False), (kv, False), (1.0, True)]
    mms += [(ffn, False), (ffn, False), (1.0, True)] if spec.gated else [(ffn, False), (1.0, True)]
    saved = [mm for i, mm in enumerate(mms) if i % 2 == 0]
    kept_mm = sum(2.0 * (width if row_parallel else width / t) for width, row_parallel in saved)
    sbh = seq_len_tokens * micro_batch_size * h
    replicated = 2.0 / (t if sequence_parallel else 1)  # layer input (residual stream)
    attention_out = 2.0 * q / t
    if sequence_parallel and t > 1:
        kept_mm += 2 * 2.0 / t  # reduce_scatter outputs after wo and the down projection
    core = 4 * heads * seq_len_tokens * micro_batch_size / t if flash_attention else (
        5 * heads * seq_len_tokens * seq_len_tokens * micro_batch_size / t)
    return sbh * (replicated + attention_out + kept_mm) + core


def eager_extra_bytes_per_layer(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int,
                                tensor_parallel: int = 1, sequence_parallel: bool = False,
                                fused_norm: bool = False) -> float:
    """Extra bytes per layer eager PyTorch saves beyond Megatron's fused kernels (Korthikanti's coefficients), for
    Llama-style decoders: each of the two Python RMSNorms upcasts to fp32 and saves the fp32 input and the fp32
    normalised bf16 output (+4 sbh bytes each over the 16-bit input Korthikanti counts; torchtune
    ``torchtune/modules/rms_norm.py``, transformers ``LlamaRMSNorm``), and the unfused SiLU-and-multiply saves the
    SiLU output as well (+2 ffn bytes per token). torch.compile removes these (its min-cut partitioner
    recomputes pointwise ops, https://github.com/pytorch/pytorch/blob/main/torch/_functorch/partitioners.py).
    Under sequence parallelism the norms run on the rank's ``1/t`` of the sequence (Korthikanti et al. 2022,
    section 4.2.2: the LayerNorm and dropout regions are split along the sequence), so their part is divided by
    ``t`` as well.

    ``fused_norm``: the RMSNorms run in a fused kernel that saves only the 16-bit input and one fp32 statistic a
    row, as Korthikanti counts (apex ``FusedRMSNormAffineFunction``: ``ctx.save_for_backward(input_, weight_,
    invvar)``, https://github.com/NVIDIA/apex/blob/master/apex/normalization/fused_layer_norm.py; Megatron-LM forks
    with ``--apply-layernorm-rms``, e.g. FlagScale ed555321f ``megatron/model/fused_layer_norm.py``
    ``MixedFusedLayerNorm``, whose SwiGLU stays eager, ``megatron/model/transformer.py`` ``ParallelMLP``:
    ``F.silu(x[0]) * x[1]``): only the SiLU output is extra.
    """
    if not spec.gated:
        return 0.0
    h = spec.hidden_size or 0
    ffn = spec.ffn_size or 4 * h
    tokens = seq_len_tokens * micro_batch_size
    norm_split = tensor_parallel if sequence_parallel else 1
    norms = 0.0 if fused_norm else 8.0 * h / norm_split
    return tokens * (norms + 2.0 * ffn / tensor_parallel)


def fp8_saved_input_savings_per_layer(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int,
                                      tensor_parallel: int = 1, sequence_parallel: bool = False) -> float:
    """Bytes per layer that FP8 training (Transformer Engine ``fp8_autocast``) saves below the 16-bit count: each
    Linear keeps the FP8 cast of its input for the weight-gradient GEMM, 1 byte an element instead of 2
    (``transformer_engine/pytorch/module/linear.py`` ``_Linear.forward``: ``inputmat = cast_to_fp8(...)`` then
    ``saved_inputmat = inputmat`` when the recipe does not override the wgrad precision;
    ``layernorm_linear.py`` / ``layernorm_mlp.py`` save the FP8 ``ln_out`` likewise,
    https://github.com/NVIDIA/TransformerEngine/blob/main/transformer_engine/pytorch/module/linear.py). The GEMM
    inputs among Korthikanti's saved tensors are the attention input and the MLP input (normalised residual,
    ``h`` wide, split by ``t`` only under sequence parallelism), the output projection's input (``heads x
    head_dim`` wide) and the down projection's input (``ffn`` wide), both split by ``t``: one byte less per
    element of each.
    """
    h = spec.hidden_size or 0
    if not h:
        return 0.0
    heads = spec.num_attention_heads or 0
    attention_width = heads * spec.head_dim_resolved
    ffn = spec.ffn_size or 4 * h
    tokens = seq_len_tokens * micro_batch_size
    norm_split = tensor_parallel if sequence_parallel else 1
    return tokens * (2.0 * h / norm_split + (attention_width + ffn) / tensor_parallel)


def amp_fp32_extra_bytes_per_layer(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int,
                                   flash_attention: bool = True) -> float:
    """Extra bytes per layer under torch.autocast with fp32 parameters: ops on autocast's fp32 list (layer_norm,
    softmax) save fp32 outputs, and the residual stream stays fp32 (https://pytorch.org/docs/stable/amp.html,
    "CUDA Ops that can autocast to float32"). Per Korthikanti's itemisation: the two LayerNorm outputs and the
    two LayerNorm inputs double (+8 sbh), and the softmax output and dropout output become fp32 with a 16-bit cast
    kept for the next matmul (11 instead of 5 bytes per attention-score element).
    """
    sbh = seq_len_tokens * micro_batch_size * (spec.hidden_size or 0)
    heads = spec.num_attention_heads or 0
    scores = 0.0 if flash_attention else 6.0 * heads * seq_len_tokens * seq_len_tokens * micro_batch_size
    return 8.0 * sbh + scores


@dataclass(frozen=True)
class ActivationTerms:
    """One micro-batch's saved activations split the way pipeline parallelism needs them: ``per_layer`` bytes on
    each of ``kept_layers`` layers, ``fixed`` bytes held once (embedding output, the recomputed layer's working
    set) and the loss's ``logits`` buffers."""

    per_layer: float
    kept_layers: int
    fixed: float
    logits: float

    @property
    def activations(self) -> float:
        return self.kept_layers * self.per_layer + self.fixed


def activation_bytes(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int, **kwargs: Any) -> tuple[float, float]:
    """(activations, logits) bytes per GPU for one micro-batch of a whole model (:func:`activation_terms`)."""
    terms = activation_terms(spec, seq_len_tokens, micro_batch_size, **kwargs)
    return terms.activations, terms.logits


def activation_terms(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int, *, recompute: str = "none",
                     flash_attention: bool = True, tensor_parallel: int = 1, sequence_parallel: bool = False,
                     activation_bytes_per_sample: int | None = None, precision: str = "bf16",
                     loss: str = "standard", activation_offload: bool = False,
                     compiled: bool = True, sp_gathered_inputs: bool = False,
                     unfused_gelu: bool = False, fused_norm: bool = False, eager_softmax: str = "16bit",
                     grouped_kv_attention: bool = False,
                     loss_vocab_chunk: int = DEFAULT_VOCAB_CHUNK_COLUMNS,
                     encoder_lm_head: bool = False, tp_whole_logits: bool = False,
                     decoder_seq_len_tokens: int | None = None,
                     recomputed_share: float = 1.0) -> ActivationTerms:
    """(activations, logits) bytes per GPU for one micro-batch of a whole model.

    Transformers use Korthikanti et al. 2022 per layer (see :mod:`gpudesk.sizing.activations`) times the layer
    count, plus embeddings; with full recompute one layer's working set is added. Activations are 4 bytes in
    fp32 training, 2 otherwise (AMP and bf16 store 16-bit activations). Encoder classifiers (BERT) have no
    vocabulary logits; ``encoder_lm_head`` (an encoder trained with its MLM head over every position) counts them
    and the head's transform (:mod:`gpudesk.sizing.encoder_lm_head`). ``activation_offload`` (torchtune OffloadActivations,
    https://github.com/pytorch/torchtune/blob/main/torchtune/training/_activation_offloading.py) moves the saved
    tensors to the host and keeps about two layers' worth on the GPU (the one in use and the one prefetched).
    Non-transformer models (CNN, 3D U-Net) need ``activation_bytes_per_sample`` times the micro-batch.
    ``sp_gathered_inputs`` (with ``sequence_parallel`` and t > 1): the column-parallel linears save their
    all-gathered input, as PyTorch DTensor sequence parallelism does (torchtitan), not the sharded one Megatron-LM
    re-gathers in backward (:data:`gpudesk.sizing.activations.SP_GATHERED_INPUTS_PER_LAYER`): two per layer (for
    the layer being recomputed only under full recompute; under selective per-op recompute the all-gathers are
    recomputed, not saved) and the output layer's input.
    ``recomputed_share`` (with ``recompute="full"``): the share of the layers that are checkpointed
    (:mod:`gpudesk.sizing.recompute_layers`); the others keep their whole no-recompute set, so ``per_layer`` is the
    mean of the two counts weighted by the shares.

    Raises:
        ShapeError: a non-transformer model without ``activation_bytes_per_sample``.
    """
    b = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
    if activation_bytes_per_sample is not None:
        per = positive_int("activation_bytes_per_sample", activation_bytes_per_sample)
        return ActivationTerms(per_layer=0.0, kept_layers=0, fixed=float(per * b), logits=0.0)
    if not spec.is_transformer:
        raise ShapeError("activation_bytes_per_sample",
                         _("{model} is not a transformer with a known shape; give activation bytes per sample.").format(
                             model=spec.name))
    s = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    h, heads, layers = spec.hidden_size or 0, spec.num_attention_heads or 0, spec.layers or 0
    act_bytes = 4.0 if precision == "fp32" else 2.0
    common = dict(gated_mlp=spec.gated, flash_attention=flash_attention, tensor_parallel=tensor_parallel,
                  sequence_parallel=sequence_parallel, bytes_per_element=act_bytes,
                  # K/V saved at their GQA width when the kernel takes them grouped (activations.py)
                  kv_width=spec.kv_heads_resolved * spec.head_dim_resolved if grouped_kv_attention else None)

    def layer_bytes(s: int, recompute: str = recompute) -> tuple[float, float]:
        """(bytes one layer keeps at ``s`` tokens, the eager-softmax extra at ``s``)."""
        if recompute == "selective":
            per_layer = selective_ac_bytes_per_layer(spec, s, b, tensor_parallel, sequence_parallel, flash_attention)
        else:
            per_layer = activation_bytes_per_layer(s, b, h, heads, spec.ffn_size,
                                                   recompute=recompute, **common)  # type: ignore[arg-type]
        if precision in ("fp16-amp", "bf16-amp") and recompute != "full":
            per_layer += amp_fp32_extra_bytes_per_layer(spec, s, b, flash_attention)
        softmax_extra = eager_softmax_extra_bytes_per_layer(eager_softmax, s, b, heads, tensor_parallel=tensor_parallel,
                                                            flash_attention=flash_attention, precision=precision)
        if recompute == "none":
            per_layer += softmax_extra
        if not compiled and recompute == "none":
            per_layer += eager_extra_bytes_per_layer(spec, s, b, tensor_parallel, sequence_parallel, fused_norm)
            if unfused_gelu:
                per_layer += unfused_gelu_extra_bytes_per_layer(spec, s, b, precision, tensor_parallel)
        if precision == "fp8" and recompute == "none":
            per_layer -= fp8_saved_input_savings_per_layer(spec, s, b, tensor_parallel, sequence_parallel)
        return per_layer, softmax_extra

    per_layer, softmax_extra = layer_bytes(s)
    # Partial recompute (gpudesk.sizing.recompute_layers): the layers not checkpointed keep their whole set.
    partial = recompute == "full" and recomputed_share < 1.0
    if partial:
        share = max(0.0, recomputed_share)
        kept_layer = layer_bytes(s, "none")[0]
        if sp_gathered_inputs and sequence_parallel and tensor_parallel > 1:
            kept_layer += sp_gathered_input_extra_bytes(s, b, h, tensor_parallel, SP_GATHERED_INPUTS_PER_LAYER,
                                                        act_bytes)
        per_layer = share * per_layer + (1.0 - share) * kept_layer
    logits_tokens = s
    if decoder_seq_len_tokens is not None or (spec.kind == "encoder-decoder" and spec.decoder_layers):
        # An encoder-decoder's decoder layers at the target length (default: the source length) with their
        # cross-attention over the encoder output, the logits at the target length (gpudesk.sizing.decoder_length,
        # transformers modeling_t5.py T5Attention with key_value_states).
        enc_layers, dec_layers = encoder_decoder_layers(spec)
        sd = s if decoder_seq_len_tokens is None else checked_decoder_length(decoder_seq_len_tokens)
        cross = cross_attention_bytes_per_layer(s, sd, b, h, heads, flash_attention=flash_attention,
                                                tensor_parallel=tensor_parallel, bytes_per_element=act_bytes)
        if partial:
            raise SizingError("recompute_layers", _("partial recompute is modelled for decoder-only and encoder-only "
                                                    "models; leave it out."))
        decoder_layer = layer_bytes(sd)[0] + (cross if recompute == "none" else 0.0)
        per_layer = (enc_layers * per_layer + dec_layers * decoder_layer) / layers
        logits_tokens = sd
    kept_layers = min(2, layers) if activation_offload else layers
    fixed = embedding_activation_bytes(s, b, h, tensor_parallel, sequence_parallel)
    if spec.kind == "encoder-decoder" and spec.decoder_layers:
        fixed += embedding_activation_bytes(logits_tokens, b, h, tensor_parallel, sequence_parallel)  # decoder's
    if recompute == "full":
        fixed += full_recompute_working_bytes(s, b, h, heads, spec.ffn_size, **common)  # type: ignore[arg-type]
        fixed += softmax_extra
        if not compiled:
            fixed += eager_extra_bytes_per_layer(spec, s, b, tensor_parallel, sequence_parallel, fused_norm)
            if unfused_gelu:
                fixed += unfused_gelu_extra_bytes_per_layer(spec, s, b, precision, tensor_parallel)
    if sp_gathered_inputs and sequence_parallel and tensor_parallel > 1:
        gathered = sp_gathered_input_extra_bytes(s, b, h, tensor_parallel, SP_GATHERED_INPUTS_PER_LAYER, act_bytes)
        if recompute == "full":
            fixed += gathered
        elif recompute == "none":
            per_layer += gathered
        if spec.vocab_size and spec.kind != "encoder":
            fixed += sp_gathered_input_extra_bytes(s, b, h, tensor_parallel, 1, act_bytes)
    logits = 0.0
    check_encoder_lm_head(spec.kind, encoder_lm_head)
    if spec.vocab_size and (spec.kind != "encoder" or encoder_lm_head):
        logits = loss_logits_bytes(logits_tokens, b, spec.vocab_size, h, loss,
                                   logits_tensor_parallel(tensor_parallel, tp_whole_logits), compiled, loss_vocab_chunk)
    if encoder_lm_head:
        fixed += encoder_lm_head_transform_bytes(s, b, h, act_bytes)
    return ActivationTerms(per_layer=per_layer, kept_layers=kept_layers, fixed=fixed, logits=logits)


def _muon_accounting_text(optimizer: str, per_param: tuple[float, float, float, float], spec: ModelSpec) -> str:
    """The accounting line of a Muon run: the hidden matrices keep one state, the parameters Muon hands to AdamW
    (optimizers.muon_adamw_params) one more, and the blended bytes a parameter of this model."""
    adamw = min(spec.params, muon_adamw_params(spec.embedding_params, spec.hidden_size or 0,
                                               spec.transformer_dims.layers)) if spec.params else 0
    hidden = sum(per_param)
    adamw_bytes = hidden + MUON_ADAMW_EXTRA_STATES * per_param[3]
    blended = hidden + (adamw_bytes - hidden) * adamw / spec.params if spec.params else hidden
    return _("{optimizer} accounting before sharding: {hidden:g} bytes/param for the hidden matrices, {adamw:g} for "
             "the embeddings, LM head and norms that AdamW steps ({params:,} parameters), {blended:.1f} bytes/param "
             "for this model").format(optimizer=optimizer, hidden=hidden, adamw=adamw_bytes, params=int(adamw),
                                      blended=blended)


def muon_step_assumptions(assumptions: list[tuple[str, str]], master_grads: float, newton_schulz: float,
                          adamw_temp: float) -> None:
    """Append what the optimizer step of a Muon run counts: the fp32 gradients of the master weights (if any),
    the Newton-Schulz temporaries of the largest hidden matrix and the foreach AdamW temporary of the AdamW group."""
    if master_grads > 0:
        master_grads_assumption(assumptions, master_grads)
    if adamw_temp > 0:
        assumptions.append((_("Muon steps one hidden matrix at a time: the Newton-Schulz temporaries of the largest "
                              "one ({ns:.2f} GiB); the foreach AdamW temporary only for the embeddings, LM head and "
                              "norms ({adamw:.2f} GiB)").format(ns=newton_schulz / 2**30, adamw=adamw_temp / 2**30),
                            "KellerJordan/Muon muon.py at 857d1adc (Muon.step, zeropower_via_newtonschulz5); "
                            "torch/optim/adamw.py _multi_tensor_adamw"))
    else:
        # A fused or for-loop AdamW for the embeddings, head and norms makes no foreach temporary.
        assumptions.append((_("Muon steps one hidden matrix at a time: the Newton-Schulz temporaries of the largest "
                              "one ({ns:.2f} GiB)").format(ns=newton_schulz / 2**30),
                            "KellerJordan/Muon muon.py at 857d1adc (Muon.step, zeropower_via_newtonschulz5)"))


def master_grads_assumption(assumptions: list[tuple[str, str]], master_grads: float) -> None:
    """Append the line of the fp32 gradients the optimizer step gives the fp32 master weights."""
    assumptions.append((_("the optimizer step gives the fp32 master weights fp32 gradients ({gib:.2f} GiB)").format(
        gib=master_grads / 2**30), "Megatron-LM optimizer.py _copy_model_grads_to_main_grads; deepspeed/runtime/"
                                    "fp16/fused_optimizer.py FP16_Optimizer.step"))


def _largest_hidden_width(spec: ModelSpec) -> int:
    """The wider side of the largest 2-D hidden matrix beside ``hidden_size``: an expert's or the MLP's width, or
    the query projection's ``heads x head_dim``."""
    h = spec.hidden_size or 0
    dims = spec.transformer_dims
    ffn = (spec.moe_ffn_size if spec.moe_experts else None) or spec.ffn_size or 4 * h
    return max(int(ffn), int(dims.num_attention_heads * (spec.head_dim_resolved or 0)))


def train_memory(
    spec: ModelSpec,
    *,
    precision: str = "bf16",
    optimizer: str = "adam-18",
    seq_len_tokens: int = 2048,
    micro_batch_size: int = 1,
    gpus: int = 1,
    sharding: str = "ddp",
    offload: str = "none",
    recompute: str = "none",
    flash_attention: bool = True,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    activation_bytes_per_sample: int | None = None,
    overheads: Overheads = Overheads(),
    loss: str = "standard",
    optimizer_in_backward: bool = False,
    activation_offload: bool = False,
    context_parallel: int = 1,
    compiled: bool = False,
    gradient_accumulation: bool = False,
    fsdp_version: int = 2,
    zero_grad_keeps_grads: bool = False,
    optimizer_impl: str = "foreach",
    weight_loading: str = "per-tensor",
    pipeline_parallel: int = 1,
    pipeline_schedule: str = "1f1b",
    pipeline_microbatches: int | None = None,
    pipeline_stages_per_rank: int | None = None,
    sp_gathered_inputs: bool = False,
    fsdp1_no_sync: bool = True,
    fsdp2_no_sync: str = "off",
    tp_whole_logits: bool = False,
    tp_replicated_embedding: bool = False,
    decoder_seq_len_tokens: int | None = None,
    ddp_bucket_view: bool = False,
    fp32_grad_buffer: bool = False,
    main_grads_kept: bool = False,
    zero3: Zero3Settings = Zero3Settings(),
    zero2_reduce_bucket: int | None = None,
    unfused_gelu: bool = False,
    fused_norm: bool = False,
    grouped_kv_attention: bool = False,
    eager_softmax: str = "16bit",
    fsdp_root_only: bool = False,
    fsdp1_limit_all_gathers: bool = True,
    loss_vocab_chunk: int = DEFAULT_VOCAB_CHUNK_COLUMNS,
    encoder_lm_head: bool = False,
    recompute_layers: int | None = None,
    expert_parallel: int = 1,
    expert_tensor_parallel: int | None = None,
) -> MemoryEstimate:
    """Per-GPU memory of full training or full fine-tuning, at the moment of the peak.

    Gradients are created in backward while the saved activations are freed (and ``zero_grad(set_to_none=True)``
    drops them before the next forward), so the peak is the larger of the start of backward (activations + logits
    + the output layer's gradient) and the end of backward (all gradients): PyTorch memory snapshot timelines,
    https://pytorch.org/blog/understanding-gpu-memory-1/. With ``gradient_accumulation`` the gradients of the
    previous micro-batches stay alive during forward and both are counted. ``compiled`` (torch.compile or fused
    kernels) drops the eager-mode extra saved tensors (:func:`eager_extra_bytes_per_layer`); ``fused_norm`` drops only
    those of the norms.

    ``optimizer_in_backward`` (torchtune ``optimizer_in_bwd``, PyTorch ``register_post_accumulate_grad_hook``,
    https://pytorch.org/tutorials/intermediate/optimizer_step_in_backward_tutorial.html) steps each parameter as
    soon as its gradient is ready, so only the largest parameter's gradient is alive at once. ``context_parallel``
    splits the sequence over that many GPUs (each holds ``seq / cp`` tokens of activations); FSDP shards the model
    states over data-parallel x context-parallel ranks (torchtitan ``dp_shard_cp`` mesh).

    ``zero_grad_keeps_grads``: ``optimizer.zero_grad()`` fills the gradients with zeros instead of freeing them
    (PyTorch < 2.0 default ``set_to_none=False``, changed by https://github.com/pytorch/pytorch/pull/92731), so
    they stay alive through the next forward pass like gradient accumulation. The optimizer step is a third
    candidate for the peak: all gradients plus the step's temporaries
    (:func:`gpudesk.sizing.optimizers.step_temporary_bytes_per_param`: PyTorch's foreach AdamW, ``optimizer_impl``).
    Paged optimizers (bitsandbytes ``paged_adamw``/``paged_adamw_8bit``) keep their states in CUDA unified memory
    (``cudaMallocManaged``, bitsandbytes ``functional.py`` ``get_paged``): reported as ``paged_optimizer_states``,
    outside the allocator figure; when the GPU runs short the driver evicts pages to host RAM (slower steps,
    no out-of-memory error).

    ``gpus`` counts all GPUs of the job; the data-parallel degree is ``gpus / (tensor_parallel x
    pipeline_parallel)``. With ``pipeline_parallel`` p > 1 the fullest rank holds ``1/p`` of the decoder layers and
    a whole vocabulary table (:func:`gpudesk.sizing.pipeline.fullest_stage_params`), and the batch
    (``micro_batch_size``, per data-parallel rank) is split into ``pipeline_microbatches`` (default p, torchtitan
    ``pipeline_parallel_microbatches``); the activations and accumulated gradients alive at once come from walking
    the schedule (:mod:`gpudesk.sizing.pipeline`). Under FSDP with pipeline parallelism the stage's parameters stay
    unsharded for the whole step (torchtitan ``apply_fsdp``: ``reshard_after_forward=False`` when PP is enabled,
    https://github.com/pytorch/torchtitan/blob/9dec370ad26b5f8e9a7333a0e36165018262644b/torchtitan/parallelisms/parallelize_llama.py)
    and the unsharded gradients accumulate across micro-batches (``unsharded_parameters``,
    ``unsharded_gradients``).

    ``ddp_bucket_view``: plain data parallelism (``sharding="ddp"`` over more than one data-parallel rank) holds
    PyTorch DDP's all-reduce buckets, a second copy of the gradients for the whole run
    (:func:`ddp_bucket_bytes`, ``ddp_gradient_buckets``), unless the gradients are views into them
    (``gradient_as_bucket_view=True``, Megatron-Core's DDP).

    ``fp32_grad_buffer``: the gradients of 16-bit parameters live in an fp32 buffer (Megatron-LM ``--bf16``,
    :mod:`gpudesk.sizing.fp32_grad_buffer`): 4 bytes a parameter, allocated with the model and alive through
    every forward (with plain data parallelism or the distributed optimizer), as accumulated gradients are.

    ``main_grads_kept``: 16-bit parameters with fp32 master weights under plain data parallelism whose optimizer keeps
    the fp32 main gradients between steps (``main_gradients``, 4 bytes a parameter in every phase) and whose
    all-reduce packs the gradients into one flat copy after backward instead of PyTorch DDP's run-long buckets
    (Megatron-LM's fp16 optimizer with local DDP before contiguous buffers, :mod:`gpudesk.sizing.main_grads_kept`).

    ``fsdp1_no_sync``: FSDP1 (``fsdp_version=1``) with ``gradient_accumulation`` runs the non-final micro-batches
    under ``FullyShardedDataParallel.no_sync()``, which accumulates the full unsharded gradient of every
    ``FlatParameter`` on each rank until the syncing micro-batch ("This likely results in higher memory usage
    because FSDP will accumulate the full model gradients (instead of gradient shards) until the eventual sync",
    https://github.com/pytorch/pytorch/blob/v2.2.0/torch/distributed/fsdp/fully_sharded_data_parallel.py
    ``no_sync``): ``unsharded_gradients`` = the rank's parameters x the gradient bytes, alive through the forward
    and backward of the later micro-batches. Hugging Face Accelerate's ``accumulate()`` (the Trainer's loop) and
    Lightning Fabric's ``no_backward_sync`` (litgpt) both enter ``no_sync`` for an FSDP1 module
    (https://github.com/huggingface/accelerate/blob/v0.28.0/src/accelerate/accelerator.py ``no_sync``;
    https://github.com/Lightning-AI/pytorch-lightning/blob/2.2.0/src/lightning/fabric/strategies/fsdp.py
    ``_FSDPBackwardSyncControl``); ``fsdp1_no_sync=False`` is a loop that reduce-scatters every micro-batch
    (torchtune, Accelerate ``sync_each_batch=True``). Not modelled with CPU offload.

    ``fsdp2_no_sync``: FSDP2 (``fsdp_version=2``) with ``gradient_accumulation`` in a loop that calls
    ``set_requires_gradient_sync(False)`` on the non-final micro-batches (:mod:`gpudesk.sizing.fsdp2_no_sync`):
    ``unsharded_gradients`` = the rank's parameters x 4 bytes (``fp32``: ``reduce_dtype=float32``) or x the gradient
    bytes (``grad-dtype``), as for FSDP1; ``off`` (default): the loop reduce-scatters every micro-batch.

    ``tp_whole_logits`` / ``tp_replicated_embedding``: with tensor parallelism, every rank holds the whole vocabulary
    logits (no loss parallel) / the whole token embedding table (:mod:`gpudesk.sizing.tp_training_vocab`).

    ``fsdp_root_only``: ``sharding="fsdp"`` with no auto-wrap policy, the whole model one FSDP unit
    (:func:`fsdp_gathered_bytes`); refused with any other sharding.

    ``fsdp1_limit_all_gathers=False``: FSDP1 without its rate limiter, every block unit unsharded at once
    (:mod:`gpudesk.sizing.fsdp1_rate_limiter`); refused away from ``sharding="fsdp"`` with ``fsdp_version=1``.
    ``expert_parallel`` (MoE models): the routed experts split over that many GPUs of each pipeline stage (and over
    ``tensor_parallel`` inside each expert, Megatron-LM's default expert tensor parallelism), their master weights and
    optimizer states sharded over the expert-data-parallel ranks ``gpus / (ep tp pp)``
    (:mod:`gpudesk.sizing.train_expert_parallel`; under ZeRO-3 / FSDP also their weights and gradients, Megatron-FSDP's
    expert parameter groups); refused for dense models and where the experts or the GPUs do not divide. Each MoE layer also keeps the all-to-all dispatcher's permuted tokens for
    backward (:func:`gpudesk.sizing.train_expert_parallel.dispatch_saved_bytes`; under full recompute only in the
    layer being recomputed). ``expert_tensor_parallel`` (None: ``tensor_parallel``, Megatron-LM's default): the ranks
    each expert's matrices split over (Megatron-LM ``--expert-tensor-parallel-size``), so the experts split by
    ``ep x etp x pp`` and their states shard over ``gpus / (ep etp pp)``; needs ``expert_parallel``.

    Returns a :class:`MemoryEstimate` (bytes per GPU) whose breakdown has weights, master_weights, gradients,
    optimizer_states, gathered_layers, activations, logits, cuda_context, framework_overhead, fragmentation.

    Raises:
        SizingError / ShapeError: invalid input, named by field.
    """
    g = positive_int("gpus", gpus, MAX_GPUS)
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    if g % t:
        raise SizingError("tensor_parallel", _("{tp} does not divide the {gpus} GPUs.").format(tp=t, gpus=g))
    pp = positive_int("pipeline_parallel", pipeline_parallel, 1024)
    if (g // t) % pp:
        raise SizingError("pipeline_parallel", _("{pp} does not divide the {gpus} GPUs left after tensor parallel.")
                          .format(pp=pp, gpus=g // t))
    cp = positive_int("context_parallel", context_parallel, 1024)
    if (g // (t * pp)) % cp:
        raise SizingError("context_parallel", _("{cp} does not divide the {dp} data-parallel GPUs.").format(
            cp=cp, dp=g // (t * pp)))
    per_param = with_fp32_grads(model_state_bytes_per_param(optimizer, precision), fp32_grad_buffer)
    stage = normalise_sharding(sharding)
    check_main_grads_kept(main_grads_kept, per_param, stage, offload, fp32_grad_buffer)
    mp = t * pp  # model-parallel ranks
    # The fullest stage holds a whole vocabulary table beside its share of the layers (pipeline.fullest_stage_params).
    vocab_table = (spec.vocab_size or 0) * (spec.hidden_size or 0) if spec.embedding_params else 0
    # Expert parallelism: the routed experts split by ep x etp x pp (etp = tp unless given, Megatron-LM's default),
    # their states sharded over the expert-data-parallel ranks (gpudesk.sizing.train_expert_parallel).
    etp = check_expert_tensor_parallel(expert_tensor_parallel, expert_parallel=expert_parallel, tensor_parallel=t)
    check_expert_parallel(spec, expert_parallel, gpus=g, pipeline_parallel=pp, expert_tensor_parallel=etp)
    # Under ZeRO-3 / FSDP full sharding the experts' weights, gradients and states shard over the expert-data-parallel
    # ranks too (the stage-zero3 call on the expert part below): Megatron-FSDP groups parameters by (FSDP unit,
    # is_expert_param = ".experts." in the name) and builds the expert groups' buffers on the expert-data-parallel
    # group, the dense ones on the data-parallel group (NVIDIA/Megatron-LM d98e8a64dd,
    # megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py `_get_parameter_groups`,
    # `is_expert_parameter`; megatron/core/distributed/fsdp/mcore_fsdp_adapter.py `expt_dp_group` =
    # parallel_state.get_expert_data_parallel_group()), as the planner's Megatron layouts already count it
    # (parallel_train_memory_bytes).
    experts = expert_split(spec, gpus=g, expert_parallel=expert_parallel, expert_tensor_parallel=etp,
                           pipeline_parallel=pp) if expert_parallel > 1 else None
    dense_params = spec.params - int(experts.total) if experts else spec.params
    rank_params = fullest_stage_params(dense_params, vocab_table, spec.embedding_params, pp) / t
    # A token embedding left whole on every tensor-parallel rank (gpudesk.sizing.tp_training_vocab).
    embedding_extra = replicated_embedding_extra_params(vocab_table, t, tp_replicated_embedding, pp)
    rank_params += embedding_extra
    parts = sharded_model_states(int(rank_params), per_param, g // mp, stage, offload,
                                 spec.largest_layer_params // t)
    expert_share: ExpertShare | None = None
    if experts:
        expert_part = sharded_model_states(int(experts.rank_params), per_param, experts.data_parallel, stage, offload)
        for k in ("weights", "master_weights", "gradients", "optimizer_states"):
            parts[k] += expert_part[k]
        rank_params += experts.rank_params
        # Named in the estimate (text, JSON, wizard, sheet): experts per GPU and their bytes in the rows (qa51 D2).
        expert_share = ExpertShare(spec.moe_experts or 0, expert_parallel, experts.data_parallel,
                                   {k: int(expert_part[k]) for k in EXPERT_PARTS}, EXPERT_PARALLEL_SOURCE)
    muon_adamw_rank_params = 0.0
    if is_muon(optimizer) and rank_params:
        # Muon leaves the embeddings, LM head and norms to AdamW (optimizers.muon_adamw_params): one state more for
        # those, sharded and offloaded as the other states are.
        muon_adamw_rank_params = min(rank_params, muon_adamw_params(spec.embedding_params, spec.hidden_size or 0,
                                                                    spec.transformer_dims.layers) / t)
        if parts["optimizer_states"]:
            parts["optimizer_states"] += parts["optimizer_states"] * muon_adamw_rank_params / rank_params
    kept_main_grads = kept_main_grad_bytes(rank_params, main_grads_kept)
    if kept_main_grads:
        parts["main_gradients"] = kept_main_grads
    resident_at_load = parts["weights"] + parts.get("master_weights", 0.0)
    staging = load_staging_bytes(spec, weight_loading, quantised_base=False,
                                 base_bytes_per_param=per_param[0] or per_param[1],
                                 sharded_gpus=g // t if stage == "zero3" else 1) if mp == 1 else 0.0
    if fsdp_version not in FSDP_VERSIONS:
        raise SizingError("fsdp_version", _("FSDP version must be 1 or 2, got {value}.").format(value=fsdp_version))
    sharding_name = choice("sharding", sharding, SHARDING_MODES)
    fsdp = sharding_name == "fsdp"
    check_fsdp2_no_sync(fsdp2_no_sync, fsdp, fsdp_version)
    check_fsdp1_limit_all_gathers(fsdp1_limit_all_gathers, fsdp, fsdp_version)
    if fsdp_root_only and not fsdp:
        raise SizingError("fsdp_root_only", _("a root-only FSDP wrap applies to sharding fsdp only, got {sharding}.")
                          .format(sharding=sharding_name))
    grad_op_shard = grad_op_shard_bytes(rank_params, per_param, g // mp) if sharding_name == "fsdp-grad-op" else 0.0
    grad_op_unsharded = (grad_op_unsharded_bytes(rank_params, per_param, g // mp)
                         if sharding_name == "fsdp-grad-op" and pp == 1 else 0.0)
    parts["weights"] += grad_op_shard
    zero3_gathered = z3_window = z3_resident = z3_reduce_pool = z3_retained = 0.0
    if fsdp:
        parts["gathered_layers"] = fsdp_gathered_bytes(spec, per_param, t, fsdp_version, fsdp_root_only,
                                                       fsdp1_limit_all_gathers)
    elif stage == "zero3" and pp == 1:
        # DeepSpeed's coordinator: the modules gathered at once over the step's trace, the reduce bucket
        # (gpudesk.sizing.zero3_params).
        # Gradients come out of backward, and are bucketed, in the parameters' own dtype (``__ipg_bucket_flat_buffer``
        # has ``dtype=self.dtype``); an fp32 gradient exists only in the optimizer's partition.
        compute_bytes = per_param[0] or per_param[1]
        parts["gathered_layers"] = zero3_gathered = zero3_gathered_bytes(spec, zero3, compute_bytes, compute_bytes,
                                                                         recompute != "none", t)
        # What of it lives only in forward/backward, and on which stream (gpudesk.sizing.zero3_stream_pools).
        z3_window, z3_resident, z3_reduce_pool = zero3_gathered_split(spec, zero3, compute_bytes, compute_bytes,
                                                                      recompute != "none", t)
        if g // mp > 1 or offload == "all":
            # A model built outside zero.Init: autograd keeps each gathered Linear weight to its backward, beyond
            # the coordinator's window, on the all-gather stream like it (gpudesk.sizing.zero3_outside_init).
            z3_retained = retained_extra_bytes(spec, zero3, compute_bytes, recompute, t)
            z3_window += z3_retained
            zero3_gathered += z3_retained
            parts["gathered_layers"] = zero3_gathered
    # PyTorch FSDP SHARD_GRAD_OP is counted as ZeRO-2 but is no DeepSpeed engine: no fp32 clone of its partition.
    fp32_master_clone = deepspeed_fp32_master_clone_bytes(rank_params, per_param, g // mp, stage, offload,
                                                          fsdp or sharding_name == "fsdp-grad-op")
    if fp32_master_clone:
        parts["master_weights"] = parts.get("master_weights", 0.0) + fp32_master_clone
    paged = is_paged(optimizer)
    if paged:
        parts["paged_optimizer_states"] = parts.pop("optimizer_states")
    if optimizer_in_backward:
        parts["gradients"] = min(parts["gradients"], spec.largest_layer_params / t * per_param[2])
    if precision in ("fp16-amp", "bf16-amp") and parts["weights"]:
        # torch.autocast caches the 16-bit cast of every weight used in the forward pass until backward.
        parts["weights"] += rank_params * 2 / (g // mp if stage == "zero3" else 1)
    seq = positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS)
    batch = positive_int("micro_batch_size", micro_batch_size, MAX_BATCH)
    microbatches = positive_int("pipeline_microbatches", pp if pipeline_microbatches is None else pipeline_microbatches,
                                MAX_PIPELINE_MICROBATCHES) \
        if pp > 1 else 1
    if batch % microbatches:
        raise SizingError("pipeline_microbatches", _(
            "the batch of {batch} does not split into {m} pipeline micro-batches (by default as many as the pipeline "
            "stages): give a batch that is a multiple of {m}, or fewer micro-batches.").format(batch=batch,
                                                                                               m=microbatches))
    # Partial recompute: ``recompute_layers`` of each pipeline stage's layers checkpointed, of each model chunk under
    # an interleaved schedule (Megatron builds one TransformerBlock a chunk; gpudesk.sizing.recompute_layers).
    recompute_layers = check_recompute_layers(recompute_layers, mode="train", recompute=recompute)
    stage_layers = (spec.layers or 0) / (pp * (stages_per_rank_for(pipeline_schedule, pipeline_stages_per_rank)
                                               if pp > 1 else 1))
    check_recompute_layers_count(recompute_layers, model=spec.name, stage_layers=stage_layers,
                                 stages=round((spec.layers or 0) / stage_layers) if stage_layers else 1)
    share = recomputed_share(recompute_layers, stage_layers)
    terms = activation_terms(spec, max(1, seq // cp), batch // microbatches, recompute=recompute,
                             flash_attention=flash_attention, tensor_parallel=t,
                             sequence_parallel=sequence_parallel,
                             activation_bytes_per_sample=activation_bytes_per_sample, precision=precision,
                             loss=loss, activation_offload=activation_offload, compiled=compiled,
                             sp_gathered_inputs=sp_gathered_inputs, unfused_gelu=unfused_gelu, fused_norm=fused_norm,
                             grouped_kv_attention=grouped_kv_attention,
                             eager_softmax=eager_softmax, loss_vocab_chunk=loss_vocab_chunk,
                             encoder_lm_head=encoder_lm_head, tp_whole_logits=tp_whole_logits,
                             decoder_seq_len_tokens=None if decoder_seq_len_tokens is None
                             else max(1, checked_decoder_length(decoder_seq_len_tokens) // cp),
                             recomputed_share=share)
    if experts:
        # The all-to-all dispatcher's saved tokens in every MoE layer (gpudesk.sizing.train_expert_parallel).
        terms = with_dispatch_buffers(terms, spec, seq_len_tokens=max(1, seq // cp),
                                      micro_batch_size=batch // microbatches, tensor_parallel=t,
                                      expert_tensor_parallel=etp, sequence_parallel=sequence_parallel,
                                      recompute=recompute, recomputed_share=share,
                                      bytes_per_element=4.0 if precision == "fp32" else 2.0)
    acts, logits = terms.activations, terms.logits
    peak = None
    # Megatron-Core's contiguous fp32 gradient buffer is allocated with the model and never freed
    # (gpudesk.sizing.fp32_grad_buffer.resident_grad_buffer): the gradients are alive through every forward.
    keep_grads = (gradient_accumulation or zero_grad_keeps_grads
                  or resident_grad_buffer(fp32_grad_buffer, stage, fsdp, offload))
    accumulating_stage_grads = (not fsdp and not keep_grads and not optimizer_in_backward and microbatches > 1
                                and parts["gradients"] > 0)
    stage_grads, pipeline_grads = 0.0, 0.0
    if pp > 1:
        v = stages_per_rank_for(pipeline_schedule, pipeline_stages_per_rank)
        chunk_layers = terms.kept_layers / (pp * v)
        unsharded_grads = 0.0
        if fsdp:
            # The stage's parameters stay gathered and its gradients accumulate unsharded (module docstring).
            compute = min(per_param[0], 2.0) if per_param[1] else per_param[0]
            parts["gathered_layers"] = 0.0
            parts["unsharded_parameters"] = rank_params * compute
            # FSDP2 accumulates unsharded gradients in the reduce dtype: fp32 under mixed precision with fp32
            # parameters (``FSDPParam.to_accumulated_grad_if_needed``,
            # torch/distributed/fsdp/_fully_shard/_fsdp_param.py; torchtitan ``mixed_precision_reduce=float32``).
            unsharded_grads = rank_params * (4.0 if per_param[1] else per_param[2])
        elif accumulating_stage_grads:
            # Without FSDP each chunk's gradients appear at its first backward and accumulate over the step's
            # micro-batches (the optimizer steps once all have run), beside the activations still in flight.
            stage_grads = parts["gradients"]
        peak = pipeline_peak(pipeline_schedule, pp, microbatches, v, terms.per_layer * chunk_layers,
                             (unsharded_grads + stage_grads) / v, logits)
        pipeline_grads = peak.gradient_chunks * stage_grads / v
        grads_alive = peak.gradient_chunks * unsharded_grads / v
        acts = peak.activation_chunks * terms.per_layer * chunk_layers + terms.fixed
        logits = logits if peak.rank == pp - 1 else 0.0
        if grads_alive:
            parts["unsharded_gradients"] = grads_alive
    grads = parts["gradients"]
    step_temp = 0.0
    zero12_fp32_grads = 0.0
    # The parts of step_temp its assumption lines name, each the figure added to step_temp: the foreach Adam/AdamW
    # temporary (zero for fused, for-loop, SGD, 8-bit, paged: optimizers.step_temporary_bytes_per_param) and the fp32
    # gradients of the master weights under plain data parallelism.
    foreach_temp = master_step_grads = 0.0
    # DeepSpeed ZeRO-3 (not PyTorch FSDP) steps sub-group by sub-group (optimizers.zero3_sub_group_step_bytes).
    zero3_sub_groups = not optimizer_in_backward and offload == "none" and grads > 0 and stage == "zero3" and not fsdp
    if zero3_sub_groups:
        step_temp = zero3_sub_group_step_bytes(rank_params / (g // mp), optimizer, precision, optimizer_impl,
                                               grad_bytes=per_param[2])
    elif not optimizer_in_backward and offload == "none" and grads > 0:
        foreach_temp = rank_params * step_temporary_bytes_per_param(optimizer, precision, optimizer_impl) / (
            g // mp if stage in ("zero1", "zero2", "zero3") else 1)
        step_temp = foreach_temp
        if stage == "ddp" and not main_grads_kept:
            # The fp32 gradients of the master weights (optimizers.ddp_master_grad_step_bytes); kept main gradients
            # (gpudesk.sizing.main_grads_kept) are already resident.
            master_step_grads = ddp_master_grad_step_bytes(rank_params, optimizer, per_param)
            step_temp += master_step_grads
        if stage in ("zero1", "zero2") and sharding_name != "fsdp-grad-op":
            # ZeRO-1/2 (DeepSpeed, Colossal-AI) copy the 16-bit gradient partition to fp32 for the step
            # (optimizers.zero12_step_bytes); PyTorch FSDP SHARD_GRAD_OP reduces into its own gradient dtype.
            zero12_fp32_grads = zero12_step_bytes(rank_params / (g // mp), optimizer, per_param)
            step_temp += zero12_fp32_grads
    muon_ns = muon_adamw_temp = 0.0
    if is_muon(optimizer) and not optimizer_in_backward and offload == "none" and grads > 0:
        # Muon steps its hidden matrices one at a time (KellerJordan/Muon muon.py at 857d1adc, ``Muon.step``: a loop
        # over the parameters, ``zeropower_via_newtonschulz5`` per matrix), so only the largest matrix's Newton-Schulz
        # temporaries are alive (optimizers.muon_step_temporary_bytes); no foreach-wide temporary for those.
        muon_ns = muon_step_temporary_bytes(spec.hidden_size or 0, _largest_hidden_width(spec) // t, per_param[2])
        # The embeddings, head and norms go to an AdamW (torch.optim.Muon's docs pair it with torch.optim.AdamW,
        # foreach by default): the foreach temporary only for that group (optimizers.step_temporary_bytes_per_param).
        if not zero3_sub_groups:
            muon_adamw_temp = muon_adamw_rank_params * step_temporary_bytes_per_param(
                "adamw", precision, optimizer_impl) / (g // mp if stage in ("zero1", "zero2", "zero3") else 1)
        step_temp += muon_ns + muon_adamw_temp
    # The tied embedding's second gradient, a moment at the end of backward (gpudesk.sizing.tied_embedding_grad):
    # plain data parallelism only; Megatron's fp32 buffer and ZeRO/FSDP reduce through their own hooks.
    tied_grad = 0.0
    if stage == "ddp" and pp == 1 and not optimizer_in_backward and not fp32_grad_buffer and grads > 0:
        tied_grad = tied_embedding_grad_bytes(spec, per_param[2], tensor_parallel=t,
                                              vocabulary_head=spec.kind != "encoder" or encoder_lm_head)
    # The flat copy of the gradients for the all-reduce, a moment after backward (gpudesk.sizing.main_grads_kept).
    flat_copy = flat_allreduce_copy_bytes(rank_params, per_param[2], main_grads_kept) if grads > 0 else 0.0
    end_extra = max(0.0, max(tied_grad, flat_copy) - step_temp)
    # FSDP reshards every unit after backward (gpudesk.sizing.fsdp_step_reshard): the blocks gathered during
    # forward/backward are not alive at the end of backward or at the optimizer step.
    reshard = fsdp and pp == 1
    gathered_fwd_bwd = parts.get("gathered_layers", 0.0) if reshard else z3_window
    end_gathered = fsdp_end_of_backward_gathered_bytes(spec, per_param, t, fsdp_root_only) if reshard else 0.0
    # What is alive besides the resident states: in backward (beside the gathered units), at the optimizer step,
    # and at the later of the end of backward and the step (gpudesk.sizing.fsdp_step_reshard).
    fwd_bwd_phase, step_phase = acts + logits, grads + step_temp + end_extra
    # DeepSpeed ZeRO-2's reduce bucket, alive through backward only (gpudesk.sizing.zero2_buffers); the offload
    # path counts it with its other buffers below.
    z2_elements = DEFAULT_REDUCE_BUCKET_ELEMENTS if zero2_reduce_bucket is None else zero2_reduce_bucket
    z2_bucket = (zero2_reduce_bucket_bytes(per_param[0] or per_param[1], z2_elements)
                 if zero2_bucket_applies(stage, offload, fsdp, sharding_name, pp) else 0.0)
    fwd_bwd_phase += z2_bucket
    after_backward_phase = step_phase
    if not keep_grads and grads > 0:
        head_grad = pipeline_grads if stage_grads else min(grads, spec.largest_layer_params / t * per_param[2])
        if zero3_resident_grad_partition(stage, fsdp, offload):
            # DeepSpeed's flat gradient-partition buffer exists from init on (gpudesk.sizing.zero3_grad_buffer);
            # the unreduced gradient of the module in backward is in `gathered_layers`.
            head_grad = grads
        fwd_bwd_phase += head_grad
        after_backward = max(step_temp + end_extra, end_gathered) if reshard else step_temp + end_extra
        after_backward_phase = grads + after_backward
        if acts + logits + head_grad + gathered_fwd_bwd + z2_bucket >= grads + after_backward:
            parts["gradients"] = head_grad  # peak at the start of backward
            if z2_bucket:
                parts["zero_gradient_buffers"] = z2_bucket
            step_temp = 0.0
        else:
            acts, logits = 0.0, 0.0  # peak at the end of backward / optimizer step: activations already freed
            parts["gradients"] = grads + end_extra
            if grad_op_unsharded:
                # SHARD_GRAD_OP frees the unsharded parameters after backward (gpudesk.sizing.fsdp_grad_op): the
                # later of the end of backward (unsharded parameters, no step temporaries) and the step.
                if step_temp >= grad_op_unsharded:
                    parts["weights"] -= grad_op_unsharded
                else:
                    step_temp = 0.0
            if reshard:
                step_temp, parts["gathered_layers"] = step_phase_bytes(step_temp, end_gathered)
            elif z3_window:
                parts["gathered_layers"] = z3_resident  # the window is released by the end of backward
    no_sync_grads = 0.0
    if fsdp and fsdp_version == 1 and gradient_accumulation and fsdp1_no_sync and offload == "none" and pp == 1:
        no_sync_grads = rank_params * per_param[2]
    if fsdp and fsdp_version == 2 and gradient_accumulation and offload == "none" and pp == 1:
        no_sync_grads = fsdp2_no_sync_gradient_bytes(rank_params, per_param[2], fsdp2_no_sync)
    if keep_grads:
        fwd_bwd_phase += grads + no_sync_grads
    if keep_grads and step_temp + end_extra > acts + logits + no_sync_grads + gathered_fwd_bwd + z2_bucket:
        acts, logits = 0.0, 0.0  # the optimizer step (all gradients + its temporaries) is the peak
        parts["gradients"] += end_extra
        no_sync_grads = 0.0  # reduce-scattered and freed by the syncing backward
        if reshard:
            parts["gathered_layers"] = 0.0  # every FSDP unit resharded before the step
        elif z3_window:
            parts["gathered_layers"] = z3_resident  # the window is released by the end of backward
    elif keep_grads:
        step_temp = 0.0
        if z2_bucket:
            parts["zero_gradient_buffers"] = z2_bucket
    if no_sync_grads:
        # Held unsharded instead of as shards: the shards appear only as the syncing backward frees these.
        parts["unsharded_gradients"] = no_sync_grads
        parts["gradients"] = 0.0
    if flat_copy and end_extra and flat_copy >= tied_grad and parts["gradients"] >= grads + end_extra:
        # The peak is the all-reduce after backward: the flat copy is that moment's bucket, not more gradients.
        parts["gradients"] -= end_extra
        parts["ddp_gradient_buckets"] = end_extra
    zero2_offload_resident = 0.0
    if zero2_offload_applies(stage, offload, fsdp, pp) and not optimizer_in_backward:
        # DeepSpeed ZeRO-2 optimizer offload still keeps or creates 16-bit gradient buffers and an fp32 copy on the
        # GPU (gpudesk.sizing.zero2_buffers): beside the activations at the start of backward, or after them.
        z2off = zero2_offload_buffers(spec, rank_params, g // mp, per_param[0] or per_param[1], t,
                                      reduce_bucket_elements=z2_elements)
        zero2_offload_resident = z2off.resident
        in_backward = acts + logits + z2off.bucket + z2off.head_grad + z2off.head_fp32
        if in_backward >= max(z2off.end_of_backward, z2off.step):
            parts["gradients"] += z2off.head_grad
            step_temp += z2off.head_fp32
            parts["zero_gradient_buffers"] = z2off.resident + z2off.bucket
        elif z2off.end_of_backward >= z2off.step:
            acts, logits = 0.0, 0.0
            parts["gradients"] += z2off.head_grad
            step_temp += z2off.end_of_backward - z2off.bucket - z2off.head_grad
            parts["zero_gradient_buffers"] = z2off.resident + z2off.bucket
        else:
            acts, logits = 0.0, 0.0
            step_temp += z2off.step
            parts["zero_gradient_buffers"] = z2off.resident
    if step_temp:
        parts["optimizer_step_temporaries"] = step_temp
    # Megatron-Core's fp32 gradient buffer is its buckets' storage (gpudesk.sizing.fp32_grad_buffer): no second copy.
    buckets = ddp_bucket_bytes(rank_params, per_param[2], g // mp, stage, offload,
                               ddp_bucket_view or main_grads_kept or fp32_grad_buffer)
    if buckets:
        parts["ddp_gradient_buckets"] = buckets
    offload_grad_shards = 0.0
    if fsdp and fsdp_version == 1 and offload == "all" and stage == "zero3":
        offload_grad_shards = fsdp1_offload_gradient_shard_bytes(rank_params, per_param, g // mp)
        parts["gradients"] = max(parts["gradients"], offload_grad_shards)
    parts["activations"] = acts
    parts["logits"] = logits
    if z3_window and pp == 1:
        z3_cache = zero3_stream_cache_bytes(window_bytes=z3_window, reduce_pool_bytes=z3_reduce_pool,
                                            fwd_bwd_bytes=fwd_bwd_phase, step_bytes=step_phase)
        if z3_cache:
            parts["zero3_stream_cache"] = z3_cache
    if reshard:
        cache = fsdp_stream_cache_bytes(gathered_bytes=gathered_fwd_bwd, fwd_bwd_bytes=fwd_bwd_phase,
                                        step_bytes=step_phase, after_backward_bytes=after_backward_phase)
        if cache:
            parts["fsdp_stream_cache"] = cache
    assumptions = [
        (_("the peak is the larger of start of backward (activations) and end of backward (all gradients), gradients "
           "accumulate across micro-batches") if gradient_accumulation else
         _("the peak is the larger of start of backward (activations) and end of backward (all gradients)"),
         "PyTorch memory snapshot timeline, pytorch.org/blog/understanding-gpu-memory-1"),
        (_muon_accounting_text(optimizer, per_param, spec) if is_muon(optimizer) else
         _("{optimizer} accounting, {bytes:g} bytes/param before sharding").format(optimizer=optimizer,
                                                                                    bytes=sum(per_param)),
         optimizer_source(optimizer)),
        # The user's own sharding choice (fsdp, not the ZeRO stage it is counted as).
        (ngettext("{stage} over {dp} data-parallel GPU, offload {offload}",
                  "{stage} over {dp} data-parallel GPUs, offload {offload}", g // mp).format(
                      stage=sharding_name, dp=g // mp, offload=offload_value_text(offload)),
         "ZeRO paper section 5; DeepSpeed memory docs"),
    ]
    if experts:
        layer_dispatch = dispatch_saved_bytes(spec, seq_len_tokens=max(1, seq // cp),
                                              micro_batch_size=batch // microbatches, tensor_parallel=t,
                                              expert_tensor_parallel=etp, sequence_parallel=sequence_parallel,
                                              bytes_per_element=4.0 if precision == "fp32" else 2.0)
        assumptions.append((ngettext(
            "expert parallel {ep} x expert tensor parallel {etp}: this GPU holds {experts:.2f} B routed-expert "
            "parameters, their states sharded over {edp} GPU; each MoE layer keeps the all-to-all dispatcher's "
            "permuted tokens for backward ({gib:.2f} GiB a layer, balanced routing)",
            "expert parallel {ep} x expert tensor parallel {etp}: this GPU holds {experts:.2f} B routed-expert "
            "parameters, their states sharded over {edp} GPUs; each MoE layer keeps the all-to-all dispatcher's "
            "permuted tokens for backward ({gib:.2f} GiB a layer, balanced routing)", experts.data_parallel).format(ep=expert_parallel, etp=etp,
                                                          experts=experts.rank_params / 1e9, edp=experts.data_parallel,
                                                          gib=layer_dispatch / 2**30),
                            EXPERT_PARALLEL_SOURCE + "; " + DISPATCH_SOURCE))
    if end_extra and not acts and tied_grad > flat_copy:
        assumptions.append((_("tied embedding: the input embedding's dense gradient ({size}) exists beside the LM "
                              "head's at the end of backward, before it is added into it").format(
                                  size=format_bytes(int(tied_grad))), TIED_EMBEDDING_GRAD_SOURCE))
    if grad_op_shard:
        assumptions.append((_("FSDP SHARD_GRAD_OP keeps each rank's parameter shard ({gib:.2f} GiB) beside the unsharded "
                              "parameters from forward to the end of backward").format(gib=grad_op_shard / 2**30),
                            "torch/distributed/fsdp/api.py ShardingStrategy; _flat_param.py _local_shard, "
                            "_full_param_padded"))
    if peak is not None:
        assumptions.append((_("pipeline {schedule} over {pp} stages: the peak is on stage rank {rank} with "
                              "{chunks} micro-batch chunks of activations in flight").format(
                                  schedule=pipeline_schedule, pp=pp, rank=peak.rank, chunks=peak.activation_chunks),
                            "torch/distributed/pipelining/schedules.py; gpudesk.sizing.pipeline"))
    if activation_bytes_per_sample is None:
        assumptions.append((_("activations: recompute {recompute}, FlashAttention on").format(
                                recompute=recompute_value_text(recompute))
                            if flash_attention else
                            _("activations: recompute {recompute}, FlashAttention off").format(
                                recompute=recompute_value_text(recompute)),
                            "Korthikanti et al. 2022 (arXiv 2205.05198) Table 2"))
        if share < 1.0 and recompute_layers is not None:
            assumptions.append(recompute_layers_note(recompute_layers, stage_layers))
    else:
        assumptions.append((_("activations from the given bytes per sample x micro-batch"), _("user input")))
    assumptions.append(loss_assumption(loss, loss_vocab_chunk, spec.vocab_size, t))
    if zero_grad_keeps_grads:
        assumptions.append((_("zero_grad keeps zero-filled gradients between steps (PyTorch before 2.0)"),
                            "pytorch/pytorch PR 92731 (set_to_none default)"))
    if kept_main_grads:
        assumptions.append((_("the fp32 main gradients stay allocated between steps ({gib:.2f} GiB) and the gradients "
                              "are all-reduced through one flat copy after backward").format(
                                  gib=kept_main_grads / 2**30),
                            "NVIDIA/Megatron-LM 63121a9e megatron/optimizer/optimizer.py zero_grad, "
                            "megatron/model/distributed.py allreduce_gradients"))
    if sp_gathered_inputs and sequence_parallel and t > 1:
        assumptions.append((_("sequence parallel as PyTorch DTensor does it: the column-parallel linears keep their "
                              "all-gathered input for backward"),
                            "torchtitan parallelize_llama (PrepareModuleInput Shard(1) -> Replicate())"))
    if tp_whole_logits and t > 1 and logits:
        assumptions.append((_("every tensor-parallel GPU holds the whole vocabulary logits (no loss parallel)"),
                            "torchtitan apply_tp output_layouts Replicate() without loss_parallel; "
                            "gpudesk.sizing.tp_training_vocab"))
    if embedding_extra:
        assumptions.append((_("the token embedding stays whole on every tensor-parallel GPU ({params:.2f} B parameters "
                              "beyond an even split)").format(params=embedding_extra / 1e9),
                            "KempnerForge kempnerforge/distributed/tensor_parallel.py at 01b461a; "
                            "gpudesk.sizing.tp_training_vocab"))
    if no_sync_grads and fsdp_version == 2:
        assumptions.append((_("FSDP2 with gradient sync off keeps the full unsharded gradients on every GPU between "
                              "micro-batches until the syncing micro-batch ({gib:.2f} GiB)").format(
                                  gib=no_sync_grads / 2**30),
                            "torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py post_backward, _fsdp_param.py "
                            "to_accumulated_grad_if_needed (PyTorch v2.13.0); accelerate PR 3762"))
    elif no_sync_grads:
        assumptions.append((_("FSDP1 accumulates the full unsharded gradients on every GPU under no_sync() until the "
                              "syncing micro-batch ({gib:.2f} GiB)").format(gib=no_sync_grads / 2**30),
                            "torch/distributed/fsdp/fully_sharded_data_parallel.py no_sync; accelerate "
                            "Accelerator.accumulate; lightning fabric FSDP no_backward_sync"))
    if fp32_master_clone:
        assumptions.append((_("DeepSpeed ZeRO keeps its own fp32 copy of this GPU's weight partition even when the "
                              "model is fp32 ({gib:.2f} GiB; DeepSpeed 0.18.2 and later share it under ZeRO-3)").format(
                                  gib=fp32_master_clone / 2**30),
                            "deepspeed/runtime/zero/stage_1_and_2.py single_partition_of_fp32_groups; "
                            "stage3.py _create_fp32_partitions; deepspeedai/DeepSpeed PR 7651"))
    if zero3_gathered:
        assumptions.append(gathered_assumption(zero3_gathered, zero3, spec.hidden_size or 0))
    if z3_retained:
        assumptions.append(outside_init_assumption(z3_retained))
    if step_temp and zero3_sub_groups:
        assumptions.append((_("DeepSpeed ZeRO-3 steps the optimizer one sub-group of at most {elements:,} parameters at "
                              "a time: that sub-group's fp32 gradient and step temporaries, {gib:.2f} GiB").format(
                                  elements=ZERO3_SUB_GROUP_ELEMENTS, gib=step_temp / 2**30),
                            "deepspeed/runtime/zero/stage3.py DeepSpeedZeroOptimizer_Stage3.step, "
                            "_prepare_fp32_grad_for_sub_group (flat 16-bit copy cast to fp32); "
                            "deepspeed/runtime/zero/config.py sub_group_size"))
    else:
        if muon_ns or muon_adamw_temp:
            muon_step_assumptions(assumptions, step_temp - zero12_fp32_grads - muon_ns - muon_adamw_temp, muon_ns,
                                  muon_adamw_temp)
        elif step_temp:
            # Only the parts the optimizer and its implementation make (fused AdamW, for-loop and SGD make no
            # foreach temporary), each with the figure added to the step's temporaries.
            if foreach_temp:
                assumptions.append((_("the optimizer step builds one state-sized temporary for every parameter "
                                      "(foreach AdamW, {gib:.2f} GiB)").format(gib=foreach_temp / 2**30),
                                    "torch/optim/adamw.py _multi_tensor_adamw (torch._foreach_sqrt)"))
            if master_step_grads:
                master_grads_assumption(assumptions, master_step_grads)
        # Muon's step temporaries are part of step_temp, so a Muon step always has one here.
        if step_temp and zero12_fp32_grads:
            assumptions.append((_("ZeRO-1/2 copies this GPU's gradient partition to fp32 for the optimizer step while "
                                  "the 16-bit partition is still held ({gib:.2f} GiB)").format(
                                      gib=zero12_fp32_grads / 2**30),
                                "deepspeed/runtime/zero/stage_1_and_2.py DeepSpeedZeroOptimizer.step; "
                                "colossalai/zero/low_level/low_level_optim.py LowLevelZeroOptimizer.step"))
    if buckets:
        assumptions.append((_("PyTorch DDP keeps its all-reduce buckets, a second copy of the gradients, for the whole "
                              "run ({gib:.2f} GiB; none with gradient_as_bucket_view)").format(gib=buckets / 2**30),
                            "torch/csrc/distributed/c10d/reducer.cpp initialize_buckets; torch/nn/parallel/distributed.py "
                            "gradient_as_bucket_view"))
    if parts.get("fsdp_stream_cache"):
        assumptions.append((_("FSDP reshards every unit after backward: no gathered layer is alive at the optimizer "
                              "step, while the allocator still reserves the {gib:.2f} GiB of units gathered in backward "
                              "(FSDP allocates them on its own CUDA stream)").format(
                                  gib=parts["fsdp_stream_cache"] / 2**30),
                            "torch/distributed/fsdp/_runtime_utils.py _post_backward_reshard, _unshard; "
                            "c10/cuda/CUDACachingAllocator.cpp get_free_block (per-stream pools)"))
    if parts.get("zero3_stream_cache"):
        assumptions.append((_("DeepSpeed ZeRO-3 gathers parameters and reduce-scatters gradients on their own CUDA "
                              "streams: the allocator keeps those streams' blocks ({gib:.2f} GiB) reserved beside the "
                              "default stream's peak, and no gathered window is alive at the optimizer step").format(
                                  gib=parts["zero3_stream_cache"] / 2**30),
                            "deepspeed/runtime/zero/partitioned_param_coordinator.py __all_gather_params_, stage3.py "
                            "reduce_and_partition_stream, comm/coalesced_collectives.py reduce_scatter_coalesced "
                            "(v0.13.1); c10/cuda/CUDACachingAllocator.cpp get_free_block (per-stream pools)"))
    if not fsdp1_limit_all_gathers:
        assumptions.append((_("FSDP1 without its rate limiter (limit_all_gathers=False): the CPU issues the all-gathers "
                              "ahead of the GPU, so every unit is counted unsharded at once"),
                            "torch/distributed/fsdp/fully_sharded_data_parallel.py limit_all_gathers; "
                            "_runtime_utils.py _unshard (_free_event_queue); gpudesk.sizing.fsdp1_rate_limiter"))
    if offload_grad_shards:
        assumptions.append((_("FSDP1 with parameter offload keeps every sharded gradient on the GPU until the end of "
                              "backward ({gib:.2f} GiB), in its own allocator pool beside the activations").format(
                                  gib=offload_grad_shards / 2**30),
                            "torch/distributed/fsdp/_runtime_utils.py _offload_grad; _flat_param.py "
                            "prepare_gradient_for_optim"))
    if parts.get("zero_gradient_buffers") and not zero2_offload_resident:
        bucket_text = (_("DeepSpeed ZeRO-2 copies the gradients into a reduce bucket of {gib:.2f} GiB during "
                         "backward (reduce_bucket_size, DeepSpeed's default of 5e8 elements)")
                       if zero2_reduce_bucket is None else
                       _("DeepSpeed ZeRO-2 copies the gradients into a reduce bucket of {gib:.2f} GiB during "
                         "backward (reduce_bucket_size of {elements:,} elements, as given)"))
        assumptions.append((bucket_text.format(gib=parts["zero_gradient_buffers"] / 2**30,
                                               elements=z2_elements),
                            "deepspeed/runtime/zero/stage_1_and_2.py v0.14.2 backward (ipg_buffer), "
                            "_release_ipg_buffers; runtime/zero/config.py reduce_bucket_size"))
    if zero2_offload_resident:
        assumptions.append((_("ZeRO-2 optimizer offload (DeepSpeed) still holds on the GPU a 16-bit buffer of the "
                              "largest parameter ({gib:.2f} GiB) and, in backward, the reduce bucket and that "
                              "parameter's gradient; at the step the fp32 master partition is copied back to the GPU "
                              "before it is cast into the weights").format(gib=zero2_offload_resident / 2**30),
                            "deepspeed/runtime/zero/stage_1_and_2.py v0.14.2 temp_grad_buffer_for_gpu_offload, "
                            "backward (ipg_buffer), async_inplace_copy_grad_to_fp32_buffer_from_gpu, step"))
    if paged:
        assumptions.append((_("paged optimizer states live in CUDA unified memory, outside the allocator figure; when "
                              "the GPU runs short they are evicted to host RAM (slower steps, no out-of-memory error)"),
                            "bitsandbytes functional.py get_paged (cudaMallocManaged)"))
    if spec.shape_is_guess:
        assumptions.append((_("model shape inferred from the parameter count"),
                            _("a guess; give a config.json for exact figures")))
    if zero3.outside_init and stage == "zero3" and not fsdp and pp == 1:
        # The engine moves the whole model to every GPU before partitioning it (gpudesk.sizing.zero3_outside_init).
        engine_start = add_engine_start_model(parts, rank_params * (per_param[0] or per_param[1]))
        if engine_start:
            assumptions.append(engine_start)
    # Expert parallelism's own NCCL buffers (device view; gpudesk.sizing.train_expert_parallel).
    nccl_extra, nccl_notes = expert_nccl_bytes(gpus=g, expert_parallel=expert_parallel,
                                               communicator_bytes=overheads.nccl_bytes_per_gpu,
                                               expert_tensor_parallel=etp, pipeline_parallel=pp)
    assumptions += add_overheads(parts, overheads.validated(), g, extra_nccl_bytes=nccl_extra,
                                 extra_nccl_notes=nccl_notes)
    if add_loading_reserve(parts, resident_at_load, staging):
        assumptions.append((_("loading ({loader}) reserves more than training: the reserved peak is the loading "
                              "peak").format(loader=weight_loading), "gpudesk.sizing.loading"))
    return MemoryEstimate(breakdown=ordered_breakdown(parts), gpus=g, assumptions=tuple(
        ([expert_share.assumption()] if expert_share else []) + assumptions), uneven_gpus=pp > 1, experts=expert_share)


def with_dispatch_buffers(terms: ActivationTerms, spec: ModelSpec, *, seq_len_tokens: int, micro_batch_size: int,
                          tensor_parallel: int, expert_tensor_parallel: int, sequence_parallel: bool, recompute: str,
                          recomputed_share: float = 1.0, bytes_per_element: float = 2.0) -> ActivationTerms:
    """``terms`` with the all-to-all dispatcher's saved tokens added (:func:`dispatch_activation_bytes`): spread over
    the layers' ``per_layer`` (the MoE layers' share), and the recomputed layer's in ``fixed``."""
    per_layer, once = dispatch_activation_bytes(spec, seq_len_tokens=seq_len_tokens, micro_batch_size=micro_batch_size,
                                                tensor_parallel=tensor_parallel,
                                                expert_tensor_parallel=expert_tensor_parallel,
                                                sequence_parallel=sequence_parallel, recompute=recompute,
                                                recomputed_share=recomputed_share, bytes_per_element=bytes_per_element)
    return replace(terms, per_layer=terms.per_layer + per_layer, fixed=terms.fixed + once)


def parallel_train_memory_bytes(spec: ModelSpec, *, gpus: int, seq_len_tokens: int, micro_batch_size: int,
                                micro_batches: int, tensor_parallel: int = 1, pipeline_parallel: int = 1,
                                virtual_stages: int = 1, context_parallel: int = 1, expert_parallel: int = 1,
                                expert_tensor_parallel: int = 1, sharding: str = "zero1", recompute: str = "none",
                                optimizer: str = "adam-16", precision: str = "bf16") -> dict[str, float]:
    """Per-GPU bytes of the first pipeline stage (the fullest) under tensor, pipeline, context and expert
    parallelism (Megatron-Core layout), as a breakdown: weights, master_weights, gradients, optimizer_states,
    activations, logits.

    - Model states: dense parameters (attention, norms, shared experts, embeddings) split by ``tp x pp``; routed
      experts by ``ep x etp x pp`` (Megatron-Core MoE: each EP rank holds ``experts / ep`` whole experts). The
      distributed optimizer / ZeRO shards master weights and optimizer states over the data-parallel ranks of each
      part: ``gpus / (tp pp)`` for the dense part (context-parallel ranks included), ``gpus / (ep etp pp)`` for
      the experts (Megatron-Core ``expert_data_parallel``); ZeRO-3 / FSDP also the weights and gradients.
    - Activations: Korthikanti et al. 2022 per layer for the stage's ``layers / pp`` layers, times the micro-batches
      the first stage holds at once: ``p`` under 1F1B, ``p (1 + (p-1)/(p v))`` interleaved
      (:func:`gpudesk.sizing.speed_parallel.in_flight_micro_batches`; Megatron-LM ``theoretical_memory_usage.py``);
      sequence split by ``cp``; MoE layers store the routed tokens' expert activations (``top_k`` x the expert width).
    - Logits: the last stage's vocabulary-parallel loss buffers for one micro-batch (counted on every stage, an
      upper bound for p > 1 only when the last stage is the fullest).

    Raises:
        SizingError / ShapeError: a degree that does not divide the GPUs, or a shape without layers.
    """
    from gpudesk.sizing.speed_parallel import in_flight_micro_batches

    t, p, cp = (positive_int(n, v, 1024) for n, v in (("tensor_parallel", tensor_parallel),
                                                        ("pipeline_parallel", pipeline_parallel),
                                                        ("context_parallel", context_parallel)))
    ep, etp = positive_int("expert_parallel", expert_parallel, 1024), positive_int("expert_tensor_parallel",
                                                                                   expert_tensor_parallel, 1024)
    g = positive_int("gpus", gpus, MAX_GPUS)
    if g % (t * p * cp) or (g // p) % (ep * etp):
        raise SizingError("gpus", _("{gpus} GPUs do not divide into tp x pp x cp = {mp} and ep x etp = {ep}.").format(
            gpus=g, mp=t * p * cp, ep=ep * etp))
    layers = spec.transformer_dims.layers
    per_param = model_state_bytes_per_param(optimizer, precision)
    stage = normalise_sharding("zero1" if sharding == "distributed-optimizer" else sharding)
    split = expert_split(spec, gpus=g, expert_parallel=ep, expert_tensor_parallel=etp, pipeline_parallel=p)
    dense = spec.params - split.total
    dense_part = sharded_model_states(int(dense / (t * p)), per_param, g // (t * p), stage)
    expert_part = sharded_model_states(int(split.rank_params), per_param, split.data_parallel, stage) if (
        split.total) else {}
    out = {k: dense_part[k] + expert_part.get(k, 0.0) for k in ("weights", "master_weights", "gradients",
                                                                  "optimizer_states")}
    ffn = spec.ffn_size
    if spec.moe_experts and spec.moe_active_experts:
        ffn = (spec.moe_ffn_size or spec.ffn_size or 4 * spec.transformer_dims.hidden_size) * spec.moe_active_experts
    s_local = max(1, seq_len_tokens // cp)
    dims = spec.transformer_dims
    per_layer = activation_bytes_per_layer(s_local, micro_batch_size, dims.hidden_size, dims.num_attention_heads,
                                           ffn, gated_mlp=spec.gated, recompute=recompute,
                                           tensor_parallel=t if dims.num_attention_heads % t == 0 else 1,
                                           sequence_parallel=t > 1)
    in_flight = in_flight_micro_batches(p, max(1, micro_batches), max(1, virtual_stages))
    dispatch_layer, dispatch_once = dispatch_activation_bytes(
        spec, seq_len_tokens=s_local, micro_batch_size=micro_batch_size, tensor_parallel=t, expert_tensor_parallel=etp,
        sequence_parallel=t > 1, recompute=recompute) if ep > 1 else (0.0, 0.0)
    out["activations"] = (per_layer + dispatch_layer) * layers / p * in_flight + dispatch_once
    out["logits"] = loss_logits_bytes(s_local, micro_batch_size, spec.vocab_size or 1, dims.hidden_size, "standard", t) \
        if spec.vocab_size else 0.0
    return out
