"""llama.cpp's buffers per device: model weights by tensor type, KV cache by cache type, compute buffer.

Sources (ggml-org/llama.cpp):
- Layer placement (``src/llama-model.cpp`` ``load_tensors``): with ``-ngl N`` the last ``N`` repeating layers go
  to the GPU(s) (``i_gpu_start = max(n_layer + 1 - N, 0)`` counting the output layer as layer ``n_layer``); the
  output layer is offloaded only when ``N > n_layer``; the token embedding stays in host memory ("CPU_Mapped" /
  "CPU buffer size"). A model with tied embeddings has no ``output.weight``: llama.cpp loads ``token_embd`` a second
  time as the output (``TENSOR_DUPLICATED``) on the output layer's device (Llama 3.2 3B Q4_K_M on Metal: 308.23 MiB
  on the CPU and the same 308 MiB again inside the 1918.35 MiB GPU buffer). With several GPUs the offloaded layers are split by ``--tensor-split`` (default: in
  proportion to each device's free memory), each device taking a contiguous run.
- Model buffer: the sum of each tensor's bytes (``ggml_nbytes``: whole blocks of its GGML type). On Metal, whose
  device wraps host memory (``buffer_from_host_ptr``), a memory-mapped file (the default; ``--no-mmap`` turns it
  off) becomes the GPU buffer as the byte range from the first to the last of the device's tensors in the file
  (``llama_model_loader::get_mapping_range``, ``src/llama-model-loader.cpp``), so tensors stored between them count
  too. A file ``llama-quantize`` wrote (any tensor of a type the converter cannot write: ``convert_hf_to_gguf.py``
  writes only f32, f16, bf16, q8_0, tq1_0, tq2_0) lists its tensors in ``weights_map`` order, a ``std::map`` whose
  ``weight_name_comparer`` puts the names outside the blocks first, alphabetically (``output.weight``,
  ``output_norm.*``, ``token_embd.weight``), then the blocks by index (``src/llama-quant.cpp``
  ``llama_model_quantize_impl``; ggml-org/llama.cpp PR #9935, commit ab3d71f9, build b3999): with the output layer
  offloaded, the host's token embedding lies inside the GPU range (Pythia 1.4B Q3_K_M on an M4, build b4754:
  "Metal_Mapped model buffer size = 724.28 MiB" = every tensor of the file, "CPU_Mapped ... 42.22 MiB" = the
  embedding). Converted files keep the checkpoint's order, which the model's config does not give: their range is
  taken as the device's tensors alone (Pythia 1.4B F16 from the checkpoint's ``pytorch_model.bin``, build b4164:
  2502.97 MiB, the embedding outside). The build of the file is taken as the engine's build.
- KV cache (``src/llama-kv-cache.cpp``): per layer ``ggml_row_size(type_k, n_embd_k_gqa) x kv_size`` for K and the
  same with ``type_v`` for V, on the device of its layer (``--no-kv-offload`` keeps it on the host); ``kv_size`` is
  ``n_ctx`` padded to 256 cells with flash attention and to 32 without (``llama_kv_cache_get_padding``). Quantised V needs flash attention (``-fa``).
  In models that interleave sliding-window and global layers (Gemma 2/3, Cohere2, Llama 4: ``llama_kv_cache_iswa``)
  the window layers keep ``min(n_ctx, window + n_ubatch)`` cells unless ``--swa-full``; a window on every layer
  (Mistral 7B v0.1) is ignored by the llama architecture, which caches every token.
- Compute buffers (``ggml_backend_sched_reserve`` over the worst-case graph of ``n_ubatch`` tokens and the whole
  cache): simulated, the architecture's graph (:mod:`gpudesk.sizing.engines.ggml_graph`) scheduled onto the GPU and
  the CPU and placed by ggml's allocator (:mod:`gpudesk.sizing.engines.ggml_alloc`): the peak of live
  intermediate tensors per backend. With every layer on the GPU that is the f32 scores ``KQ`` with the tensors
  live around them, or with flash attention the logits; with layers on the host, GPU ops on host weights copy the
  weight into the GPU's compute buffer (the output matrix next to the logits). Several GPUs: each gets the
  single-GPU figure (pipeline-parallel copies are not simulated); models with latent attention (MLA) are
  simulated as ordinary attention.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines.common import Change, EngineFit, GpuMemory, Setting, settings_with_defaults
from gpudesk.sizing.engines.flags import fa_takes_value, llamacpp_has_flag, llamacpp_server_binary
from gpudesk.units import GIB
from gpudesk.sizing.engines.ggml_alloc import CPU, GPU, MAX_COPIES, allocate, assign_backends
from gpudesk.sizing.engines.ggml_graph import GraphShape, build_graph
from gpudesk.sizing.engines.ggml_mix import GgmlTensor
from gpudesk.sizing.engines.ggml_types import kv_cache_type_bytes
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import ModelSpec

SETTINGS: dict[str, Setting] = {
    "n_gpu_layers": (999, int, "-ngl"),
    "n_ctx": (4096, int, "-c"),
    "n_batch": (2048, int, "-b"),
    "n_ubatch": (512, int, "-ub"),
    "cache_type_k": ("f16", str, "--cache-type-k"),
    "cache_type_v": ("f16", str, "--cache-type-v"),
    "flash_attn": (False, bool, "-fa"),
    "tensor_split": ("", str, "--tensor-split"),
    "no_kv_offload": (False, bool, "--no-kv-offload"),
    "parallel": (1, int, "-np"),
    "swa_full": (False, bool, "--swa-full"),
    "no_mmap": (False, bool, "--no-mmap"),
}
#: GGML types ``convert_hf_to_gguf.py`` writes (``--outtype`` f32, f16, bf16, q8_0, tq1_0, tq2_0); a file holding
#: any other type was written by ``llama-quantize``.
CONVERTER_TYPES = frozenset({"f32", "f16", "bf16", "q8_0", "tq1_0", "tq2_0"})
#: The first build whose ``llama-quantize`` writes tensors in ``weights_map`` order (PR #9935, ab3d71f9).
SORTED_WEIGHTS_BUILD = 3999
#: Backends whose device buffer can wrap the memory-mapped file (``caps.buffer_from_host_ptr``).
HOST_PTR_BACKENDS = frozenset({"Metal"})
KV_PADDING_FLASH = 256
KV_PADDING = 32
#: Memory a backend holds outside ggml's buffers (CUDA context, cuBLAS handles); Metal's own allocations.
BACKEND_OVERHEAD_BYTES = {"CUDA": 0.3 * GIB, "ROCm": 0.3 * GIB, "Vulkan": 0.2 * GIB, "Metal": 0.0}


@dataclass(frozen=True)
class LlamaBuffers:
    """Buffers of one device: model, KV, compute; label as llama.cpp prints it (CUDA0, Metal, CPU)."""

    label: str
    model_bytes: int
    kv_bytes: int
    compute_bytes: int
    layers: int


def _layer_bytes(tensors: list[GgmlTensor] | tuple[GgmlTensor, ...],
                 n_layer: int) -> tuple[list[int], int, int, int]:
    """(bytes per repeating layer, token embedding, output layer, tied-embedding duplicate on the GPU)."""
    per_layer = [0] * n_layer
    embd = out = 0
    tied = not any(t.name.startswith("output.") for t in tensors)
    for t in tensors:
        if t.layer is not None and t.layer < n_layer:
            per_layer[t.layer] += t.bytes
        elif t.name.startswith("token_embd"):
            embd += t.bytes
        else:
            out += t.bytes
    return per_layer, embd, out, embd if tied else 0


def mapped_range_extra_bytes(tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], backend: str, version: str,
                             out_on_gpu: bool, no_mmap: bool) -> int:
    """Host-resident bytes inside the GPU's mapped range (module docstring, "Model buffer"): the token embedding
    of a ``llama-quantize`` file (build b3999 on) whose untied output layer is on a device that wraps the mapping;
    0 otherwise (the tied case already counts the embedding once as the output's duplicate)."""
    if backend not in HOST_PTR_BACKENDS or no_mmap or not out_on_gpu:
        return 0
    if build_number(version) < SORTED_WEIGHTS_BUILD:
        return 0
    if all(t.ggml_type in CONVERTER_TYPES for t in tensors):
        return 0
    if not any(t.name.startswith("output.") for t in tensors):
        return 0
    return sum(t.bytes for t in tensors if t.name.startswith("token_embd"))


def _split(ngl_layers: int, devices: int, tensor_split: str) -> list[int]:
    """Layers per device for ``ngl_layers`` offloaded layers (``--tensor-split`` proportions, default even)."""
    if devices <= 1:
        return [ngl_layers]
    if tensor_split:
        try:
            weights = [float(x) for x in tensor_split.replace("/", ",").split(",") if x.strip()]
        except ValueError as exc:
            raise SizingError("tensor_split", _("{value!r} is not a list of proportions like 3,1.").format(
                value=tensor_split)) from exc
        weights = (weights + [0.0] * devices)[:devices]
    else:
        weights = [1.0] * devices
    total = sum(weights) or 1.0
    bounds, acc = [], 0.0
    for w in weights:
        acc += w / total
        bounds.append(acc)
    counts = [0] * devices
    for il in range(ngl_layers):
        x = il / ngl_layers
        counts[next((d for d, b in enumerate(bounds) if x < b), devices - 1)] += 1
    return counts


def kv_cells(n_ctx: int, flash_attn: bool = False) -> int:
    """KV cells llama.cpp allocates for ``n_ctx`` (padded to 256 with flash attention, else 32)."""
    pad = KV_PADDING_FLASH if flash_attn else KV_PADDING
    return -(-n_ctx // pad) * pad


def context_cells_setting(spec: ModelSpec, s: dict[str, Any]) -> dict[str, Any]:
    """``s`` with ``n_ctx`` 0 read as llama.cpp reads it: the model's training context (``-c 0``: "0 = loaded from
    model"; ``if (cparams.n_ctx == 0) cparams.n_ctx = hparams.n_ctx_train``, src/llama-context.cpp,
    https://github.com/ggml-org/llama.cpp). A model whose context length is unknown gets a clear error."""
    if int(s["n_ctx"]) > 0:
        return s
    if int(s["n_ctx"]) < 0:
        raise SizingError("n_ctx", _("n_ctx must be 0 (the model's own context) or a positive number of tokens."))
    if not spec.context_length:
        raise SizingError("n_ctx", _("n_ctx=0 takes the model's training context, which this model's shape does not "
                                     "give: pass n_ctx=N (-c N)."))
    return {**s, "n_ctx": int(spec.context_length)}


def llamacpp_buffers(spec: ModelSpec, tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], s: dict[str, Any],
                     devices: int = 1, backend: str = "CUDA", version: str = "b6000") -> tuple[list[LlamaBuffers], LlamaBuffers]:
    """(GPU buffers per device, host buffers) for ``tensors`` under settings ``s`` (module docstring)."""
    s = context_cells_setting(spec, s)
    n_layer = int(spec.layers or 0)
    ngl = max(0, int(s["n_gpu_layers"]))
    gpu_layers = min(ngl, n_layer)
    out_on_gpu = ngl > n_layer and devices > 0
    first_gpu = n_layer - gpu_layers
    per_layer, embd, out, dup = _layer_bytes(tensors, n_layer)
    cells = kv_cells(int(s["n_ctx"]), bool(s["flash_attn"]))
    width_k = spec.kv_heads_resolved * spec.head_dim_resolved
    kbytes = kv_cache_type_bytes(s["cache_type_k"])
    vbytes = kv_cache_type_bytes(s["cache_type_v"])
    if vbytes < 2 and not s["flash_attn"]:
        raise SizingError("cache_type_v", _("a quantised V cache needs flash attention (flash_attn=true, -fa)."))
    # Only interleaved sliding-window models get a smaller SWA cache (gemma2/gemma3/cohere2/llama4 iSWA); a model
    # whose every layer has the window (Mistral 7B v0.1) is cached in full by the llama architecture.
    local_layers = 0 if s["swa_full"] or not spec.sliding_window_layers else spec.local_attention_layers
    local_cells = (min(cells, kv_cells(int(spec.sliding_window or 0) + int(s["n_ubatch"]), bool(s["flash_attn"])))
                   if local_layers else cells)

    def is_local(il: int) -> bool:
        # Gemma-style layouts put the global layer last in each group; count the local ones first.
        return bool(local_layers) and (il < local_layers or local_layers >= n_layer)

    def kv_of_layer(il: int) -> int:
        return int(width_k * (local_cells if is_local(il) else cells) * (kbytes + vbytes))

    counts = _split(gpu_layers, max(1, devices), str(s["tensor_split"] or ""))
    names = [GPU if d == 0 else f"{GPU}{d}" for d in range(len(counts))]
    layer_devices: dict[int, str] = {}
    il = first_gpu
    for d, count in enumerate(counts):
        layer_devices.update({i: names[d] for i in range(il, il + count)})
        il += count
    local = frozenset(i for i in range(n_layer) if is_local(i)) if local_cells != cells else frozenset()
    compute = compute_buffers(spec, tensors, s, cells, layer_devices, names[-1] if out_on_gpu else CPU, backend,
                              version, local, local_cells)
    gpu: list[LlamaBuffers] = []
    il = first_gpu
    for d, count in enumerate(counts):
        layers = range(il, il + count)
        model = sum(per_layer[i] for i in layers)
        kv = 0 if s["no_kv_offload"] else sum(kv_of_layer(i) for i in layers)
        if out_on_gpu and d == len(counts) - 1:
            model += out + dup
            if len(counts) == 1:
                model += mapped_range_extra_bytes(tensors, backend, version, out_on_gpu, bool(s["no_mmap"]))
        label = "Metal" if backend == "Metal" else f"{backend}{d}"
        gpu.append(LlamaBuffers(label, model, kv, compute.get(names[d], 0), count))
        il += count
    host_model = embd + sum(per_layer[:first_gpu]) + (0 if out_on_gpu else out)
    host_kv = sum(kv_of_layer(i) for i in range(n_layer)) if s["no_kv_offload"] else sum(
        kv_of_layer(i) for i in range(first_gpu))
    host = LlamaBuffers("CPU", host_model, host_kv, compute[CPU], first_gpu)
    return gpu, host


#: Compute-buffer alignment per backend (``get_alignment`` of the buffer types: CUDA/HIP 128, Metal 32, CPU 32).
ALIGNMENT_BYTES = {"CUDA": 128, "ROCm": 128, "Vulkan": 128, "Metal": 32, "CPU": 32}


def build_number(version: str) -> int:
    """llama.cpp's build number of ``b4343`` (the newest modelled build for anything else)."""
    digits = version.strip().lower().lstrip("b")
    return int(digits) if digits.isdigit() else 1_000_000


def graph_shape(spec: ModelSpec) -> GraphShape:
    """The graph builder's view of ``spec``: fused QKV with a plain MLP is GPT-NeoX (layer norms, parallel
    residual), fused QKV with a gated MLP Phi-3/4, otherwise the Llama layout."""
    h = int(spec.hidden_size or 0)
    neox = spec.fused_qkv and not spec.gated
    return GraphShape(int(spec.layers or 0), h, int(spec.num_attention_heads or 0), spec.kv_heads_resolved,
                      spec.head_dim_resolved, int(spec.ffn_size or 4 * h), int(spec.vocab_size or 0),
                      fused_qkv=spec.fused_qkv, gated=spec.gated, layer_norm=neox, parallel_residual=neox,
                      n_expert=int(spec.moe_experts or 0), n_expert_used=int(spec.moe_active_experts or 0),
                      n_ff_expert=int(spec.moe_ffn_size or spec.ffn_size or 0),
                      n_shared_expert=int(spec.moe_shared_experts or 0))


def compute_buffers(spec: ModelSpec, tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], s: dict[str, Any],
                    kv_size: int, layer_devices: dict[int, str], output_device: str, backend: str,
                    version: str = "b6000", swa_layers: frozenset[int] = frozenset(),
                    swa_kv_size: int = 0) -> dict[str, int]:
    """Compute buffer bytes per backend (``gpu``, ``gpu1`` ..., ``cpu``): the reserve graph simulated through
    ggml's scheduler and allocator (module docstring). Several GPUs holding every layer and the output run as a
    pipeline (``pipeline_parallel`` in ``llama_new_context_with_model`` / ``llama_context``: CUDA and HIP, KV on
    the GPUs), which keeps ``GGML_SCHED_MAX_COPIES`` copies of every split input."""
    fa = bool(s["flash_attn"])
    n_tokens = min(int(s["n_ubatch"]), int(s["n_batch"]))
    graph = build_graph(graph_shape(spec), n_tokens, kv_size, fa, layer_devices, output_device,
                        not s["no_kv_offload"], build_number(version), {t.name: t.bytes for t in tensors},
                        (kv_cache_type_bytes(s["cache_type_k"]), kv_cache_type_bytes(s["cache_type_v"])),
                        swa_layers, swa_kv_size)
    gpus = sorted(set(layer_devices.values()) | ({output_device} - {CPU}) | {GPU})
    pipeline = (len(gpus) > 1 and output_device != CPU and len(layer_devices) == int(spec.layers or 0)
                and not s["no_kv_offload"] and backend in ("CUDA", "ROCm"))
    assign_backends(graph, True, offload_ops=backend != "Metal")
    align = {g: ALIGNMENT_BYTES.get(backend, 128) for g in gpus} | {CPU: ALIGNMENT_BYTES["CPU"]}
    return allocate(graph, align, MAX_COPIES if pipeline else 1)


def llamacpp_fit(spec: ModelSpec, tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], gpu_name: str,
                 gpu_total_bytes: int, given: dict[str, Any], *, devices: int = 1, backend: str = "CUDA",
                 version: str = "b6000", concurrency: int = 1, model_ref: str = "model.gguf", advise: bool = True) -> EngineFit:
    """llama.cpp's buffers and whether they fit on ``devices`` GPUs of ``gpu_total_bytes`` (module docstring)."""
    typed = settings_with_defaults(SETTINGS, given)
    s = context_cells_setting(spec, typed)
    gpu, host = llamacpp_buffers(spec, tensors, s, devices, backend, version)
    overhead = BACKEND_OVERHEAD_BYTES.get(backend, 0.3 * GIB)
    mems = tuple(GpuMemory(b.model_bytes, b.compute_bytes, overhead, b.kv_bytes) for b in gpu)
    worst = max(mems, key=lambda m: m.total_bytes)
    fits = all(m.total_bytes <= gpu_total_bytes for m in mems)
    n_ctx = int(s["n_ctx"])
    cells = kv_cells(n_ctx, bool(s["flash_attn"]))
    parallel = max(1, int(s["parallel"]))
    reason = "" if fits else _("{label} needs {need:.2f} GiB of {total:.2f} GiB (model {model:.2f}, KV {kv:.2f}, "
                               "compute {compute:.2f}).").format(
        label=gpu[mems.index(worst)].label, need=worst.total_bytes / GIB, total=gpu_total_bytes / GIB,
        model=worst.weights_bytes / GIB, kv=worst.kv_cache_bytes / GIB, compute=worst.activation_bytes / GIB)
    cmd = command(model_ref, typed, version)
    changes = () if fits or not advise else _changes(spec, tensors, gpu_name, gpu_total_bytes, s, devices, backend,
                                                     model_ref, version)
    return EngineFit("llamacpp", version, gpu_name, gpu_total_bytes, max(1, devices), worst, cells, cells // parallel,
                     1, n_ctx // parallel, max(1, concurrency), float(parallel), min(n_ctx, cells // max(1, concurrency)),
                     fits, reason, cmd, s, host_bytes=float(host.model_bytes + host.kv_bytes + host.compute_bytes),
                     devices=mems, changes=changes, assumptions=(
                         (_("layers offloaded from the last one down; token embedding on the host"),
                          "src/llama-model.cpp load_tensors"),
                         (_("KV cache {k} / {v} per cell, {cells} cells").format(
                             k=s["cache_type_k"], v=s["cache_type_v"], cells=cells), "src/llama-kv-cache.cpp"),
                         (_("compute buffers simulated: the reserve graph through ggml's scheduler and allocator"),
                          "ggml/src/ggml-backend.cpp ggml_backend_sched_reserve, ggml/src/ggml-alloc.c")),
                     extra={"buffers": [b.__dict__ for b in gpu] + [host.__dict__],
                            "model_size_bytes": sum(t.bytes for t in tensors)})


def command(model_ref: str, s: dict[str, Any], version: str = "b6000") -> str:
    """``llama-server -m MODEL`` (``server`` before the rename) with each setting that differs from llama.cpp's
    default; ``-fa`` as the build's parser takes it: a bare switch, or ``on``/``off`` given always where leaving it
    out means ``auto``, and left out in builds older than the flag (:mod:`gpudesk.sizing.engines.flags`)."""
    parts = [llamacpp_server_binary(version), "-m", model_ref]
    for name, (default, _kind, flag) in SETTINGS.items():
        value = s.get(name)
        if name == "flash_attn" and not llamacpp_has_flag(version, flag):
            continue  # off is the only state of a build without the flag
        if name == "flash_attn" and fa_takes_value(version):
            parts += [flag, "on" if value else "off"]
            continue
        if value is None or value == default or value is False:
            continue
        parts += [flag] if value is True else [flag, str(value)]
    if "-ngl" not in parts:
        parts += ["-ngl", str(s["n_gpu_layers"])]
    return " ".join(parts)


def _changes(spec: ModelSpec, tensors: list[GgmlTensor] | tuple[GgmlTensor, ...], gpu_name: str, total: int,
             s: dict[str, Any], devices: int, backend: str, model_ref: str, version: str = "b6000") -> tuple[Change, ...]:
    tries: list[tuple[str, dict[str, Any]]] = []
    if s["cache_type_k"] == "f16" and llamacpp_has_flag(version, "-fa"):
        tries.append((_("quantised KV cache (-fa --cache-type-k q8_0 --cache-type-v q8_0)"),
                      {"flash_attn": True, "cache_type_k": "q8_0", "cache_type_v": "q8_0"}))
    n_ctx = int(s["n_ctx"])
    for ctx in (n_ctx // 2, n_ctx // 4):
        if ctx >= 512:
            tries.append((_("smaller context (-c {ctx})").format(ctx=ctx), {"n_ctx": ctx}))
    n_layer = int(spec.layers or 0)
    start = min(int(s["n_gpu_layers"]), n_layer + 1)
    for ngl in range(start - 1, -1, -1):
        tries.append((_("keep layers on the CPU (-ngl {ngl})").format(ngl=ngl), {"n_gpu_layers": ngl}))
    out: list[Change] = []
    seen_ngl = False
    for text, change in tries:
        if "n_gpu_layers" in change and seen_ngl:
            continue
        trial = dict(s)
        trial.update(change)
        r = llamacpp_fit(spec, tensors, gpu_name, total, trial, devices=devices, backend=backend, model_ref=model_ref,
                         version=version, advise=False)
        if r.fits:
            out.append(Change(text, change, r.command))
            seen_ngl = seen_ngl or "n_gpu_layers" in change
    return tuple(out[:3])
