"""From a Requirement to the sizing layer's inputs: the model shape and the memory workload."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from gpudesk.catalog.catalog import Catalog
from gpudesk.i18n import _, join_sentences
from gpudesk.planner.errors import PlanInputError
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.sizing.errors import ConfigFileError, ShapeError, SizingError
from gpudesk.sizing.memory import ZERO3_SETTINGS, MemoryWorkload
from gpudesk.sizing.overheads import Overheads
from gpudesk.sizing.recompute_layers import check_recompute_layers_count
from gpudesk.sizing.train_expert_parallel import check_expert_parallel
from gpudesk.sizing.shapes import (
    ModelSpec,
    is_repo_id,
    spec_from_catalog,
    spec_from_hf_config,
    spec_from_hf_repo,
    spec_from_params,
)


#: Model answers whose problems make checking the model against the catalog pointless.
_MODEL_FIELDS = ("model.model", "model.params", "model.config_path")


def profile_problems(req: Requirement, catalog: Any = None) -> list[PlanInputError]:
    """Every problem of ``req`` (Requirement.problems), and with a catalog whether its model resolves: an unknown
    model comes first, as the most fundamental problem, with the close catalog names."""
    problems = req.problems()
    if catalog is not None and not any(p.field in _MODEL_FIELDS for p in problems):
        try:
            spec = resolve_model(req.model, catalog)
        except PlanInputError as exc:
            problems.insert(0, exc)
        else:
            layers = recompute_layers_problem(req, spec)
            if layers is not None:  # the model-aware sentence replaces the bare range check
                problems = [p for p in problems if p.field != layers.field] + [layers]
            experts = expert_model_problem(req, spec)
            if experts is not None and not any(p.field == experts.field for p in problems):
                problems.append(experts)
    layout_fields = ("model.expert_parallel", "model.tensor_parallel", "model.mode", "model.sharding",
                     "operations.max_gpus")
    if not any(p.field in layout_fields for p in problems):
        too_few = expert_count_problem(req)  # no GPU count under the limit holds the expert-parallel layout
        if too_few is not None:
            problems.append(too_few)
    return problems


def expert_model_problem(req: Requirement, spec: ModelSpec) -> PlanInputError | None:
    """Expert parallelism the model cannot take (a dense model, experts per layer not divisible by it), found
    before the search on the layout's own GPU group (gpudesk.sizing.train_expert_parallel.check_expert_parallel)."""
    m = req.model
    if not isinstance(m.expert_parallel, int) or isinstance(m.expert_parallel, bool) or not expert_parallel_acts(req):
        return None
    if not isinstance(m.tensor_parallel, int) or m.tensor_parallel < 1:
        return None
    try:
        check_expert_parallel(spec, m.expert_parallel, gpus=gpu_count_step(req),
                              expert_tensor_parallel=m.tensor_parallel)
    except SizingError as exc:
        return PlanInputError("model.expert_parallel", exc.reason)
    return None


def recompute_layers_problem(req: Requirement, spec: ModelSpec) -> PlanInputError | None:
    """``model.recompute_layers`` outside 1 to the model's layers (the plan's memory has one pipeline stage:
    memory_workload), named with the model's layer count (gpudesk.sizing.recompute_layers; qa51 D3)."""
    value = req.model.recompute_layers
    if not isinstance(value, int) or isinstance(value, bool) or not spec.layers:
        return None
    try:
        check_recompute_layers_count(value, model=spec.name, stage_layers=float(spec.layers), stages=1)
    except SizingError as exc:
        return PlanInputError("model.recompute_layers", exc.reason)
    return None


def _did_you_mean(query: str, catalog: Any) -> str:
    """"Did you mean: a, b?" with the catalog models whose id, name or Hugging Face repo is close to ``query``;
    "" when none is (difflib ratio >= 0.6, on at most a few hundred short names: bounded work)."""
    names: dict[str, str] = {}
    for m in catalog.models():
        for text in (m.id, m.name, getattr(m, "hf_repo", None)):
            if text:
                names[str(text).lower()[:200]] = m.id
    import difflib  # only for a model name that matches nothing (start-up time)

    close = difflib.get_close_matches(query.lower()[:200], list(names), n=6, cutoff=0.6)
    ids = list(dict.fromkeys(names[c] for c in close))[:3]
    if ids:
        return _("Did you mean: {names}?").format(names=", ".join(ids))
    examples = sorted({m.id for m in catalog.models()})[:6]
    if not examples:
        return ""
    return _("Nothing in the catalog is close; its models include {names}.").format(names=", ".join(examples))


#: Suffixes of fine-tuned variants on the Hugging Face Hub (instruction, chat, RLHF/DPO tuning) that keep the base
#: repo's config.json: e.g. Qwen/Qwen2.5-14B-Instruct, meta-llama/Llama-2-13b-chat-hf, google/gemma-2-9b-it.
FINE_TUNE_SUFFIX = re.compile(r"-(instruct|chat|it|sft|dpo|rlhf)(-\d{4})?(-hf)?$", re.IGNORECASE)


def base_model_shape(repo: str, catalog: Catalog | None) -> Any:
    """The catalog shape of the base model of a fine-tuned repo id (``Qwen/Qwen2.5-14B-Instruct`` ->
    ``Qwen/Qwen2.5-14B``), None when the id has no fine-tune suffix or the base is not in the catalog."""
    if catalog is None or not FINE_TUNE_SUFFIX.search(repo):
        return None
    stem = FINE_TUNE_SUFFIX.sub("", repo).lower()
    for candidate in (stem, stem + "-hf"):
        found = next((m for m in catalog.models() if (getattr(m, "hf_repo", None) or "").lower() == candidate), None)
        if found is not None:
            return found
    return None


def resolve_model(model: ModelMemory, catalog: Catalog | None = None) -> ModelSpec:
    """The ModelSpec for the requirement's model answer (catalog name, Hugging Face repo id, parameter count or
    config.json).

    Raises:
        PlanInputError: unknown or ambiguous catalog model (``model.model``), bad count (``model.params``),
            unreadable or incomplete config.json (``model.config_path``).
    """
    if model.model and is_repo_id(model.model.strip()):
        # A Hugging Face repo id: the catalog's shape of that repo, else its config.json in the local HF cache
        # (offline; never downloaded).
        repo = model.model.strip()
        shape = next((m for m in (catalog.models() if catalog is not None else [])
                      if (getattr(m, "hf_repo", None) or "").lower() == repo.lower()), None)
        if shape is not None:
            return spec_from_catalog(shape)
        base_shape = base_model_shape(repo, catalog)
        if base_shape is not None:
            base = spec_from_catalog(base_shape)
            return replace(base, name=_("{base} (shape of {repo})").format(base=base.name, repo=repo),
                           source=_("{repo} is a fine-tuned variant of {base_repo}: fine-tuning keeps the base "
                                    "model's architecture (its config.json layers, widths and vocabulary), so the "
                                    "catalog shape of {base_repo} is used; {source}").format(
                               repo=repo, base_repo=base_shape.hf_repo, source=base.source))
        try:
            return spec_from_hf_repo(repo)
        except ConfigFileError as exc:
            hint = _did_you_mean(repo, catalog) if catalog is not None else ""
            raise PlanInputError("model.model", join_sentences(exc.reason, hint)) from exc
    if model.model:
        if catalog is None:
            raise PlanInputError("model.model", _("a catalog model needs the catalog; pass open_catalog()."))
        from gpudesk.catalog import AmbiguousItemError, UnknownItemError

        try:
            return spec_from_catalog(catalog.find_model(model.model))
        except AmbiguousItemError as exc:
            names = ", ".join(getattr(m, "id", str(m)) for m in getattr(exc, "matches", [])[:8])
            raise PlanInputError("model.model", _("{model!r} matches several models ({names}); be more specific.").format(
                model=model.model, names=names)) from exc
        except UnknownItemError as exc:
            message = join_sentences(
                _("{model!r} is not in the catalog.").format(model=model.model), _did_you_mean(model.model, catalog),
                _("Give a catalog model id, a Hugging Face repo id in your local cache, a parameter count (model.params) "
                  "or a config.json (model.config_path) instead."))
            raise PlanInputError("model.model", message) from exc
    if model.config_path:
        try:
            return spec_from_hf_config(model.config_path)
        except ConfigFileError as exc:
            raise PlanInputError("model.config_path", exc.reason) from exc
    if model.params is not None:
        try:
            return spec_from_params(model.params)
        except ShapeError as exc:
            raise PlanInputError("model.params", exc.reason) from exc
    raise PlanInputError("model.model", _("give a catalog model, a parameter count or a config.json path."))


def accumulation_steps(req: Requirement, micro_batch_size: int, data_parallel: int) -> int:
    """Gradient-accumulation steps that keep the requirement's global batch at ``micro_batch_size`` per GPU over
    ``data_parallel`` replicas: ``ceil(global / (micro-batch x replicas))``; the global batch is
    ``model.global_batch_size`` or, when not given, the requested micro-batch on every replica (Megatron-LM /
    DeepSpeed ``gradient_accumulation_steps``, https://www.deepspeed.ai/docs/config-json/#batch-size-related-parameters).
    """
    m = req.model
    dp = max(1, data_parallel)
    global_batch = m.global_batch_size or m.micro_batch_size * dp
    return max(1, math.ceil(global_batch / (max(1, micro_batch_size) * dp)))


def expert_parallel_acts(req: Requirement) -> bool:
    """Whether the requirement's expert parallelism shapes the GPU layout: above 1, in full training (any sharding:
    under ZeRO-3 / FSDP the experts shard over the expert-data-parallel ranks, Megatron-FSDP) or in LoRA outside
    ZeRO-3 / FSDP (which the LoRA sizing does not model with experts split: memory_workload)."""
    m = req.model
    return m.expert_parallel > 1 and (m.mode == "train" or m.mode == "lora" and m.sharding not in ("zero3", "fsdp"))


def gpu_count_step(req: Requirement, tensor_parallel: int | None = None) -> int:
    """Every GPU count the planner tries is a multiple of this: the tensor-parallel degree, times the
    expert-parallel size where it acts (:func:`expert_parallel_acts`).

    Megatron-Core lays out ``expert_model_parallel_size x expert_tensor_parallel_size x pipeline stages`` GPUs per
    expert-data-parallel rank and needs the world size to divide into them (``parallel_state``
    ``initialize_model_parallel``: "world_size ... not divisible by expert_tensor_model_pipeline_parallel size");
    the expert-tensor-parallel size is the tensor-parallel size when unset (Megatron-LM ``arguments.py``), and the
    memory workload has one pipeline stage (:mod:`gpudesk.sizing.train_expert_parallel`)."""
    tp = max(1, tensor_parallel if tensor_parallel is not None else req.model.tensor_parallel)
    return tp * (req.model.expert_parallel if expert_parallel_acts(req) else 1)


def expert_count_problem(req: Requirement) -> PlanInputError | None:
    """The refusal when no GPU count up to ``operations.max_gpus`` holds the expert-parallel layout (None when one
    does, or when expert parallelism does not act); it names the counts that would."""
    if not expert_parallel_acts(req):
        return None
    step = gpu_count_step(req)
    if req.operations.max_gpus >= step:
        return None
    m = req.model
    counts = ", ".join(f"{step * k:,}" for k in (1, 2, 3))
    if m.tensor_parallel > 1:
        text = _("expert parallel {ep} x tensor parallel {tp} needs a multiple of {step:,} GPUs ({counts}, ...), "
                 "above the GPU-count limit of {max_gpus:,}; raise the limit to {step:,} or lower expert "
                 "parallel.").format(ep=m.expert_parallel, tp=m.tensor_parallel, step=step, counts=counts,
                                     max_gpus=req.operations.max_gpus)
    else:
        text = _("expert parallel {ep} needs a multiple of {step:,} GPUs ({counts}, ...), above the GPU-count limit "
                 "of {max_gpus:,}; raise the limit to {step:,} or lower expert parallel.").format(
                     ep=m.expert_parallel, step=step, counts=counts, max_gpus=req.operations.max_gpus)
    return PlanInputError("model.expert_parallel", text)


def memory_workload(req: Requirement, *, gpus: int = 1, sharding: str | None = None, recompute: str | None = None,
                    tensor_parallel: int | None = None, concurrent_sequences: int = 1,
                    micro_batch_size: int | None = None, gradient_accumulation_steps: int | None = None) -> MemoryWorkload:
    """The sizing MemoryWorkload for ``req`` on ``gpus`` GPUs; ``auto`` choices become ddp / no recompute
    unless given here; ``micro_batch_size`` replaces the requirement's (the planner's gradient-accumulation search).

    The gradients of earlier micro-batches stay alive while later ones run forward whenever more than one
    accumulation step is needed, so the sizing layer must know it for the micro-batch actually used:
    ``gradient_accumulation_steps`` when the caller planned them, else :func:`accumulation_steps` over the
    ``gpus / (tensor_parallel x context_parallel)`` data-parallel replicas.
    """
    m, w = req.model, req.workload
    mb = micro_batch_size or m.micro_batch_size
    tp = tensor_parallel or m.tensor_parallel
    steps = gradient_accumulation_steps or accumulation_steps(
        req, mb, max(1, gpus) // max(1, tp * max(1, m.context_parallel)))
    shard = sharding or (m.sharding if m.sharding != "auto" else "ddp")
    rec = recompute or (m.recompute if m.recompute != "auto" else "none")
    # DeepSpeed's ZeRO-3 settings act where the plan runs full training under ZeRO-3 (sharding "auto" may pick another).
    zero3 = ({name: getattr(m, name) for name in (*ZERO3_SETTINGS, "zero3_defaults", "zero3_outside_init")}
             if m.mode == "train" and shard == "zero3" else {})
    # DeepSpeed ZeRO-2's reduce bucket acts where the plan runs full training under ZeRO-2.
    if m.mode == "train" and shard == "zero2":
        zero3["zero2_reduce_bucket"] = m.zero2_reduce_bucket
    return MemoryWorkload(
        **zero3,
        mode=m.mode, precision=m.precision, optimizer=m.optimizer, seq_len_tokens=m.seq_len_tokens,
        micro_batch_size=mb, gpus=gpus, sharding=shard, offload=m.offload, recompute=rec,
        flash_attention=m.flash_attention, tensor_parallel=tp,
        lora_rank=m.lora_rank, lora_targets=tuple(m.lora_targets), weight_format=m.weight_format,
        kv_precision=m.kv_precision, context_tokens=w.prompt_tokens + w.output_tokens,
        concurrent_sequences=concurrent_sequences, activation_bytes_per_sample=m.activation_bytes_per_sample,
        overheads=Overheads(), loss=m.loss,
        # The wizard always carries a chunk; it is the user's only with the loss that reads it.
        loss_vocab_chunk=m.loss_vocab_chunk if m.loss == "vocab-chunked" else None,
        optimizer_in_backward=m.optimizer_in_backward,
        activation_offload=m.activation_offload, compiled=m.compiled, sequence_parallel=m.sequence_parallel,
        sp_gathered_inputs=m.sp_gathered_inputs, context_parallel=m.context_parallel,
        gradient_accumulation=steps > 1, fsdp_version=m.fsdp_version, optimizer_impl=m.optimizer_impl,
        zero_grad_keeps_grads=m.zero_grad_keeps_grads, cuda_lazy_loading=m.cuda_lazy_loading,
        # No driver_reserved_mib: the driver's framebuffer reserve belongs to the card, and the usable capacity every
        # fit compares against (PyTorch's total, gpudesk.sizing.capacity) already leaves it out
        # (gpudesk.sizing.driver_reserved). Counting it here too made a plan tighter by the reserve (issue 27).
        cuda_major_version=m.cuda_major_version,
        kv_cache_impl=m.kv_cache_impl, mla_decode_weights=m.mla_decode_weights, kbit_fp32_upcast=m.kbit_fp32_upcast,
        kbit_embeddings_bf16=m.kbit_embeddings_bf16,
        fsdp1_mixed_flat_params=m.fsdp1_mixed_flat_params, lora_dropout=m.lora_dropout,
        legacy_bnb_matmul=m.legacy_bnb_matmul, nonreentrant_checkpoint=m.nonreentrant_checkpoint,
        lora_kernels=m.lora_kernels, weight_loading=m.weight_loading, double_quant=m.double_quant,
        longest_sample_tokens=m.longest_sample_tokens, prompt_logits=m.prompt_logits,
        fsdp1_no_sync=not m.fsdp1_sync_each_batch, fsdp2_no_sync=m.fsdp2_no_sync, tp_whole_logits=m.tp_whole_logits,
        decoder_seq_len_tokens=m.decoder_seq_len_tokens,
        tp_replicated_embedding=m.tp_replicated_embedding, ddp_bucket_view=m.ddp_bucket_view, fused_qkv_load=m.fused_qkv_load,
        fp32_grad_buffer=m.fp32_grad_buffer, main_grads_kept=m.main_grads_kept,
        unfused_gelu=m.unfused_gelu, fused_norm=m.fused_norm, eager_softmax=m.eager_softmax, fsdp_root_only=m.fsdp_root_only,
        grouped_kv_attention=m.grouped_kv_attention,
        fsdp1_limit_all_gathers=not m.fsdp1_no_rate_limiter,
        encoder_lm_head=m.encoder_lm_head,
        tp_replicated_vocab=m.tp_replicated_vocab, embeddings_on_host=m.embeddings_on_host,
        base_weights=m.base_weights, modules_to_save=tuple(m.modules_to_save or ()), no_kv_cache=m.no_kv_cache,
        bnb_fp32_compute=m.bnb_fp32_compute, prefill_kv_kept=m.prefill_kv_kept, gptq_kernel=m.gptq_kernel,
        max_input_tokens=m.max_input_tokens, decode_attention=m.decode_attention,
        load_dtype=m.load_dtype,
        prompt_tokens=w.prompt_tokens if m.mode == "inference" and w.prompt_tokens > 0 else None,
        # Partial recompute acts where the plan runs full training with recompute full (recompute "auto" may pick
        # another; gpudesk.sizing.recompute_layers).
        recompute_layers=m.recompute_layers if m.mode == "train" and rec == "full" else None,
        # Expert parallelism acts in full training under every sharding (ZeRO-3 / FSDP shard the experts over the
        # expert-data-parallel ranks, Megatron-FSDP) and in LoRA outside ZeRO-3 / FSDP (sharding "auto" may try those:
        # LoRA is then sized without it, replicating the experts; gpudesk.sizing.train_expert_parallel).
        expert_parallel=m.expert_parallel if m.mode == "train" or m.mode == "lora" and shard not in ("zero3", "fsdp")
        else 1,
        # Expert tensor parallelism acts in full training with expert parallelism (gpudesk.sizing.train_expert_parallel).
        expert_tensor_parallel=m.expert_tensor_parallel if m.mode == "train" and m.expert_parallel > 1 else None,
    )
