"""``preallocation``: a framework grabbed most of the GPU up front (oom.md §2.5, §3.2-3.3).

JAX preallocates 75 % of each GPU per process (docs.jax.dev gpu_memory_allocation); TensorFlow takes all of
it unless memory growth is on. A small request failing (< 1 GiB: jaxline#11, jax#13428) or a cuBLAS handle /
driver allocation failing in TensorFlow (tensorflow#30912, #9489) means the pool was taken by this or another
process's preallocation → 0.6; larger XLA requests → 0.4.
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules import other_process
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
