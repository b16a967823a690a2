"""``not_capacity`` read from what the text says about the call that failed, where it gives no free figure
(fifty-sixth pass). Each reading needs the out-of-memory result and a mark that the memory was not what ran out:

* **A stream-ordered allocation refused where the plain one works.** ``hipMallocAsync`` / ``cudaMallocAsync`` (and
  ``…MallocFromPoolAsync``) take memory from the device's stream-ordered pool, ``hipMalloc`` / ``cudaMalloc`` from the
  same device memory directly (HIP Runtime API, "Stream Ordered Memory Allocator"; CUDA Programming Guide, "Stream
  Ordered Memory Allocator"). When the text says the plain call works while the async one returns out of memory, the
  memory was there and the pool's path of the runtime or driver refused it: an install or version fault
  (kokkos/kokkos#8008, ROCm/hip#3775, fixed in ROCm 7.0; JuliaGPU/AMDGPU.jl#938, the C reproducer of AMDGPU.jl#901).
  Check ``driver_version``, 0.85.
* **A single-allocation limit named in the message.** "Allocation size exceeds limits for a single allocation" is
  chipStar's Level Zero backend refusing one buffer above the device's ``maxMemAllocSize`` (Level Zero specification,
  ``ze_device_properties_t.maxMemAllocSize``; ``ze_relaxed_allocation_limits_exp_desc_t``): the limit is per buffer,
  whatever the free memory (CHIP-SPV/chipStar#1448). Check ``buffer_limit``, 0.9.
* Vulkan's VK_ERROR_TOO_MANY_OBJECTS (-10) is read by the recogniser (:func:`gpudesk.oom.limit_words.vulkan_allocation_count`).
* **Level Zero's out-of-device-memory from a barrier.** A barrier appended to a command list carries no data
  (``zeCommandListAppendBarrier``); the out-of-memory status it returns is the runtime's own command-list and event
  objects (chipStar#612: only with immediate command lists, on many small tests in chipStar#652). Check
  ``driver_version``, 0.65 (the runtime's objects may still share a device that is full).
* **TensorFlow's pinned host pool at its default limit.** TensorFlow's GPU host allocator (``cuda_host_bfc``, pinned
  host memory for copies) is a BFC allocator capped at ``TF_GPU_HOST_MEM_LIMIT_IN_MB``, 1 << 16 MB = 64 GiB by
  default (tensorflow/core/common_runtime/gpu/gpu_process_state.cc, ``GetGpuHostAllocator``). A BFC dump whose
  ``Limit:`` is exactly 68719476736 bytes is that pool: a device pool's limit is the memory free at start less a
  reserve, not an exact power of two unless a memory limit was configured (tensorflow#11915). The allocator named ``cuda_host_bfc`` / ``gpu_host_bfc``
  in the dump decides it (0.9); the exact limit alone 0.8, as a logical device configured with ``memory_limit=65536``
  (MB) has the same limit. Check ``pin_memory``.

A bare out-of-memory line has none of these marks and keeps its ranked set.
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line

_OOM_RESULT = r"(?:out[ _]of[ _](?:device[ _])?memory|OutOfMemory|ErrorMemoryAllocation|OUT_OF_DEVICE_MEMORY)"
# The stream-ordered call with an out-of-memory result on the same line (either order).
_ASYNC_REFUSED = re.compile(
    r"\b(?:hip|cuda)Malloc(?:FromPool)?Async\b[^\n]{0,80}?" + _OOM_RESULT + r"|" + _OOM_RESULT +
    r"[^\n]{0,80}?\b(?:hip|cuda)Malloc(?:FromPool)?Async\b", re.IGNORECASE)
# The plain call said to work: "`hipMalloc` works fine", "[hipMalloc]   OK", "cudaMalloc succeeds".
_PLAIN_WORKS = re.compile(
    r"\b(?:hip|cuda)Malloc\b(?!Async|FromPool|Managed|Host|Pitch)[`'\"\]\)]{0,2}[^\n]{0,40}?"
    r"\b(?:works?|working|worked|succeed(?:s|ed)?|OK|fine|pass(?:es|ed)?)\b", re.IGNORECASE)
_SINGLE_ALLOCATION_LIMIT = re.compile(
    r"exceeds?\s{1,3}(?:the\s{1,3})?(?:limits?|maximum|max)\s{1,3}(?:size\s{1,3})?for\s{1,3}a\s{1,3}single\s{1,3}"
    r"allocation|single[ -]allocation\s{1,3}(?:size\s{1,3})?limit", re.IGNORECASE)
_BARRIER_OOM = re.compile(r"(?:ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY|OUT_OF_DEVICE_MEMORY)[^\n]{0,200}?"
                          r"(?:enqueueBarrier\w*|AppendBarrier\w*)", re.IGNORECASE)
_TF_HOST_POOL_LIMIT = 1 << 36  # TF_GPU_HOST_MEM_LIMIT_IN_MB's default, 1 << 16 MB
_BFC_LIMIT = re.compile(r"^\s{0,8}Limit:\s{1,40}(\d{6,20})\s*$", re.MULTILINE)
_HOST_BFC_NAMED = re.compile(r"\b(?:cuda|gpu)_host_bfc\b", re.IGNORECASE)



def check(f: Facts) -> Cause | None:
    if f.report.kind == "unknown" or f.mps:
        return None
    text = f.report.text or ""
    if _ASYNC_REFUSED.search(text) and _PLAIN_WORKS.search(text):
        return _stream_ordered(f)
    if _SINGLE_ALLOCATION_LIMIT.search(text):
        return _single_allocation(f)
    if _BARRIER_OOM.search(text):
        return _barrier(f)
    limits = [int(m.group(1)) for m in _BFC_LIMIT.finditer(text)]
    named = _HOST_BFC_NAMED.search(text) is not None
    if _TF_HOST_POOL_LIMIT in limits or (named and f.report.kind == "tf_bfc_dump"):
        return _tf_host_pool(_TF_HOST_POOL_LIMIT in limits, named)
    return None


def _refusal(kind: str, key: str, command: str, confidence: float, title: str, explanation: str, fix: str,
             **more: object) -> Cause:
    """The not-capacity cause of one reading: its kind, deciding check ``key`` run as ``command``, and its texts."""
    return Cause(
        id="not_capacity", title=title, confidence=confidence,
        evidence=evidence(not_capacity_kind=kind, deciding_check=key, check_command=command, **more),
        explanation=explanation, fix=fix,
        checks=[check_line(command=command, meaning=i18n._(CHECKS[key].meaning))],
    )


def _stream_ordered(f: Facts) -> Cause:
    return _refusal(
        "stream_ordered_refused", "driver_version", check_command("driver_version", f.report.platform), 0.85,
        title=_("Not capacity: the stream-ordered allocator refused memory that the plain allocation gets"),
        explanation=_("The text says the plain allocation (hipMalloc / cudaMalloc) works while the stream-ordered "
                      "one (hipMallocAsync / cudaMallocAsync) returns out of memory. Both take the same device "
                      "memory, so the memory was there: the runtime's or driver's stream-ordered pool path refused "
                      "it, a fault of the installed version or its setup."),
        fix=_("Update the GPU runtime and driver (a newer ROCm or CUDA driver), or make the program allocate with the "
              "plain call until then (PyTorch: leave out backend:cudaMallocAsync in PYTORCH_CUDA_ALLOC_CONF)"),
    )


def _single_allocation(f: Facts) -> Cause:
    command = check_command("buffer_limit", "xpu" if f.report.platform in ("xpu", "rocm", None) else
                            f.report.platform)
    return _refusal(
        "single_allocation_limit", "buffer_limit", command, 0.9,
        title=_("Not capacity: one buffer is above the device's single-allocation limit"),
        explanation=_("The message says the size exceeds the limit for a single allocation: the device (on Level "
                      "Zero its maxMemAllocSize, often 4 GiB) refuses one buffer above that size however much memory "
                      "is free."),
        fix=_("Split the buffer into smaller ones (a smaller problem per call or batch), or allow larger buffers where "
              "the runtime offers it (Level Zero: UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1)"),
    )


_LEVEL_ZERO_DRIVER_COMMAND = "clinfo | grep -i -E 'device name|driver version'"


def _barrier(f: Facts) -> Cause:
    # The barrier's status is Level Zero's (ZE_RESULT_…): the Intel GPU driver's version, whatever layer ran above it.
    return _refusal(
        "runtime_object_refused", "driver_version", _LEVEL_ZERO_DRIVER_COMMAND, 0.65,
        title=_("Likely not capacity: a barrier, which carries no data, returned out of device memory"),
        explanation=_("The out-of-device-memory status came from appending a barrier to a command list, which "
                      "allocates no data of the program: the runtime's own command-list or event objects ran out, a "
                      "behaviour of the runtime or driver (for example its immediate command lists), not the data's "
                      "memory."),
        fix=_("Update the GPU driver and runtime, or switch the runtime's command-list mode (chipStar: "
              "CHIP_L0_IMM_CMD_LISTS=OFF) and rerun"),
    )


def _tf_host_pool(at_default: bool, named: bool) -> Cause:
    # The allocator's own name in the dump decides (0.9, above a figure-backed shortage's 0.85, which would read the
    # host pool's figures as the GPU's); the exact limit alone 0.8: a logical device configured with memory_limit=65536
    # (MB) would have the same limit.
    return _refusal(
        "tf_host_pool", "pin_memory", CHECKS["pin_memory"].command, 0.9 if named else 0.8,
        title=_("Not GPU capacity: TensorFlow's pinned host-memory pool reached its limit"),
        explanation=_("The allocator that ran out is TensorFlow's pinned host-memory pool (cuda_host_bfc), not the "
                      "GPU's: its limit is TF_GPU_HOST_MEM_LIMIT_IN_MB, 64 GiB by default, and a limit of exactly "
                      "68719476736 bytes is that default. A device pool's limit is the GPU's free memory less a "
                      "reserve, not this exact figure unless a memory limit of 65536 MB was set for the device."),
        fix=_("Copy less through host memory at once (smaller host-side tensors or prefetch buffers), or raise the "
              "pool's limit with TF_GPU_HOST_MEM_LIMIT_IN_MB if the host has the RAM"),
        pool_limit_bytes=_TF_HOST_POOL_LIMIT if at_default else None,
    )
