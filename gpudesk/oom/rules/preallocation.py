"""``preallocation``: a framework grabbed most of the GPU up front (oom.md §2.5, §3.2-3.3).

JAX preallocates 75 % of each GPU per process (docs.jax.dev gpu_memory_allocation); TensorFlow takes all of
it unless memory growth is on. A small request failing (< 1 GiB: jaxline#11, jax#13428) or a cuBLAS handle /
driver allocation failing in TensorFlow (tensorflow#30912, #9489) means the pool was taken by this or another
process's preallocation → 0.6; larger XLA requests → 0.4.

A PyTorch allocator message whose remainder (``total − free − reserved``, :mod:`gpudesk.oom.rules.held_outside`) is
large, in a text that runs through TensorFlow or JAX as well (a ``tf.data`` input pipeline, a JAX preprocessing step
in the same process): TensorFlow maps nearly all of each visible GPU when it first touches it and JAX 75 % (the same
sources), and that pool is what PyTorch's allocator does not see → 0.92, above the generic "memory outside the
allocator" reading (0.9), with the fix in the other framework's terms (geoelements/gns#10: the TensorFlow dataloader
forced onto the CPU fixed a PyTorch OOM).
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules import held_outside, other_process
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.platform == "tpu":
        return None  # TPU HBM has no preallocated pool to give back: a program that does not fit is a shortage
    if "vulkan" in (r.platform, r.backend):
        # XLA's up-front pool is its CUDA/ROCm client's (XLA_PYTHON_CLIENT_PREALLOCATE); a Vulkan runtime reporting
        # RESOURCE_EXHAUSTED (absl's status code, IREE's HAL) has none.
        return None
    second = _second_framework_pool(f)
    if second is not None:
        return second
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
    if r.framework == "tensorflow" and (r.kind == "cuda_driver_oom" or r.parsed.get("cublas_handle_failed")
                                        or r.kind == "cublas_alloc_failed"):
        return Cause(
            id="preallocation",
            title=_("TensorFlow's preallocation left no memory"),
            # Its own reservation refused on CUDA: another process took the memory first (rules.other_process).
            confidence=0.55 if other_process.tf_reservation_refused_on_cuda(f) else 0.6,
            evidence=evidence(requested_bytes=f.requested, error_kind=r.kind,
                              library_status=r.parsed.get("library_status")),
            explanation=_("TensorFlow maps nearly all GPU memory at start; a later driver-level allocation (cuBLAS "
                        "handle, another session, another process) then fails."),
            fix=_("Enable memory growth: tf.config.experimental.set_memory_growth(gpu, True) for each GPU "
                "(TF1: config.gpu_options.allow_growth = True), or TF_FORCE_GPU_ALLOW_GROWTH=true"),
            more_fixes=[_("Make sure no other process holds the GPU (nvidia-smi).")],
        )
    return None


def _second_framework_pool(f: Facts) -> Cause | None:
    """PyTorch's figures leave a large remainder and the text names TensorFlow or JAX (module docstring)."""
    r = f.report
    if r.framework != "pytorch" or not held_outside.remainder_is_large(f):
        return None
    low = (r.text or "").lower()
    if "tensorflow" in low:
        fix = _("Keep TensorFlow off the GPU in this process (tf.config.set_visible_devices([], 'GPU') before the "
                "input pipeline starts) or turn on its memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true)")
    elif "jax" in low or "xla_python_client" in low:
        fix = _("Keep JAX from preallocating in this process: XLA_PYTHON_CLIENT_PREALLOCATE=false (or "
                "JAX_PLATFORMS=cpu for a preprocessing step) before JAX is imported")
    else:
        return None
    return Cause(
        id="preallocation",
        title=_("Another framework in the same process preallocated the GPU"),
        confidence=0.92,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, outside_allocator_bytes=f.outside),
        explanation=_("PyTorch holds little of the GPU, yet almost nothing is free, and the text runs through "
                      "TensorFlow or JAX as well: those frameworks map most of the GPU when they first touch it "
                      "(TensorFlow nearly all of it, JAX 75 %), and that pool is invisible to PyTorch's allocator."),
        fix=fix,
        more_fixes=[_("Check with nvidia-smi: this one process holds far more than PyTorch's reserved memory.")],
    )
