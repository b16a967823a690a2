"""``fragmentation`` read from the cudaMallocAsync backend's table: memory the stream-ordered pool holds beyond the
live tensors (issue 28, thirty-fourth pass).

PyTorch with ``PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync`` allocates through CUDA's stream-ordered allocator
(c10/cuda/CUDAMallocAsyncAllocator.cpp). When ``cudaMallocAsync`` fails it raises "Allocation on device N would
exceed allowed memory. (out of memory)" with "Currently allocated" (the bytes of PyTorch's live allocations), "Device
limit" and "Free (according to CUDA)" (``cudaMemGetInfo``) and the user's memory-fraction limit (2^64 bytes,
"17179869184.00 GiB", when none is set). The backend sets the device pool's release threshold to the maximum, so
memory freed back into the pool stays mapped to this process ("Retaining memory in the pool", NVIDIA's "Using the
NVIDIA CUDA Stream-Ordered Memory Allocator, Part 1") and is in none of the table's figures: device limit − free −
currently allocated is the pool's retained memory, plus this process's CUDA context and whatever other processes hold.

A CUDA context and a desktop take about a gibibyte (:data:`CONTEXT_AND_DISPLAY_BYTES`). When the rest of that
difference is a quarter of the device or more (:data:`UNACCOUNTED_SHARE`) and at least four times the request
(:data:`OVER_REQUEST`), the live tensors did not fill the device: memory freed into the pool could not serve the
request (freed on other streams, or mapped in chunks that a live allocation keeps), the pool's fragmentation that the
reporter of pytorch/pytorch#110194 saw (54.14 GiB live, 27 MiB free of 79.35 GiB; the native allocator runs the same
job) and that TGI's maintainers fixed by leaving the backend (huggingface/text-generation-inference#655: 9.64 GiB
live of 39.39 GiB). Another process holding that memory is the other reading, and nvidia-smi tells them apart. 0.88,
above the shortage's 0.85 for a request above the free memory. A difference near the request is the request itself
not fitting beside the live tensors (text-generation-inference#563: 6.1 GiB unaccounted for a 4.83 GiB warm-up
request), and a desktop card's gibibyte or two is the display and other programs (ComfyUI#3278, ComfyUI#2431): no
cause here.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import check_command
from gpudesk.units import GIB, format_bytes
from gpudesk.i18n import _

#: What a CUDA context (hundreds of MiB on current GPUs) and a desktop's display buffers take beside the job.
CONTEXT_AND_DISPLAY_BYTES = GIB
#: The share of the device that memory outside the live tensors (beyond the context) must reach.
UNACCOUNTED_SHARE = 0.25
#: How many times the request that memory must be: well beyond one request not fitting beside the live tensors.
OVER_REQUEST = 4


def unaccounted_bytes(f: Facts) -> int | None:
    """Device limit − free − currently allocated for the cudaMallocAsync table; None for any other report or when a
    figure is missing, or when the user's memory-fraction limit is below the device (per_process_cap reads that)."""
    r = f.report
    if r.kind != "pytorch_allowed_memory" or None in (f.total, f.free, f.allocated, f.requested):
        return None
    assert f.total is not None and f.free is not None and f.allocated is not None
    if f.allowed is not None and f.allowed < f.total:
        return None
    return f.total - f.free - f.allocated


def check(f: Facts) -> Cause | None:
    held = unaccounted_bytes(f)
    if held is None or f.requested is None or f.total is None or f.allocated is None:
        return None
    if held - CONTEXT_AND_DISPLAY_BYTES < UNACCOUNTED_SHARE * f.total or held < OVER_REQUEST * f.requested:
        return None
    platform = f.report.platform
    return Cause(
        id="fragmentation",
        title=_("Memory held by the cudaMallocAsync pool, not by live tensors"),
        confidence=0.88,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, free_bytes=f.free,
                          allocated_bytes=f.allocated, unaccounted_bytes=held, deciding_check="other_process",
                          check_command=check_command("other_process", platform)),
        explanation=_("PyTorch's live tensors hold {allocated} of {total} and CUDA reports {free} free: {held} is held "
                      "by neither. With the cudaMallocAsync backend, memory freed by PyTorch stays in CUDA's pool, "
                      "and that pool could not hand it to this {requested} request. Unless nvidia-smi shows another "
                      "process holding it, the pool's memory is the cause, not the job's size.").format(
                          allocated=format_bytes(f.allocated), total=format_bytes(f.total),
                          free=format_bytes(f.free or 0), held=format_bytes(held),
                          requested=format_bytes(f.requested)),
        fix=_("Use PyTorch's native caching allocator: remove backend:cudaMallocAsync from PYTORCH_CUDA_ALLOC_CONF "
              "(or set backend:native) before the process starts"),
        more_fixes=[_("Call torch.cuda.empty_cache() between phases: it returns the pool's unused memory to the "
                      "device."),
                    _("Check with nvidia-smi that no other process holds the difference.")],
    )
