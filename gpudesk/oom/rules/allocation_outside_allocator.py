"""``allocation_outside_allocator``: memory PyTorch's allocator does not see (oom.md §5, §3.1 hidden OOMs).

Two signals: (1) the error itself comes from outside the caching allocator: cuBLAS/cuDNN handle creation,
``CUDA error: out of memory`` (context creation, extensions), NCCL (Qwen3#873) → 0.8; (2) NVML's figure for
the process exceeds reserved memory by > 1.5 GiB (CUDA context is 0.3-1.2 GiB; more means NCCL buffers,
cuBLAS workspaces, extensions or a second framework; VGen#104: 2.1 GiB) → 0.3 + 2 × share of the GPU (max
0.6). Covers the article's "custom extensions leaking device memory" row (growth of this figure over time).
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules import held_outside
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line
from gpudesk.units import GIB as GiB
from gpudesk import i18n
from gpudesk.i18n import _

_LIBRARY_KINDS = {"cublas_alloc_failed", "cudnn_alloc_failed", "cuda_error_oom", "nccl_oom", "pin_memory_thread"}


def check(f: Facts) -> Cause | None:
    r = f.report
    if r.kind in _LIBRARY_KINDS and (r.signature is None or r.kind == "pin_memory_thread"):
        status = r.parsed.get("library_status")
        conf = 0.8
        if r.framework == "tensorflow":
            conf = 0.5  # TF: usually its own preallocation took the memory first (see preallocation).
        fix = (_("Free GPU memory before the library initialises: run on a GPU with free memory (CUDA_VISIBLE_DEVICES), "
               "stop other processes on it, or load less onto it first"))
        title = _("A CUDA library could not allocate memory")
        explanation = (_("The failure happened outside PyTorch's caching allocator (cuBLAS/cuDNN handles and "
                       "workspaces, CUDA context, NCCL, extensions): the GPU was already full when the library "
                       "asked for memory."))
        more = [_("Run with CUDA_LAUNCH_BLOCKING=1 to see the exact call that failed."),
                _("Reduce cuBLAS workspaces: CUBLAS_WORKSPACE_CONFIG=:4096:2 (fewer, smaller workspaces).")]
        if r.parsed.get("collective_library") == "HCCL":
            fix = _("Leave device memory for HCCL's buffers: lower the framework's share of the NPU (vLLM "
                    "--gpu-memory-utilization, SGLang --mem-fraction-static) or shrink them with HCCL_BUFFSIZE (MB per "
                    "communicator, default 200)")
            title = _("HCCL could not allocate its communication buffers")
            explanation = _("HCCL, the Ascend collective library, allocates its communication buffers through the CANN "
                            "runtime, outside torch_npu's caching allocator: the NPU was already filled by the "
                            "framework's own pool when the collective asked for them.")
            more = [_("Count the communicators: each process group (TP, EP, DP) has its own buffers, and MoE "
                      "dispatch/combine (MC2) operators add tiling buffers on top."),
                    _("Run with ASCEND_LAUNCH_BLOCKING=1 to see the exact call that failed.")]
        if r.kind == "pin_memory_thread":
            fix = _("Set the device in the DataLoader pin-memory thread's process (torch.cuda.set_device(local_rank)) or pin_memory=False")
            title = _("The DataLoader pin-memory thread failed on the GPU")
            explanation = (_("The DataLoader's pin-memory thread copies batches to page-locked memory for the GPU. It "
                           "uses the current device (GPU 0 unless set), so on other ranks it creates a CUDA context on "
                           "GPU 0 (pytorch#58626), and it fails when that GPU is already full."))
            more = [_("Run with CUDA_LAUNCH_BLOCKING=1 to see the exact call that failed."),
                    _("Lower prefetch_factor / num_workers: pinned batches in flight grow with both.")]
        return Cause(
            id="allocation_outside_allocator",
            title=title,
            confidence=conf,
            evidence=evidence(error_kind=r.kind, library_status=status, library_call=r.parsed.get("library_call")),
            explanation=explanation,
            fix=fix,
            more_fixes=more,
        )
    outside = _outside(f)
    if outside is not None:
        return outside
    np_bytes = f.non_pytorch
    if np_bytes is None or np_bytes <= 1.5 * GiB:
        return None
    share = f.share(np_bytes) or 0
    return Cause(
        id="allocation_outside_allocator",
        title=_("Memory used outside PyTorch's allocator"),
        confidence=clamp(0.3 + 2 * share, hi=0.6),
        evidence=evidence(non_pytorch_bytes=np_bytes, this_process_bytes=f.dev.process_used_bytes if f.dev else None,
                          reserved_bytes=f.reserved, non_pytorch_ratio=round(share, 3)),
        explanation=_("NVML counts this process's memory above what the allocator reserved: CUDA context, NCCL "
                    "buffers, cuBLAS/cuDNN workspaces, extensions calling cudaMalloc or another framework."),
        fix=_("Find the non-PyTorch user: NCCL (NCCL_BUFFSIZE, fewer communicators), cuBLAS workspaces "
            "(torch._C._cuda_clearCublasWorkspaces()), extensions or a second framework (JAX/TF/CuPy pools)"),
        checks=[_("Extensions leaking device memory: this figure grows over steps while reserved stays flat.")],
    )


def _check_line(key: str, platform: str | None) -> str:
    return check_line(command=check_command(key, platform), meaning=i18n._(CHECKS[key].meaning))


def _outside(f: Facts) -> Cause | None:
    """The account's remainder: total − free − this process's allocator − listed processes, when the message
    names neither this process's NVML figure nor the other processes. At least 2 GiB and a quarter of the GPU
    (kyuz0/amd-strix-halo#3: 69 of 128 GiB) is held outside this process's allocator: another process (a
    container hides its PID), a zombie, or this process's own non-PyTorch memory (0.9; it outranks "the live
    tensors fill the GPU", which they do not). When the remainder is far above what one CUDA context holds and the
    text names no in-process holder, another process is the likelier reading (``other_process`` 0.9, this cause
    0.6; :mod:`gpudesk.oom.rules.held_outside`); both name the check that decides it."""
    if not held_outside.remainder_is_large(f):
        return None
    assert f.outside is not None and f.total is not None
    share = f.outside / f.total
    # Another process is the likelier holder when the remainder is far above a CUDA context (rules/held_outside).
    others_first = held_outside.others_first(f)
    return Cause(
        id="allocation_outside_allocator",
        title=_("Memory held outside this process's allocator fills the GPU"),
        confidence=(held_outside.POOL_LARGER_CONFIDENCE if held_outside.pool_outweighs_remainder(f)
                    else 0.6 if others_first else 0.9),
        evidence=evidence(outside_allocator_bytes=f.outside, outside_allocator_ratio=round(share, 3),
                          total_capacity_bytes=f.total, free_bytes=f.free, reserved_bytes=f.reserved,
                          allocated_bytes=f.allocated, requested_bytes=f.requested),
        explanation=(_("{share:.0%} of the GPU is neither free nor held by this process's allocator: another process (hidden from the message, e.g. in another container), a zombie, or this process's own memory outside PyTorch (CUDA context, NCCL, other frameworks).").format(share=share)),
        fix=(_("Find the holder: nvidia-smi / rocm-smi --showpids on the host (containers hide other PIDs); stop it or "
             "move this job to a free GPU. On an APU, other programs share this memory: close them or raise the GPU carve-out")),
        more_fixes=[_("If the holder is this process: look for a second framework (JAX/TF/CuPy pools) or NCCL buffers.")],
        checks=[_check_line("other_process", f.report.platform)],
    )
