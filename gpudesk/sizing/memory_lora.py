"""Device memory of LoRA and QLoRA fine-tuning.

- Trainable parameters per adapted matrix W (d_out x d_in): ``r * (d_in + d_out)`` (Hu et al. 2021, "LoRA",
  arXiv 2106.09685, section 4.1: W + B A with B d_out x r and A r x d_in).
- Frozen base weights at their storage format: bf16 for LoRA; NF4 with double quantisation (4.127 bit/param)
  for QLoRA (Dettmers et al. 2023, arXiv 2305.14314), with embeddings, LM head and norms kept in bf16.
- Adapters carry weights + gradients + optimizer states at the typed precision: 16 B per trainable parameter with
  Adam under ``bf16``/``fp16`` (16-bit adapter and gradient over an fp32 master and fp32 m, v: DeepSpeed's
  bf16/fp16 optimizers, ZeRO paper arXiv 1910.02054 section 3.1) or ``fp16-amp``/``fp32`` (fp32 adapters, as PEFT
  leaves them over a 4-bit base), 8 B under ``bf16-pure`` (PEFT casts the LoRA layers to a bf16 base's dtype and
  torch AdamW keeps bf16 states). ZeRO-1/2 partition the adapters' master and states (ZeRO-2 their gradients) over
  the GPUs and ZeRO-Offload keeps them in host memory, as :func:`gpudesk.sizing.memory_train.sharded_model_states`.
- Activations: backprop still flows through the frozen layers (oom.md 1.2), but a frozen Linear keeps no input
  for a weight gradient, while each adapter keeps its own input path (dropout output and mask) and old
  bitsandbytes keeps the input of every 4-bit Linear: :mod:`gpudesk.sizing.activations_lora` replaces
  Korthikanti's per-layer count for the layers kept (every layer without recompute, the recomputed one with full
  recompute); gradient checkpointing is what cuts them most.
- ``double_quant`` (bitsandbytes ``bnb_4bit_use_double_quant``; Lightning ``bnb.nf4-dq``): the fp32 absmax of
  every 64-weight block is itself quantised to 8 bits (4.127 bit/param); without it, 4.5 bit/param.
- QLoRA dequantises one weight matrix at a time to bf16 for the matmul: one ``largest matrix x 2 B`` buffer.
- ``kbit_fp32_upcast``: PEFT's ``prepare_model_for_kbit_training`` casts every 16-bit parameter that is not a
  4/8-bit ``Params4bit`` to fp32 (norms, embeddings, LM head;
  https://github.com/huggingface/peft/blob/v0.13.2/src/peft/utils/other.py ``prepare_model_for_kbit_training``;
  TRL's ``SFTTrainer`` calls it for a 4-bit model unless the QLoRA is sharded, trl v0.11.4
  ``trl/trainer/sft_trainer.py``). The embedding output and every norm then run in fp32, so the residual stream is
  fp32: the layer inputs that gradient checkpointing keeps, and the norm inputs kept without it, take 4 bytes an
  element instead of 2 (fms-acceleration's bnb plugin avoids the cast for this reason,
  ``plugins/accelerated-peft/src/fms_acceleration_peft/framework_plugin_bnb.py``). Why the residual stays fp32 even
  when the embeddings are 16-bit again (below): the fp32 norms feed 4-bit Linears, and bitsandbytes'
  ``Linear4bit.forward`` returns its output in the input's dtype (``out = out.to(inp_dtype)``,
  https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/bitsandbytes/nn/modules.py), so the MLP output
  added to the residual is fp32.
- ``kbit_embeddings_bf16``: TRL's ``SFTTrainer`` under ``bf16`` calls ``peft_module_casting_to_bf16``, which
  casts every norm module to fp32 and the embeddings and the LM head, where they are fp32, back to bf16. After
  ``kbit_fp32_upcast`` that puts the embeddings back at 2 bytes and keeps the norms fp32; without it (TRL's own
  ``prepare_model_for_kbit_training`` of late 2025 casts nothing, ``trl/models/utils.py``) the embeddings stay
  16-bit as loaded and the norms become fp32 all the same, so the residual stream is fp32 either way
  (https://github.com/huggingface/trl/blob/v0.13.0/trl/trainer/utils.py ``peft_module_casting_to_bf16``; called in
  ``trl/trainer/sft_trainer.py`` when ``args.bf16`` and the model is 4-bit and not sharded): the embedding and
  LM-head weights take 2 bytes again (fp16 training leaves them fp32).
- ``fsdp1_mixed_flat_params``: under FSDP1 a ``FlatParameter`` that holds frozen base weights and trainable adapters
  gets a gradient for the whole flat parameter, so the frozen base costs gradient memory at its storage size:
  the sharded flat gradients plus, before each reduce-scatter, two unsharded block gradients. torchtune wraps
  the adapters in their own units "to work around FSDP allocating extra gradient memory when wrapped with other
  modules" (https://github.com/pytorch/torchtune/blob/fef3ed10dc9efe9e35b118e4397e84c680c0a737/torchtune/utils/_distributed.py
  ``lora_fsdp_wrap_policy``), as PEFT's ``fsdp_auto_wrap_policy`` does; a plain per-block wrap does not.
- ``tensor_parallel`` (Megatron-Core LoRA, e.g. Megatron-SWIFT): the frozen base is split like any Megatron model
  (column/row-parallel linears, vocab-parallel embeddings and head), so each rank holds ``1 / t`` of it and the
  ZeRO/distributed-optimizer sharding runs over the ``gpus / t`` data-parallel ranks. The adapters follow PEFT's
  ``LoraParallelLinear`` (https://github.com/huggingface/peft/blob/v0.13.2/src/peft/tuners/lora/tp_layer.py):
  over a column-parallel base ``lora_A`` is a whole ``nn.Linear`` and ``lora_B`` is column-parallel; over a
  row-parallel base (``o_proj``, ``down_proj``) ``lora_A`` is row-parallel and ``lora_B`` whole. Activations and
  the vocab-parallel logits split as in full training (Korthikanti et al. 2022, arXiv 2205.05198, Table 2); the
  frozen-layer correction of a kept layer is divided by ``t`` with them. A 4-bit base has no tensor-parallel
  layer (bitsandbytes ``Linear4bit`` is a whole matrix), so QLoRA with ``t > 1`` is refused.
- ``context_parallel`` (sequence parallelism: ms-swift ``--sequence_parallel_size``, DeepSpeed Ulysses,
  Megatron CP under NeMo LoRA): as in full training (:func:`gpudesk.sizing.memory_train.train_memory`), each GPU of
  a ``cp`` group holds ``seq / cp`` tokens of every activation outside attention and computes the logits and loss
  of its own slice only; the frozen base, the adapters and their sharding (over the ``gpus / t`` ranks, the
  context-parallel ones among them) do not shrink. Ulysses exchanges q, k, v and the attention output by
  all-to-all (``seq / cp`` tokens x all heads in, ``seq`` tokens x ``heads / cp`` out: the same element count),
  so its buffers are the size of the tensors they replace, live within one layer's attention
  (ms-swift ``swift/sequence_parallel/ulysses.py`` ``single_all_to_all`` / ``DistributedAttention`` at
  3602360a562313afbf2ef6065fdf61f271a2c5b9; Jacobs et al. 2023, DeepSpeed-Ulysses, arXiv 2309.14509). Heads
  need not divide ``cp``: ms-swift runs Ulysses over ``gcd(kv_heads, cp)`` GPUs and ring attention over the rest
  (``SequenceParallel._init_device_mesh``), whose blocks are also per-slice; so, as full training, only a ``cp``
  that does not divide the data-parallel GPUs is refused.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.fsdp1_rate_limiter import check_fsdp1_limit_all_gathers, unlimited_blocks_params
from gpudesk.sizing.checks import MAX_GPUS, MAX_SEQ_LEN_TOKENS, choice, positive_int
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.estimate import MemoryEstimate, ordered_breakdown
from gpudesk.sizing.activations import (
    DEFAULT_VOCAB_CHUNK_COLUMNS,
    LOSS_MODES,
    activation_bytes_per_layer,
    loss_assumption,
)
from gpudesk.sizing.ctx_kept_inputs import ctx_kept_input_bytes_per_layer
from gpudesk.sizing.activations_lora import frozen_layer_activation_bytes
from gpudesk.sizing.lora_base import (
    LORA_BASE_WEIGHTS,
    check_modules_to_save,
    int8_base_bytes,
    int8_dequant_workspace_bytes,
    modules_to_save_params,
)
from gpudesk.sizing.lora_modules import LLAMA_MODULES, MLP_ROLES, mlp_copies, module_dims, resolve_targets
from gpudesk.sizing.loading import add_loading_reserve, load_staging_bytes
from gpudesk.sizing.memory_train import (
    OFFLOAD_MODES,
    SHARDING_MODES,
    activation_bytes,
    model_state_bytes_per_param,
    normalise_sharding,
    offload_value_text,
    sharded_model_states,
)
from gpudesk.sizing.optimizers import is_muon, optimizer_source, precision_family
from gpudesk.sizing.overheads import Overheads, add_overheads
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.train_eval_pass import check_eval_batch, eval_pass_bytes, eval_pass_note, split_eval_pass
from gpudesk.sizing.train_expert_parallel import (check_expert_parallel, check_expert_tensor_parallel,
                                                  expert_nccl_bytes, expert_split)
from gpudesk.sizing.zero3_outside_init import add_engine_start_model, outside_init_assumption, retained_extra_bytes
from gpudesk.sizing.zero3_params import Zero3Settings, gathered_assumption, zero3_frozen_gathered_bytes
from gpudesk.sizing.weight_segments import frozen_segment_waste_bytes

LORA_MODES = ("lora", "qlora")
ROW_PARALLEL_MODULES = ("o_proj", "down_proj")  # Megatron RowParallelLinear: the input dimension is split
# Precisions that run torch.autocast over fp32 parameters (the CLI's ``--precision`` names).
AUTOCAST_OVER_FP32 = ("fp16-amp", "bf16-amp")


def autocast_frozen_weight_cast_bytes(spec: ModelSpec, saving_layers: int, tensor_parallel: int = 1) -> float:
    """Bytes of the 16-bit weight casts autograd keeps for a LoRA run under ``torch.autocast`` over a frozen fp32
    base (``fp16-amp``/``bf16-amp``).

    Autocast caches the cast of a weight only for leaves that require grad (``cached_cast`` in
    https://github.com/pytorch/pytorch/blob/v2.1.0/aten/src/ATen/autocast_mode.cpp), so a frozen base weight is cast
    afresh at every use; the matmul then saves that 16-bit copy to compute its input's gradient (``mm``: ``mat2``
    saved when ``self`` requires grad, tools/autograd/derivatives.yaml). Each block's frozen Linear weights stay
    alive as 16-bit copies until that block's backward: ``saving_layers`` blocks (all of them without recompute,
    the one being recomputed with it) plus the LM head, which sits outside the checkpointed blocks.
    """
    layers = spec.layers or 0
    if not layers:
        return 0.0
    block_params = (spec.params - spec.embedding_params) / layers / max(1, tensor_parallel)
    head_params = (spec.vocab_size or 0) * (spec.hidden_size or 0) / max(1, tensor_parallel)
    return 2.0 * (block_params * saving_layers + head_params)


# With ``kbit_fp32_upcast`` the LM head is fp32 too: transformers leaves the output embedding unquantised
# (``get_keys_to_not_convert``, https://github.com/huggingface/transformers/blob/v4.49.0/src/transformers/integrations/bitsandbytes.py)
# and PEFT's ``prepare_model_for_kbit_training`` casts it to fp32 with the norms; the final norm's output is fp32,
# so ``lm_head`` writes fp32 logits. A loss that runs in the logits' own dtype (``standard-16bit``: no
# ``logits.float()``, 3 copies per element: logits, log-softmax, gradient) then holds 4-byte copies instead of
# 2-byte ones. A loss that upcasts anyway (``standard``) costs the same; TRL's ``peft_module_casting_to_bf16``
# (``kbit_embeddings_bf16``) puts the head back in bf16.
FP32_HEAD_LOGITS_FACTOR = 2.0


def fp32_residual_extra_bytes(spec: ModelSpec, seq_len_tokens: int, micro_batch_size: int, recompute: str = "full",
                              activation_offload: bool = False) -> float:
    """Extra bytes when the residual stream is fp32 instead of 16-bit (``kbit_fp32_upcast``): 2 more bytes per
    element of every saved residual-stream tensor: the layer input under full recompute (one per layer), the two
    norm inputs per layer otherwise, and the embedding output (eager RMSNorm's own fp32 copies are counted by
    :func:`gpudesk.sizing.memory_train.eager_extra_bytes_per_layer` already).
    """
    sbh = float(seq_len_tokens) * micro_batch_size * (spec.hidden_size or 0)
    layers = spec.layers or 0
    kept = min(2, layers) if activation_offload else layers
    per_layer = 1 if recompute == "full" else 2
    return 2.0 * sbh * (per_layer * kept + 1)


def _split_adapter(rank: int, name: str, d_in: int, d_out: int, split: int) -> float:
    """One adapter pair's parameters on one of ``split`` tensor-parallel ranks (PEFT ``LoraParallelLinear``, module
    docstring): the split follows the base layer (row-parallel: the input dimension, else the output)."""
    if split == 1:
        return float(rank * (d_in + d_out))
    if name in ROW_PARALLEL_MODULES:
        return rank * (d_in / split + d_out)
    return rank * (d_in + d_out / split)


def adapter_params_per_rank(spec: ModelSpec, rank: int, targets: str | tuple[str, ...] | list[str],
                            tensor_parallel: int = 1, expert_parallel: int = 1,
                            expert_tensor_parallel: int | None = None) -> tuple[float, float]:
    """``(dense, routed)``: the adapter parameters one GPU holds outside and inside the routed experts.

    Attention targets: one adapter a layer. MLP targets: one a block of :func:`gpudesk.sizing.lora_modules.mlp_copies`
    (every routed expert of an MoE layer is a target module). The routed experts' adapters split like their
    experts: ``experts / ep`` on the GPU (ms-swift's grouped LoRA has ``num_local_experts`` GEMMs), each over the
    expert-tensor-parallel size (tp unless given, Megatron-LM's default); everything else over tp.

    Raises:
        ShapeError: the model shape lacks layers/hidden/heads. SizingError: bad rank or module names.
    """
    r = positive_int("lora_rank", rank, 65536)
    if not spec.is_transformer:
        raise ShapeError("model", _("{model}: LoRA needs a transformer shape (layers, hidden size, heads).").format(
            model=spec.name))
    names = resolve_targets(targets, spec)
    etp = expert_tensor_parallel or tensor_parallel
    dense = spec.transformer_dims.layers * sum(
        _split_adapter(r, n, *module_dims(spec, n), tensor_parallel) for n in names if n not in MLP_ROLES)
    routed = 0.0
    mlp = [n for n in names if n in MLP_ROLES]
    for blocks, width, is_routed in mlp_copies(spec) if mlp else ():
        if is_routed:
            routed += blocks / expert_parallel * sum(_split_adapter(r, n, *module_dims(spec, n, width), etp)
                                                     for n in mlp)
        else:
            dense += blocks * sum(_split_adapter(r, n, *module_dims(spec, n, width), tensor_parallel) for n in mlp)
    return dense, routed


def lora_trainable_params(spec: ModelSpec, rank: int, targets: str | tuple[str, ...] | list[str] = "default") -> int:
    """Trainable LoRA parameters: ``sum(r * (d_in + d_out))`` over the target modules of every layer (each routed
    expert's MLP a target of its own, :func:`gpudesk.sizing.lora_modules.mlp_copies`).

    Llama-2-7B, r = 8, q_proj + v_proj: 32 * 2 * 8 * (4096 + 4096) = 4,194,304 (PEFT prints the same).

    Raises:
        ShapeError: the model shape lacks layers/hidden/heads. SizingError: bad rank or module names.
    """
    return int(round(sum(adapter_params_per_rank(spec, rank, targets))))


def lora_params_per_tp_rank(spec: ModelSpec, rank: int, targets: str | tuple[str, ...] | list[str],
                            tensor_parallel: int, expert_parallel: int = 1,
                            expert_tensor_parallel: int | None = None) -> int:
    """Adapter parameters one tensor-parallel rank holds (PEFT ``LoraParallelLinear``, module docstring): the
    split factor of each adapter matrix follows its base layer, the routed experts' adapters also split over
    ``expert_parallel`` (:func:`adapter_params_per_rank`); ``tensor_parallel`` 1 gives
    :func:`lora_trainable_params`.

    Raises:
        ShapeError / SizingError: as :func:`lora_trainable_params`.
    """
    return int(sum(adapter_params_per_rank(spec, rank, targets, tensor_parallel, expert_parallel,
                                           expert_tensor_parallel)))


def lora_memory(
    spec: ModelSpec,
    *,
    mode: str = "lora",
    rank: int = 16,
    targets: str | tuple[str, ...] | list[str] = "all-linear",
    precision: str = "bf16",
    optimizer: str = "adam-16",
    seq_len_tokens: int = 2048,
    micro_batch_size: int = 1,
    recompute: str = "none",
    flash_attention: bool = True,
    overheads: Overheads = Overheads(),
    gpus: int = 1,
    sharding: str = "ddp",
    offload: str = "none",
    loss: str = "standard",
    activation_offload: bool = False,
    compiled: bool = False,
    unfused_gelu: bool = False,
    fused_norm: bool = False,
    grouped_kv_attention: bool = False,
    eager_softmax: str = "16bit",
    kbit_fp32_upcast: bool = False,
    kbit_embeddings_bf16: bool = False,
    fsdp1_mixed_flat_params: bool = False,
    lora_dropout: float = 0.0,
    legacy_bnb_matmul: bool = False,
    nonreentrant_checkpoint: bool = False,
    weight_loading: str = "per-tensor",
    double_quant: bool = True,
    fsdp_version: int = 2,
    lora_kernels: str = "peft",
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    base_weights: str = "precision",
    modules_to_save: tuple[str, ...] = (),
    loss_vocab_chunk: int = DEFAULT_VOCAB_CHUNK_COLUMNS,
    zero3: Zero3Settings | None = None,
    fsdp1_limit_all_gathers: bool = True,
    context_parallel: int = 1,
    expert_parallel: int = 1,
    expert_tensor_parallel: int | None = None,
    eval_batch: int = 0,
    eval_kv_cache: bool = True,
    eval_loss: str = "",
) -> MemoryEstimate:
    """Per-GPU memory of LoRA (16- or 32-bit base) or QLoRA (NF4 + double-quantised base) fine-tuning.

    The frozen base follows ``sharding`` like any parameter: ZeRO-3 / FSDP divide it by ``gpus`` and keep two
    unsharded blocks gathered (torchtune ``lora_finetune_distributed``; Answer.AI FSDP+QLoRA,
    https://www.answer.ai/posts/2024-03-06-fsdp-qlora.html); ``offload="all"`` keeps it in host memory.
    ``base_weights="int8"`` (LoRA) holds the base as bitsandbytes LLM.int8 Linears, and ``modules_to_save`` adds
    PEFT's trainable full copies of the embeddings / LM head (:mod:`gpudesk.sizing.lora_base`).
    Under FSDP1 (``sharding="fsdp"``, ``fsdp_version=1``) the root unit (what the block wrap leaves out: the
    embeddings and the LM head, never quantised) stays unsharded from forward to backward
    (``torch/distributed/fsdp/_runtime_utils.py`` ``_post_forward``: only non-root units are resharded,
    https://github.com/pytorch/pytorch/blob/v2.2.0/torch/distributed/fsdp/_runtime_utils.py), also with CPU
    offload: counted in ``gathered_layers``. Llama-3-70B: 2.1 B parameters, 4.2 GB in bf16.
    ``eval_batch`` (Hugging Face ``Trainer`` evaluating inside the run at that batch; ``eval_kv_cache`` False when
    ``config.use_cache`` is off; ``eval_loss`` the eval forward's loss where it differs from ``loss``):
    :mod:`gpudesk.sizing.train_eval_pass`.
    ``fsdp1_limit_all_gathers=False`` (FSDP1 without its rate limiter): every block unit of the base is counted
    unsharded at once instead of two (:mod:`gpudesk.sizing.fsdp1_rate_limiter`).
    Breakdown: weights (frozen base), lora_adapters (trainable params x optimizer accounting), activations,
    logits, gathered_layers, prefill_workspace (QLoRA dequantisation buffer), cuda_context, framework_overhead,
    fragmentation.

    Raises:
        SizingError / ShapeError: invalid input, named by field.
    """
    kind = choice("mode", mode, LORA_MODES)
    check_eval_batch(eval_batch)
    eval_loss_mode = choice("eval_loss", eval_loss, LOSS_MODES) if eval_loss else loss
    g = positive_int("gpus", gpus, MAX_GPUS)
    stage = normalise_sharding(sharding)
    sharding_name = choice("sharding", sharding, SHARDING_MODES)  # the user's own choice, named in the assumptions
    check_fsdp1_limit_all_gathers(fsdp1_limit_all_gathers, sharding_name == "fsdp", fsdp_version)
    off = choice("offload", offload, OFFLOAD_MODES)
    t = positive_int("tensor_parallel", tensor_parallel, 1024)
    if g % t:
        raise SizingError("tensor_parallel", _("{tp} does not divide the {gpus} GPUs.").format(tp=t, gpus=g))
    if kind == "qlora" and t > 1:
        raise SizingError("tensor_parallel", _("QLoRA has no tensor-parallel layers (a 4-bit base matrix is not "
                                               "split); use tensor parallel 1 and shard the base with ZeRO-3 or FSDP."))
    base_kind = choice("base_weights", base_weights, LORA_BASE_WEIGHTS)
    int8_base = base_kind == "int8"
    fp32_base = base_kind == "fp32"
    if fp32_base and (kind != "lora" or stage != "zero3" or precision_family(precision) != "mixed"):
        raise SizingError("base_weights", _("an fp32 base cast by FSDP mixed precision applies to --mode lora with "
                                            "--sharding fsdp or zero3 and a 16-bit --precision (bf16, fp16); "
                                            "torch.autocast over an fp32 base is --precision bf16-amp or fp16-amp."))
    if int8_base and kind != "lora":
        raise SizingError("base_weights", _("an 8-bit base applies to --mode lora; --mode qlora holds its base in "
                                            "4-bit NF4."))
    cp = positive_int("context_parallel", context_parallel, 1024)
    if (g // t) % cp:
        raise SizingError("context_parallel", _("{cp} does not divide the {dp} data-parallel GPUs.").format(
            cp=cp, dp=g // t))
    # Each GPU of a context-parallel group holds seq / cp tokens of every activation and of the logits (module
    # docstring); the whole-model terms above and below do not depend on the sequence.
    seq = max(1, positive_int("seq_len_tokens", seq_len_tokens, MAX_SEQ_LEN_TOKENS) // cp)
    if int8_base and (t > 1 or stage == "zero3" and g > 1):
        raise SizingError("base_weights", _("bitsandbytes 8-bit Linears are whole matrices: an 8-bit base is modelled "
                                            "without tensor parallelism and without ZeRO-3/FSDP sharding."))
    # Expert parallelism (Megatron-Core LoRA, e.g. ms-swift ``megatron sft --expert_model_parallel_size``): each GPU
    # holds experts / ep of the frozen routed experts, as in full training (gpudesk.sizing.train_expert_parallel); a
    # 16/32-bit base only, not under ZeRO-3 / FSDP.
    # Megatron's --expert-tensor-parallel-size splits each expert over etp GPUs (tp when not given), as in full
    # training: the rank holds experts / (ep x etp) of the frozen routed weights.
    etp = check_expert_tensor_parallel(expert_tensor_parallel, expert_parallel=expert_parallel, tensor_parallel=t)
    check_expert_parallel(spec, expert_parallel, gpus=g, expert_tensor_parallel=etp)
    if expert_parallel > 1 and (kind != "lora" or int8_base or stage == "zero3"):
        raise SizingError("expert_parallel", _("expert parallelism with adapters is modelled for --mode lora over a "
                                               "16- or 32-bit base, without ZeRO-3 / FSDP."))
    other_ranks_experts = 0.0
    if expert_parallel > 1:
        split = expert_split(spec, gpus=g, expert_parallel=expert_parallel, expert_tensor_parallel=etp)
        other_ranks_experts = split.total - split.rank_params * t  # the other EP ranks' experts, before the tp split
    copies = modules_to_save_params(spec, modules_to_save)
    total_trainable = lora_trainable_params(spec, rank, targets) + copies
    dense_adapters, routed_adapters = adapter_params_per_rank(spec, rank, targets, t, expert_parallel, etp)
    trainable = int(dense_adapters + routed_adapters) + copies // t
    dp = g // t
    # The precision names mean what the CLI says: bf16/fp16/fp8 are 16-bit adapters over an fp32 master with fp32
    # optimizer states (DeepSpeed's bf16/fp16 optimizers, Lightning/FSDP mixed precision); bf16-pure is PEFT's LoRA
    # layers cast to a bf16 base under HF AMP (torch AdamW keeps bf16 states); fp16-amp fp32 adapters.
    adapter_precision = precision
    adapter_state = model_state_bytes_per_param(optimizer, adapter_precision)
    per_trainable = sum(adapter_state)
    base_bytes_per_param = 4.0 if precision_family(precision) == "fp32" or fp32_base else 2.0
    nf4_format = "nf4-dq" if double_quant else "nf4"
    # peft_module_casting_to_bf16 casts every norm to fp32 itself: with or without the upcast, its norms are fp32.
    fp32_norms = kbit_fp32_upcast or kbit_embeddings_bf16
    keep_bytes = 4 if kbit_fp32_upcast and not kbit_embeddings_bf16 else 2
    if kind == "qlora":
        keep = spec.embedding_params
        base = (spec.params - keep) * weight_bits_per_param(nf4_format) / 8 + keep * keep_bytes
    elif int8_base:
        base = int8_base_bytes(spec, base_bytes_per_param)
    else:
        base = (spec.params - other_ranks_experts) * base_bytes_per_param / t
    gathered = 0.0
    # FSDP MixedPrecision / DeepSpeed gather the compute dtype: 2 bytes unless training in fp32.
    compute_bytes = 4.0 if precision == "fp32" else 2.0
    deepspeed_zero3 = sharding_name == "zero3" and kind == "lora" and not int8_base and not fp32_base
    adapters = trainable * per_trainable
    if stage in ("zero1", "zero2") and dp > 1 or off == "optimizer":
        # ZeRO-1/2 partition the adapters' master weights and optimizer states (ZeRO-2 their gradients too) over
        # the data-parallel GPUs, and ZeRO-Offload keeps them in host memory, as for full training.
        # The routed experts' adapters shard over the expert-data-parallel GPUs (gpus / (ep x etp)), as the
        # experts' own states do in full training (Megatron's distributed optimizer keeps the expert parameters in
        # their own buffers over that group: gpudesk.sizing.train_expert_parallel); without expert parallelism
        # that group is the data-parallel one.
        routed = int(routed_adapters) if expert_parallel > 1 else 0
        adapters = sum(sharded_model_states(trainable - routed, adapter_state, dp, stage, off).values())
        if routed:
            adapters += sum(sharded_model_states(routed, adapter_state, max(1, g // (expert_parallel * etp)), stage,
                                                 off).values())
        if stage == "zero3":
            adapters *= dp  # divided by the GPUs with the base below
    # The modules_to_save copies' share, shown as a part of its own (the adapters' states scale with the count).
    copy_bytes = adapters * (copies // t) / trainable if trainable else 0.0
    if is_muon(optimizer) and copies and off != "optimizer":
        # Muon steps the 2-D adapter matrices with one momentum buffer; the trainable embedding / LM head copies go
        # to its AdamW group by name (``embed_tokens`` / ``lm_head``, optimizers.muon_adamw_params): one state more.
        muon_extra = copies // t * adapter_state[3] / (dp if stage in ("zero1", "zero2") and dp > 1 else 1)
        adapters += muon_extra
        copy_bytes += muon_extra
    resident_at_load = base + trainable * adapter_state[0]
    staging = load_staging_bytes(spec, weight_loading, quantised_base=kind == "qlora" or int8_base,
                                 base_bytes_per_param=base_bytes_per_param,
                                 sharded_gpus=dp if stage == "zero3" else 1) if t == 1 else 0.0
    # FSDP gathers each unit in the compute dtype; with an fp32 base it does so also on one GPU (the cast copy).
    if stage == "zero3" and (dp > 1 or fp32_base):
        base /= dp
        adapters /= dp
        copy_bytes /= dp
        resident_at_load /= dp
        blocks = 2 * (spec.params - spec.embedding_params) / max(1, spec.layers or 1) / t
        if not fsdp1_limit_all_gathers:
            blocks = unlimited_blocks_params(spec) / t  # every block unit at once (fsdp1_rate_limiter)
        gathered = blocks * (weight_bits_per_param(nf4_format) / 8 if kind == "qlora" else compute_bytes)
    zero3_gathered = z3_retained = 0.0
    if deepspeed_zero3 and (dp > 1 or off == "all"):
        # DeepSpeed ZeRO-3 gathers a frozen 16/32-bit base through the same coordinator as a trained one
        # (gpudesk.sizing.zero3_params.zero3_frozen_gathered_bytes): its live window and reuse distance, not two
        # FSDP blocks; with the parameters offloaded (``offload_param``) the gathered copies are on the GPU also
        # on one GPU, where the base is not divided.
        gathered = zero3_gathered = zero3_frozen_gathered_bytes(spec, zero3 or Zero3Settings(), compute_bytes,
                                                                recompute != "none", t)
        # A base built outside zero.Init: the frozen Linear weights are saved for the input's gradient as a trained
        # model's are (gpudesk.sizing.zero3_outside_init).
        z3_retained = retained_extra_bytes(spec, zero3 or Zero3Settings(), compute_bytes, recompute, t)
        gathered = zero3_gathered = zero3_gathered + z3_retained
    root_bytes = 0.0
    if fsdp_version == 1 and sharding == "fsdp" and g > 1:
        root_bytes = (keep_bytes if kind == "qlora" else base_bytes_per_param) * spec.embedding_params
        gathered += root_bytes
    flat_grads = 0.0
    if fsdp1_mixed_flat_params:
        if stage != "zero3" or g < 2:
            raise SizingError("fsdp1_mixed_flat_params", _("mixed flat parameters apply to FSDP1 full sharding over 2 "
                                                         "or more GPUs (sharding fsdp)."))
        # Sharded flat gradients at the storage size of the base, and two unsharded block gradients in flight.
        flat_grads = base + 2 * gathered / 2
    if off == "all":
        base = 0.0
    acts, logits = activation_bytes(spec, seq, micro_batch_size, recompute=recompute,
                                    flash_attention=flash_attention, precision=precision, loss=loss,
                                    activation_offload=activation_offload, compiled=compiled,
                                    tensor_parallel=t, sequence_parallel=sequence_parallel, unfused_gelu=unfused_gelu,
                                    fused_norm=fused_norm, eager_softmax=eager_softmax,
                                    grouped_kv_attention=grouped_kv_attention,
                                    loss_vocab_chunk=loss_vocab_chunk)
    if nonreentrant_checkpoint and recompute != "full":
        raise SizingError("nonreentrant_checkpoint", _("non-reentrant checkpointing is a way of recomputing whole "
                                                       "layers: it needs activation recompute full."))
    ctx_inputs = 0.0
    bnb_keeps_inputs = (legacy_bnb_matmul and kind == "qlora") or int8_base
    if spec.is_transformer and recompute in ("none", "full") and precision_family(precision) != "fp32":
        names = resolve_targets(targets, spec)
        dims = spec.transformer_dims
        frozen = frozen_layer_activation_bytes(spec, seq, micro_batch_size, names, lora_dropout=lora_dropout,
                                               flash_attention=flash_attention, legacy_bnb_matmul=bnb_keeps_inputs,
                                               lora_kernels=lora_kernels)
        trained = activation_bytes_per_layer(seq, micro_batch_size, dims.hidden_size,
                                             dims.num_attention_heads, spec.ffn_size, gated_mlp=spec.gated,
                                             flash_attention=flash_attention,
                                             kv_width=(spec.kv_heads_resolved * spec.head_dim_resolved
                                                       if grouped_kv_attention else None))
        counted = (min(2, dims.layers) if activation_offload else dims.layers) if recompute == "none" else 1
        acts = max(0.0, acts + (frozen - trained) * counted / t)
        if nonreentrant_checkpoint and bnb_keeps_inputs:
            # Every layer's quantised Linears keep their inputs on ctx (gpudesk.sizing.ctx_kept_inputs); the
            # recomputed layer's copies, counted in ``frozen`` above, are those same forward copies.
            plain = frozen_layer_activation_bytes(spec, seq, micro_batch_size, names,
                                                  lora_dropout=lora_dropout, flash_attention=flash_attention,
                                                  lora_kernels=lora_kernels)
            per_layer = ctx_kept_input_bytes_per_layer(spec, seq, micro_batch_size, names,
                                                       lora_dropout=lora_dropout, lora_kernels=lora_kernels)
            ctx_inputs = max(0.0, dims.layers * per_layer - (frozen - plain)) / t
            acts += ctx_inputs
    amp_casts = 0.0
    # Under ZeRO-3/FSDP the base is gathered already in the 16-bit compute dtype (``gathered`` above): no casts.
    if (kind == "lora" and not int8_base and precision in AUTOCAST_OVER_FP32 and spec.is_transformer and spec.layers
            and not (stage == "zero3" and dp > 1)):
        counted = (min(2, spec.layers) if activation_offload else spec.layers) if recompute == "none" else 1
        amp_casts = autocast_frozen_weight_cast_bytes(spec, counted, t)
        acts += amp_casts
    if fp32_norms and spec.is_transformer:
        acts += fp32_residual_extra_bytes(spec, seq, micro_batch_size, recompute, activation_offload)
    # K and V of an eval pass: fp32 when fp32 norms feed 4-bit Linears, which return their input's dtype
    # (gpudesk.sizing.train_eval_pass).
    eval_kv_width = 4 if fp32_norms and kind == "qlora" else 2
    fp32_head = kbit_fp32_upcast and not kbit_embeddings_bf16 and loss in ("standard-16bit", "inplace-16bit", "sum-16bit")
    if fp32_head:
        logits *= FP32_HEAD_LOGITS_FACTOR
    parts: dict[str, float] = {"weights": base, "lora_adapters": adapters - copy_bytes, "activations": acts,
                               "logits": logits,
                               "gathered_layers": gathered, "gradients": flat_grads}
    if copy_bytes:
        parts["modules_to_save_copies"] = copy_bytes
    assumptions = [
        (_("{trainable:,} trainable parameters (rank {rank}, {targets})").format(
            trainable=total_trainable, rank=rank, targets=", ".join(resolve_targets(targets, spec))),
         "Hu et al. 2021, LoRA (arXiv 2106.09685)"),
        (_("adapters: {bytes:g} bytes per trainable parameter").format(bytes=per_trainable), optimizer_source(optimizer)),
        (_("frozen base {stage} over {gpus} GPU(s), offload {offload}").format(stage=sharding_name, gpus=g,
                                                                                  offload=offload_value_text(off)),
         "ZeRO paper section 5; PyTorch FSDP2 fully_shard"),
        (_("activations are not reduced by LoRA"), "oom.md 1.2; Korthikanti et al. 2022 Table 2"),
        loss_assumption(loss, loss_vocab_chunk, spec.vocab_size, t),
    ]
    if routed_adapters:
        assumptions.insert(1, (_("MLP targets adapt each routed expert's own layers: {routed:,} adapter parameters on "
                                 "the experts of each GPU ({local:g} of {experts} experts in each MoE layer)").format(
            routed=int(routed_adapters), local=(spec.moe_experts or 0) / expert_parallel, experts=spec.moe_experts),
            "ms-swift swift/megatron/tuners/lora.py at 710553d85 (grouped LoRA, num_gemms local experts); PEFT "
            "target-module suffix matching (peft v0.13.2 tuners_utils.py)"))
    if zero3_gathered:
        assumptions.append(gathered_assumption(zero3_gathered, zero3 or Zero3Settings(), spec.hidden_size or 0))
    if z3_retained:
        assumptions.append(outside_init_assumption(z3_retained))
    if not fsdp1_limit_all_gathers:
        assumptions.append((_("FSDP1 without its rate limiter (limit_all_gathers=False): the CPU issues the all-gathers "
                              "ahead of the GPU, so every unit is counted unsharded at once"),
                            "torch/distributed/fsdp/fully_sharded_data_parallel.py limit_all_gathers; "
                            "_runtime_utils.py _unshard (_free_event_queue); gpudesk.sizing.fsdp1_rate_limiter"))
    if t > 1:
        assumptions.append((_("tensor parallel {tp}: each rank holds 1/{tp} of the frozen base and {trainable:,} "
                              "adapter parameters; activations and logits split as in full training").format(
                                  tp=t, trainable=trainable),
                            "peft tuners/lora/tp_layer.py LoraParallelLinear; Korthikanti et al. 2022 Table 2"))
    if cp > 1:
        assumptions.append((_("context parallel {cp}: each GPU holds the activations and logits of {tokens:,} of the "
                              "{seq:,} tokens; the frozen base and the adapters do not shrink with it")
                            .format(cp=cp, tokens=seq, seq=seq_len_tokens),
                            "ms-swift swift/sequence_parallel/ulysses.py DistributedAttention; Jacobs et al. 2023, "
                            "DeepSpeed-Ulysses (arXiv 2309.14509)"))
    if kind == "qlora":
        largest = max(module_dims(spec, n)[0] * module_dims(spec, n)[1] for n in LLAMA_MODULES)
        parts["prefill_workspace"] = largest * 2
        assumptions.append((_("base in NF4 with double quantisation (4.127 bit/param), embeddings in bf16") if double_quant
                            else _("base in NF4 without double quantisation (4.5 bit/param: an fp32 absmax per 64 "
                                   "weights), embeddings in bf16"),
                            "Dettmers et al. 2023, QLoRA (arXiv 2305.14314)"))
    if int8_base:
        parts["prefill_workspace"] = int8_dequant_workspace_bytes(spec)
        assumptions.append((_("base in bitsandbytes LLM.int8 (1 byte a Linear weight and an fp32 scale a row, embeddings "
                              "and LM head 16-bit); every 8-bit Linear keeps its 16-bit input for backward and "
                              "dequantises one weight matrix at a time for the input gradient"),
                            "Dettmers et al. 2022, LLM.int8() (arXiv 2208.07339); bitsandbytes "
                            "autograd/_functions.py MatMul8bitLt"))
    if fp32_base:
        assumptions.append((_("frozen base stored in fp32 (4 bytes a parameter); {sharding} mixed precision gathers "
                              "each unit as a 16-bit copy, also on one GPU").format(sharding=sharding_name),
                            "torch/distributed/fsdp/_fully_shard/_fsdp_param.py FSDPParam.all_gather_inputs "
                            "(MixedPrecisionPolicy param_dtype)"))
    if copies and is_muon(optimizer) and off != "optimizer":
        assumptions.append((_("modules_to_save: trainable full copies of {names} ({params:,} parameters) beside the "
                              "frozen originals, {bytes:g} bytes per parameter: Muon hands them to AdamW (two states, "
                              "one more than the adapters)").format(
                                  names=", ".join(check_modules_to_save(modules_to_save)), params=copies,
                                  bytes=per_trainable + adapter_state[3]),
                            "peft utils/other.py ModulesToSaveWrapper.update (copy.deepcopy); KellerJordan/Muon "
                            "muon.py at 857d1adc (MuonWithAuxAdam)"))
    elif copies:
        assumptions.append((_("modules_to_save: trainable full copies of {names} ({params:,} parameters) beside the "
                              "frozen originals, at the adapters' bytes per parameter").format(
                                  names=", ".join(check_modules_to_save(modules_to_save)), params=copies),
                            "peft utils/other.py ModulesToSaveWrapper.update (copy.deepcopy)"))
    if root_bytes:
        assumptions.append((_("FSDP1 keeps its root unit (embeddings and LM head, {gib:.2f} GiB) unsharded from forward to "
                              "backward").format(gib=root_bytes / 2**30),
                            "torch/distributed/fsdp/_runtime_utils.py _post_forward"))
    if flat_grads:
        assumptions.append((_("FSDP1 flat parameters mix the frozen base and the adapters: gradients for the whole "
                              "base ({gib:.2f} GiB)").format(gib=flat_grads / 2**30),
                            "torchtune lora_fsdp_wrap_policy; torch.distributed.fsdp FlatParameter"))
    if kbit_fp32_upcast and kbit_embeddings_bf16:
        assumptions.append((_("norms upcast to fp32, embeddings and LM head cast back to bf16 (TRL "
                              "peft_module_casting_to_bf16): an fp32 residual stream"),
                            "peft utils/other.py prepare_model_for_kbit_training; trl trainer/utils.py; "
                            "bitsandbytes nn/modules.py Linear4bit.forward"))
    elif kbit_embeddings_bf16:
        assumptions.append((_("norms cast to fp32 by TRL peft_module_casting_to_bf16, embeddings and LM head left in "
                              "16 bits (no fp32 upcast before it): an fp32 residual stream"),
                            "trl models/utils.py peft_module_casting_to_bf16; bitsandbytes nn/modules.py "
                            "Linear4bit.forward"))
    elif kbit_fp32_upcast:
        assumptions.append((_("norms, embeddings and LM head upcast to fp32 (prepare_model_for_kbit_training): an fp32 "
                              "residual stream"), "peft utils/other.py prepare_model_for_kbit_training"))
    if fp32_head:
        assumptions.append((_("the fp32 LM head writes fp32 logits, and the loss runs on them in fp32"),
                            "peft utils/other.py prepare_model_for_kbit_training; transformers "
                            "integrations/bitsandbytes.py get_keys_to_not_convert"))
    if ctx_inputs:
        assumptions.append((_("non-reentrant checkpointing keeps each layer's quantised-Linear inputs, which bitsandbytes "
                              "stores on the autograd context, from forward to backward ({gib:.2f} GiB)").format(
                                  gib=ctx_inputs / 2**30),
                            "bitsandbytes autograd/_functions.py MatMul4Bit (< 0.43.2) / MatMul8bitLt ctx.tensors; "
                            "torch/utils/checkpoint.py saved_tensors_hooks; AnswerDotAI/fsdp_qlora README"))
    elif nonreentrant_checkpoint and not bnb_keeps_inputs:
        # Read, and nothing to add: a flag the user set is acknowledged rather than silently without effect.
        assumptions.append((_("non-reentrant checkpointing: this base keeps no Linear inputs on the autograd context "
                              "(a 16-bit base, or bitsandbytes 0.43.2 and later), so it keeps no more than reentrant "
                              "checkpointing"),
                            "torch/utils/checkpoint.py saved_tensors_hooks; bitsandbytes PR 1270 (0.43.2, "
                            "MatMul4Bit stores (None, B))"))
    if amp_casts:
        assumptions.append((_("torch.autocast over a frozen fp32 base: each frozen Linear saves the 16-bit cast of its "
                              "weight for backward ({gib:.2f} GiB)").format(gib=amp_casts / 2**30),
                            "aten/src/ATen/autocast_mode.cpp cached_cast (cache only for leaves that require grad); "
                            "tools/autograd/derivatives.yaml mm (saves mat2 for the input gradient)"))
    if recompute == "none":
        # PEFT's prepare_model_for_kbit_training defaults to use_gradient_checkpointing=True
        # (https://github.com/huggingface/peft/blob/main/src/peft/utils/other.py), and the QLoRA reference script
        # runs with --gradient_checkpointing True (https://github.com/artidoro/qlora/blob/main/qlora.py).
        assumptions.append((_("no activation recompute: every layer's activations are kept; most LoRA/QLoRA recipes "
                              "turn gradient checkpointing on (recompute full), which needs far less"),
                            "PEFT prepare_model_for_kbit_training (use_gradient_checkpointing=True); QLoRA qlora.py"))
    if spec.shape_is_guess:
        assumptions.append((_("model shape inferred from the parameter count"),
                            _("a guess; give a config.json for exact figures")))
    if deepspeed_zero3 and zero3 is not None and zero3.outside_init:
        # The engine moves the whole base to every GPU before partitioning it (gpudesk.sizing.zero3_outside_init).
        engine_start = add_engine_start_model(parts, spec.params * compute_bytes / t)
        if engine_start:
            assumptions.append(engine_start)
    eval_kv, eval_logits = eval_pass_bytes(spec, eval_batch, seq_len_tokens, eval_kv_width, eval_kv_cache, t,
                                           loss=eval_loss_mode, loss_vocab_chunk=loss_vocab_chunk)
    if eval_kv + eval_logits:
        train_transient = acts + logits + parts.get("prefill_workspace", 0.0)
        parts["eval_pass"], parts["eval_pass_cache"] = split_eval_pass(eval_kv + eval_logits, train_transient)
        assumptions.append(eval_pass_note(eval_batch, eval_kv, eval_logits, eval_kv_width))
    # The EP all-to-all's NCCL buffers (device view; the frozen experts have no optimizer, so no expert gradient or
    # grad-norm groups: gpudesk.sizing.train_expert_parallel.expert_nccl_bytes).
    nccl_extra, nccl_notes = expert_nccl_bytes(gpus=g, expert_parallel=expert_parallel,
                                               communicator_bytes=overheads.nccl_bytes_per_gpu,
                                               expert_tensor_parallel=etp, trains_experts=False)
    assumptions += add_overheads(parts, overheads.validated(), g, extra_nccl_bytes=nccl_extra,
                                 extra_nccl_notes=nccl_notes)
    # Frozen 16-bit matrices of 1-10 MiB loaded one tensor at a time leave the ends of their 20 MiB allocator
    # segments free for the whole run (gpudesk.sizing.weight_segments); flat parameters (FSDP, ZeRO-3) do not.
    if (kind == "lora" and not int8_base and weight_loading == "per-tensor" and t == 1 and expert_parallel == 1
            and stage != "zero3" and sharding_name not in ("fsdp", "fsdp-grad-op") and off != "all"):
        segment_waste = frozen_segment_waste_bytes(spec, base_bytes_per_param)
        parts["fragmentation"] = parts.get("fragmentation", 0.0) + segment_waste
        resident_at_load += segment_waste
        if segment_waste >= 2**28:  # named from 0.25 GiB
            assumptions.append((_("frozen weights of 1-10 MiB loaded one tensor at a time leave the ends of the "
                                  "allocator's 20 MiB segments free: {gib:.2f} GiB reserved, not allocated").format(
                                      gib=segment_waste / 2**30),
                                "c10/cuda/CUDACachingAllocator.cpp get_allocation_size (kLargeBuffer); "
                                "accelerate set_module_tensor_to_device"))
    if add_loading_reserve(parts, 0.0 if off == "all" else resident_at_load, staging):
        assumptions.append((_("loading ({loader}) reserves more than training: the reserved peak is the loading "
                              "peak").format(loader=weight_loading), "gpudesk.sizing.loading"))
    return MemoryEstimate(breakdown=ordered_breakdown(parts), gpus=g, assumptions=tuple(assumptions))
