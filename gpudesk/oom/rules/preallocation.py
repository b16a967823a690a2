"""``preallocation``: a framework grabbed most of the GPU up front (oom.md §2.5, §3.2-3.3).

JAX preallocates 75 % of each GPU per process (docs.jax.dev gpu_memory_allocation); TensorFlow takes all of
it unless memory growth is on. A small request failing (< 1 GiB: jaxline#11, jax#13428) or a cuBLAS handle /
driver allocation failing in TensorFlow (tensorflow#30912, #9489) means the pool was taken by this or another
process's preallocation → 0.6; larger XLA requests → 0.4. A JAX/XLA text that names the memory taken twice ("Double
allocation of memory causes xla GPU-compiler error", apax-hub/apax#111, fixed by XLA_PYTHON_CLIENT_PREALLOCATE=false)
is the pool reserved a second time, and one that names the preallocation itself is the same pool → 0.65.

A PyTorch allocator message whose remainder (``total − free − reserved``, :mod:`gpudesk.oom.rules.held_outside`) is
large (or this process's own NVML figure exceeds PyTorch's reserved memory by as much), in a text that runs through
TensorFlow, JAX or PyTorch/XLA as well (a ``tf.data`` input pipeline, a JAX preprocessing step
in the same process): TensorFlow maps nearly all of each visible GPU when it first touches it and JAX 75 % (the same
sources), and that pool is what PyTorch's allocator does not see → 0.92, above the generic "memory outside the
allocator" reading (0.9), with the fix in the other framework's terms (geoelements/gns#10: the TensorFlow dataloader
forced onto the CPU fixed a PyTorch OOM).

The RAPIDS Accelerator for Spark's RMM pool sized at executor start above the free memory, with the GPU (nearly) the
executor's own, is the pool's fraction set too high (0.7; :func:`gpudesk.oom.rules.pool_start.pool_above_free`).
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.oom.cause import Cause
from gpudesk.oom.named_gpu import named_gpu_bytes
from gpudesk.oom.parsers import generic
from gpudesk.oom.rules import held_outside, pool_init, pool_start, tf_pool
from gpudesk.oom.rules.base import Facts, evidence, join_sentences
from gpudesk.units import GIB as GiB, format_bytes
from gpudesk.i18n import N_, _


# JAX or XLA named as a word, and the up-front pool named by the user ("JAX preallocates 75% of GPU memory").
_JAX_WORD = re.compile(r"(?<![a-z0-9])(?:jax|xla)(?![a-z])", re.IGNORECASE)
_PREALLOCATE_WORD = re.compile(r"\bpre-?allocat\w{0,5}\b", re.IGNORECASE)
# The pool already turned off in the text ("XLA_PYTHON_CLIENT_PREALLOCATE=false"): the preallocation cannot be the cause.
_PREALLOCATE_OFF = re.compile(r"preallocate\w{0,4}\s{0,2}[=:]\s{0,2}['\"]?(?:false|0)\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.kind == "memory_report":
        return _usage(f)
    if r.kind == "rmm_pool_startup_free":
        return pool_start.pool_above_free(f)
    cnmem = pool_init.check(f)
    if cnmem is not None:
        return cnmem
    if r.platform == "tpu":
        return None  # TPU HBM has no preallocated pool to give back: a program that does not fit is a shortage
    if "vulkan" in (r.platform, r.backend):
        # XLA's up-front pool is its CUDA/ROCm client's (XLA_PYTHON_CLIENT_PREALLOCATE); a Vulkan runtime reporting
        # RESOURCE_EXHAUSTED (absl's status code, IREE's HAL) has none.
        return None
    second = _second_framework_pool(f)
    if second is not None:
        return second
    beside = _tensorflow_beside_torch(f)
    if beside is not None:
        return beside
    upstream = _rmm_pool_upstream_refused(f)
    if upstream is not None:
        return upstream
    text = r.text or ""
    pool = _xla_pool_before_library(f, text)
    if pool is not None:
        return pool
    # (The preallocation in the user's words only, with no figure: XLA's "preallocated temp allocation" line of
    # BufferAssignment stats names the program's own temporaries, not the pool.)
    said = _PREALLOCATE_WORD.search(text) is not None and f.requested is None and f.total is None
    twice = (generic.MEMORY_TAKEN_TWICE.search(text) is not None or said) \
        and (r.framework in ("jax", "xla") or _JAX_WORD.search(text) is not None) \
        and _PREALLOCATE_OFF.search(text) is None
    if twice:
        return Cause(
            id="preallocation",
            title=_("JAX/XLA's memory pool was taken twice"),
            confidence=0.65,
            evidence=evidence(requested_bytes=f.requested),
            explanation=_("JAX reserves 75 % of each visible GPU for its pool at start; a pool reserved a second time "
                          "(a second client or process) leaves XLA's compiler and the next allocation no memory."),
            fix=_("Set XLA_PYTHON_CLIENT_PREALLOCATE=false (or XLA_CLIENT_MEM_FRACTION=0.45 per process) before starting"),
            more_fixes=[_("Give each process its own GPU with CUDA_VISIBLE_DEVICES.")],
        )
    if r.kind == "xla_resource_exhausted" or r.framework == "jax":
        small = f.requested is not None and f.requested < GiB
        return Cause(
            id="preallocation",
            title=_("JAX/XLA preallocated the GPU"),
            confidence=0.6 if small or f.requested is None else 0.4,
            evidence=evidence(requested_bytes=f.requested,
                              xla_total_allocation_bytes=r.parsed.get("xla_total_allocation_bytes")),
            explanation=_("JAX reserves 75 % of each visible GPU per process at start; a second JAX process, or JAX "
                        "next to TensorFlow/PyTorch on the same GPU, leaves too little for a small request."),
            fix=_("Set XLA_PYTHON_CLIENT_PREALLOCATE=false (or XLA_CLIENT_MEM_FRACTION=0.45 per process) before starting"),
            more_fixes=[_("Give each process its own GPU with CUDA_VISIBLE_DEVICES."),
                        _("Check the 'BufferAssignment' / 'Peak buffers' lines for the largest buffers.")],
        )
    if tf_pool.tf_fraction_reservation(f):
        return Cause(
            id="preallocation",
            title=_("TensorFlow's memory fraction asks for the whole GPU"),
            confidence=0.7,
            evidence=evidence(requested_bytes=f.requested, error_kind=r.kind, deciding_check="preallocation",
                              check_command="per_process_gpu_memory_fraction=0.8 / TF_FORCE_GPU_ALLOW_GROWTH=true"),
            explanation=_("TensorFlow reserves its pool at start: without a memory fraction it takes the free memory "
                          "less a reserve, under 95 % of the card; this reservation ({size}) is nearly the whole "
                          "card, so a memory fraction near 1 asked for memory that is never free (the driver and the "
                          "display hold some). The batch size does not matter.").format(size=format_bytes(f.requested)),
            fix=_("Lower the memory fraction (per_process_gpu_memory_fraction / the script's gpu_memory_fraction, "
                  "e.g. 0.8), or turn on memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true)"),
            more_fixes=[_("Make sure no other process holds the GPU (nvidia-smi).")],
        )
    if r.framework == "tensorflow" and (r.kind == "cuda_driver_oom" or r.parsed.get("cublas_handle_failed")
                                        or r.kind == "cublas_alloc_failed"):
        return Cause(
            id="preallocation",
            title=_("TensorFlow's preallocation left no memory"),
            # Its own reservation refused on CUDA: another process took the memory first (rules.other_process).
            confidence=0.55 if tf_pool.tf_reservation_refused_on_cuda(f) else 0.6,
            evidence=evidence(requested_bytes=f.requested, error_kind=r.kind,
                              library_status=r.parsed.get("library_status")),
            explanation=_("TensorFlow maps nearly all GPU memory at start; a later driver-level allocation (cuBLAS "
                        "handle, another session, another process) then fails."),
            fix=_("Enable memory growth: tf.config.experimental.set_memory_growth(gpu, True) for each GPU "
                "(TF1: config.gpu_options.allow_growth = True), or TF_FORCE_GPU_ALLOW_GROWTH=true"),
            more_fixes=[_("Make sure no other process holds the GPU (nvidia-smi).")],
        )
    return None


# XLA's GPU client creating its BFC pool at start, with the size it took ("XLA backend allocating N bytes on device D for
# BFCAllocator.", xla/pjrt/gpu/gpu_helpers.cc, CreateBFCAllocator: memory_fraction of the device's memory, 0.75 in JAX
# and 0.9 in Elixir's EXLA by default, https://github.com/openxla/xla and elixir-nx/xla#63). A library that allocates
# outside the pool (cuDNN's or cuBLAS's handle, their workspace) and fails after it has only what the pool left.
_XLA_POOL = re.compile(r"\ballocating\s{1,3}(\d{1,20})\s{1,3}bytes\s{1,3}on\s{1,3}device\s{1,3}\d{1,3}\s{1,3}for\s{1,3}"
                       r"BFCAllocator\b", re.IGNORECASE)
# The pool must hold at least half the device: then it, not the library's own need, decides what was left.
_XLA_POOL_SHARE = 0.5


def _xla_pool_before_library(f: Facts, text: str) -> Cause | None:
    """XLA's preallocated pool (``_XLA_POOL``) holding most of the device when a library handle outside it failed
    (fifty-fifth pass; georgeguimaraes/soothsayer#6: 22,816,161,792 of 25,351,290,880 bytes, then cuDNN's handle with
    433 MB free)."""
    if f.report.kind not in ("cudnn_alloc_failed", "cublas_alloc_failed") or f.total is None:
        return None
    m = _XLA_POOL.search(text)
    if m is None:
        return None
    pool_bytes = int(m.group(1))
    if not _XLA_POOL_SHARE * f.total <= pool_bytes <= f.total:
        return None
    return Cause(
        id="preallocation",
        title=_("XLA's preallocated pool left too little for the library outside it"),
        confidence=0.75,
        evidence=evidence(xla_pool_bytes=pool_bytes, total_capacity_bytes=f.total, free_bytes=f.free,
                          deciding_check="preallocation",
                          check_command="XLA_PYTHON_CLIENT_PREALLOCATE=false / XLA_PYTHON_CLIENT_MEM_FRACTION"),
        explanation=_("XLA's GPU client reserved {pool} of the device's {total} for its pool at start; cuDNN and "
                      "cuBLAS create their handles and workspaces outside that pool, so the library failed on what was "
                      "left (and whatever a desktop or another process holds).").format(
                          pool=format_bytes(pool_bytes), total=format_bytes(f.total)),
        fix=_("Turn off XLA's preallocation or lower its memory fraction (JAX: XLA_PYTHON_CLIENT_PREALLOCATE=false or "
              "XLA_PYTHON_CLIENT_MEM_FRACTION; EXLA: preallocate: false or a lower memory_fraction in the client's "
              "configuration)"),
        more_fixes=[_("Make sure no other process holds the GPU (nvidia-smi).")],
    )


# PyTorch/XLA named by its module (a traceback through ``torch_xla/...``, ``import torch_xla``) or its runtime
# (PJRT): on a GPU its PJRT client is XLA's StreamExecutor GPU client in the same process as PyTorch's CUDA allocator,
# and it preallocates its BFC pool when created, 75 % of the device by default (``PJRT_ALLOCATOR_FRACTION``, and
# ``PJRT_ALLOCATOR_PREALLOCATE`` to turn it off: GetGpuAllocatorConfig in torch_xla/csrc/runtime/pjrt_registry.cc
# at v2.3.0 (pjrt_computation_client.cc at v2.2.0), names in env_vars.h; https://github.com/pytorch/xla,
# pytorch/xla#5759). CUDA tensors beside XLA buffers (XLA_FALLBACK_CUDA, mmcv ops
# left on CUDA) then get what the pool left (pytorch/xla#6971: the one process holds 15.69 GiB of a 16 GB card,
# PyTorch 3.5 GiB of it).
_TORCH_XLA = re.compile(r"\btorch_xla\b|\bpjrt_(?:device|allocator)|\bpjrt\b", re.IGNORECASE)


def names_torch_xla(text: str) -> bool:
    """The text runs through PyTorch/XLA or names its PJRT runtime (``_TORCH_XLA``): its knobs are PJRT's, not
    jaxlib's XLA_PYTHON_CLIENT_* variables."""
    return _TORCH_XLA.search(text) is not None


def _in_process_remainder_is_large(f: Facts) -> bool:
    """This process's own NVML figure ("Process N has X memory in use" of the PyTorch 2.x message, when it is the one
    process listed) exceeds PyTorch's reserved memory by at least 2 GiB and a quarter of the GPU: memory held in the
    same process outside PyTorch's allocator, the size of a second framework's pool (the same bound as
    held_outside.remainder_is_large)."""
    return (f.non_pytorch is not None and f.total is not None
            and f.non_pytorch >= max(2 * GiB, f.total / 4))


def _second_framework_pool(f: Facts) -> Cause | None:
    """PyTorch's figures leave a large remainder and the text names TensorFlow or JAX (module docstring)."""
    r = f.report
    if r.framework != "pytorch" or not (held_outside.remainder_is_large(f) or _in_process_remainder_is_large(f)):
        return None
    low = (r.text or "").lower()
    if "tensorflow" in low:
        fix = _("Keep TensorFlow off the GPU in this process (tf.config.set_visible_devices([], 'GPU') before the "
                "input pipeline starts) or turn on its memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true)")
    elif names_torch_xla(low):
        fix = _("Keep PyTorch/XLA's PJRT client from taking the GPU up front in this process: "
                "PJRT_ALLOCATOR_PREALLOCATE=false, or a smaller PJRT_ALLOCATOR_FRACTION (e.g. 0.5), before torch_xla "
                "starts")
    elif "jax" in low or "xla_python_client" in low:
        fix = _("Keep JAX from preallocating in this process: XLA_PYTHON_CLIENT_PREALLOCATE=false (or "
                "JAX_PLATFORMS=cpu for a preprocessing step) before JAX is imported")
    else:
        return None
    return Cause(
        id="preallocation",
        title=_("Another framework in the same process preallocated the GPU"),
        confidence=0.92,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, outside_allocator_bytes=f.outside,
                          non_pytorch_bytes=f.non_pytorch),
        explanation=_("PyTorch holds little of the GPU, yet almost nothing is free, and the text runs through "
                      "TensorFlow, JAX or PyTorch/XLA as well: those map most of the GPU when they first touch it "
                      "(TensorFlow nearly all of it, JAX and PyTorch/XLA's PJRT client 75 %), and that pool is "
                      "invisible to PyTorch's allocator."),
        fix=fix,
        more_fixes=[_("Check with nvidia-smi: this one process holds far more than PyTorch's reserved memory.")],
    )


# TensorFlow and PyTorch named together in a figureless report: "TF will replicate the model in ALL available CUDA
# devices ... PyTorch runs out of memory", "fine-tuning a TensorFlow model with a miner that uses ... torch ... CUDA OOM".
# TensorFlow's default is to map nearly all of the memory of every visible GPU when it first touches it
# (https://www.tensorflow.org/guide/gpu, "Limiting GPU memory growth"; GPUOptions.allow_growth and
# per_process_gpu_memory_fraction in tensorflow/core/protobuf/config.proto), and PyTorch's caching allocator, in the
# same program, then finds none: the memory is TensorFlow's pool, not the job's tensors. No figures: a message with
# its own figures is decided by them (held_outside, _second_framework_pool above).
_TF_WORD = re.compile(r"\btensor-?flow\b|\btf\b(?!\.keras\b)|\btf\.(?:keras|data|config|session)\b", re.IGNORECASE)
_TORCH_WORD = re.compile(r"\bpy-?torch\b|\btorch\b", re.IGNORECASE)
# Growth or a fraction already set in the text: the default pool is not what is held.
_TF_GROWTH_ON = re.compile(r"allow_growth\s{0,2}=\s{0,2}true|set_memory_growth\([^)]{0,80}true|allow_growth['\"]?\s{0,2}"
                           r"[=:]\s{0,2}['\"]?true|per_process_gpu_memory_fraction\s{0,2}=", re.IGNORECASE)


def _tensorflow_beside_torch(f: Facts) -> Cause | None:
    """TensorFlow's default pool beside PyTorch in one program, named in a report without figures (comment above)."""
    r = f.report
    if r.framework not in ("tensorflow", "pytorch") or r.kind not in ("generic_oom", "pytorch_oom"):
        return None
    if f.requested is not None or f.total is not None:
        return None
    text = r.text or ""
    if _TF_WORD.search(text) is None or _TORCH_WORD.search(text) is None or _TF_GROWTH_ON.search(text) is not None:
        return None
    return Cause(
        id="preallocation",
        title=_("TensorFlow's default memory pool left PyTorch no memory"),
        confidence=0.6,
        evidence=evidence(error_kind=r.kind),
        explanation=_("TensorFlow and PyTorch run in the same program. By default TensorFlow maps nearly all of the "
                      "memory of every visible GPU when it first touches one, and keeps it; PyTorch's allocator then "
                      "finds none, whatever the batch size."),
        fix=_("Turn on TensorFlow's memory growth before it touches the GPU: "
              "tf.config.experimental.set_memory_growth(gpu, True) for each GPU, or TF_FORCE_GPU_ALLOW_GROWTH=true "
              "(TF1: config.gpu_options.allow_growth = True or per_process_gpu_memory_fraction)"),
        more_fixes=[_("Keep TensorFlow off the GPU if it only feeds data: tf.config.set_visible_devices([], 'GPU').")],
    )


# RMM's pool turned on in the text (rmm.reinitialize(pool_allocator=True), rmm.mr.PoolMemoryResource) and the refusal
# raised by its upstream resource, cuda_memory_resource (cudaMalloc): the pool takes its memory from the upstream in
# chunks it sizes itself, an initial pool ("By default, half the available memory on the device is used",
# PoolMemoryResource's docstring, python/rmm/rmm/pylibrmm/memory_resource/_memory_resource.pyx) and growth steps of
# max(request, current pool size) (size_to_grow in cpp/src/mr/detail/pool_memory_resource_impl.cpp; rapidsai/rmm at
# 5d50a37b), so the refused cudaMalloc is the pool's own chunk, not the program's buffer (rapidsai/rmm#496: the second
# 8 GiB buffer on a 32 GB V100 refused because the pool grew by more than the buffer). Today's pool halves a refused
# chunk down to the request (try_to_expand, same file) and then says "Maximum pool size exceeded"
# (signature._rmm_pool_max): the raw upstream error under a pool is a pool that did not back off.
_RMM_POOL_ON = re.compile(r"pool_allocator\s{0,2}=\s{0,2}True|\bPoolMemoryResource\b|\bpool_memory_resource\b")
_RMM_UPSTREAM_REFUSED = re.compile(r"cuda_memory_resource\.hpp[:\d]{0,8}\s{0,2}:?\s{0,2}cudaErrorMemoryAllocation",
                                   re.IGNORECASE)


def _rmm_pool_upstream_refused(f: Facts) -> Cause | None:
    """RMM's pool on and cudaMalloc under it refused (comment above)."""
    text = f.report.text or ""
    if _RMM_POOL_ON.search(text) is None or _RMM_UPSTREAM_REFUSED.search(text) is None \
            or "maximum pool size exceeded" in text.lower():
        return None
    return Cause(
        id="preallocation",
        title=_("RMM's pool asked the GPU for more than was free"),
        confidence=0.6,
        evidence=evidence(requested_bytes=f.requested, error_kind=f.report.kind),
        explanation=_("RMM's pool allocator is on, and the allocation that failed is the pool's own request to "
                      "cudaMalloc (cuda_memory_resource): the pool reserves memory in chunks it sizes itself (an "
                      "initial pool of half the GPU by default, then growth steps), which can exceed the free memory "
                      "even when the buffer asked for would fit."),
        fix=_("Size the pool explicitly: rmm.reinitialize(pool_allocator=True, initial_pool_size=...) large enough "
              "for the job and below the free memory, or turn the pool off (pool_allocator=False)"),
        more_fixes=[_("nvidia-smi counts the whole pool as this process's memory: compare it with the buffers the "
                      "job holds."),
                    _("Update RMM: its pool now retries a refused growth step with smaller chunks, down to the "
                      "request.")],
    )


# Figures of memory in use a user writes beside a usage report: a share ("uses around 70% of the GPU memory"), used
# over total pairs ("18G/24G"), or an amount ("60GB is already taken up", 占用GPU21.4GB) against the GPU the text names.
_SHARE = re.compile(r"\b(\d{1,3}(?:\.\d)?)\s?%\s{0,3}of\s{1,3}(?:the\s{1,3})?(?:gpu\s{1,3}|video\s{1,3}|device\s{1,3})?"
                    r"(?:memory|vram)\b", re.IGNORECASE)
_PAIR = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,2})?)\s?(?:GiB|GB|G)?\s?/\s?(\d{1,3}(?:\.\d{1,2})?)\s?(?:GiB|GB|G)\b",
                   re.IGNORECASE)
_AMOUNT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,2})?)\s?(?:GiB|GB|G)(?![A-Za-z])", re.IGNORECASE)
# JAX's default pool is 75 % of each GPU (docs.jax.dev/en/latest/gpu_memory_allocation.html): a usage within this
# band of a GPU's memory is that pool, whatever the program does.
XLA_DEFAULT_BAND = (0.70, 0.80)
# A serving engine's KV pool: vLLM's gpu_memory_utilization 0.9, TensorRT-LLM's kv_cache_free_gpu_mem_fraction 0.9 and
# LMDeploy's cache_max_entry_count 0.8 of the memory left after the weights: together with the weights the GPU is this
# full or more.
ENGINE_POOL_SHARE = 0.85


def _usage_share(text: str) -> float | None:
    """The share of the GPU's memory the text says is in use (see ``_SHARE``); None when it gives none."""
    m = _SHARE.search(text)
    if m:
        return float(m.group(1)) / 100
    pairs = [(float(a), float(b)) for a, b in _PAIR.findall(text) if 0 < float(a) <= float(b)]
    if pairs:
        shares = sorted(a / b for a, b in pairs)
        return shares[len(shares) // 2]
    gpu = named_gpu_bytes(text)
    if gpu is None:
        return None
    gib = gpu / GiB
    amounts = [float(a) for a in _AMOUNT.findall(text) if 0 < float(a) < gib - 0.5]
    return max(amounts) / gib if amounts else None


# An engine's own knob for the memory it reserves up front, in its own terms (each engine's documented flag).
_ENGINE_POOLS = {
    # text-generation-inference's launcher: "--cuda-memory-fraction" (default 1.0: the KV cache takes what is left).
    "tgi": (N_("TGI reserves all the memory left after the weights for its KV cache when the shards start (its "
               "--cuda-memory-fraction defaults to 1.0)"),
            N_("Lower TGI's share with --cuda-memory-fraction (e.g. 0.5), or bound the cache with --max-total-tokens / "
               "--max-batch-prefill-tokens")),
    # TensorRT-LLM's KV cache manager (KvCacheConfig.free_gpu_memory_fraction; the Triton backend's
    # kv_cache_free_gpu_mem_fraction parameter in config.pbtxt), default 0.9 of the memory free after the engine loads.
    "trtllm": (N_("TensorRT-LLM reserves 90 % of the memory free after the engine loads for its paged KV cache "
                  "(kv_cache_free_gpu_mem_fraction, default 0.9)"),
               N_("Set kv_cache_free_gpu_mem_fraction in the Triton model's config.pbtxt (KvCacheConfig("
                  "free_gpu_memory_fraction=...) in the LLM API) to the share you want, or cap the cache with "
                  "max_tokens_in_paged_kv_cache")),
    "vllm": (N_("vLLM takes gpu_memory_utilization (default 0.9) of the GPU and fills what the weights leave with its "
                "KV cache"),
             N_("Lower --gpu-memory-utilization (e.g. 0.5) to leave memory for other work")),
    "sglang": (N_("SGLang reserves mem_fraction_static of the GPU for the weights and its KV pool at start"),
               N_("Lower --mem-fraction-static (e.g. 0.6)")),
    "lightllm": (N_("LightLLM reserves its token budget's KV cache at start (max_total_token_num)"),
                 N_("Lower --max_total_token_num or --mem_fraction")),
}


def _usage(f: Facts) -> Cause | None:
    """A usage report with no failure (``kind == "memory_report"``, parsers/generic): memory a runtime reserves up front
    by design is what the user sees, not a fault. The engine or framework the text names decides the knob; a share
    of the GPU within :data:`XLA_DEFAULT_BAND` is JAX's default pool whatever names the text gives (Craftax#28: an
    import takes 60 GB of an 80 GB H100); a GPU at least :data:`ENGINE_POOL_SHARE` full running a quantised or small
    model's inference is a serving engine's KV pool (InternLM#760: a 7B 4-bit model, 21.4 of a 24 GB card)."""
    r = f.report
    text = r.text or ""
    if r.parsed.get("memory_report") != "usage":
        return None
    share = _usage_share(text)
    engine = r.engine if r.engine in _ENGINE_POOLS else (r.runtime if r.runtime in _ENGINE_POOLS else None)
    jax_band = share is not None and XLA_DEFAULT_BAND[0] <= share <= XLA_DEFAULT_BAND[1]
    check = _("Run nvidia-smi right after the program starts, before any work: memory already taken then is the "
              "reservation, and it stays the same whatever the workload.")
    ev = evidence(usage_share=round(share, 3) if share is not None else None)
    if engine is not None:
        why, fix = _ENGINE_POOLS[engine]
        return Cause(id="preallocation", title=_("The engine reserves this memory up front (not a failure)"),
                     confidence=0.7, evidence=ev,
                     explanation=join_sentences([i18n._(why), _("The memory in use is the engine's reservation, made "
                                                                "by design; it is not the model's size or a leak.")]),
                     fix=i18n._(fix), checks=[check])
    if r.framework in ("jax", "xla") or r.runtime in ("jax", "xla") or jax_band:
        return Cause(id="preallocation", title=_("JAX/XLA preallocates 75 % of the GPU (not a failure)"),
                     confidence=0.7 if jax_band else 0.6, evidence=ev,
                     explanation=_("JAX's XLA client reserves 75 % of each visible GPU when the first array is "
                                   "created, whatever the program needs; the memory in use is that pool, not the "
                                   "program's size or a leak."),
                     fix=_("Set XLA_PYTHON_CLIENT_PREALLOCATE=false (allocate on demand) or XLA_PYTHON_CLIENT_MEM_FRACTION"
                           "=0.3 before JAX is imported"),
                     checks=[check])
    if r.framework == "tensorflow" or r.runtime == "tensorflow":
        return Cause(id="preallocation", title=_("TensorFlow maps the whole GPU up front (not a failure)"),
                     confidence=0.65, evidence=ev,
                     explanation=_("TensorFlow maps nearly all of each visible GPU when it first touches it; the "
                                   "memory in use is that pool, not the model's size."),
                     fix=_("Enable memory growth: tf.config.experimental.set_memory_growth(gpu, True) for each GPU, or "
                           "TF_FORCE_GPU_ALLOW_GROWTH=true"),
                     checks=[check])
    engine_pool = share is not None and share >= ENGINE_POOL_SHARE
    return Cause(id="preallocation",
                 title=_("Memory reserved up front by the runtime (not a failure)"),
                 confidence=0.55 if engine_pool else 0.35, evidence=ev,
                 explanation=_("The text reports memory in use, not a failed allocation. Inference engines reserve a "
                               "fixed share of the GPU for their KV cache when they start (LMDeploy's "
                               "cache_max_entry_count 0.8 of the free memory, vLLM's gpu_memory_utilization 0.9, "
                               "TensorRT-LLM's kv_cache_free_gpu_mem_fraction 0.9), so a small or quantised model "
                               "still fills most of the GPU."),
                 fix=_("Lower the engine's cache share: LMDeploy cache_max_entry_count (TurbomindEngineConfig / "
                       "--cache-max-entry-count, e.g. 0.2), vLLM --gpu-memory-utilization, TensorRT-LLM "
                       "kv_cache_free_gpu_mem_fraction"),
                 checks=[check])
