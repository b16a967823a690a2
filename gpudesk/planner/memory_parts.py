"""Display names of the per-GPU memory parts (gpudesk.sizing.estimate.COMPONENT_ORDER), one wording for every screen.

The window's memory chart legend, the configuration sheet (Markdown, PDF) and the CLI's ``estimate memory`` table
all print a part through :func:`memory_part_label`, so the same part reads the same everywhere. Qt-free.
"""

from __future__ import annotations

from gpudesk.i18n import _


def memory_part_labels() -> dict[str, str]:
    """Translated display name of each memory part, keyed by its component name, in COMPONENT_ORDER order."""
    return {
        "weights": _("Weights"),
        "master_weights": _("FP32 master weights"),
        "gradients": _("Gradients"),
        "main_gradients": _("FP32 main gradients kept"),
        "ddp_gradient_buckets": _("DDP gradient buckets"),
        "optimizer_states": _("Optimizer states"),
        "optimizer_step_temporaries": _("Optimizer step temporaries"),
        "paged_optimizer_states": _("Paged optimizer states"),
        "lora_adapters": _("LoRA adapters"),
        "modules_to_save_copies": _("modules_to_save copies"),
        "activations": _("Activations"),
        "logits": _("Logits and loss"),
        "kv_cache": _("KV cache"),
        "kv_cache_workspace": _("KV cache workspace"),
        "decode_attention": _("Decode attention copies"),
        "prefill_workspace": _("Prefill workspace"),
        "prefill_kv_kept": _("Prompt keys and values kept by the model"),
        "kernel_scratch": _("Quantised kernel scratch"),
        "fused_load_copy": _("Fused q/k/v load copy"),
        "load_cast_copy": _("fp32 weights while casting"),
        "zero3_engine_start_model": _("Whole model at DeepSpeed's start"),
        "gathered_layers": _("Gathered layers"),  # ZeRO-3 and FSDP alike gather the layers they run
        "eval_pass": _("Evaluation pass (KV cache, logits)"),
        "zero_gradient_buffers": _("ZeRO-2 gradient buffers"),  # the reduce bucket and its kin (zero2_buffers)
        "unsharded_parameters": _("Unsharded parameters"),
        "unsharded_gradients": _("Unsharded gradients"),
        "cuda_context": _("CUDA context"),
        # Only ``estimate memory --driver-reserved-mib`` has this part; a plan never does (issue 27: the card's usable
        # capacity already leaves the reserve out, gpudesk.sizing.driver_reserved).
        "driver_reserved": _("Driver-reserved memory"),
        "framework_overhead": _("NCCL / runtime"),
        "fragmentation": _("Fragmentation headroom"),
        "fsdp_stream_cache": _("FSDP streams' cached blocks"),
        "zero3_stream_cache": _("ZeRO-3 streams' cached blocks"),
        "eval_pass_cache": _("Training blocks cached during evaluation"),
        "loading_reserve": _("Loading reserve"),
    }


def memory_part_label(name: str) -> str:
    """A memory part's display name; an unknown component name prints with spaces for underscores."""
    return memory_part_labels().get(name, name.replace("_", " "))
