"""Which memory settings each mode uses: one table for the CLI, the wizard and the profile loader.

A setting a mode never reads (an optimizer for inference, a KV-cache layout for training, bitsandbytes
double quantisation for LoRA on a 16-bit base) would otherwise be dropped without a word, and the user would
believe it was counted. :func:`check_mode_settings` refuses such a setting when it is set away from its
default, naming the modes it applies to; defaults (what a profile file or the wizard carries for every field)
pass.

Where each mode reads them: full training in :func:`gpudesk.sizing.memory_train.train_memory`, LoRA/QLoRA in
:func:`gpudesk.sizing.memory_lora.lora_memory`, inference in
:func:`gpudesk.sizing.memory_inference.inference_memory` (the calls in :mod:`gpudesk.sizing.memory`).
Double quantisation and the pre-0.43.2 bitsandbytes matmul are properties of the 4-bit ``Linear4bit`` base
(bitsandbytes ``nn/modules.py``, ``autograd/_functions.py``), so they apply to QLoRA only.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING

from gpudesk.i18n import _
from gpudesk.sizing.dtypes import CHECKPOINT_WEIGHT_FORMAT
from gpudesk.sizing.errors import SizingError

if TYPE_CHECKING:
    from gpudesk.sizing.memory import MemoryWorkload

TRAINING = ("train", "lora", "qlora")
ADAPTERS = ("lora", "qlora")
FULL_TRAINING = ("train",)
INFERENCE = ("inference",)

# field of MemoryWorkload -> the modes whose formulas read it. Fields not listed apply to every mode.
SETTING_MODES: dict[str, tuple[str, ...]] = {
    **{name: TRAINING for name in (
        "optimizer", "sharding", "offload", "recompute", "loss", "loss_vocab_chunk", "activation_offload",
        # PyTorch-era and Adam-implementation facts hold for any training; with adapters they act on tensors
        # below the LoRA model's resolution (adapter gradients and states are counted as persistent).
        "zero_grad_keeps_grads", "optimizer_impl",
        "fsdp_version", "fsdp1_limit_all_gathers", "weight_loading", "sequence_parallel", "longest_sample_tokens",
        # Eager op-by-op GELU (gpudesk.sizing.eager_gelu): the trained model's own MLP, with or without adapters.
        "unfused_gelu", "fused_norm", "eager_softmax", "grouped_kv_attention",
        # The sequence split over GPUs: full training in memory_train, LoRA/QLoRA in memory_lora (same mechanism).
        "context_parallel",
    )},
    **{name: FULL_TRAINING for name in (
        "optimizer_in_backward", "sp_gathered_inputs", "fsdp1_no_sync", "fsdp2_no_sync", "tp_whole_logits", "tp_replicated_embedding", "fsdp_root_only",
        "ddp_bucket_view", "fp32_grad_buffer", "main_grads_kept", "encoder_lm_head",
        "decoder_seq_len_tokens", "zero2_reduce_bucket", "recompute_layers",
    )},
    # DeepSpeed ZeRO-3's coordinator gathers a frozen LoRA base as it gathers a trained model
    # (gpudesk.sizing.zero3_params.zero3_frozen_gathered_bytes); QLoRA's 4-bit base is not modelled through it.
    **{name: ("train", "lora") for name in (
        "zero3_max_reuse_distance", "zero3_max_live_parameters", "zero3_prefetch_bucket", "zero3_persistence_threshold",
        "zero3_reduce_bucket", "zero3_defaults", "zero3_outside_init",
    )},
    # Full training's pipeline schedules, and inference's layer split (gpudesk.sizing.layer_split).
    "pipeline_parallel": FULL_TRAINING + INFERENCE,
    **{name: ADAPTERS for name in (
        "lora_rank", "lora_targets", "lora_dropout", "lora_kernels", "kbit_fp32_upcast", "kbit_embeddings_bf16",
        "fsdp1_mixed_flat_params", "modules_to_save",
        # An evaluation pass inside the run (gpudesk.sizing.train_eval_pass), modelled for the adapters' runs.
        "eval_batch", "eval_kv_cache", "eval_loss",
    )},
    "legacy_bnb_matmul": ("qlora",),
    # LoRA/QLoRA: a bitsandbytes base (4-bit, or LLM.int8 under --base-weights int8) keeps inputs on ctx.
    "nonreentrant_checkpoint": ADAPTERS,
    "base_weights": ("lora",),
    # Expert parallelism: full training and LoRA over a 16/32-bit base (gpudesk.sizing.train_expert_parallel).
    "expert_parallel": ("train", "lora"),
    # Expert tensor parallelism other than tp: full training and LoRA with expert parallelism.
    "expert_tensor_parallel": ("train", "lora"),
    "double_quant": ("qlora",),
    **{name: INFERENCE for name in (
        "weight_format", "kv_precision", "kv_cache_impl", "paged_block_tokens", "mla_decode_weights",
        "prompt_logits", "prompt_tokens", "fused_qkv_load", "tp_replicated_vocab", "embeddings_on_host",
        "no_kv_cache",
        "bnb_fp32_compute", "prefill_kv_kept", "gptq_kernel", "max_input_tokens", "decode_attention",
        "load_dtype",
    )},
}

# ``compiled`` is not in the table: torch.compile is a real choice for a generation loop too (gpt-fast, torchao's
# llama benchmarks), which the inference model does not price, so it is accepted in every mode.

# Weight formats that only restate a 16/32-bit training precision: not a setting training ignores.
FULL_WIDTH_FORMATS = frozenset({CHECKPOINT_WEIGHT_FORMAT, "bf16", "fp16", "fp32", "tf32"})


def _is_default(name: str, value: object, default: object) -> bool:
    if name == "weight_format":
        return str(value or CHECKPOINT_WEIGHT_FORMAT).lower() in FULL_WIDTH_FORMATS
    if name == "modules_to_save":
        return not tuple(value)  # type: ignore[arg-type]
    if name == "lora_targets":
        return tuple(value) == tuple(default)  # type: ignore[arg-type]
    return value == default


def check_mode_settings(workload: MemoryWorkload) -> None:
    """Refuse a setting given away from its default for a mode that does not use it (:data:`SETTING_MODES`).

    Raises:
        SizingError: ``field`` is the setting; the reason names the modes it applies to.
    """
    defaults = {f.name: f.default for f in fields(workload) if f.name in SETTING_MODES}
    for name, modes in SETTING_MODES.items():
        if workload.mode in modes:
            continue
        if _is_default(name, getattr(workload, name), defaults[name]):
            continue
        if name == "weight_format" and workload.mode == "qlora":
            reason = _("applies to mode inference only; mode qlora already holds its frozen base in 4-bit NF4 "
                       "(bitsandbytes) and trains at the precision you give, so leave the weight format out.")
        else:
            reason = _("applies to mode {modes} only; mode {mode} does not use it, so leave it out.").format(
                modes=", ".join(modes), mode=workload.mode)
        raise SizingError(name, reason)
