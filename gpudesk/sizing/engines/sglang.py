"""SGLang's start-up memory: the static pool ``mem_fraction_static`` leaves, cut into KV token slots.

Source: sgl-project/sglang ``python/sglang/srt/model_executor/model_runner.py`` (``profile_max_num_token`` and
``init_memory_pool``, 0.3-0.5): after the weights load, ``rest_memory = available_gpu_memory - total_gpu_memory x
(1 - mem_fraction_static)``, where ``total_gpu_memory`` is not the device's total but ``min_per_gpu_memory``, the
memory free after torch distributed init and before the weights (``init_torch_distributed``; read in the 0.4.3.post4,
0.4.9 and 0.5.3 wheels; QwQ-32B on 4 x L4: 6.09 GiB free after 15.54 GiB of weights, 21.63 GiB free before them,
6.09 - 21.63 x 0.15 = 2.84 GiB of K and V, the KV pool the log printed, llms-in-clouds docs/sglang.md), and ``max_total_num_tokens = rest_memory // cell_size`` with ``cell_size = kv_heads_per_tp
x head_dim x num_layers x 2 x dtype_bytes`` (MLA: ``(kv_lora_rank + qk_rope_head_dim) x num_layers x dtype_bytes``),
rounded down to ``page_size``. The request pool is ``min(max(int(max_total_num_tokens / context_len x 512), 2048),
4096)`` and ``max_running_requests = min(max_total_num_tokens // 2, that pool)`` unless set
(``managers/tp_worker.py``). The logs print "KV Cache is allocated. #tokens: N" and "max_total_num_tokens=N, ...
max_running_requests=M". The part outside ``mem_fraction_static`` holds activations and CUDA graphs.
Default ``mem_fraction_static`` (``server_args.py``), per version:

- 0.3 to 0.5.2: by tensor-parallel size, 0.88 at TP 1, 0.87 at 2, 0.85 at 4, 0.81 at 8, 0.79 at 16. (Releases of
  mid-2025 also had GPU-memory buckets for H200/B200-class cards, sgl-project/sglang PRs 5604, 5893, 6718; those
  are not modelled: type ``mem_fraction_static`` for them.)
- from 0.5.3 (sgl-project/sglang PR 10975, merged 2025-09-27, "Use more general heuristics to set the default
  value of --mem-fraction-static"): ``round((gpu_mem - reserved_mem) / gpu_mem, 3)`` with ``gpu_mem`` the device
  capacity in MiB and ``reserved_mem = 512 + max(chunked_prefill_size, 2048) x 1.5 + cuda_graph_max_bs x 2 +
  tp_size x pp_size / 8 x 1024`` MiB, at least 10 GiB on cards above 60 GiB. The defaults it reads come from the
  same capacity buckets: under 20 GiB chunked_prefill_size 2048 and cuda_graph_max_bs 8; under 35 GiB 2048 and 24
  (80 from TP 4); under 60 GiB 4096 and 32 (160 from TP 4); under 160 GiB 8192 and 256 (512 from TP 4); above,
  16384 and 512.
Memory in use before the weights: the CUDA context and, with TP, what ``init_torch_distributed`` sets up
(:func:`distributed_init_bytes`; the log's "avail mem" before "Load weight begin" is about 1 GiB under the total), and
whatever other processes hold (``gpu_used_gib``: a desktop under Windows/WSL, another server), which
``get_available_gpu_memory`` (``cudaMemGetInfo``) does not see as free.

Multimodal models (a config with a ``vision_config``; SGLang's own test is its list of multimodal architectures,
``configs/model_config.py`` ``multimodal_model_archs``) load the vision tower with the weights
(:mod:`gpudesk.sizing.vision_tower`) and get a smaller static fraction, "Automatically reduce --mem-fraction-static
to X because this is a multimodal model" (:func:`multimodal_fraction_factor`):

- up to 0.4.4: ``mem_fraction_static *= 0.95`` in ``ModelRunner.__init__``, given or default (read in the
  0.4.3.post4 and 0.4.4.post2 wheels; Gemma-3-4B-it on an H200 at 0.88: 834,615 tokens, sgl-project/sglang PR 4826);
- 0.4.5 to 0.4.8: ``*= 0.90`` there (0.4.5, 0.4.6.post5, 0.4.8 wheels; from 0.4.6 only with ``--enable-multimodal``
  on, which is the default except for Gemma 3 and Llama 4, an exception not modelled);
- 0.4.9 to 0.5.2: ``*= 0.90`` in ``server_args.py``, on the default only (0.4.9 wheel);
- from 0.5.3: ``ServerArgs.adjust_mem_fraction_for_vlm``, on the default only: ``0.95 x clamp(1 - 0.1 x (layers x
  hidden^2 / (24 x 1024^2) - 1), 0.8, 1.05)`` of the vision tower (0.5.3 wheel).
"""

from __future__ import annotations

from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines.common import (
    CONTEXT_BYTES,
    Change,
    EngineFit,
    GpuMemory,
    quantized_weight_format,
    Setting,
    command_line,
    resolve_nccl_transport,
    rope_table_bytes,
    settings_with_defaults,
)
from gpudesk.sizing.engines.vllm import kv_precision
from gpudesk.sizing.memory_inference import kv_token_bytes_all_layers, resolve_weight_format, weight_bytes
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.vision_tower import VisionTower, vision_tower_bytes
from gpudesk.units import GIB, MIB

SETTINGS: dict[str, Setting] = {
    "mem_fraction_static": (None, float, "--mem-fraction-static"),
    "context_length": (None, int, "--context-length"),
    "max_running_requests": (None, int, "--max-running-requests"),
    "max_total_tokens": (None, int, "--max-total-tokens"),
    "chunked_prefill_size": (None, int, "--chunked-prefill-size"),
    "kv_cache_dtype": ("auto", str, "--kv-cache-dtype"),
    "dtype": ("auto", str, "--dtype"),
    "quantization": (None, str, "--quantization"),
    "tp_size": (1, int, "--tp-size"),
    "page_size": (1, int, "--page-size"),
    "cuda_graph_max_bs": (None, int, "--cuda-graph-max-bs"),
    "disable_cuda_graph": (False, bool, "--disable-cuda-graph"),
    # Not a flag: GiB already in use on each GPU by other processes (a desktop, another server; nvidia-smi's
    # "Memory-Usage" before launch). SGLang's base is the memory free before the weights, so it shrinks the KV pool.
    "gpu_used_gib": (0.0, float, "gpu_used_gib"),
    # Not a flag: how the tensor-parallel GPUs talk (nvlink, pcie, shm); default from the device.
    "nccl_transport": (None, str, "nccl_transport"),
}
#: Settings that describe the machine, not the command line.
ENVIRONMENT_SETTINGS = frozenset({"gpu_used_gib", "nccl_transport"})


#: server_args.py ``max_prefill_tokens`` default.
MAX_PREFILL_TOKENS = 16384


def _release(version: str) -> tuple[int, ...] | None:
    parts = []
    for p in version.strip().lower().lstrip("v").split(".")[:3]:
        digits = "".join(c for c in p if c.isdigit())
        if not digits:
            return None
        parts.append(int(digits))
    return tuple(parts) if parts else None


def capacity_defaults(gpu_total_bytes: int, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) SGLang >= 0.5.3 picks from the device capacity (module
    docstring)."""
    gib = gpu_total_bytes / GIB
    wide = tp >= 4
    if gib < 20:
        return 2048, 8
    if gib < 35:
        return 2048, 80 if wide else 24
    if gib < 60:
        return 4096, 160 if wide else 32
    if gib < 160:
        return 8192, 512 if wide else 256
    return 16384, 512


#: Device memory SGLang's ``init_torch_distributed`` takes on each rank at tensor parallelism > 1, as its log prints
#: it ("Init torch distributed ends. mem usage=X GB", the free memory before minus after, measured once the CUDA
#: context exists; SGLang's GB are GiB), by how the GPUs talk. What it holds (``python/sglang/srt/distributed/
#: parallel_state.py``, derived from vLLM's): the NCCL communicator of the world process group and the PyNccl
#: communicator of the TP group (``PyNcclCommunicator`` warms up with an all-reduce), each with its channels' buffers
#: and device structures, and the custom all-reduce's IPC buffers (NVLink, or two PCIe GPUs). NVLink (HGX
#: NVSwitch): 1.25 GiB on 8 x H100 with ``lmsysorg/sglang:v0.5.2rc2`` (Grok-2 at TP 8, "avail mem=77.43 GB" before
#: the weights, blog "Grok2 OnPrem Deployment via sglang", 2025-09-14); a later main build (sgl-project/sglang PR
#: 11716, 8 x H200, October 2025) printed 1.77-2.01 GiB, so the figure is known to about +-0.4 GiB. PCIe: 0.13 GiB
#: on 4 x L4 with SGLang 0.4.3 (custom all-reduce off: "not supported on more than two PCIe-only GPUs";
#: llms-in-clouds ``docs/sglang.md``). The single-communicator channel estimate
#: (:func:`~gpudesk.sizing.engines.common.nccl_device_bytes`: 0.43 GiB over NVLink, 0.03 GiB over PCIe) is below
#: both, since it counts neither the second communicator nor NCCL's per-channel device structures.
DISTRIBUTED_INIT_BYTES = {"nvlink": 1.25 * GIB, "pcie": 0.13 * GIB, "shm": 0.13 * GIB}


def distributed_init_bytes(tensor_parallel: int, transport: str) -> float:
    """Device memory SGLang's distributed init takes per rank (:data:`DISTRIBUTED_INIT_BYTES`); 0 at TP 1, where
    no NCCL communicator is created."""
    if tensor_parallel <= 1:
        return 0.0
    return DISTRIBUTED_INIT_BYTES.get(transport, DISTRIBUTED_INIT_BYTES["pcie"])


def default_mem_fraction_static(tp: int, version: str = "0.4", gpu_total_bytes: int = 0,
                                chunked_prefill_size: int | None = None, cuda_graph_max_bs: int | None = None) -> float:
    """server_args.py default for ``tp`` on a ``gpu_total_bytes`` device in SGLang ``version`` (module docstring)."""
    release = _release(version)
    if release is None or release < (0, 5, 3) or gpu_total_bytes <= 0:
        return 0.79 if tp >= 16 else 0.81 if tp >= 8 else 0.85 if tp >= 4 else 0.87 if tp >= 2 else 0.88
    chunk, graph_bs = capacity_defaults(gpu_total_bytes, tp)
    chunk = chunked_prefill_size if chunked_prefill_size is not None else chunk
    graph_bs = cuda_graph_max_bs if cuda_graph_max_bs is not None else graph_bs
    gpu_mem = gpu_total_bytes / MIB
    # chunked prefill off (-1): the activation term reads max_prefill_tokens (default 16384) instead
    reserved = 512 + max(chunk if chunk > 0 else MAX_PREFILL_TOKENS, 2048) * 1.5 + graph_bs * 2 + tp / 8 * 1024
    if gpu_mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((gpu_mem - reserved) / gpu_mem, 3)


def multimodal_fraction_factor(version: str, tower: VisionTower | None, given: bool) -> float:
    """What SGLang ``version`` multiplies ``mem_fraction_static`` by for a model with vision ``tower`` (module
    docstring); ``given``: the user set the fraction. 1.0 for text-only models. An unnumbered version is the
    newest."""
    if tower is None:
        return 1.0
    release = _release(version)
    if release is not None and release < (0, 4, 5):
        return 0.95
    if release is not None and release < (0, 4, 9):
        return 0.90
    if given:
        return 1.0
    if release is not None and release < (0, 5, 3):
        return 0.90
    ratio = tower.layers * tower.hidden_size ** 2 / (24 * 1024 ** 2)
    return 0.95 * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))


def sglang_fit(spec: ModelSpec, gpu_name: str, gpu_total_bytes: int, given: dict[str, Any], *,
               version: str = "0.4", weight_format: str = "checkpoint", concurrency: int = 1,
               model_ref: str | None = None, advise: bool = True, nvlink: bool = False) -> EngineFit:
    """SGLang's sizing (module docstring); ``nvlink``: the GPUs are NVLink-connected (NCCL's transport)."""
    s = settings_with_defaults(SETTINGS, given)
    transport = s["nccl_transport"] = resolve_nccl_transport(s["nccl_transport"], nvlink)
    tp = max(1, int(s["tp_size"]))
    mfs = float(s["mem_fraction_static"] or default_mem_fraction_static(
        tp, version, gpu_total_bytes, s["chunked_prefill_size"], s["cuda_graph_max_bs"]))
    mfs *= multimodal_fraction_factor(version, spec.vision_tower, s["mem_fraction_static"] is not None)
    fmt = resolve_weight_format(spec, quantized_weight_format(s["quantization"], weight_format))
    ctx = int(s["context_length"] or spec.context_length or 4096)
    weights = weight_bytes(spec, fmt) / tp + vision_tower_bytes(spec.vision_tower, tp) \
        + rope_table_bytes(spec, config_tables=False)
    before = CONTEXT_BYTES + distributed_init_bytes(tp, transport) + float(s["gpu_used_gib"]) * GIB
    # ``total_gpu_memory`` of profile_max_num_token is the memory free after torch distributed init, before the
    # weights (``min_per_gpu_memory`` of init_torch_distributed), not the device total (module docstring).
    free_before = gpu_total_bytes - before
    available = free_before - weights
    rest = available - free_before * (1 - mfs)
    kvp = kv_precision(s["kv_cache_dtype"], s["dtype"])
    cell = kv_token_bytes_all_layers(spec, kvp, tp)
    tokens = max(0, int(rest // cell)) if rest > 0 else 0
    if s["max_total_tokens"]:
        tokens = min(tokens, int(s["max_total_tokens"]))
    page = max(1, int(s["page_size"]))
    tokens = tokens // page * page
    pool = min(max(int(tokens / ctx * 512), 2048), 4096)
    running = min(int(s["max_running_requests"] or tokens // 2), pool)
    kv_bytes = tokens * cell
    outside = free_before * (1 - mfs)
    max_conc = min(tokens / ctx, running) if ctx else 0.0
    max_ctx = min(ctx, tokens // max(1, concurrency))
    fits = rest > 0 and tokens > 0
    reason = "" if fits else _("weights take {weights:.2f} GiB per GPU; mem_fraction_static {mfs:g} leaves no room "
                               "for the KV cache (Not enough memory).").format(weights=weights / GIB, mfs=mfs)
    flags = {k: v for k, v in s.items() if v is not None and v != SETTINGS[k][0] and k not in ENVIRONMENT_SETTINGS}
    flags["mem_fraction_static"] = mfs
    model = model_ref or spec.hf_repo or spec.name
    cmd = command_line("python -m sglang.launch_server", model, flags, {k: v[2] for k, v in SETTINGS.items()},
                       model_flag="--model-path")
    mem = GpuMemory(weights, outside, before, kv_bytes)
    changes: tuple[Change, ...] = ()
    if not fits and advise:
        out = []
        for text, change in ((_("raise --mem-fraction-static"), {"mem_fraction_static": min(0.95, mfs + 0.05)}),
                             (_("FP8 KV cache (--kv-cache-dtype fp8_e5m2)"), {"kv_cache_dtype": "fp8_e5m2"}),
                             (_("more GPUs (--tp-size {tp})").format(tp=tp * 2), {"tp_size": tp * 2}),
                             (_("more GPUs (--tp-size {tp})").format(tp=tp * 4), {"tp_size": tp * 4})):
            trial = {k: v for k, v in s.items() if v is not None}
            trial.update(change)
            r = sglang_fit(spec, gpu_name, gpu_total_bytes, trial, version=version, weight_format=weight_format,
                           model_ref=model, advise=False)
            if r.fits:
                out.append(Change(text, change, r.command))
        changes = tuple(out[:3])
    assumptions = ((_("KV pool = memory free after the weights - memory free before them x (1 - mem_fraction_static "
                      "{mfs:g})").format(mfs=mfs),
                    "python/sglang/srt/model_executor/model_runner.py profile_max_num_token"),
        (_("activation and CUDA graph memory live in the {share:.0%} outside mem_fraction_static").format(
            share=1 - mfs), "python/sglang/srt/server_args.py"))
    return EngineFit("sglang", version, gpu_name, gpu_total_bytes, tp, mem, tokens, tokens // page, page, ctx,
                     max(1, concurrency), max_conc, max_ctx, fits, reason, cmd, s, changes=changes,
                     assumptions=assumptions, extra={"max_running_requests": running, "mem_fraction_static": mfs})
