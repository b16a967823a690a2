"""The five questions of the method as a :class:`Requirement` (units in field names) and its validation.
TOML profiles are read and written by :mod:`gpudesk.planner.profile`.

Sections (one per question, plus TCO): ``[data]`` data scale and I/O; ``[model]`` model and memory pressure;
``[workload]`` training vs inference, QPS and deadline; ``[software]`` framework/CUDA/library lock-in and
compliance; ``[operations]`` existing servers, slots, power/cooling, growth, budget; ``[tco]`` cost assumptions
(electricity price and PUE live here). Sizes are bytes, rates bytes/s, times seconds, power watts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from gpudesk.i18n import _
from gpudesk.planner.errors import PlanInputError, PlanInputErrors
from gpudesk.planner.tco import TcoAssumptions
from gpudesk.sizing.capacity import DEFAULT_SAFE_FREE_FRACTION
from gpudesk.sizing.zero3_params import DEFAULT_MAX_LIVE_PARAMETERS, DEFAULT_MAX_REUSE_DISTANCE, ZERO3_DEFAULTS
from gpudesk.sizing.decode_attention import DECODE_ATTENTIONS
from gpudesk.sizing.eager_softmax import EAGER_SOFTMAX
from gpudesk.sizing.fsdp2_no_sync import FSDP2_NO_SYNC
from gpudesk.sizing.load_cast import LOAD_DTYPES
from gpudesk.sizing.gptq_scratch import GPTQ_KERNELS
from gpudesk.sizing.memory import MODES, ZERO3_SETTINGS
from gpudesk.sizing.activations import DEFAULT_VOCAB_CHUNK_COLUMNS, LOSS_MODES
from gpudesk.sizing.activations_lora import LORA_KERNELS
from gpudesk.sizing.memory_train import OFFLOAD_MODES, SHARDING_MODES
from gpudesk.sizing.error_band import FRAMEWORKS
from gpudesk.sizing.memory_inference import KV_CACHE_IMPLS, MLA_DECODE_WEIGHTS, PROMPT_LOGITS
from gpudesk.sizing.loading import WEIGHT_LOADERS
from gpudesk.sizing.lora_base import LORA_BASE_WEIGHTS, MODULES_TO_SAVE
from gpudesk.sizing.optimizers import OPTIMIZER_IMPLS, OPTIMIZER_NAMES, PARAM_PRECISIONS
from gpudesk.sizing.overheads import CUDA_MAJOR_VERSIONS
from gpudesk.sizing.speed_train import RECOMPUTE_MODULES

MODALITIES = ("text", "image", "image-text", "video", "3d-volume", "audio", "tabular")
DECODE_PATHS = ("cpu", "gpu")
PRECISIONS = PARAM_PRECISIONS
RECOMPUTE_CHOICES = ("auto", "none", "selective", "full")
#: Where the GPUs are bought (operations.market); catalog ``gpu_markets`` names the SKUs made for one market.
MARKETS = ("global", "china")


@dataclass
class DataIO:
    """Question 1: data scale and I/O bottleneck.

    dataset_bytes: total size on storage. sample_count: samples (pairs, images, volumes, sequences).
    sample_bytes: average bytes read per sample. modality: one of MODALITIES. epochs: passes over the data.
    storage_read_bytes_per_s: what the storage delivers (None: not known). decode_path: ``cpu`` or ``gpu``
    (DALI/nvJPEG). decode_bytes_per_s: measured decoder throughput (None: the default for the path).
    """

    dataset_bytes: int | None = None
    sample_count: int | None = None
    sample_bytes: int | None = None
    modality: str = "text"
    epochs: float = 1.0
    storage_read_bytes_per_s: float | None = None
    decode_path: str = "cpu"
    decode_bytes_per_s: float | None = None


@dataclass
class ModelMemory:
    """Question 2: model complexity and memory pressure.

    Give one of ``model`` (catalog id or name), ``params`` (count; shape is then guessed) or ``config_path``
    (local Hugging Face config.json). mode: train/lora/qlora/inference. ``seq_len_tokens`` is the padded or
    packed length of a batch row (the truncation cap); ``longest_sample_tokens`` the dataset's longest sample when
    batches are padded to their longest sample (the peak batch is the shorter of the two). ``sharding`` and ``recompute`` may be
    ``auto`` (the planner picks the least costly setting that fits). ``activation_bytes_per_sample`` and
    ``train_flops_per_sample`` describe non-transformer models (CNN, 3D U-Net). Recipe knobs that change memory
    most: ``loss`` (standard / chunked / fused cross-entropy ...; ``loss_vocab_chunk``, the columns of one chunk of
    the vocab-chunked loss), ``optimizer_in_backward``, ``activation_offload``,
    ``compiled`` (torch.compile or fused kernels), ``sequence_parallel`` (with tensor parallel; ``sp_gathered_inputs``
    when it is PyTorch DTensor's, whose linears save the all-gathered input) and
    ``context_parallel`` (see :mod:`gpudesk.sizing.memory_train`). Framework behaviour that changed memory between
    versions: ``fsdp_version`` (1 flat parameters, 2 fully_shard), ``optimizer_impl`` (foreach / fused / for-loop
    Adam step), ``zero_grad_keeps_grads`` (PyTorch < 2.0), ``cuda_lazy_loading`` (CUDA >= 11.7),
    ``cuda_major_version`` (the PyTorch build's CUDA: 10 has a smaller eager context),
    ``kbit_fp32_upcast`` (PEFT ``prepare_model_for_kbit_training``), ``kbit_embeddings_bf16`` (TRL casts embeddings
    and LM head back to bf16), ``fsdp1_mixed_flat_params`` (adapters and frozen
    base in one FSDP1 FlatParameter), ``lora_dropout``, ``legacy_bnb_matmul`` (bitsandbytes < 0.43.2), ``nonreentrant_checkpoint`` (whole-layer recompute by non-reentrant checkpointing: a bitsandbytes base keeps its Linear inputs), ``lora_kernels`` (peft / fused: Unsloth's fused LoRA blocks), ``weight_loading`` (how the weights reach the GPU: per-tensor /
    nf4-nearest-search / fsdp1-sync-states), ``double_quant`` (QLoRA NF4 double quantisation) and, for
    inference, ``kv_cache_impl`` (paged / dynamic / legacy-tuple / static / static-linear-mask) and
    ``mla_decode_weights`` (up-proj / absorbed / none: MLA decode matrices by vLLM era), ``prompt_logits`` (last /
    all: transformers <= 4.44 ``generate`` computes fp32 logits of every prompt position / all-16bit: every prompt
    position at the 16-bit dtype, a forward that does not upcast, e.g. OPT);
    ``fsdp1_sync_each_batch`` (a loop that reduce-scatters every micro-batch under FSDP1, instead of accumulating
    full gradients under ``no_sync()``); ``fsdp2_no_sync`` (off / fp32 / grad-dtype: an FSDP2 loop that turns gradient
    sync off on the non-final micro-batches keeps unsharded gradients, :mod:`gpudesk.sizing.fsdp2_no_sync`);
    ``decoder_seq_len_tokens`` (an encoder-decoder's decoder at its own target length, :mod:`gpudesk.sizing.decoder_length`);
    ``tp_whole_logits`` / ``tp_replicated_embedding`` (tensor-parallel training whose every rank holds the whole
    vocabulary logits, no loss parallel / the whole token embedding, :mod:`gpudesk.sizing.tp_training_vocab`);
    ``ddp_bucket_view`` (PyTorch DDP ``gradient_as_bucket_view=True`` or
    Megatron-Core's DDP: no second copy of the gradients in the all-reduce buckets); ``fp32_grad_buffer`` (the
    gradients of 16-bit parameters in an fp32 buffer, Megatron-LM ``--bf16``); ``main_grads_kept`` (fp32 main
    gradients kept between steps and a flat all-reduce copy, Megatron-LM's 2021 fp16 optimizer with local DDP);
    ``unfused_gelu`` (training whose MLP activation is the op-by-op tanh GELU of transformers' ``gelu_new``,
    eager); ``fused_norm`` (eager training whose RMSNorms run in a fused kernel, apex ``FusedRMSNorm`` /
    Megatron-LM forks: no fp32 norm copies); ``grouped_kv_attention`` (training of a GQA model whose attention
    kernel takes the keys and values un-repeated, flash-attn / transformers ``flash_attention_2``: saved at their
    own width);
    ``eager_softmax`` (training without a fused attention kernel: 16bit, fp32 as transformers' eager attention, or
    fp32-clamped as OPT's); ``encoder_lm_head`` (full training of an encoder with its MLM head over every position:
    vocabulary logits and the head's transform counted); ``fsdp_root_only`` (full
    training under FSDP with no auto-wrap policy: the whole model one unit, unsharded through forward and
    backward); ``fsdp1_no_rate_limiter`` (FSDP1 with ``limit_all_gathers=False``: every unit unsharded at once);
    ``fused_qkv_load`` (inference whose loader fuses q, k and v after loading,
    AutoAWQ ``fuse_layers=True``: both copies exist for a moment); ``prefill_kv_kept`` (inference with a static cache
    whose fused attention also returns the prompt's keys and values, kept for every layer until the prefill ends:
    AutoAWQ's fused modules before 0.1.6 inside transformers' Llama model); ``gptq_kernel`` / ``max_input_tokens``
    (inference of 4-bit GPTQ weights through AutoGPTQ's ExLlama kernels and their persistent scratch: none, exllama,
    exllama-act-order, exllamav2; the longest input of the act-order buffer); ``decode_attention`` (inference: fused,
    or the math SDPA backend of an eager gpt-fast / torchao decode, math-16bit before PyTorch 2.5, math-fp32 from it); ``load_dtype`` (inference: weight-format, or fp32 for
    16-bit weights loaded as fp32 onto the GPU and cast there); ``tp_replicated_vocab`` (inference tensor
    parallelism that keeps the embedding and LM head whole on every GPU, lit-gpt ``generate/tp.py``); ``embeddings_on_host``
    (inference that keeps the input embedding table in host memory, ExLlama); ``base_weights`` (LoRA over a
    bitsandbytes LLM.int8 base: ``int8``); ``modules_to_save`` (PEFT trainable full copies of ``embed_tokens`` /
    ``lm_head`` / ``norms``, every norm layer's gain); ``no_kv_cache`` (inference that generates without a KV cache, ``use_cache=False``);
    ``bnb_fp32_compute`` (inference of bitsandbytes 4-bit weights whose layers compute in fp32,
    ``BitsAndBytesConfig`` without a compute dtype);
    ``zero3_max_reuse_distance``, ``zero3_max_live_parameters``, ``zero3_prefetch_bucket``,
    ``zero3_persistence_threshold``, ``zero3_reduce_bucket`` (DeepSpeed ZeRO-3 settings in elements, None: filled
    as ``zero3_defaults`` says: ``hf-auto``, the Hugging Face ``"auto"`` fill from the hidden size, or
    ``deepspeed``, DeepSpeed's own defaults for a config that leaves them out; full training under ZeRO-3 only);
    ``zero2_reduce_bucket`` (DeepSpeed ZeRO-2's ``reduce_bucket_size`` in elements, full training under ZeRO-2;
    None: DeepSpeed's default 5e8);
    ``recompute_layers`` (with ``recompute`` full in full training: the layers of each pipeline stage that are
    recomputed, the others keeping every activation; Megatron-LM ``--recompute-method block
    --recompute-num-layers``; None: all, :mod:`gpudesk.sizing.recompute_layers`);
    ``expert_parallel`` (full training or LoRA over a 16/32-bit base of an MoE model: the GPUs of each pipeline
    stage its routed experts are spread over, each holding ``experts / expert_parallel`` whole experts, their
    optimizer states sharded over the GPUs that hold the same experts; Megatron-Core
    ``--expert-model-parallel-size``; 1: none, :mod:`gpudesk.sizing.train_expert_parallel`);
    ``expert_tensor_parallel`` (full training and LoRA with ``expert_parallel``: the GPUs each routed expert's matrices split
    over, Megatron-LM ``--expert-tensor-parallel-size``; none: the tensor-parallel size);
    ``zero3_outside_init`` (full training under ZeRO-3 of a model built outside ``deepspeed.zero.Init``, e.g.
    ``from_pretrained`` before ``TrainingArguments``: the whole model on every GPU at the engine's start, and every
    gathered Linear weight kept to its backward, :mod:`gpudesk.sizing.zero3_outside_init`); ``framework``
    only chooses which published cases give the estimate's expected error band. Training-speed inputs of
    Megatron-style runs: ``mtp_layers`` (multi-token-prediction depths trained with the model, Megatron-Core
    ``--mtp-num-layers``) and ``recompute_modules`` (what selective recompute redoes, Megatron-Core
    ``--recompute-modules``: core_attn, moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts; empty: the
    framework's default set) and ``moe_permute_fusion`` (the MoE token permutation runs in fused kernels,
    Megatron-Core ``--moe-permute-fusion``; None: the framework's default).
    """

    model: str | None = None
    params: int | None = None
    config_path: str | None = None
    mode: str = "train"
    precision: str = "bf16"
    optimizer: str = "adam-18"
    seq_len_tokens: int = 2048
    longest_sample_tokens: int | None = None
    decoder_seq_len_tokens: int | None = None
    micro_batch_size: int = 1
    global_batch_size: int | None = None
    recompute: str = "auto"
    flash_attention: bool = True
    sharding: str = "auto"
    offload: str = "none"
    tensor_parallel: int = 1
    lora_rank: int = 16
    lora_targets: list[str] = field(default_factory=lambda: ["all-linear"])
    weight_format: str = "checkpoint"
    kv_precision: str = "bf16"
    activation_bytes_per_sample: int | None = None
    train_flops_per_sample: float | None = None
    loss: str = "standard"
    loss_vocab_chunk: int = DEFAULT_VOCAB_CHUNK_COLUMNS
    optimizer_in_backward: bool = False
    activation_offload: bool = False
    compiled: bool = False
    sequence_parallel: bool = False
    sp_gathered_inputs: bool = False
    context_parallel: int = 1
    fsdp_version: int = 2
    optimizer_impl: str = "foreach"
    zero_grad_keeps_grads: bool = False
    cuda_lazy_loading: bool = True
    cuda_major_version: int = 12
    kv_cache_impl: str = "paged"
    mla_decode_weights: str = "up-proj"
    kbit_fp32_upcast: bool = False
    kbit_embeddings_bf16: bool = False
    fsdp1_mixed_flat_params: bool = False
    lora_dropout: float = 0.0
    legacy_bnb_matmul: bool = False
    nonreentrant_checkpoint: bool = False
    lora_kernels: str = "peft"
    weight_loading: str = "per-tensor"
    double_quant: bool = True
    prompt_logits: str = "last"
    fsdp1_sync_each_batch: bool = False
    fsdp2_no_sync: str = "off"
    tp_whole_logits: bool = False
    tp_replicated_embedding: bool = False
    ddp_bucket_view: bool = False
    fp32_grad_buffer: bool = False
    main_grads_kept: bool = False
    unfused_gelu: bool = False
    fused_norm: bool = False
    grouped_kv_attention: bool = False
    eager_softmax: str = "16bit"
    encoder_lm_head: bool = False
    fsdp_root_only: bool = False
    fsdp1_no_rate_limiter: bool = False
    fused_qkv_load: bool = False
    prefill_kv_kept: bool = False
    gptq_kernel: str = "none"
    max_input_tokens: int = 2048
    decode_attention: str = "fused"
    load_dtype: str = "weight-format"
    tp_replicated_vocab: bool = False
    embeddings_on_host: bool = False
    base_weights: str = "precision"
    modules_to_save: list[str] = field(default_factory=list)
    no_kv_cache: bool = False
    bnb_fp32_compute: bool = False
    zero3_max_reuse_distance: int = DEFAULT_MAX_REUSE_DISTANCE
    zero3_max_live_parameters: int = DEFAULT_MAX_LIVE_PARAMETERS
    zero3_prefetch_bucket: int | None = None
    zero3_persistence_threshold: int | None = None
    zero3_reduce_bucket: int | None = None
    zero3_defaults: str = "hf-auto"
    zero3_outside_init: bool = False
    zero2_reduce_bucket: int | None = None
    recompute_layers: int | None = None
    expert_parallel: int = 1
    expert_tensor_parallel: int | None = None
    framework: str | None = None
    mtp_layers: int = 0
    recompute_modules: list[str] = field(default_factory=list)
    moe_permute_fusion: bool | None = None


@dataclass
class WorkloadMix:
    """Question 3: training vs inference and the QPS target.

    training_share: share of GPU time spent training (0-1). deadline_s: time to result wanted (training).
    tokens_to_train: overrides sample_count x seq_len x epochs. target_qps, prompt_tokens, output_tokens:
    inference load (output_tokens 0 for classifiers). max_concurrent_sequences: batching cap per GPU.
    ttft_target_s, tpot_target_s: latency targets of a service (time to first token, time per output token),
    None when only the QPS matters.
    """

    training_share: float = 1.0
    deadline_s: float | None = None
    tokens_to_train: float | None = None
    target_qps: float | None = None
    prompt_tokens: int = 512
    output_tokens: int = 128
    max_concurrent_sequences: int = 64
    ttft_target_s: float | None = None
    tpot_target_s: float | None = None


@dataclass
class SoftwareStack:
    """Question 4: software-stack lock-in and compliance.

    framework, framework_version (e.g. "2.0.1"), cuda_version (e.g. "12.1"), libraries ("deepspeed==0.8.3").
    require_ecc / require_vgpu / require_virtualisation / require_mig rule out cards without them; fips flags
    the FIPS 140 check (a property of OS/driver crypto modules, not the GPU).
    """

    framework: str = "pytorch"
    framework_version: str | None = None
    cuda_version: str | None = None
    libraries: list[str] = field(default_factory=list)
    require_ecc: bool = False
    require_vgpu: bool = False
    require_virtualisation: bool = False
    require_mig: bool = False
    fips: bool = False


@dataclass
class Operations:
    """Question 5: operations and growth.

    existing_server: catalog server id to reuse (None: buy). free_slots: GPU slots free in it.
    power_budget_w: power available for the new GPUs (None: no limit). cooling: ``air``/``liquid`` (None: either).
    growth_gpus_6_months: GPUs to add within six months (room is checked). budget_usd: purchase budget.
    max_gpus: largest count to consider. network_link: link id between nodes (e.g. ib-ndr).
    safe_free_fraction: share of usable memory to keep free (the safe line; 0.15-0.20).
    allow_consumer_cards: None = by workload kind (only small-model iteration, article 5.3); true/false forces.
    market: where the GPUs are bought (one of MARKETS): ``global`` keeps out SKUs made for one market only (the
    China-market export-control variants, catalog ``gpu_markets``); ``china`` may recommend them too.
    """

    existing_server: str | None = None
    free_slots: int | None = None
    power_budget_w: float | None = None
    cooling: str | None = None
    growth_gpus_6_months: int = 0
    budget_usd: float | None = None
    max_gpus: int = 64
    network_link: str = "ib-ndr"
    safe_free_fraction: float = DEFAULT_SAFE_FREE_FRACTION
    allow_consumer_cards: bool | None = None
    market: str = "global"


SECTIONS: dict[str, type] = {"data": DataIO, "model": ModelMemory, "workload": WorkloadMix,
                             "software": SoftwareStack, "operations": Operations, "tco": TcoAssumptions}


@dataclass
class Requirement:
    """Everything the planner needs: the answers to the five questions and the TCO assumptions."""

    name: str = "Untitled plan"
    notes: str = ""
    data: DataIO = field(default_factory=DataIO)
    model: ModelMemory = field(default_factory=ModelMemory)
    workload: WorkloadMix = field(default_factory=WorkloadMix)
    software: SoftwareStack = field(default_factory=SoftwareStack)
    operations: Operations = field(default_factory=Operations)
    tco: TcoAssumptions = field(default_factory=TcoAssumptions)

    def validate(self) -> Requirement:
        """Check ranges and contradictions; returns self.

        Raises:
            PlanInputError: ``field`` is ``section.name`` of the most fundamental bad value (model, then mode,
                then sizes); with several problems a :class:`PlanInputErrors` listing every one.
        """
        raise_problems(self.problems())
        return self

    def problems(self) -> list[PlanInputError]:
        """Every problem of the requirement, most fundamental first (model, mode, then sizes); [] when valid."""
        return requirement_problems(self)


def raise_problems(problems: list[PlanInputError]) -> None:
    """Raise nothing for [], the problem itself for one, a :class:`PlanInputErrors` for several."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise PlanInputErrors(problems)


def _num(field_name: str, value: Any, *, minimum: float = 0.0, strict: bool = True, maximum: float | None = None,
         integer: bool = False) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PlanInputError(field_name, _("must be a finite number, got {value!r}.").format(value=value))
    if integer and value != int(value):
        raise PlanInputError(field_name, _("must be a whole number, got {value!r}.").format(value=value))
    if value < minimum or (strict and value == minimum):
        if strict:
            raise PlanInputError(field_name, _("must be greater than {minimum:g}, got {value:g}.").format(
                minimum=minimum, value=value))
        raise PlanInputError(field_name, _("must be at least {minimum:g}, got {value:g}.").format(minimum=minimum, value=value))
    if maximum is not None and value > maximum:
        raise PlanInputError(field_name, _("{value:g} is implausibly large (limit {maximum:g}); check the units.").format(
            value=value, maximum=maximum))


def _choice(field_name: str, value: object, options: Collection[str]) -> None:
    if value not in options:
        raise PlanInputError(field_name, _("{value!r} is not one of: {options}.").format(value=value,
                                                                                          options=", ".join(options)))


def validate_requirement(req: Requirement) -> None:
    """See :meth:`Requirement.validate` (raises the problems of :func:`requirement_problems`)."""
    raise_problems(requirement_problems(req))


def requirement_problems(req: Requirement) -> list[PlanInputError]:
    """Every problem of ``req``, most fundamental first: the model, the mode and what it needs (QPS target,
    amount of data, training share), then sizes and ranges section by section."""
    d, m, w, s, o = req.data, req.model, req.workload, req.software, req.operations
    problems: list[PlanInputError] = []

    def check(fn: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except PlanInputError as exc:
            problems.append(exc)

    def number(value: object) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    # 1. The model.
    given = [k for k in ("model", "params", "config_path") if getattr(m, k) not in (None, "")]
    if not given:
        problems.append(PlanInputError("model.model", _(
            "an inference QPS target needs a model: give a catalog model, a parameter count or a config.json path.")
            if w.target_qps else _("a plan needs a model: give a catalog model, a parameter count or a config.json path.")))
    if len(given) > 1:
        words = {"model": _("a catalog model"), "params": _("a parameter count"), "config_path": _("a config.json path")}
        got = words[given[0]]
        for k in given[1:]:
            got = _("{first} and {second}").format(first=got, second=words[k])
        problems.append(PlanInputError(f"model.{given[1]}", _(
            "give only one of a catalog model, a parameter count or a config.json path; got {given}. Clear the "
            "others.").format(given=got)))
    check(_num, "model.params", m.params, maximum=100e12, integer=True)
    if m.params is not None and number(m.params) and m.params < 1_000_000:
        problems.append(PlanInputError("model.params", _('{params} parameters is not a model size; write the unit, e.g. '
                                                         '"{params}B" or "{params}M".').format(params=m.params)))
    # 2. The mode and what it needs.
    check(_choice, "model.mode", m.mode, MODES)
    if m.mode == "inference":
        if not w.target_qps:
            problems.append(PlanInputError("workload.target_qps", _("inference needs a QPS target (requests per second) to "
                                                                    "size the cards.")))
        if number(w.training_share) and w.training_share > 0.5:
            problems.append(PlanInputError("workload.training_share", _(
                "mode is inference but training_share is {share:g}; set it to 0 (or choose a training mode).").format(
                share=w.training_share)))
    elif m.mode in MODES:
        if w.training_share == 0:
            problems.append(PlanInputError("workload.training_share", _(
                "mode is {mode} but training_share is 0; set mode to inference or raise the share.").format(mode=m.mode)))
        if not (w.tokens_to_train or d.sample_count):
            problems.append(PlanInputError("data.sample_count", _("training needs the amount of data: give sample_count "
                                                                  "(or workload.tokens_to_train).")))
        if m.activation_bytes_per_sample and not m.train_flops_per_sample and not m.model and not m.config_path and not m.params:
            problems.append(PlanInputError("model.train_flops_per_sample", _("a non-transformer model needs training FLOPs "
                                                                             "per sample.")))
    # 3. Sizes and ranges.
    check(_num, "data.dataset_bytes", d.dataset_bytes, maximum=1e18, integer=True)
    check(_num, "data.sample_count", d.sample_count, maximum=1e13, integer=True)
    check(_num, "data.sample_bytes", d.sample_bytes, maximum=1e12, integer=True)
    check(_choice, "data.modality", d.modality, MODALITIES)
    check(_num, "data.epochs", d.epochs, maximum=100000)
    check(_num, "data.storage_read_bytes_per_s", d.storage_read_bytes_per_s, maximum=1e13)
    check(_choice, "data.decode_path", d.decode_path, DECODE_PATHS)
    check(_num, "data.decode_bytes_per_s", d.decode_bytes_per_s, maximum=1e13)
    check(_choice, "model.precision", m.precision, PRECISIONS)
    check(_choice, "model.optimizer", str(m.optimizer).lower(), OPTIMIZER_NAMES)
    check(_choice, "model.loss", m.loss, LOSS_MODES)
    check(_num, "model.loss_vocab_chunk", m.loss_vocab_chunk, maximum=16 * 1024 * 1024, integer=True)
    check(_choice, "model.fsdp_version", str(m.fsdp_version), ("1", "2"))
    check(_choice, "model.cuda_major_version", str(m.cuda_major_version), tuple(str(v) for v in CUDA_MAJOR_VERSIONS))
    check(_choice, "model.optimizer_impl", m.optimizer_impl, OPTIMIZER_IMPLS)
    check(_choice, "model.kv_cache_impl", m.kv_cache_impl, KV_CACHE_IMPLS)
    check(_choice, "model.mla_decode_weights", m.mla_decode_weights, MLA_DECODE_WEIGHTS)
    check(_choice, "model.prompt_logits", m.prompt_logits, PROMPT_LOGITS)
    check(_choice, "model.gptq_kernel", m.gptq_kernel, GPTQ_KERNELS)
    check(_num, "model.max_input_tokens", m.max_input_tokens, maximum=16 * 1024 * 1024, integer=True)
    check(_choice, "model.decode_attention", m.decode_attention, DECODE_ATTENTIONS)
    check(_choice, "model.load_dtype", m.load_dtype, LOAD_DTYPES)
    check(_choice, "model.eager_softmax", m.eager_softmax, EAGER_SOFTMAX)
    check(_choice, "model.fsdp2_no_sync", m.fsdp2_no_sync, FSDP2_NO_SYNC)
    check(_choice, "model.weight_loading", m.weight_loading, WEIGHT_LOADERS)
    check(_choice, "model.zero3_defaults", m.zero3_defaults, ZERO3_DEFAULTS)
    check(_choice, "model.lora_kernels", m.lora_kernels, LORA_KERNELS)
    check(_num, "model.lora_dropout", m.lora_dropout, maximum=0.99, strict=False)
    check(_choice, "model.base_weights", m.base_weights, LORA_BASE_WEIGHTS)
    for name in m.modules_to_save or []:
        check(_choice, "model.modules_to_save", name, MODULES_TO_SAVE)
    if m.framework is not None:
        check(_choice, "model.framework", m.framework, FRAMEWORKS)
    check(_num, "model.context_parallel", m.context_parallel, maximum=1024, integer=True)
    check(_num, "model.seq_len_tokens", m.seq_len_tokens, maximum=16 * 1024 * 1024, integer=True)
    if m.longest_sample_tokens is not None:
        check(_num, "model.longest_sample_tokens", m.longest_sample_tokens, maximum=16 * 1024 * 1024, integer=True)
    if m.decoder_seq_len_tokens is not None:
        check(_num, "model.decoder_seq_len_tokens", m.decoder_seq_len_tokens, maximum=16 * 1024 * 1024, integer=True)
    check(_num, "model.micro_batch_size", m.micro_batch_size, maximum=1e6, integer=True)
    check(_num, "model.global_batch_size", m.global_batch_size, maximum=1e8, integer=True)
    check(_choice, "model.recompute", m.recompute, RECOMPUTE_CHOICES)
    check(_choice, "model.sharding", m.sharding, ("auto",) + SHARDING_MODES)
    check(_choice, "model.offload", m.offload, OFFLOAD_MODES)
    check(_num, "model.tensor_parallel", m.tensor_parallel, maximum=64, integer=True)
    check(_num, "model.mtp_layers", m.mtp_layers, minimum=0, strict=False, maximum=64, integer=True)
    for module in m.recompute_modules:
        check(_choice, "model.recompute_modules", module, RECOMPUTE_MODULES)
    if m.recompute_modules and m.recompute == "full":
        problems.append(PlanInputError("model.recompute_modules", _(
            "recompute modules choose what selective recompute redoes; full recompute already redoes every layer's "
            "forward.")))
    check(_num, "model.lora_rank", m.lora_rank, maximum=65536, integer=True)
    for name in ZERO3_SETTINGS:
        check(_num, f"model.{name}", getattr(m, name), minimum=0, strict=False, maximum=1e13, integer=True)
    check(_num, "model.zero2_reduce_bucket", m.zero2_reduce_bucket, minimum=0, strict=False, maximum=1e13,
          integer=True)
    check(_num, "model.recompute_layers", m.recompute_layers, minimum=0, strict=False, maximum=100_000, integer=True)
    check(_num, "model.expert_parallel", m.expert_parallel, maximum=1024, integer=True)
    check(_num, "model.expert_tensor_parallel", m.expert_tensor_parallel, maximum=1024, integer=True)
    check(_num, "model.activation_bytes_per_sample", m.activation_bytes_per_sample, maximum=1e13, integer=True)
    check(_num, "model.train_flops_per_sample", m.train_flops_per_sample, maximum=1e21)
    check(_num, "workload.training_share", w.training_share, minimum=0, strict=False, maximum=1)
    check(_num, "workload.deadline_s", w.deadline_s, maximum=10 * 365 * 86400)
    check(_num, "workload.tokens_to_train", w.tokens_to_train, maximum=1e16)
    check(_num, "workload.target_qps", w.target_qps, maximum=1e7)
    check(_num, "workload.prompt_tokens", w.prompt_tokens, maximum=16 * 1024 * 1024, integer=True)
    check(_num, "workload.output_tokens", w.output_tokens, minimum=0, strict=False, maximum=1e6, integer=True)
    check(_num, "workload.max_concurrent_sequences", w.max_concurrent_sequences, maximum=1e5, integer=True)
    check(_num, "workload.ttft_target_s", w.ttft_target_s, maximum=3600)
    check(_num, "workload.tpot_target_s", w.tpot_target_s, maximum=60)
    if (m.global_batch_size is not None and number(m.global_batch_size) and number(m.micro_batch_size)
            and m.global_batch_size < m.micro_batch_size):
        problems.append(PlanInputError("model.global_batch_size", _(
            "{global_batch} is smaller than the micro-batch {micro_batch}.").format(global_batch=m.global_batch_size,
                                                                                  micro_batch=m.micro_batch_size)))
    check(_num, "operations.free_slots", o.free_slots, minimum=0, strict=False, maximum=64, integer=True)
    check(_num, "operations.power_budget_w", o.power_budget_w, maximum=1e8)
    if o.cooling is not None:
        check(_choice, "operations.cooling", o.cooling, ("air", "liquid"))
    check(_choice, "operations.market", o.market, MARKETS)
    check(_num, "operations.growth_gpus_6_months", o.growth_gpus_6_months, minimum=0, strict=False, maximum=1e5, integer=True)
    check(_num, "operations.budget_usd", o.budget_usd, maximum=1e11)
    check(_num, "operations.max_gpus", o.max_gpus, maximum=100000, integer=True)
    check(_num, "operations.safe_free_fraction", o.safe_free_fraction, minimum=0, strict=False, maximum=0.9)
    if o.free_slots == 0:
        problems.append(PlanInputError("operations.free_slots", _("the existing server has no free slot; free one or "
                                                                  "plan a new server.")))
    for key in ("framework_version", "cuda_version"):
        value = getattr(s, key)
        if value is not None and parse_version(value) is None:
            problems.append(PlanInputError(f"software.{key}", _("{value!r} is not a version like 12.1 or 2.0.1.").format(
                value=value)))
    check(req.tco.validate)
    return problems

def parse_version(text: str | None) -> tuple[int, ...] | None:
    """``"12.1"`` -> (12, 1); ``"2.0.1+cu118"`` -> (2, 0, 1); None or unparsable -> None."""
    if not text:
        return None
    head = str(text).strip().lstrip("vV").split("+")[0]
    parts = []
    for piece in head.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None
