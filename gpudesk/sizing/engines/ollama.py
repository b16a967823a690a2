"""Ollama's layer scheduler: how many layers it offloads and the memory it says it needs.

Source: ollama/ollama ``llm/memory.go`` ``estimateGPULayers`` and ``fs/ggml/ggml.go`` ``GraphSize`` (commit
3258a89b, the estimator behind the "offload to cuda ... layers.offload=N memory.required.full=..." log line, used
up to 0.12): every GPU first reserves ``MinimumMemory`` (457 MiB on CUDA/ROCm, 512 MiB on Metal; ``ml/device.go``)
plus one layer; layers (each ``blk.i`` tensors plus its KV ``num_ctx x num_parallel x (key_length + value_length)
x head_count_kv x bytes``; f16 2 bytes, q8_0 1, q4_0 0.5) are placed from ``blk.0`` up while ``free > overhead +
used + max(graph) + layer``, and a GPU a layer does not fit on takes no further layers (``for i := range
BlockCount`` ... ``gpusWithSpace[i%j]``, the GPU dropped from the list on the first miss; commits 000ce020 and
3241b457), so with uneven layers (DeepSeek's dense first layers before its MoE ones) the small early layers
count; the output layer (``output`` or the tied ``token_embd``, plus ``output_norm``) last. The logged
``memory.weights.total`` is ``memoryWeights``: the sum over every ``blk.i`` of its tensors plus its share of the KV
cache (``layerSize = blk.Size() + kv / BlockCount``), without the output layer and the token embedding, which
the log calls ``nonrepeating``.
Graph for the ``llama`` architecture: ``fullOffload = max(4 b (1 + 4 e + c (1 + heads)), 4 b (e + vocab))``,
``partialOffload = 4 b e + max(4 b (1 + e + max(c, e)) + e^2 x 9/16 + 4 c (b heads + e_head kv), 4 b (e + vocab) +
e vocab x 105/128)`` with ``b = min(num_ctx, num_batch)`` and ``c = num_ctx x num_parallel``; other architectures
without a special case: ``gqa x kvTotal / 6``. On Metal the partial graph equals the full one; with several GPUs
the partial one is used.

Later releases (read at tag v0.9.6, https://github.com/ollama/ollama/blob/v0.9.6/llm/memory.go and
https://github.com/ollama/ollama/blob/v0.9.6/fs/ggml/ggml.go): from v0.6.1 ``memoryWeights`` sums only the
``blk.i`` tensors and the logged "weights total" is ``memoryWeights + memoryLayerOutput`` (the output layer
included, no KV); from v0.6.3 ``GraphSize`` sizes Gemma 3's sliding-window layers (all but every sixth) with
``num_parallel x attention.sliding_window + batch`` cells, as the new engine's SWA cache holds them. Gemma 3 27B
Q4_K_M, num_ctx 4096 x 2 parallel on 0.9.6: 10 global layers x 8,192 cells + 52 local x 2,560 cells -> 1.64 GiB
(printed "kv=1.6 GiB", "total=15.4 GiB"; take0a/mcp docs/ollama.md).
"""

from __future__ import annotations

import re
from shlex import quote

from dataclasses import dataclass
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines.common import EngineFit, GpuMemory, Setting, settings_with_defaults
from gpudesk.sizing.engines.ggml_kv import kv_row_widths
from gpudesk.sizing.engines.ggml_mix import GgmlTensor
from gpudesk.sizing.shapes import ModelSpec

from gpudesk.units import GIB, MIB
SETTINGS: dict[str, Setting] = {
    "num_ctx": (4096, int, "num_ctx"),
    "num_batch": (512, int, "num_batch"),
    "num_gpu": (-1, int, "num_gpu"),
    "num_parallel": (1, int, "OLLAMA_NUM_PARALLEL"),
    "kv_cache_type": ("f16", str, "OLLAMA_KV_CACHE_TYPE"),
    "flash_attention": (False, bool, "OLLAMA_FLASH_ATTENTION"),
    "gpu_overhead": (0, int, "OLLAMA_GPU_OVERHEAD"),
}
_KV_BYTES = {"f16": 2.0, "q8_0": 1.0, "q4_0": 0.5}
#: Gemma 3's sliding-window KV estimate (fs/ggml/ggml.go GraphSize, first in v0.6.3).
SWA_SINCE = (0, 6, 3)
GEMMA3_GLOBAL_EVERY = 6
#: "weights total" without the KV cache, with the output layer (llm/memory.go, first in v0.6.1).
WEIGHTS_WITHOUT_KV_SINCE = (0, 6, 1)


@dataclass(frozen=True)
class OllamaEstimate:
    """Ollama's estimate: layers offloaded, memory it requires, its terms (as in its log line)."""

    layers_model: int
    layers_offload: int
    required_full: int
    required_partial: int
    kv_bytes: int
    weights_total: int
    weights_repeating: int
    weights_nonrepeating: int
    graph_full: int
    graph_partial: int
    allocations: tuple[int, ...]


def _release(version: str) -> tuple[int, int, int]:
    """(major, minor, patch) of a release such as ``0.9.6`` or ``v0.12``; missing parts read 0."""
    major, minor, patch = ([int(p) for p in re.findall(r"\d+", version)[:3]] + [0, 0, 0])[:3]
    return major, minor, patch


def gemma3_sliding_layers(spec: ModelSpec, architecture: str | None) -> frozenset[int]:
    """Layers Ollama (0.6.3 on) sizes with Gemma 3's sliding-window cache: every layer but each sixth
    (``(i+1) % 6 != 0``, ``gemma3GlobalCacheCount``), for the ``gemma3`` architecture only ("Gemma2 also has sliding
    window attention but we only have an optimized implementation in the Ollama engine"). Without a GGUF
    architecture, a windowed shape with that five-local-per-global layout is Gemma 3's."""
    n = int(spec.layers or 0)
    pattern = frozenset(i for i in range(n) if (i + 1) % GEMMA3_GLOBAL_EVERY)
    if architecture is not None:
        return pattern if architecture == "gemma3" and spec.sliding_window else frozenset()
    if spec.sliding_window and spec.sliding_window_layers == len(pattern) and len(pattern) < n:
        return pattern
    return frozenset()


def ollama_estimate(spec: ModelSpec, tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], free_bytes: list[int],
                    s: dict[str, Any], metal: bool = False, architecture: str = "llama", version: str = "0.12",
                    gguf_architecture: str | None = None) -> OllamaEstimate:
    """``estimateGPULayers`` for GPUs with ``free_bytes`` free each (module docstring)."""
    release = _release(version)
    n = int(spec.layers or 0)
    layer = [0] * n
    output = embd = norm = 0
    for t in tensors:
        if t.layer is not None and t.layer < n:
            layer[t.layer] += t.bytes
        elif t.name.startswith("output_norm"):
            norm += t.bytes
        elif t.name.startswith("output"):
            output += t.bytes
        elif t.name.startswith("token_embd"):
            embd += t.bytes
    kvt = str(s["kv_cache_type"]) if s["flash_attention"] else "f16"
    ctx = int(s["num_ctx"]) * int(s["num_parallel"])
    b = min(int(s["num_ctx"]), int(s["num_batch"]))
    hd = spec.head_dim_resolved
    key_len, value_len, kv_heads = kv_row_widths(spec, "per_head")
    kv_layer = int(ctx * (key_len + value_len) * kv_heads * _KV_BYTES.get(kvt, 2.0))
    kv = [kv_layer] * n
    if release >= SWA_SINCE:
        # fs/ggml/ggml.go GraphSize (v0.9.6): a sliding layer holds num_parallel x window + batch cells.
        swa_cells = int(s["num_parallel"]) * int(spec.sliding_window or 0) + b
        swa_layer = int(swa_cells * (key_len + value_len) * kv_heads * _KV_BYTES.get(kvt, 2.0))
        for i in gemma3_sliding_layers(spec, gguf_architecture):
            kv[i] = swa_layer
    e, heads, vocab = int(spec.hidden_size or 0), int(spec.num_attention_heads or 0), int(spec.vocab_size or 0)
    if architecture in ("llama", "llama4") and not spec.moe_experts:
        full = max(4 * b * (1 + 4 * e + ctx * (1 + heads)), 4 * b * (e + vocab))
        partial = 4 * b * e + max(4 * b * (1 + e + max(ctx, e)) + e * e * 9 // 16 + 4 * ctx * (b * heads + hd * kv_heads),
                                  4 * b * (e + vocab) + e * vocab * 105 // 128)
    else:
        partial = max(1, heads // max(1, kv_heads)) * sum(kv) // 6
        full = partial
    if metal:
        partial = full
    elif len(free_bytes) > 1:
        full = partial
    graph = max(full, partial)
    minimum = 512 * MIB if metal else 457 * MIB
    overhead = int(s["gpu_overhead"])
    out_layer = norm + (output or embd)
    alloc = [0] * len(free_bytes)
    usable = [i for i, f in enumerate(free_bytes) if f >= overhead + graph + minimum + 2 * (layer[0] + kv[0] if n else 0)]
    for i in usable:
        alloc[i] += minimum + (layer[0] + kv[0] if n else 0)
    count = 0
    want = int(s["num_gpu"])
    for il in range(n):
        size = layer[il] + kv[il]
        if 0 <= want <= count:
            continue
        placed = False
        while usable and not placed:
            g = usable[il % len(usable)]
            if free_bytes[g] > overhead + alloc[g] + graph + size:
                alloc[g] += size
                count += 1
                placed = True
            else:
                usable.remove(g)
    if out_layer and (want < 0 or count < want):
        for g in list(usable):
            if free_bytes[g] > overhead + alloc[g] + graph + out_layer:
                alloc[g] += out_layer
                count += 1
                break
    fully = count >= n
    graph_used = full if fully else partial
    alloc = [a + graph_used if a else 0 for a in alloc]
    weights_rep = sum(layer)
    full_need = minimum + weights_rep + out_layer + sum(kv) + full + layer[0] if n else 0
    # llm/memory.go: "weights total" is memoryWeights + memoryLayerOutput from 0.6.1 (blk tensors + output layer);
    # before, memoryWeights summed each layer with its KV share.
    weights_total = weights_rep + out_layer if release >= WEIGHTS_WITHOUT_KV_SINCE else weights_rep + sum(kv)
    return OllamaEstimate(n + 1, count, full_need, sum(alloc), sum(kv), weights_total,
                          weights_rep, out_layer, full, partial, tuple(alloc))


def command(model_ref: str, s: dict[str, Any]) -> str:
    """Server settings as environment variables of ``ollama serve``, model options as Modelfile ``PARAMETER`` lines
    (:mod:`gpudesk.sizing.engines.flags`): ``ollama serve`` in the background, then create and run the model."""
    env = []
    if s["flash_attention"]:
        env.append("OLLAMA_FLASH_ATTENTION=1")
    if s["kv_cache_type"] != "f16":
        env.append(f"OLLAMA_KV_CACHE_TYPE={s['kv_cache_type']}")
    if s["num_parallel"] != 1:
        env.append(f"OLLAMA_NUM_PARALLEL={s['num_parallel']}")
    if s["gpu_overhead"]:
        env.append(f"OLLAMA_GPU_OVERHEAD={int(s['gpu_overhead'])}")
    source = model_ref if ("/" in model_ref or not model_ref.lower().endswith(".gguf")) else "./" + model_ref
    lines = [f"FROM {source}", f"PARAMETER num_ctx {int(s['num_ctx'])}"]
    for name in ("num_gpu", "num_batch"):
        if s[name] != SETTINGS[name][0]:
            lines.append(f"PARAMETER {name} {int(s[name])}")
    name = re.sub(r"[^a-z0-9._-]+", "-", model_ref.rsplit("/", 1)[-1].lower().removesuffix(".gguf")).strip("-") or "model"
    modelfile = "\\n".join(lines) + "\\n"
    return (" ".join(env + ["ollama", "serve"]) + " & " + f"printf {quote(modelfile)} > Modelfile && "
            f"ollama create {name} -f Modelfile && ollama run {name}")


def ollama_fit(spec: ModelSpec, tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], gpu_name: str,
               gpu_total_bytes: int, given: dict[str, Any], *, devices: int = 1, metal: bool = False,
               version: str = "0.12", model_ref: str = "MODEL", concurrency: int = 1,
               gguf_architecture: str | None = None) -> EngineFit:
    """Ollama's offload decision on ``devices`` GPUs of ``gpu_total_bytes`` free each; ``gguf_architecture``: the
    file's ``general.architecture`` when a .gguf is given."""
    s = settings_with_defaults(SETTINGS, given)
    est = ollama_estimate(spec, tensors, [gpu_total_bytes] * max(1, devices), s, metal, version=version,
                          gguf_architecture=gguf_architecture)
    fits = est.layers_offload >= est.layers_model
    first = GpuMemory(float(est.allocations[0] - (est.graph_full if fits else est.graph_partial)) if est.allocations[0] else 0.0,
                      float(est.graph_full if fits else est.graph_partial), 0.0, 0.0)
    reason = "" if fits else _("only {offload} of {layers} layers fit on the GPU; the rest run on the CPU.").format(
        offload=est.layers_offload, layers=est.layers_model)
    cmd = command(model_ref, s)
    ctx = int(s["num_ctx"])
    return EngineFit("ollama", version, gpu_name, gpu_total_bytes, max(1, devices), first, ctx * int(s["num_parallel"]),
                     0, 1, ctx, max(1, concurrency), float(s["num_parallel"]), ctx, fits, reason, cmd, s,
                     assumptions=((_("Ollama's estimateGPULayers: minimum memory, one spare layer, graph, layers from "
                                     "the last down"), "llm/memory.go estimateGPULayers"),),
                     extra={"layers_offload": est.layers_offload, "layers_model": est.layers_model,
                            "memory_required_full_bytes": est.required_full, "memory_required_kv_bytes": est.kv_bytes,
                            "memory_graph_full_bytes": est.graph_full, "memory_graph_partial_bytes": est.graph_partial,
                            "memory_weights_total_bytes": est.weights_total})


__all__ = ["GIB", "SETTINGS", "OllamaEstimate", "ollama_estimate", "ollama_fit"]
