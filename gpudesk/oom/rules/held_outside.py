"""Who holds the memory that is neither free nor in this process's allocator (the account's remainder).

An allocator's out-of-memory message gives total, free and what the allocator holds (PyTorch: "X GiB total
capacity; Y free; Z reserved in total by PyTorch", or "of which Y is free ... Of the allocated memory A is allocated
by PyTorch, and C is reserved by PyTorch but unallocated"). The remainder ``total − free − reserved`` is held by
either (a) another process on the GPU, or (b) this process outside its allocator. One message cannot tell them apart;
one command can: ``nvidia-smi --query-compute-apps=pid,used_memory --format=csv`` lists every process's memory
(NVML ``nvmlDeviceGetComputeRunningProcesses``), and this process's line minus reserved memory is (b).

What the figures say before that check is run:

* (b) in a single-framework process is the CUDA context plus the cuDNN/cuBLAS handles and workspaces: 0.3-1.2 GiB
  (returnn#1469: 1.19 GiB per rank with nothing else on that GPU; oom.md §5). So at most
  :data:`OWN_NON_ALLOCATOR_BYTES` of the remainder is this process's own unless the text shows something that holds
  more in-process: NCCL communicators (torch.distributed / DeepSpeed / DDP), a second framework's pool in the same
  traceback (TensorFlow, JAX/XLA, CuPy), or PyTorch's own "Including non-PyTorch memory, this process has" figure.
* What is left, ``remainder − OWN_NON_ALLOCATOR_BYTES``, is memory other processes hold. When it is at least 1 GiB
  and a quarter of the GPU, another process is the first cause (0.9) and this process's non-allocator memory the
  second (0.6); with an in-process holder named in the text the order is reversed. Threads where the remainder was
  large and the resolution was found: erikguo/yolov3#4 (kill the other process), ResidualMaskingNetwork#15 (other
  programs), FastMRI_challenge#238 (a zombie), LlamaFactory#182 (CUDA_VISIBLE_DEVICES overwritten: a shared GPU).
* Both readings rank the remainder above the job's own need because, with it that large, the live tensors do not fill
  the GPU. That premise fails when this process's allocator holds more than the remainder: PyTorch's "reserved in
  total by PyTorch" is every segment its caching allocator holds, and the "free" figure is read after the allocator
  has returned its cached whole segments to the driver (``release_cached_blocks`` before the OOM is raised,
  c10/cuda/CUDACachingAllocator.cpp ``malloc``), so a reserved figure above the remainder is the job's own working set
  being the GPU's largest occupant. The job's need leads there and the remainder is read second
  (:data:`POOL_LARGER_CONFIDENCE`, with the same check): xinge008/Cylinder3D#109 (10.15 GiB reserved, 4.12 outside
  of 14.76: a smaller batch), MouseLand/cellpose#591 (17.03 reserved, 6.97 outside of 24: whole-image flow arrays, run
  on the CPU), yezhen17/3DIoUMatch-PVRCNN#3, ranahanocka/MeshCNN#105.
* That demotion stops where the memory held by others is itself a compute job's worth:
  :data:`COMPUTE_HOLDER_BYTES` (8 GiB) or more beyond this process's own context. What a desktop session keeps on a
  GPU (the compositor, browsers and other GPU-accelerated programs) is a few GiB at most and is a fixed cost the user
  lives with, so below that the job's own size stays the lever; 8 GiB and more is another training run, an inference
  server or a simulator on the same card, a holder that can be stopped or moved. The demotion's own threads all sit
  below it (0.9-5.8 GiB held by others); the threads above it were resolved as another process: zihaosheng/VLM-RL#12
  (a CARLA server on the same GPU, 9.4 GiB), vllm-project/vllm#783 (the reporter's 15 GB of other processes) and
  vllm#1201 (13.6 GiB still in use after vLLM exited). vLLM 0.1.x sized its KV cache as ``total ×
  gpu_memory_utilization − torch.cuda.max_memory_allocated()`` (``vllm/worker/worker.py``
  ``profile_num_available_blocks``): its own peak only, so memory another process holds is what its pool then fails
  to find, and the pool outweighing the remainder there is the engine filling the card, not the job's need. Another
  process is first again (0.9), the job's need second.
* AMD GPUs are left to the older reading (the remainder is "outside the allocator", 0.9): the APUs ROCm runs on
  (Strix Halo, Phoenix) share system memory with every program, and those programs are not GPU processes that
  ``rocm-smi --showpids`` would list (kyuz0/amd-strix-halo-image-video-toolboxes#3).
"""

from __future__ import annotations

from gpudesk.oom.rules.base import Facts
from gpudesk.units import GIB as GiB

# This process's own memory outside the allocator with one framework and no collectives: a CUDA context with
# cuDNN/cuBLAS loaded (0.3-1.2 GiB; returnn#1469 measures 1.19 GiB per context on a V100).
OWN_NON_ALLOCATOR_BYTES = int(1.2 * GiB)
# Text that names an in-process holder of memory outside PyTorch's allocator (lower-cased substrings).
_IN_PROCESS_HOLDERS = ("nccl", "torch.distributed", "distributeddataparallel", "deepspeed", "init_process_group",
                       "including non-pytorch memory", "tensorflow", "jax", "xla_", "cupy", "hccl")


def remainder_is_large(f: Facts) -> bool:
    """The remainder is at least 2 GiB and a quarter of the GPU, and no process list explains it."""
    return (not f.mps and f.outside is not None and f.total is not None and f.dev is not None
            and not f.dev.other_processes and f.outside >= max(2 * GiB, f.total / 4))


# The remainder's readings when this process's own allocator holds more than the remainder (module docstring): below
# the job's own need read from a full device (0.6-0.85), still named with the check that decides it.
POOL_LARGER_CONFIDENCE = 0.5


# Memory held by other processes from which on it is another compute job's, not a desktop session's (module docstring).
COMPUTE_HOLDER_BYTES = 8 * GiB


def pool_outweighs_remainder(f: Facts) -> bool:
    """This process's allocator reserved more than the memory held outside it (module docstring)."""
    return f.reserved is not None and f.outside is not None and f.reserved > f.outside


def others_hold_compute_job(f: Facts) -> bool:
    """Other processes hold a compute job's worth of this GPU (:data:`COMPUTE_HOLDER_BYTES`), beyond what a desktop
    session keeps: the pool outweighing the remainder no longer puts the job's own need first (module docstring)."""
    others = held_by_others_bytes(f)
    return others is not None and others >= COMPUTE_HOLDER_BYTES


def held_by_others_bytes(f: Facts) -> int | None:
    """The remainder less what this process plausibly holds itself outside its allocator; None when unknown."""
    if f.outside is None:
        return None
    return max(0, f.outside - OWN_NON_ALLOCATOR_BYTES)


def others_first(f: Facts) -> bool:
    """Another process is the likelier holder of the remainder (module docstring)."""
    if f.report.platform == "rocm" or f.total is None:
        return False
    others = held_by_others_bytes(f)
    if others is None or others < max(GiB, f.total / 4):
        return False
    low = (f.report.text or "").lower()
    return not any(word in low for word in _IN_PROCESS_HOLDERS)
