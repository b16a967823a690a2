"""Sizing fixes of an inference engine's OOM, in the engine's own knobs (context size, layers offloaded, KV-cache
type, batch), with the bytes each saves when the log gives the buffer sizes.

Training fixes (micro-batch, checkpointing, ZeRO, precision: gpudesk.oom.diagnose.sizing_effects) do not apply
to a serving engine. llama.cpp buffers (https://github.com/ggml-org/llama.cpp, src/llama-model.cpp and
src/llama-kv-cache.cpp): the model buffer holds the offloaded layers (about equal per repeating layer); the KV
cache is ``n_ctx x n_layer x (k + v) bytes per token`` and so scales linearly with ``--ctx-size``; ``q8_0``
stores 32 values in 34 bytes (ggml/src/ggml-common.h, ``block_q8_0``: one fp16 scale + 32 int8) against 64
bytes in f16; the compute buffer scales with ``--ubatch-size``.
"""

from __future__ import annotations

import math
from typing import Any

from gpudesk.i18n import _
from gpudesk.oom.cause import SizingEffect
from gpudesk.oom.report import MemoryReport
from gpudesk.sizing.engines.ggml_types import kv_cache_type_bytes

GGML_ENGINES = ("llamacpp", "ollama")
SERVING_ENGINES = ("vllm", "sglang", "trtllm", "tgi")
#: Bytes of a q8_0 KV cache against f16 (34 bytes per 32 values against 64; ggml-common.h block_q8_0), from the
#: engine memory model's KV-type table (gpudesk.sizing.engines.ggml_types).
Q8_0_OVER_F16 = kv_cache_type_bytes("q8_0") / kv_cache_type_bytes("f16")


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _ggml(report: MemoryReport) -> list[SizingEffect]:
    p = report.parsed
    buffer = p.get("ggml_buffer")
    requested = _int(report.requested_bytes)
    free = _int(p.get("free_bytes"))
    kv = _int(p.get("kv_cache_bytes"))
    model = _int(p.get("model_buffer_bytes")) or (requested if buffer == "model" else None)
    layers = _int(p.get("offloaded_layers")) or _int(p.get("total_layers"))
    out: list[SizingEffect] = []
    ngl = _("Offload fewer layers (-ngl / --n-gpu-layers)")
    if model and layers:
        per_layer = model // layers
        if requested and free is not None and requested > free:
            fewer = math.ceil((requested - free) / per_layer)
            note = _("about {per_layer:,} bytes per layer ({model:,} bytes over {layers} layers); {fewer} fewer "
                     "layers cover the shortfall").format(per_layer=per_layer, model=model, layers=layers, fewer=fewer)
            out.append(SizingEffect(fix=ngl, saved_bytes=per_layer * fewer, note=note))
        else:
            out.append(SizingEffect(fix=ngl, saved_bytes=per_layer, note=_(
                "about {per_layer:,} bytes per layer kept on the CPU ({model:,} bytes over {layers} layers)").format(
                per_layer=per_layer, model=model, layers=layers)))
    else:
        out.append(SizingEffect(fix=ngl, saved_bytes=None, note=_(
            "each layer kept on the CPU saves its share of the model buffer; the log does not give the layer count "
            "(llama.cpp prints \"offloaded N/M layers to GPU\")")))
    ctx = _("Halve the context (--ctx-size / -c)")
    kv_type = _("Quantise the KV cache (--cache-type-k q8_0 --cache-type-v q8_0, needs flash attention -fa)")
    if kv:
        out.append(SizingEffect(fix=ctx, saved_bytes=kv // 2, note=_(
            "the KV cache of {kv:,} bytes scales with the context").format(kv=kv)))
        out.append(SizingEffect(fix=kv_type, saved_bytes=round(kv * (1 - Q8_0_OVER_F16)), note=_(
            "q8_0 stores 34 bytes per 32 values against 64 in f16")))
    else:
        missing = _("the log does not give the KV cache size (llama.cpp prints it when it allocates the cache)")
        out.append(SizingEffect(fix=ctx, saved_bytes=None, note=missing))
        out.append(SizingEffect(fix=kv_type, saved_bytes=None, note=missing))
    batch = _("Halve the physical batch (--ubatch-size / -ub)")
    if buffer == "compute" and requested:
        out.append(SizingEffect(fix=batch, saved_bytes=requested // 2, note=_(
            "the compute buffer of {requested:,} bytes scales with the micro-batch").format(requested=requested)))
    else:
        out.append(SizingEffect(fix=batch, saved_bytes=None, note=_(
            "shrinks the compute buffer only; this allocation is the {buffer} buffer").format(
            buffer=buffer or _("unknown"))))
    return out


def _serving(report: MemoryReport) -> list[SizingEffect]:
    kv = _int(report.parsed.get("kv_cache_bytes"))
    note = _("the saving depends on the KV cache size, which the log does not give")
    fixes = [
        (_("Shorter context (--max-model-len / --context-length)"), kv // 2 if kv else None,
         _("half the context halves each sequence's KV cache")),
        (_("FP8 KV cache (--kv-cache-dtype fp8)"), kv // 2 if kv else None,
         _("one byte per value against two in bf16/fp16")),
        (_("Fewer concurrent sequences (--max-num-seqs / --max-running-requests)"), None,
         _("lowers the activation and KV peak of a batch")),
    ]
    return [SizingEffect(fix=f, saved_bytes=s, note=n if s is not None else f"{n}; {note}") for f, s, n in fixes]


def engine_sizing_effects(report: MemoryReport) -> list[SizingEffect] | None:
    """The engine's sizing fixes for ``report`` (best first), or None when the OOM is not from an inference
    engine (the training fixes then apply)."""
    if report.engine in GGML_ENGINES:
        effects = _ggml(report)
    elif report.engine in SERVING_ENGINES:
        effects = _serving(report)
    else:
        return None
    return sorted(effects, key=lambda e: -(e.saved_bytes or -1))
