"""Signatures that say what kind of failure a text is, before any figure is weighed (issue 28).

Many messages that read like "out of memory" are not about the GPU's memory capacity at all, and the words
of the message say so. Each signature names the mechanism and the one check that tells it apart
(:data:`CHECKS`):

* ``shared_memory``: Triton's ``OutOfResources: out of resource: shared memory, Required: R, Hardware limit: L``
  is the kernel's shared memory per thread block (48-228 KiB per SM, CUDA C Programming Guide, "Compute
  Capabilities" table), raised by ``triton/compiler/compiler.py`` before launch; XLA:TPU's "Ran out of memory in
  memory space vmem" (or smem) is the TPU core's on-chip vector (scalar) memory, the same kind of limit
  (cloud.google.com/tpu/docs/system-architecture-tpu-vm, Pallas TPU docs); device memory (HBM) is not involved.
* ``host_ram``: PyTorch's ``DefaultCPUAllocator`` (``c10/core/impl/alloc_cpu.cpp``), ggml's CPU buffer,
  ``Error code 12 (Cannot allocate memory)``, Caffe's ``host allocation of size N failed`` (``CaffeMallocHost``,
  ``include/caffe/syncedmem.hpp``), ONNX Runtime's arena on a CPU-provider node (``_nchwc`` nodes, a
  ``CPUExecutionProvider``-only session), Python's ``MemoryError``, C++ ``std::bad_alloc``, the JVM's
  ``java.lang.OutOfMemoryError``, Windows' ``ERROR_COMMITMENT_LIMIT`` (system error 1455, "The paging file is too
  small for this operation to complete", learn.microsoft.com "System Error Codes (1300-1699)": the commit limit, RAM
  plus page file, is reached; PyTorch meets it loading its CUDA DLLs in each DataLoader worker), a runtime's own check of the model against system RAM before loading (Ollama's
  "model requires more system memory (N GiB) than is available (M GiB)", ``llm/server.go``) (not a ``std::bad_alloc`` that RMM or Thrust throw for device memory, which they
  derive from it: the text then names them or a CUDA error), Rust's global allocator failing ("memory allocation of N bytes failed" at the start
  of a line, ``default_alloc_error_hook`` in ``library/std/src/alloc.rs``: candle, mistral.rs and other Rust runtimes
  abort with it) and the Linux OOM killer ("Killed", "oom-kill") are host allocations (RAM, swap, the Windows page
  file). So are the host allocators named by their source file or their own wording: OpenCV's ``cv::fastMalloc``
  (``modules/core/src/alloc.cpp``, raising ``cv::OutOfMemoryError`` with code -4 "Insufficient memory"; its CUDA
  allocations fail as "(-217:Gpu API call)" instead), NumPy's array allocation ("Unable to allocate N GiB for an
  array with shape ...", ``numpy/core/src/multiarray/ctors.c``, an ``_ArrayMemoryError``), and TensorFlow's CPU
  allocator ("OOM when allocating tensor ... on /job:.../device:CPU:0 by allocator cpu", its GPU allocator is
  ``GPU_0_bfc``; "Allocator (cpu) ran out of memory").
* ``sigkill``: a process ended by SIGKILL with no out-of-memory words of its own (the shell's "Killed" line, torchrun's
  ``ChildFailedError`` "exitcode: -9" from ``torch/distributed/elastic/multiprocessing/api.py``, "<Signals.SIGKILL: 9>"):
  the Linux OOM killer ends the process with the largest badness score with SIGKILL when RAM and swap run out
  (``mm/oom_kill.c``, "Out of memory: Killed process N"), so host RAM is the likelier reading; a scheduler or a user
  kills the same way, hence not a certain one (the kernel log decides).
  The same kill in the shapes of :mod:`gpudesk.oom.exit_marks` ("Killed" glued to a progress bar or quoted as code,
  Ollama's "llama runner exited, you may not have enough available memory") reads as ``sigkill`` too.
* ``load_exit_paused``: a Windows console's pause prompt right after a checkpoint-loading bar that stopped before its
  last shard, with no error (:mod:`gpudesk.oom.exit_marks`): python.exe ended while reading the checkpoint into RAM,
  the commit limit (RAM + page file).
* ``worker_exit_shm``: PyTorch's "DataLoader worker (pid(s) N) exited unexpectedly" inside a container: the workers'
  shared memory (``/dev/shm``, 64 MiB in Docker by default) first (:mod:`gpudesk.oom.exit_marks`).
* ``worker_exit``: the same line with no container named, or "is killed by signal" with the signal left out: the
  host's OOM killer first, as a likelier reading (:func:`gpudesk.oom.exit_marks.worker_found_dead`).
* Limits said in words (:mod:`gpudesk.oom.limit_words`): a kernel's dynamic shared memory above the device's opt-in
  limit is ``shared_memory``, one buffer beyond the device's maximum buffer size is ``buffer_limit``.
* ``graph_buffer``: ggml's graph allocator refusing the single buffer of a whole compute graph with no size given
  ("Failed to allocate buffer for graph", vision.cpp): a driver's per-allocation limit first, weakly, the shortage
  beside it (``_GRAPH_BUFFER_REFUSED``).
* ``sigtrap_mac``: a process ended by SIGTRAP as macOS's shell reports it ("Trace/BPT trap: 5", the BSD description
  of signal 5; Linux's glibc words it "Trace/breakpoint trap") while a model was running (a step progress bar, PyTorch,
  MPS, Metal, MLX or diffusers named). On a Mac the GPU is Apple silicon's, sharing the system's memory; when a
  Metal allocation cannot be backed (unified memory and swap exhausted, or PyTorch's MPS limit turned off with
  ``PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0``) the Metal/MPS frameworks end the process with a trap instead of raising a
  Python error: "the message we expect on OOM with MPS" (huggingface/diffusers#11315, a 36 GB transformer on a 24 GB
  iMac). A trap has other causes (a library's assertion), so this is the likelier reading, not a certain one.
* A page-locked host allocation by TensorFlow's / XLA's StreamExecutor ("failed to alloc N bytes on host",
  ``cuMemHostAlloc`` in ``stream_executor/cuda/cuda_driver.cc``) is ``pin_memory``.
* ``dev_shm``: a DataLoader worker killed by SIGBUS is a worker that touched a page of POSIX shared memory that
  ``/dev/shm`` (a tmpfs in host RAM) could not back: PyTorch's worker signal handler prints "ERROR: Unexpected bus
  error encountered in worker. This might be caused by insufficient shared memory (shm)." (``torch/csrc/
  DataLoader.cpp``, ``SIGNAL_HANDLER(SIGBUS, ...)``), its main process "DataLoader worker (pid N) is killed by signal:
  Bus error. It is possible that dataloader's workers are out of shared memory" (``torch/utils/data/dataloader.py``),
  PaddlePaddle the same ("Unexpected BUS error encountered in DataLoader worker ... /dev/shm", ``paddle/fluid/
  imperative/data_loader.cc``); a tensor the workers cannot write to ``/dev/shm`` fails as "unable to write to file
  </torch_...>: No space left on device", and PyTorch's ``MapAllocator`` (``aten/src/ATen/MapAllocator.cpp``, ``TH/
  THAllocator.c`` before 1.0) names that file in each of its failures ("unable to write to file </torch_...>",
  "unable to open shared memory object </torch_...>", "unable to mmap N bytes from file </torch_...>", "unable to
  resize file </torch_...>"): ``/torch_<pid>_<n>`` is the ``shm_open`` name of a tensor shared between processes, so
  the file, whatever error follows it, is in ``/dev/shm``. Docker gives a container 64 MiB of ``/dev/shm`` unless ``--shm-size`` or
  ``--ipc=host`` says otherwise (docs.docker.com, "docker run --shm-size"). Host memory, not the GPU's. Any runtime
  that sizes a POSIX shared-memory object fails the same way when that filesystem is full: ``shm_open`` objects live
  in ``/dev/shm`` on Linux (shm_overview(7)) and ``ftruncate``/``posix_fallocate`` on them return ENOSPC, "No space
  left on device", e.g. Triton's Python backend "Unable to initialize shared memory key ... to requested size (N
  bytes) ... Error: No space left on device" (triton-inference-server/python_backend, ``src/shm_manager.cc``).
* ``shm_segment``: NCCL's shared-memory transport between the ranks of one node maps a segment per peer pair in
  ``/dev/shm`` (``ncclShmOpen``, ``src/misc/shmutils.cc``, ``include/shm.h`` before 2.12, https://github.com/NVIDIA/nccl:
  "Call to posix_fallocate failed: No space left on device", "Error while creating shared memory segment <name> (size
  N)"; 2.12+ "Error: failed to extend /dev/shm/nccl-XXXXXX to N bytes, error: No space left on device (28)"; then
  ``ncclSystemError`` "unhandled system error"); in a container ``/dev/shm`` is 64 MiB unless ``--shm-size``
  or ``--ipc=host`` says otherwise (nccl#342): host memory, not the GPU's. ``NCCL_SHM_DISABLE=1`` routes around it.
* ``absurd_size``: a request of 64 TiB or more (:data:`ABSURD_REQUEST_BYTES`) or 64 times the card
  (:func:`absurd_for_device`), PyTorch's "more than 1EB" (its formatter's overflow text), a
  request of exactly 2**32 - 1 bytes (:data:`WRAPPED_MINUS_ONE_BYTES`, -1 in a 32-bit unsigned size) or a
  negative size is a garbage size (an overflow, an uninitialised shape, a corrupted model), not a need.
* ``ecc``: ``uncorrectable ECC error encountered`` (``cudaErrorECCUncorrectable``): a GPU memory fault.
* ``checkpoint_version``: an out-of-memory raised inside ``loadCheckpoint(`` with no request figure: a binary
  checkpoint read by another version or GPU, its sizes garbage (:data:`CHECKPOINT_RESTORE`; ``absurd_size``'s check).
* ``xid``: an ``Xid`` or "fallen off the bus": the driver lost the GPU; also an NVLink error line, or a GPU program no
  signal could stop after a CUDA error (:func:`gpu_fault_without_xid`).
* ``driver_version``: ``CUDA driver version is insufficient for CUDA runtime version`` (error 35) and its
  relatives (803 "system has unsupported display driver / cuda driver combination", 804, and 100 "no CUDA-capable
  device is detected"): the toolkit the program was built with needs a newer driver, or CUDA could not start at all.
* ``runtime_unusable``: a CUDA memory call (cudaMalloc, cudaMemGetInfo, cuMemAlloc) that failed with "unknown error"
  (cudaErrorUnknown) and never with out-of-memory: the runtime cannot work with the driver (``_CUDA_CALL_UNKNOWN_ERROR``),
  the driver's state read by the ``driver_version`` check.
* ``expandable_segments``: ``CUDA driver error: out of memory`` is only formatted by ``C10_CUDA_DRIVER_CHECK``
  (``c10/cuda/driver_api.h``), which inside the caching allocator wraps the expandable-segment calls
  (``cuMemCreate``/``cuMemMap``/``cuMemSetAccess``) only; platforms without full virtual-memory support (Tegra,
  some drivers) refuse them with memory free.
* ``buffer_limit``: one buffer above the device's per-allocation limit: Metal's ``maxBufferLength`` (MLX's
  "greater than the maximum allowed buffer size", ggml's "larger than buffer maximum"), ggml's fixed context
  pool ("not enough space in the context's memory pool"), and Vulkan's ``maxMemoryAllocationSize`` (commonly
  2-4 GiB, vulkaninfo; llama.cpp#5441, #12817): a Vulkan allocation of 2 GiB or more that fails reads as this
  limit (``vulkan_large``, a weaker reading) before capacity. A Vulkan buffer creation that fails with no size and
  no figure in the text at all (IREE's "VK_ERROR_OUT_OF_DEVICE_MEMORY; vmaCreateBuffer", iree#5268) is that limit or a
  small memory heap first (``vulkan_unsized``, weaker still): the Vulkan spec lets ``vkAllocateMemory`` return
  ``VK_ERROR_OUT_OF_DEVICE_MEMORY`` for one allocation above ``maxMemoryAllocationSize``, and a buffer asked for
  device-local and host-visible memory gets the 256 MiB BAR heap without Resizable BAR (iree#12876, #13516: 26 GB
  allocated once the memory type was device-local only). The validation layer's own words for an allocation above the
  whole heap of a memory type ("attempting to allocate N bytes from heap H, but size of that heap is only M bytes"),
  with a heap of 256 MiB or less, are that small heap for certain (``vulkan_heap``,
  :func:`gpudesk.oom.limit_words.heap_size_exceeded`).
  Intel GPUs under Level Zero cap one allocation below 4 GiB unless the program opts in to larger buffers
  (``UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1`` and the ``-ze-opt-greater-than-4GB-buffer-required`` build option,
  Intel oneAPI GPU Optimization Guide, "Allocations Greater Than 4 GB"; intel-extension-for-pytorch#846, #863):
  an ``XPU out of memory`` of 4 GiB or more reads as that limit (``xpu_large``, as weak as ``vulkan_large``); a
  runtime that states its per-allocation limit in words ("can NOT allocate memory block with size larger than 4GB",
  intel/ipex-llm#11248, fixed by keeping the block under 4 GB) is that limit outright, its figure read as the limit.
* ``illegal_address``: ``an illegal memory access was encountered`` (``cudaErrorIllegalAddress`` /
  ``CUDA_ERROR_ILLEGAL_ADDRESS``, error 700, CUDA Runtime API "Error Handling"): a kernel read or wrote outside
  its allocations (an index out of range, a library built for another GPU, a race); it is reported at the next
  synchronising call, so the traceback names a later op. Memory capacity is not involved; the text counts as this
  only when it names no out-of-memory failure of its own.
* ``pin_memory``: page-locked host memory (``pin_memory=True``, ``cudaHostAlloc``/``cudaMallocHost``, ggml's
  ``CUDA_Host`` buffers) has its own limit, small under WSL2 ("Pinned system memory ... is limited", NVIDIA
  CUDA on WSL User Guide, Known Limitations); PyTorch's caching host allocator (``CachingHostAllocator.cpp``,
  ``THCCachingHostAllocator.cpp`` before 1.5) is the allocator of these buffers, so its failure is one of them;
  registering existing host memory for the GPU (``cudaHostRegister``, ``hipHostRegister``, HIP's ``hipHostMalloc``)
  page-locks it the same way (CUDA Runtime API "Memory Management"; HIP "Host memory"), so a refusal there is this
  limit too (ROCm/legacy-rocm-build#1483: ``hipHostRegister: Returned hipErrorOutOfMemory``).

* ``va_reserve``: ``cuMemAddressReserve`` (``hipMemAddressReserve``) reserves a range of virtual addresses and maps
  no memory (CUDA Driver API, "Virtual Memory Management": "Reserve a virtual address range"); its
  ``CUDA_ERROR_OUT_OF_MEMORY`` is the address space refused, not device memory. llama.cpp's CUDA pool reserves
  ``GGML_CUDA_POOL_VMM_MAX_SIZE`` up front this way (``ggml_cuda_pool_vmm``, ggml-cuda.cu); a smaller reservation or
  the legacy pool fixed it (llama.cpp#4680, PR #4687). The device's free memory is the check.

* ``vmm_handle``: HIP's ``hipMemCreate`` (the physical half of its virtual-memory API, mapped later with
  ``hipMemMap``) failing with no figure of its own: ROCm exports each handle as a dmabuf file descriptor that the
  process keeps open, so many small allocations stop at the open-files limit (``ulimit -n``, 1024 by default) and are
  reported as ``hipErrorOutOfMemory`` with most of the device free (ROCm/legacy-rocm-build#6661, reproduced and fixed
  by AMD). PyTorch's allocator reports its own failures with figures ("HIP out of memory. Tried to allocate"), so the
  bare call is a direct VMM user's. A likelier reading, not a certain one (the free memory decides).
* ``managed_memory``: CUDA managed (unified) memory, ``cudaMallocManaged``: bitsandbytes' paged optimizers allocate
  their state with it (``csrc/pythonInterface.c``, ``cget_managed_ptr``, whose ``CUDA_CHECK_RETURN`` prints "Error
  out of memory at line N in file .../pythonInterface.c"), relying on pages migrating to host RAM when the GPU is
  full. Under WSL2 and on Windows managed memory cannot oversubscribe the device (NVIDIA "CUDA on WSL User Guide",
  Known Limitations: Unified Memory as on Windows), so the allocation is refused with GPU memory free; read so only
  where the host OS is WSL or Windows (InternLM/xtuner#319: torch.optim.AdamW instead of the paged optimizer).

Runtime signatures that decide the first cause without being "not capacity":

* ``context_init``: the failure is the CUDA context itself (``cuCtxCreate``, ``cuDevicePrimaryCtxRetain``,
  ``cudaSetDevice``, "failed initializing StreamExecutor"), or on Ascend the CANN device open (``aclrtSetDevice``
  / ``rtSetDevice`` failing in its MemoryPoolManager init, CANN runtime API reference; MindSpore's "Ascend kernel
  runtime initialization failed", ``mindspore/ccsrc/runtime/device/kernel_runtime_manager.cc``, which opens the device
  and its memory pool): it needs a few hundred MiB
  of a device that someone else already filled. An out-of-memory reported on the line of a runtime's own
  initialisation source (cutorch ``init.c``, NCCL ``init.cu``, PaddlePaddle's ``device_context.cc``, where the
  device's stream and library handles are created) is that start-up too (soumith/dcgan.torch#65: cutorch
  initialised on a GPU another job filled; pytorch#4921: every rank's NCCL init on GPU 0).
* ``pool_chunk``: PaddlePaddle's legacy allocator sizes its first GPU chunk up front as
  ``FLAGS_fraction_of_gpu_memory_to_use`` x (total - reserve) and refuses to start when that chunk is more than is
  available: ``PADDLE_ENFORCE_LE(allocating, available, "Insufficient GPU memory to allocation.")`` in
  ``GpuMaxChunkSize`` (``paddle/fluid/platform/gpu_info.cc``). The framework's own up-front reservation
  (``preallocation``): what else is on the GPU (another process) decides whether the fraction fits.
* ``scratch_reserve``: faiss's GPU resources reserve their temporary (scratch) memory up front in one allocation
  (``faiss/gpu/utils/StackDeviceMemory.cpp``, the ``Stack`` constructor; ``StandardGpuResources`` "alloc fail type
  TemporaryMemoryBuffer"), about 18 % of the GPU up to 1.5 GiB per resources object (faiss wiki, "Faiss on the GPU",
  scratch memory): a failed reservation is that up-front chunk (``preallocation``) not fitting beside what else holds
  the device; one object per thread multiplies it (faiss#835), ``setTempMemory`` sets its size. Newer releases word
  the same reservation as any other allocation, so a faiss failure of exactly a default scratch size
  (:data:`FAISS_SCRATCH_BYTES`) is read as it too.
* ``library_init``: cuDNN/cuBLAS handle creation (``CUDNN_STATUS_NOT_INITIALIZED``/``ALLOC_FAILED``,
  ``CUBLAS_STATUS_*``, XLA's "DNN library initialization failed", "Failed to determine best cudnn convolution
  algorithm", MXNet's "Create cublas handle failed", a ``cublasCreate``/``cudnnCreate`` call named) allocates its workspace with ``cudaMalloc`` outside the framework's allocator.
* ``metal_oom``: ``Insufficient Memory (kIOGPUCommandBufferCallbackErrorOutOfMemory)``: a Metal command buffer
  exceeded the GPU working set (``recommendedMaxWorkingSetSize``, raised with ``sysctl iogpu.wired_limit_mb``).
* ``allocator_nvml_assert``: ``NVML_SUCCESS == r INTERNAL ASSERT FAILED`` in ``CUDACachingAllocator.cpp``: the
  allocator's out-of-memory path could not query NVML (MIG slices): an OOM whose figures were lost.
* ``expandable_assert``: ``!block->expandable_segment_ INTERNAL ASSERT FAILED`` in ``CUDACachingAllocator.cpp``: the
  allocator's own bug when expandable segments are combined with other allocator options (pytorch#134338).
* ``bare_cuda_error``: ``CUDA error: out of memory`` with nothing else: a CUDA call outside the caching
  allocator failed (PyTorch's allocator reports its own failures as "Tried to allocate ..."), so the usual
  suspects are pinned host memory, another process, an ECC fault or a bad driver state.
* ``startup_pool``: a runtime that maps its own device pool at start (AMReX's arena, Taichi's field storage) failing
  there: its up-front reservation (``preallocation``), sized by its own knob.
* ``mlx_memory_limit``: MLX's "[malloc_or_wait] Unable to allocate N bytes": its Metal allocator's own memory limit
  (``mx.metal.set_memory_limit``, 1.5 x the recommended working set by default), read as ``per_process_cap``.
* ``arena_limit``: a pool refusing to grow past the limit configured for it, before the device is asked: ONNX
  Runtime's BFC arena ("Available memory of A is smaller than requested bytes of R", the session's ``gpu_mem_limit``)
  and RMM's pool resource ("Maximum pool size exceeded", ``maximum_pool_size``), read as ``per_process_cap``.
* ``token_pool_accounting``: an engine's KV-pool refusal whose own counts say the pool had the tokens (SGLang's
  "Decode out of memory ... Try to allocate N tokens ... Avaliable tokens: M" with M >= N): the scheduler's page
  bookkeeping, not capacity (:func:`token_pool_has_room`).
* ``nccl_cuda_error``: NCCL's "unhandled cuda error" (``ncclUnhandledCudaError``) with no out-of-memory words of its
  own: a CUDA call inside NCCL failed, a buffer allocation or a driver/peer-access call; ``NCCL_DEBUG=WARN`` names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudesk.i18n import N_, _
from gpudesk.oom import exit_marks, library_words, limit_words, need_have, pool_words, start_refusal_words, vgpu_words

PiB = 1024**5
# A request no machine could serve: above the memory of any single system, device and host together (the largest
# shared-memory servers hold tens of TiB; a GPU's own memory is under 1 TiB). CUDA.jl#1668: "Out of GPU memory trying to
# allocate 127.781 TiB", an uninitialised cuSPARSE buffer-size output.
ABSURD_REQUEST_BYTES = 64 * 1024**4
# A device request no GPU's memory comes near (thirty-ninth pass): 64 times the card the text names. The labelled cases
# place the line between 37x (pygod-team/pygod#72, a real 597 GiB edge tensor on a 16 GiB card) and 173x
# (ultralytics/yolov5#10528, 1936 GiB on 11 GiB) or 1974x (dcharatan/pixelsplat#45). A text that names no card is not
# read so: 32 TiB of real attention logits (leaderj1001/Attention-Augmented-Conv2d#18) and 21 TiB from a rasterizer's
# corrupted count (USTC3DV/FlashAvatar-code#18) read the same.
ABSURD_CARD_MULTIPLE = 64
# The 3D Gaussian-splatting rasterizer's forward pass (graphdeco-inria/diff-gaussian-rasterization,
# cuda_rasterizer/rasterizer_impl.cu, CudaRasterizer::Rasterizer::forward) sizes its binning buffer from
# ``num_rendered``, a 32-bit int copied back from the last element of its prefix sum over the Gaussians' tile counts:
# a few tens of bytes per (tile, Gaussian) pair (64- and 32-bit sort keys and values, doubled for the radix sort), so a
# valid count asks for at most about 2**31 pairs x 48 bytes = 96 GiB. A larger request under the rasterizer's frame
# comes from a count the kernels never wrote, the mark of an extension built for another GPU architecture or CUDA
# toolkit (sdbds/TRELLIS-for-windows#5: 712 GiB, the wheel built for sm_89 only; graphdeco-inria/gaussian-splatting#587:
# toolkit 12.3). A real large scene's request below that stays a size (hbb1/2d-gaussian-splatting#97: 35.79 GiB).
RASTERIZER_MAX_BINNING_BYTES = 2**31 * 48
_GAUSSIAN_RASTERIZER = re.compile(r"diff_gaussian_rasteri[sz]ation|\brasterize_gaussians\b|rasterizer_impl\.cu",
                                  re.IGNORECASE)


def absurd_for_device(text: str, requested: int | None, total_bytes: int | None) -> bool:
    """``requested`` is beyond any need: 64 times the card the text names, or above what the Gaussian rasterizer's
    32-bit pair count can size, under that rasterizer's frame."""
    if requested is None:
        return False
    if total_bytes is not None and requested >= ABSURD_CARD_MULTIPLE * total_bytes:
        return True
    return rasterizer_garbage(text, requested)


# Thrust's allocation failure ("std::bad_alloc: cudaErrorMemoryAllocation: out of memory", thrust::system::detail::
# bad_alloc, raised as Python's MemoryError by pybind11) from simple-knn's ``distCUDA2`` (the 3D Gaussian-splatting
# initialiser: each point's mean distance to its 3 nearest neighbours, once, on the input point cloud; a few arrays of N
# floats and a CUB sort, tens of MB for millions of points). Where the extension has no code for the GPU's
# architecture, or was built with another CUDA toolkit, CUB's dispatch sizes its temporary storage from kernels that
# never ran and Thrust's allocation fails on an empty card (graphdeco-inria/gaussian-splatting#961: Quadro RTX 8000
# 48 GB, TORCH_CUDA_ARCH_LIST missing the card; #740: V100 32 GB, binaries built for another GPU): the build, not the
# memory (``extension_arch``, the driver/toolkit check). Thirty-ninth pass.
_KNN_THRUST_BAD_ALLOC = re.compile(r"\bdistCUDA2\b[\s\S]{0,600}?std::bad_alloc:\s{0,3}cudaErrorMemoryAllocation",
                                   re.IGNORECASE)


def extension_arch_bad_alloc(text: str) -> bool:
    """Thrust's bad_alloc raised from simple-knn's distCUDA2 (see :data:`_KNN_THRUST_BAD_ALLOC`)."""
    return _KNN_THRUST_BAD_ALLOC.search(text) is not None


def beyond_card_only(requested: int | None, total_bytes: int | None) -> bool:
    """``requested`` is 64 times the card or more but below :data:`ABSURD_REQUEST_BYTES` (a garbage size that a large
    machine could still hold) and not the wrapped -1."""
    return (requested is not None and total_bytes is not None and requested != WRAPPED_MINUS_ONE_BYTES
            and ABSURD_CARD_MULTIPLE * total_bytes <= requested < ABSURD_REQUEST_BYTES)


def rasterizer_garbage(text: str, requested: int | None) -> bool:
    """A request above what the Gaussian rasterizer's 32-bit pair count can size, under that rasterizer's frame."""
    return (requested is not None and requested > RASTERIZER_MAX_BINNING_BYTES
            and _GAUSSIAN_RASTERIZER.search(text) is not None)


# -1 stored in a 32-bit unsigned size: 2**32 - 1 bytes exactly. No allocator asks for an odd all-ones byte count on its
# own (a real 4 GiB buffer is 2**32 bytes); a size computed as -1 (a count not found, an empty range's "last - first")
# and converted to ``uint32_t`` / a 32-bit ``size_t`` is (flow123d/flow123d#72: "Not enough memory for allocating
# 4294967295 bytes" from xmalloc, a wrong array size in DofHandler, release build only). The 64-bit value is above
# ABSURD_REQUEST_BYTES already.
WRAPPED_MINUS_ONE_BYTES = 2**32 - 1
VULKAN_LARGE_BYTES = 2 * 1024**3
# The PCIe BAR window through which the CPU maps VRAM without Resizable BAR: 256 MiB, the size of the DEVICE_LOCAL |
# HOST_VISIBLE heap Vulkan drivers expose then (AMD GPUOpen, "Vulkan device memory"; iree-org/iree#5268). A heap of this
# size or less that an allocation exceeds is that small heap (``vulkan_heap``), not the card.
VULKAN_BAR_HEAP_BYTES = 256 * 1024**2
XPU_LARGE_BYTES = 4 * 1024**3


@dataclass(frozen=True)
class Check:
    """The one check that tells a cause apart: what to run, and what its answer means."""

    key: str
    command: str
    meaning: str  # N_() sentence


CHECKS: dict[str, Check] = {
    "ecc": Check("ecc", "nvidia-smi -q -d ECC",
                 N_("Volatile or aggregate uncorrectable ECC counts above zero mean a GPU memory fault: reset the GPU "
                    "(nvidia-smi -r), or move the job to another GPU and report the card.")),
    "xid": Check("xid", "dmesg | grep -i xid",
                 N_("An Xid line (79: fallen off the bus, 48/63/64/94/95: memory errors, 31: page fault) at the time of "
                    "the failure means the driver lost or reset the GPU: reboot or reset it before rerunning.")),
    "driver_version": Check("driver_version",
                            "nvidia-smi; python -c \"import torch; print(torch.version.cuda)\"",
                            N_("The 'CUDA Version' nvidia-smi prints is the newest the driver supports; if the "
                               "framework's CUDA version is newer, update the driver or install a build for the "
                               "older CUDA.")),
    # Pinned (page-locked) host memory: the driver pins what cudaHostAlloc / cuMemHostAlloc / cudaHostRegister ask
    # for, limited by the host's RAM and, where the OS counts it, the locked-memory limit (RLIMIT_MEMLOCK; CUDA
    # Runtime API, "Memory Management": cudaHostAlloc "allocates ... page-locked", and "allocating excessive amounts of
    # pinned memory may degrade system performance"). A DataLoader's own switch: DATALOADER_PINNED_CHECK.
    "pin_memory": Check("pin_memory", "ulimit -l; free -h",
                        N_("If the locked-memory limit is small or the host's free RAM is below what the program "
                           "pins, pinning failed there: pin smaller buffers or fewer at once, or raise the limit "
                           "(under WSL2 raise the WSL memory, .wslconfig memory=).")),
    "shared_memory": Check("shared_memory", "num_stages=1, smaller BLOCK_M / BLOCK_N",
                           N_("The kernel asks for more shared memory per block than this GPU's SM has (the "
                              "'Hardware limit'); a smaller tile or fewer pipeline stages fit it, more GPU memory "
                              "does not.")),
    "host_ram": Check("host_ram", "free -h",
                      N_("This is host memory (RAM, swap, the Windows page file), not GPU memory: free or add RAM, "
                         "enlarge swap / the page file, or load in smaller pieces (mmap, low_cpu_mem_usage=True).")),
    "absurd_size": Check("absurd_size", "print(tensor.shape, tensor.dtype) at the failing op",
                         N_("No device has this much memory: the size is garbage (an overflow, an uninitialised or "
                            "negative dimension, a corrupted model or a bug after an earlier error); find the shape "
                            "that produced it.")),
    "expandable_segments": Check("expandable_segments", "unset PYTORCH_CUDA_ALLOC_CONF",
                                 N_("If the error goes away without expandable_segments, this platform (Tegra/Jetson, "
                                    "some drivers) refuses its virtual-memory calls; leave it off here.")),
    "buffer_limit": Check("buffer_limit", "vulkaninfo | grep maxMemoryAllocationSize",
                          N_("One buffer is larger than the device allows for a single allocation "
                             "(maxMemoryAllocationSize on Vulkan, maxBufferLength on Metal, a fixed ggml pool): split "
                             "it (smaller batch / ubatch / context, a newer build that splits buffers), whatever the "
                             "free memory.")),
    "free_exceeds_request": Check("free_exceeds_request",
                                  "nvidia-smi --query-gpu=memory.total,memory.used --format=csv",
                                  N_("If the GPU shows this much memory free while the allocation fails, the refusal "
                                     "comes from a limit (per-process cap, driver, WDDM/WSL, an APU's carve-out), not "
                                     "from capacity.")),
    "illegal_address": Check("illegal_address", "CUDA_LAUNCH_BLOCKING=1 compute-sanitizer --tool memcheck python ...",
                             N_("The first invalid read or write it reports names the kernel and the address out of "
                                "range: a bug in a kernel or its inputs (an index beyond a tensor, a library built for "
                                "another GPU), not a lack of memory; with no report there, an Xid 13/31 in dmesg points "
                                "at the driver or the hardware.")),
    "other_process": Check("other_process", "nvidia-smi --query-compute-apps=pid,used_memory --format=csv",
                           N_("Other processes listed on this GPU hold the memory the job needs: stop them or move "
                              "the job to a free GPU (CUDA_VISIBLE_DEVICES).")),
    "preallocation": Check("preallocation", "XLA_PYTHON_CLIENT_PREALLOCATE=false / TF_FORCE_GPU_ALLOW_GROWTH=true",
                           N_("If the error goes away with preallocation off, the framework's up-front pool left no "
                              "room for the library; keep growth on or lower the memory fraction.")),
}
# PaddlePaddle's switch from its up-front chunk to allocation on demand (paddle/phi/core/flags.cc,
# FLAGS_allocator_strategy: "naive_best_fit" reserves FLAGS_fraction_of_gpu_memory_to_use up front, "auto_growth"
# allocates as needed): the preallocation check of a Paddle message (gpudesk.oom.framework_checks).
PADDLE_PREALLOCATION_COMMAND = "FLAGS_allocator_strategy=auto_growth"

# Signatures of the failing call (not of the device's state): they decide only where no named format with its own
# figures was read (gpudesk.oom.parsers.detect).
CALL_SIGNATURES = ("pin_memory", "context_init", "library_init", "bare_cuda_error")
# The same checks on AMD GPUs (ROCm's rocm-smi; the amdgpu kernel driver logs its faults in dmesg).
ROCM_COMMANDS = {
    "ecc": "rocm-smi --showrasinfo all",
    "xid": "dmesg | grep -i amdgpu",
    "driver_version": "rocm-smi --showdriverversion; python -c \"import torch; print(torch.version.hip)\"",
    "other_process": "rocm-smi --showpids",
    "free_exceeds_request": "rocm-smi --showmeminfo vram",
}
METAL_MAX_BUFFER_COMMAND = ('python3 -c "import Metal; '
                            'print(Metal.MTLCreateSystemDefaultDevice().maxBufferLength())"')
# Intel GPUs (Level Zero): the device's per-allocation limit as OpenCL reports it.
XPU_COMMANDS = {"buffer_limit": "clinfo | grep -i 'max memory allocation'",
                "free_exceeds_request": "xpu-smi stats -d 0", "other_process": "xpu-smi ps"}


# Apple GPUs (Metal, MPS, MLX): the device's ``maxBufferLength`` (``MTLDevice.maxBufferLength``, through PyObjC's
# Metal bindings: the same command the Metal fix texts give).
METAL_COMMANDS = {"buffer_limit": METAL_MAX_BUFFER_COMMAND}


def check_command(key: str, platform: str | None) -> str:
    """The command of check ``key`` on ``platform`` (NVIDIA's tools unless the platform is ROCm, Intel's or Apple's)."""
    if platform == "rocm" and key in ROCM_COMMANDS:
        return ROCM_COMMANDS[key]
    if platform == "xpu" and key in XPU_COMMANDS:
        return XPU_COMMANDS[key]
    if platform in ("metal", "mps", "mlx") and key in METAL_COMMANDS:
        return METAL_COMMANDS[key]
    return CHECKS[key].command


def check_line(command: str, meaning: str) -> str:
    """One line of a cause's checks: the command to run and what its output decides (``meaning`` already translated).

    Every rule writes its check lines through this one format so the window, the CLI and the JSON read the same."""
    return _("{command}: {meaning}").format(command=command, meaning=meaning)


# The deciding check of ``dev_shm``: the size and use of the shared-memory filesystem (host RAM; ``host_ram``'s kind).
DEV_SHM_CHECK = Check("host_ram", "df -h /dev/shm",
                      N_("If /dev/shm is small (64M is Docker's default) or full, what passes data through it "
                         "(DataLoader workers, Ray's object store, any program that maps files there) ran out of "
                         "shared memory: start the container with --shm-size=8g or --ipc=host, or ask for less there "
                         "(fewer workers, a smaller object store)."))

# The deciding check of NCCL's shared-memory segments (``shm_segment``): the same filesystem, for the ranks of a node.
SHM_SEGMENT_CHECK = Check("host_ram", "df -h /dev/shm",
                          N_("If /dev/shm is small (64M is Docker's default) or full, NCCL could not create its "
                             "shared-memory segments between the ranks: start the container with --shm-size=8g or "
                             "--ipc=host, or set NCCL_SHM_DISABLE=1."))

# The deciding check of a driver allocation refused on native Windows for want of commit (RAM + page file;
# gpudesk.oom.user_context): the commit charge against its limit (``host_ram``'s kind).
PAGE_FILE_CHECK = Check("host_ram", "typeperf \"\\Memory\\Committed Bytes\" \"\\Memory\\Commit Limit\" -sc 1",
                        N_("If the committed bytes are near the commit limit (Task Manager > Performance > Memory > "
                           "Committed), the page file is too small for the driver's allocations: enlarge it or let "
                           "Windows manage it, whatever the GPU's free memory."))

# The deciding check of a process killed by SIGKILL (``sigkill``): the kernel log names the OOM killer's victim.
OOM_KILLER_CHECK = Check("host_ram", "dmesg -T | grep -i -E 'killed process|out of memory'",
                         N_("If the kernel log shows the OOM killer ending this process, host RAM ran out (the GPU is "
                            "not involved): load with mmap or low_cpu_mem_usage=True, use fewer DataLoader workers or "
                            "ranks per node, or add RAM or swap; with no such line, a scheduler or a user killed it."))

# The deciding check of ``pool_fallback``: the GPU's own use against its size. With the card far from full, the
# refusal came from the runtime's fixed pool and its size option is the setting to raise.
POOL_FALLBACK_CHECK = Check("buffer_limit", "nvidia-smi --query-gpu=memory.used,memory.total --format=csv",
                            N_("If the GPU is far from full, the refusal came from the runtime's own fixed-size pool, "
                               "not the GPU: raise that pool's size option (Triton: --cuda-memory-pool-byte-size) or "
                               "ignore the warning, since the runtime went on with other memory."))

# The deciding check of WebGPU's per-buffer limit (``buffer_limit`` in wgpu's or Dawn's words): the adapter's own limit
# against the one the device was created with.
WEBGPU_LIMIT_CHECK = Check("buffer_limit", "adapter.limits().max_buffer_size vs device.limits().max_buffer_size",
                           N_("If the adapter's limit is above the device's, the device was created with WebGPU's "
                              "default limit (256 MiB): request the adapter's limit; if the buffer is above the "
                              "adapter's own limit too, split it."))

# The deciding check of a Vulkan allocation above the size of its heap (``vulkan_heap``): the heaps and the memory types
# in them, with the flags each type has (vulkaninfo's VkPhysicalDeviceMemoryProperties section).
VULKAN_HEAP_CHECK = Check("buffer_limit", "vulkaninfo | grep -A4 -E 'memoryHeaps|propertyFlags'",
                          N_("If the heap named in the message is small (256 MiB) and a larger DEVICE_LOCAL heap is "
                             "listed, the allocation asked for a memory type in the small host-visible heap: ask for "
                             "DEVICE_LOCAL without HOST_VISIBLE (copy through a staging buffer) or enable Resizable "
                             "BAR; the card's memory is not full."))

# The deciding check of a limit on the number of resident Metal buffers (``buffer_limit`` read from MLX's "Resource
# limit (N) exceeded", :data:`RESOURCE_COUNT_LIMIT`): MLX's device information against the memory in use.
# The check of a request of exactly WRAPPED_MINUS_ONE_BYTES: 4 GiB fits many devices, so "no device has this much"
# would be false; the size is -1 wrapped, and the value to find is the one that came out as -1.
WRAPPED_SIZE_CHECK = Check("absurd_size", "print(tensor.shape, tensor.dtype) at the failing op",
                           N_("4,294,967,295 is -1 stored as an unsigned 32-bit size, not a buffer the program "
                              "meant: print the sizes and counts the allocation is computed from and find the one "
                              "that is -1 (a search that found nothing, an empty range)."))

# The deciding check of a Vulkan allocation refused for their number (``buffer_limit`` read from VK_ERROR_TOO_MANY_OBJECTS,
# :func:`gpudesk.oom.limit_words.vulkan_allocation_count`): the device's maxMemoryAllocationCount (Vulkan specification,
# VkPhysicalDeviceLimits) against the allocations the program makes.
VULKAN_COUNT_CHECK = Check("buffer_limit", "vulkaninfo | grep maxMemoryAllocationCount",
                           N_("The limit counts allocations, not bytes: a program that makes one allocation per small "
                              "buffer (a small tile size, many small tensors) reaches it with most of the memory free; "
                              "fewer, larger allocations (a larger tile) stay below it."))

BUFFER_COUNT_CHECK = Check("buffer_limit", "python3 -c \"import mlx.core as mx; print(mx.metal.device_info())\"",
                           N_("The limit in the message counts buffers, not bytes: with memory_size well above what "
                              "the program uses, many small arrays kept alive at once reach it; evaluate each step "
                              "(mx.eval) and drop arrays and caches you no longer need, or update MLX and mlx-lm."))

# The deciding check of TensorFlow.js's WebGL texture limit (``buffer_limit`` in its "greater than WebGL maximum" words):
# the GL context's MAX_TEXTURE_SIZE, which tfjs reads into its WEBGL_MAX_TEXTURE_SIZE flag
# (tfjs-backend-webgl/src/webgl_util.ts, getWebGLMaxTextureSize), in the browser that failed.
WEBGL_TEXTURE_CHECK = Check("buffer_limit", "tf.env().getNumber('WEBGL_MAX_TEXTURE_SIZE') in the browser's console",
                            N_("This is the largest width or height of one texture this browser and GPU allow; a "
                               "tensor whose texture has a side above it is refused whatever the free video memory. "
                               "If another browser or device prints a larger number, the model runs there as is."))

# The deciding check of a Tenstorrent core's L1 (``shared_memory`` in tt-metal's words): the same op with its tensors
# in DRAM (ttnn's memory_config; tt-metal#14840: "the tests pass with DRAM memory config").
TT_L1_CHECK = Check("shared_memory", "memory_config=ttnn.DRAM_MEMORY_CONFIG on the failing op's inputs and output",
                    N_("If the op runs with its tensors in DRAM, the per-core L1 (about 1.5 MB of SRAM on each Tensix "
                       "core) was the limit, not the chip's DRAM: keep the large tensors in DRAM, shard them over more "
                       "cores, or use a smaller block/tile configuration for the op."))

# The deciding check of an OpenCL device's per-allocation limit (``buffer_limit`` in OpenVINO's GPU plugin, which
# checks each memory object against CL_DEVICE_MAX_MEM_ALLOC_SIZE): clinfo prints it per device.
OPENCL_LIMIT_CHECK = Check("buffer_limit", "clinfo | grep -i 'max memory allocation'",
                           N_("If the failing object is larger than this, no setting of the memory makes it fit: "
                              "split it (a smaller batch, shorter inputs, lower precision)."))

# The check for a holder nvidia-smi cannot show (a process in another container's PID namespace, a zombie that keeps
# the device open): every process with an NVIDIA device file open, run as root on the host (fuser(1), psmisc).
HIDDEN_HOLDER_CHECK = Check("other_process", "sudo fuser -v /dev/nvidia*",
                            N_("If nvidia-smi lists no process but memory is in use, this lists every process that "
                               "holds the GPU open, including zombies and processes of other containers: end the "
                               "stale ones."))

# The deciding check of a process ended by a trap on a Mac (``sigtrap_mac``): memory pressure and swap while it runs.
MAC_MEMORY_CHECK = Check("host_ram", "sysctl vm.swapusage; memory_pressure",
                         N_("Run it again and watch these (or Activity Monitor's Memory Pressure): swap filling and "
                            "the pressure turning critical just before the trap mean the model did not fit the Mac's "
                            "unified memory; a trap with memory to spare is a library's assertion, not memory."))

# The deciding check of page-locked memory in ggml's CUDA backend (llama.cpp, Ollama): its host buffers are pinned by
# ggml_cuda_host_malloc unless GGML_CUDA_NO_PINNED is set (ggml/src/ggml-cuda/ggml-cuda.cu; llama.cpp#1735 under WSL2).
# PyTorch's DataLoader pins each batch in its pin-memory thread (torch/utils/data/_utils/pin_memory.py); its
# pin_memory=False turns that off: the check where the text shows a DataLoader.
DATALOADER_PINNED_CHECK = Check("pin_memory", "DataLoader(..., pin_memory=False)",
                                N_("If the error goes away with pin_memory=False, page-locked host memory was the "
                                   "limit (small under WSL2): keep it off there, or raise the WSL memory (.wslconfig "
                                   "memory=)."))

GGML_PINNED_CHECK = Check("pin_memory", "GGML_CUDA_NO_PINNED=1",
                          N_("If the error goes away with this set, page-locked host memory was the limit (small "
                             "under WSL2): keep it set there, or raise the WSL memory (.wslconfig memory=)."))

# RDMA verbs (libibverbs, used by UCX, NCCL's IB transport, MPI) register host memory with the adapter by pinning it,
# and the kernel counts what a process pins against RLIMIT_MEMLOCK: a registration or queue creation beyond it fails
# with ENOMEM, "Cannot allocate memory", while RAM is free (ibv_reg_mr(3); rdma-core's "Memory locking" notes on
# ulimit -l; openucx/ucx#8229: "ibv_create_cq(cqe=4096) failed: Cannot allocate memory", a memlock limit).
VERBS_ENOMEM = re.compile(r"\bibv_(?:reg_mr|create_cq|create_qp|create_srq|alloc_pd|reg_dmabuf_mr)\b[^\n]{0,200}?"
                          r"cannot allocate memory", re.IGNORECASE)
# Its deciding check: the locked-memory limit of the shell (or container) that starts the job.
VERBS_PINNED_CHECK = Check("pin_memory", "ulimit -l",
                           N_("If this prints a small number (64 is a common default) rather than unlimited, the "
                              "RDMA adapter could not pin more host memory: raise the limit (memlock in "
                              "/etc/security/limits.conf, docker run --ulimit memlock=-1, systemd LimitMEMLOCK)."))

# The deciding check of a cuDNN/cuBLAS handle that could not be created (``library_init``) read as a library problem:
# which cuDNN the loader finds and which one the framework was built with (``driver_version``'s kind), and how much
# memory was free when it failed (the memory reading).
# The deciding checks of the start-up refusals (gpudesk.oom.start_refusal_words).
ROCM_START_CHECK = Check("driver_version", "dmesg | grep -i -E 'amdgpu|kfd'; rocminfo | grep -i -E 'marketing|gfx'",
                         N_("If the kernel log shows amdgpu/kfd errors, or rocminfo fails or lists no GPU agent (or a "
                            "gfx target this ROCm release does not support), the driver or runtime refused to start: "
                            "install a ROCm release and kernel driver that support this GPU. The GPU's memory was "
                            "never reached."))
NVENC_SESSION_CHECK = Check("free_exceeds_request",
                            "nvidia-smi -q | grep -i -A3 encoder; "
                            "nvidia-smi --query-gpu=memory.used,memory.total --format=csv",
                            N_("If the encoder's active sessions are at the card's limit (GeForce cards allow only a "
                               "few at once) or the memory is mostly free, the encode session was refused for a "
                               "session limit or a driver fault, not for video memory: end other encodes or update "
                               "the driver."))
LIBRARY_CHECK = Check("driver_version",
                      "ldconfig -p | grep -E 'libcudnn|libcublas'; " + CHECKS["driver_version"].command
                      + "; python -c \"import torch; print(torch.backends.cudnn.version())\"",
                      N_("If no libcudnn is listed, or the cuDNN/CUDA the framework reports differs from the one "
                         "installed (JAX: jax.print_environment_info()), or the driver's 'CUDA Version' is older, the "
                         "library cannot start whatever is free: install the matching cuDNN or update the driver. If "
                         "they match and nvidia-smi shows the GPU nearly full, it is memory."))

# (Sixty-seventh pass) An allocation refused while a binary checkpoint of a simulation context is restored. OpenMM's
# Context.loadCheckpoint reads back the platform's internal arrays, their sizes included, from a stream written by
# saveCheckpoint (openmm/openmmapi/src/Context.cpp -> ContextImpl::loadCheckpoint -> each kernel's loadCheckpoint), and
# "Checkpoints are specific to the exact OpenMM version and hardware you used to generate them. If you need a file to
# be portable and backward compatible, save a state instead" (the maintainer, openmm/openmm#5252; the API
# documentation of Context.createCheckpoint says the same: "The checkpoint data is ... not portable ... between
# versions of OpenMM"). Read by another version the sizes are garbage, and an array of a small system fails as
# CUDA_ERROR_OUT_OF_MEMORY ("Error creating array random"): the input is the bug (``absurd_size``'s check), not the
# card. Only with no request figure read (a figure makes the capacity readings decide).
CHECKPOINT_RESTORE = re.compile(r"\bloadCheckpoint\s{0,2}\(")
CHECKPOINT_CHECK = Check("absurd_size", "Simulation.saveState(...) / loadState(...) instead of the checkpoint",
                         N_("A binary checkpoint can be read back only by the exact version and hardware that wrote "
                            "it; read by another, the sizes in it are garbage. If the run starts from a saved State "
                            "(or with the version that wrote the checkpoint), memory was never short."))

NOT_CAPACITY = ("rocm_start", "nvenc_session", "extension_arch", "dev_shm", "shm_segment", "shared_memory", "host_ram", "absurd_size", "ecc", "xid", "driver_version", "runtime_unusable", "expandable_segments",
                "va_reserve", "buffer_limit", "pin_memory", "illegal_address")

_XID = re.compile(r"\bXid\b")
# (Sixty-seventh pass) The same hardware fault without its Xid line. (1) An NVLink error said in words: NVLink faults
# are logged as Xid 74 ("NVLINK Error ... Hardware / Driver", docs.nvidia.com/deploy/xid-errors) and `nvidia-smi
# nvlink -e` counts them; a link that fails takes the GPUs it joins off the job. (2) A GPU program that cannot be
# stopped after a CUDA error: systemd logs "State 'stop-sigterm' timed out. Killing." when the service outlived
# TimeoutStopSec= after SIGTERM and "Processes still around after SIGKILL" when SIGKILL did not end it either
# (systemd src/core/service.c, service_dispatch_timer / service_sigchld_event); the kernel's hung-task watchdog says
# "task ... blocked for more than N seconds" (kernel/hung_task.c). A process no signal ends is asleep inside a kernel
# call, here the GPU driver waiting on a device that no longer answers, which the driver logs as an Xid (ollama/ollama#
# 2029: a mixtral runner hung after "CUDA error" and could not be killed until a reboot; a faulty NVLink board).
# Read only beside a CUDA/HIP error, so a slow shutdown of anything else stays out.
_NVLINK_ERROR = re.compile(r"\bNVLink\b[^\n]{0,60}?(?<!\b0 )(?<!\bno )(?<!\bzero )\b(?:errors?|fatal|fault|failures?|failed)\b",
                           re.IGNORECASE)  # a count of none ("0 errors") is not one
_UNKILLABLE = re.compile(r"State '(?:stop-sigterm|stop-sigkill|final-sigterm|final-sigkill|stop-final-sigterm|"
                         r"stop-final-sigkill)' timed out|Processes still around after (?:final )?SIGKILL|"
                         r"\bblocked for more than \d{2,5} seconds", re.IGNORECASE)
_GPU_ERROR_WORDS = re.compile(r"\b(?:cuda|hip)[ _](?:error|failure)\b|\bNVRM\b|\bcudaError\w{2,40}", re.IGNORECASE)


# (Sixty-seventh pass) A host buffer of a serving engine's offload, configured in the text beside a bare CUDA "out of
# memory" that no allocator's figures explain. These buffers are page-locked: vLLM's weight offload places each
# offloaded parameter in pinned CPU memory (vllm/model_executor/models/utils.py, maybe_offload_to_cpu:
# torch.empty_strided(..., device="cpu", pin_memory=is_pin_memory_available())), its V0 swap area for preempted KV
# blocks likewise (vllm/worker/cache_engine.py, pin_memory for device "cpu"), and its CPU KV offload connector
# registers the whole region (cpu_bytes_to_use) with cudaHostRegister (vllm-project/vllm#51080 and the fix #51081: one
# registration of 512 GiB or more fails with cudaErrorMemoryAllocation whatever is free, and the pending error is then
# reported as "CUDA error: out of memory" against an unrelated later call). A caching-allocator failure prints its
# request ("Tried to allocate"); a bare CUDA error with the host buffer's size configured is the page-locking, and its
# check is the pinned memory (RLIMIT_MEMLOCK, the buffer's size, the engine's switch to turn pinning off).
HOST_OFFLOAD_SETTING = re.compile(
    r"""["']?(?:--)?(?:cpu[_-]bytes[_-]to[_-]use|cpu[_-]offload[_-]gb|swap[_-]space|max[_-]local[_-]cpu[_-]size)"""
    r"""["']?\s{0,3}[:= ]\s{0,3}["']?\s{0,3}(\d[\d_.]{0,20}(?:e\d{1,2})?)""", re.IGNORECASE)


def host_offload_setting(text: str) -> bool:
    """A configured host (CPU) offload buffer of non-zero size in ``text`` (``HOST_OFFLOAD_SETTING``)."""
    for m in HOST_OFFLOAD_SETTING.finditer(text):
        try:
            if float(m.group(1).replace("_", "").rstrip(".")) > 0:
                return True
        except ValueError:
            continue
    return False


def gpu_fault_without_xid(text: str) -> bool:
    """An NVLink error line, or a GPU program no signal could stop after a CUDA/HIP error (``_UNKILLABLE``): the
    hardware / driver fault an Xid line would name (``xid``)."""
    if _GPU_ERROR_WORDS.search(text) is None and "nvlink" not in text.lower():
        return False
    return _NVLINK_ERROR.search(text) is not None or (
        _UNKILLABLE.search(text) is not None and _GPU_ERROR_WORDS.search(text) is not None)
# A Vulkan buffer or memory allocation call named in the text (VMA's vmaCreateBuffer / vmaAllocateMemory, Vulkan's
# vkAllocateMemory / vkCreateBuffer), and any size with a unit or in bytes (``vulkan_unsized`` needs none).
# Also vulkan.hpp's name of the same call (its exception reads "vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
# as ggml-vulkan prints it) and the call said in words ("Device memory allocation failed", llama.cpp#5441).
_VULKAN_BUFFER_CREATE = re.compile(r"\bvma(?:CreateBuffer|AllocateMemory\w{0,12})\b|\bvk(?:AllocateMemory|CreateBuffer)\b|"
                                   r"\bDevice::allocateMemory\b|\bdevice memory allocation\b", re.IGNORECASE)
# (Fifty-ninth pass) ggml's graph allocator refusing the one buffer that holds a whole compute graph, in the words of a
# program built on it: vision.cpp's ``compute_graph_allocate`` throws "Failed to allocate buffer for graph" when
# ``ggml_gallocr_alloc_graph`` fails (Acly/vision.cpp at 10349f7f292855e7d8ac19f23a1443c039d46e29, src/visp/ml.cpp).
# The graph allocator sizes one buffer for all the graph's intermediate tensors and asks the backend's buffer type for
# it in one piece, unsplit (ggml/src/ggml-alloc.c, ``ggml_gallocr_reserve_n``; ggml-org/llama.cpp#11332), so a large
# input makes it one very large allocation, which a driver's per-allocation limit refuses with memory free
# (Acly/krita-vision-tools#43: an AMD driver on Windows allowing 2 GB per allocation on a 16 GB card; #54: 4864x3328
# input on a 32 GB card, "GPU driver allocation limits for single layers"). The Krita plug-in's report of the same
# error spelled it "Faled" (#54, three times), read too. With no size and no figure the graph may equally not fit the
# device: a likelier reading (``graph_buffer``), with the shortage beside it.
_GRAPH_BUFFER_REFUSED = re.compile(r"\bfa(?:i)?led to allocate buffer for (?:the )?graph\b", re.IGNORECASE)
_ANY_SIZE = re.compile(r"\d\s{0,2}(?:[KMGT]i?B|bytes?)\b|\blength\s{0,2}\d", re.IGNORECASE)
# "bus error" with any word that names shared memory (see ``dev_shm`` above).
# CUDA managed memory named by its call or by bitsandbytes' allocator of it (``managed_memory`` above).
_MANAGED_WORDS = ("cudamallocmanaged", "cget_managed_ptr")


def names_managed_memory(text: str) -> bool:
    """The failing allocation is CUDA managed memory (``managed_memory`` above). Not a signature of its own: only the
    host OS (WSL2, Windows) makes it a limit, so the rule reads it (gpudesk.oom.rules.signature)."""
    low = flatten_whitespace(text)
    return any(w in low for w in _MANAGED_WORDS) or ("bitsandbytes" in low and "pythoninterface.c" in low)


# A runtime's allocator of unified (managed) memory named in the text, by its call or its own name (Taichi's
# ``UnifiedAllocator``, taichi/system/unified_allocator.cpp, which reserved its whole range with cudaMallocManaged:
# taichi-dev/taichi#390).
_UNIFIED_ALLOCATOR_WORDS = ("cudamallocmanaged", "cumemallocmanaged", "unifiedallocator", "unified_allocator")


def names_unified_allocator(text: str) -> bool:
    """The failing allocator hands out CUDA managed memory as a whole reserved range. Managed memory larger than the
    GPU needs demand paging, which only GPUs of compute capability 6.0 (Pascal) or newer on Linux provide (CuPy's
    ``malloc_managed``: "oversubscription is possible for GPUs that have a non-zero value for the device attribute
    cudaDevAttrConcurrentManagedAccess", docs.cupy.dev; CUDA C Programming Guide, "Unified Memory Programming",
    system requirements); older GPUs, Windows and WSL2 refuse it even with the GPU empty. Not a certain reading: a
    full GPU refuses it as well."""
    low = flatten_whitespace(text)
    return any(w in low for w in _UNIFIED_ALLOCATOR_WORDS) and any(w in low for w in _OOM_OWN + ("memoryallocation",))


# NCCL's failure to create a shared-memory segment (``shm_segment`` above; src/misc/shmutils.cc, include/shm.h).
_SHM_SEGMENT_WORDS = ("error while creating shared memory segment", "error while attaching to shared memory segment")
# NCCL 2.12+ (src/misc/shmutils.cc) names its file before the failure: "Error: failed to extend /dev/shm/nccl-XXXXXX to
# N bytes, error: No space left on device (28)", "failed to create shared memory file", "Could not map"; with the
# file named, ncclSystemError's "unhandled system error" is that failure too.
_SHM_FILE_FAILURES = ("failed to extend", "failed to create shared memory file", "could not map",
                      "unhandled system error")
# The shell's report of a process ended by SIGBUS with nothing else about it ("Bus error (core dumped)",
# POSTECH-CVLab/point-transformer#50). A page of a shared-memory file (tmpfs, /dev/shm: DataLoader workers' tensors)
# that the kernel cannot back faults with SIGBUS rather than ENOMEM (mm/shmem.c; mmap(2), "SIGBUS"), so the size and
# use of /dev/shm is the check that tells it apart from a truncated memory-mapped file.
_BARE_BUS_ERROR = re.compile(r"^\s{0,8}(?:\S{1,200}:\s{1,4}(?:line \d{1,7}:\s{1,4}\d{1,10}\s{1,4})?)?Bus error"
                             r"(?:\s{1,40}\(core dumped\))?(?:\s{1,8}\S[^\n]{0,300})?$", re.MULTILINE)


# PyTorch's main process reporting a worker ended by SIGBUS ("DataLoader worker (pid N) is killed by signal: Bus
# error."; releases before the shared-memory hint of pytorch#5040 print only this): the worker's batch lives in
# /dev/shm (torch/utils/data/dataloader.py, _MultiProcessingDataLoaderIter._try_get_data), so a page there that the
# kernel could not back is the reading, with or without the hint that follows.
_WORKER_BUS_ERROR = re.compile(r"\bworker\b[^\n]{0,80}?\bkilled by signal:?\s{0,3}bus error", re.IGNORECASE)


# A process ended by SIGBUS (signal 7 on Linux, signal(7)) as a launcher or Python reports it, with nothing else said:
# Python's subprocess gives a child killed by signal N the return code -N (docs.python.org, "subprocess.Popen.
# returncode"), which DeepSpeed's launcher prints ("exits with return code = -7", deepspeed/launcher/launch.py,
# ``sigkill_handler``) and torch.distributed's elastic agent as "exitcode: -7" (torch/distributed/elastic/
# multiprocessing/errors); "<Signals.SIGBUS: 7>" and "signal 7 (SIGBUS)" name it. In a training job the page that
# could not be backed is almost always one of /dev/shm's (the DataLoader workers' batches, NCCL's segments; Docker
# gives a container 64 MiB of it), as the shell's bare "Bus error" (deepspeedai/DeepSpeed#4002: --shm-size fixed it;
# zai-org/VisualGLM-6B#295: host memory).
_SIGBUS_EXIT = re.compile(r"return code\s{0,2}=\s{0,2}-7(?!\d)|exit ?code\s{0,2}:?\s{0,2}-7(?!\d)|<Signals\.SIGBUS: 7>|"
                          r"\bsignal 7 \(SIGBUS\)|\bSIGBUS\b", re.IGNORECASE)


def bare_bus_error(text: str) -> bool:
    """True when ``text`` holds the shell's "Bus error" line and no word of shared memory."""
    low = text.lower()
    return _BARE_BUS_ERROR.search(text) is not None and not any(w in low for w in _DEV_SHM_WORDS)


def sigbus_exit(text: str) -> bool:
    """True when ``text`` holds a launcher's report of a process ended by SIGBUS (``_SIGBUS_EXIT``: "return code =
    -7") and no word of shared memory: a bus error said without its backing, as the shell's bare "Bus error"."""
    low = text.lower()
    return _SIGBUS_EXIT.search(text) is not None and not any(w in low for w in _DEV_SHM_WORDS)
_DEV_SHM_WORDS = ("shared memory", "shared storage", "/dev/shm", "(shm)", "shm_size", "shm-size")
# Words by which a Python MemoryError says the memory was the device's: Theano raises MemoryError for its GPU arrays
# ("Error allocating N bytes of device memory (out of memory)", theano/sandbox/cuda/cuda_ndarray.cu; keras#1548).
_DEVICE_WORDS = ("cuda", "device memory", "gpu memory")
# Python's own MemoryError (not a subclass such as cupy's OutOfMemoryError, not torch.OutOfMemoryError): a host
# allocation failed.
_PY_MEMORY_ERROR = re.compile(r"(?<![\w.])MemoryError\b")
# Rust's alloc error hook, at the start of a line (a device runtime words its own failures with the device's name).
# A shortage of RAM said in words ("not enough RAM", "out of system RAM", "RAM is exhausted"): RAM is the host's memory
# (a GPU's is VRAM, HBM or device memory), read as such in any runtime's wording.
_RAM_SHORTAGE = re.compile(r"\b(?:not enough|insufficient|out of|ran out of)\s{1,3}(?:system\s{1,3}|host\s{1,3}|cpu\s{1,3})?"
                           r"ram\b|\bram\b[^\n.;]{0,16}?\b(?:is |was )?(?:exhausted|insufficient)\b"
                           # The CPU named as the processor that ran out (fifty-fourth pass): "CPU Out of Memory" (Ray
                           # actors killed for host RAM during rollout, hkust-nlp/simpleRL-reason#84), "OOM on cpu
                           # instead of gpu" (a ZeRO-Infinity launch killed with signal 9, deepspeedai/DeepSpeed#4867).
                           # The CPU's memory is the host's RAM; a device runtime names its GPU, never the CPU, as the
                           # one out of memory. A negation ("not an OOM on CPU") is not read so.
                           r"|(?<!not )(?<!not an )(?<!not a )\bcpu\s{1,3}(?:out of memory|oom)\b"
                           r"|(?<!not )(?<!not an )(?<!not a )\b(?:out of memory|oom)\s{1,3}(?:on|in)\s{1,3}(?:the\s{1,3})?"
                           r"cpu\b(?!\s{1,3}(?:side|tensor))"
                           # The host's swap said short (fifty-fifth pass): the system's swap is host memory. A swap
                           # area a runtime names as the CPU's own ("lack of CPU swap space", a serving engine's area
                           # for preempted KV blocks, gpudesk.oom.rules.kv_swap_space) is not the system's and is not
                           # read here.
                           r"|\b(?:not enough|insufficient|out of|ran out of|lack of)\s{1,3}(?:the\s{1,3})?"
                           r"(?:system\s{1,3}|host\s{1,3}|os\s{1,3})?swap(?:\s{0,2}space)?\b", re.IGNORECASE)
# The host's memory use printed as a percentage beside its figures, at 90% or more: DeepSpeed's see_memory_usage
# (deepspeed/runtime/utils.py: "CPU Virtual Memory:  used = U GB, percent = P%", psutil.virtual_memory(), whose percent
# is (total - available) / total) is printed at each stage of engine and optimizer set-up; ZeRO's CPU offload and the
# partitioning of the fp32 master weights fill host RAM there, and the kernel's OOM killer ends the rank with SIGKILL
# (the launcher's "exits with return code = -9"; deepspeedai/DeepSpeed#4239, a maintainer: "-9 is system out of
# memory"; databrickslabs/dolly#111: 95.3% used with 0.13 GB on the GPU). Nine tenths used is the line past which a
# stage that adds a copy of the model's weights in fp32 cannot fit; read only without a device failure of the text's
# own (:func:`classify`).
HOST_MEMORY_PERCENT = re.compile(r"\b(?:cpu|host|system)\s{1,3}(?:virtual\s{1,3})?memory\s{0,2}:?[^\n]{0,60}?\bpercent"
                                 r"\s{0,3}[=:]\s{0,3}(\d{1,3}(?:\.\d{1,3})?)\s{0,2}%", re.IGNORECASE)
HOST_MEMORY_FULL_PERCENT = 90.0


# (Sixty-third pass) Ollama's placement of a model over the GPU and the CPU, logged before it starts the runner:
# "msg=offload library=cuda layers.requested=-1 layers.model=49 layers.offload=4 ... memory.available="[11.4 GiB]" ...
# memory.required.full="68.3 GiB" memory.required.partial="10.9 GiB"" (ollama/ollama llm/server.go, NewLlamaServer,
# slog.Info("offload", ...) with the estimate of llm/memory.go, MemoryEstimate.LogValue). The estimate offloads only the
# layers whose memory fits what the GPU has free (EstimateGPULayers), so memory.required.partial is at most
# memory.available; the layers not offloaded run on the CPU backend with their weights in the host's memory. With the
# GPU's share fitting and no device failure in the text, what the job may still lack is RAM for the layers left on the
# CPU (ollama/ollama#10739: 4 of 49 layers on an 11.4 GiB GPU, about 56 GiB of weights left to the host; #8571: none
# offloaded, the whole model in RAM). Groups: layers of the model, layers offloaded, the first device's free memory
# (number, unit) and the partial requirement (number, unit); the fields may wrap onto the next lines of a paste.
_ENGINE_OFFLOAD = re.compile(r"\blayers\.model=(\d{1,4})\s{1,3}layers\.offload=(\d{1,4})\b[\s\S]{0,200}?"
                             r"\bmemory\.available=\"\[\s{0,2}(\d{1,6}(?:\.\d{1,3})?)\s{0,2}([KMGT]i?B|B)\b[\s\S]{0,300}?"
                             r"\bmemory\.required\.partial=\"(\d{1,6}(?:\.\d{1,3})?)\s{0,2}([KMGT]i?B|B)\"")
_BINARY_UNITS = {"b": 1, "kb": 1024, "kib": 1024, "mb": 1024**2, "mib": 1024**2, "gb": 1024**3, "gib": 1024**3,
                 "tb": 1024**4, "tib": 1024**4}


def engine_placed_rest_on_host(text: str) -> bool:
    """Ollama's offload line with fewer layers on the GPU than the model has and the GPU's share within what it had
    free (:data:`_ENGINE_OFFLOAD`): the rest of the model is the host's to hold."""
    if "layers.offload=" not in text:
        return False
    match = _ENGINE_OFFLOAD.search(text)
    if match is None:
        return False
    layers, offloaded = int(match.group(1)), int(match.group(2))
    available = float(match.group(3)) * _BINARY_UNITS[match.group(4).lower()]
    partial = float(match.group(5)) * _BINARY_UNITS[match.group(6).lower()]
    return offloaded < layers and partial <= available


def host_memory_nearly_full(text: str) -> bool:
    """The host's memory use printed at :data:`HOST_MEMORY_FULL_PERCENT` or more (:data:`HOST_MEMORY_PERCENT`)."""
    return any(float(m.group(1)) >= HOST_MEMORY_FULL_PERCENT for m in HOST_MEMORY_PERCENT.finditer(text))
# PyTorch's CPU allocator's own words for a refused host allocation (c10/core/impl/alloc_cpu.cpp, alloc_cpu():
# "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes"), quoted by a caller that drops the
# prefix: DeepSpeed's ZeRO offload building its host-side copies at start ("DeepSpeedZeRoOffload initialization failed
# (can't allocate memory)", Tencent/TencentPretrain#70, solved on a machine with more RAM, CVI-SZU/Linly#83). A device
# runtime says "out of memory" in its own words; a text that names the GPU is not read so (thirty-ninth pass).
# The allocator's older wording, "DefaultCPUAllocator: not enough memory: you tried to allocate N bytes. Buy new RAM!"
# (the same alloc_cpu(), PyTorch 1.x), quoted without its prefix (a title: lllyasviel/Fooocus#177, "not enough memory:
# you tried to allocate 9437184 bytes", fixed by room for the Windows page file) is the same host allocation.
# (Fifty-seventh pass) posix_memalign returning ENOMEM: the call allocates host memory only and returns the error
# number itself, 12 being ENOMEM ("There is insufficient memory available with the requested alignment", POSIX
# posix_memalign; EINVAL, 22, is a bad alignment), as PaddlePaddle's CPU allocator enforces it when its buddy
# allocator refills its pool ("Expected posix_memalign(&p, alignment, size) == 0, but received posix_memalign(&p,
# alignment, size):12 != 0:0. Alloc 524288000 error!", paddle/fluid/memory/detail/system_allocator.cc, AlignedMalloc;
# PaddlePaddle/Paddle#17050). The status must follow the call's own name.
# (Fifty-eighth pass) DyNet's CPU allocator: CPUAllocator::malloc prints "CPU memory allocation failed n=N align=A" and
# throws dynet::out_of_memory("CPU memory allocation failed") when _mm_malloc returns null (clab/dynet at
# 22b44958476731af4d1fdbc553626eca3a27e808, dynet/mem.cc); its GPU allocator has its own words (cudaMalloc's status), so
# the CPU one is the host's memory (clab/dynet#983, 2 GB on a machine out of RAM).
_CPU_ALLOCATOR_WORDS = re.compile(r"\bcan'?t allocate memory\b|\bnot enough memory: you tried to allocate \d"
                                  r"|\bposix_memalign\([^\n()]{0,60}\)\s{0,2}[:=]\s{0,2}12\s{0,2}!=\s{0,2}0\b"
                                  # (Sixty-sixth pass) glog's CHECK_EQ form of the same status: "Check failed:
                                  # posix_memalign(&ptr, 4096ul, size) == 0 (12 vs. 0)" (PaddlePaddle/Paddle#11082).
                                  r"|\bposix_memalign\s{0,2}\([^\n()]{0,60}\)\s{0,2}==\s{0,2}0\s{0,3}\(\s{0,2}12\s{1,3}"
                                  r"vs\.?\s{1,3}0\s{0,2}\)"
                                  r"|\bCPU memory allocation failed\b",
                                  re.IGNORECASE)
_CPU_ALLOCATOR_DEVICE_WORDS = ("cuda", "gpu", "vram", "device memory", "video memory", "hip ", "hiperror", "hipmalloc",
                               "hiphost", "rocm", "xpu", "npu", "mps", "metal", "vulkan", "opencl")
# (Sixty-third pass) A program's own "<buffer> allocation failed" in a text that names no device at all: C programs
# print it when malloc / _mm_malloc / posix_memalign return NULL, and those calls allocate only the host's memory (ISO
# C 7.22.3 "Memory management functions": a null pointer when the space cannot be allocated; POSIX malloc, ENOMEM).
# cpuminer's miner threads: "scratchbuf = scrypt_buffer_alloc(opt_scrypt_n); if (!scratchbuf) applog(LOG_ERR,
# "scrypt buffer allocation failed")" (pooler/cpuminer cpu-miner.c, miner_thread; JayDDee/cpuminer-opt
# algo/scrypt/scrypt.c, scrypt_miner_thread_init, _mm_malloc), one scratchpad of 128 * r * N bytes per thread in RAM.
# A device runtime names its device, its API or its memory beside the failure, so any such word leaves the text to the
# device readings.
HOST_BUFFER_ALLOCATION_FAILED = re.compile(r"\b(?:buffer|scratch\s?pad|scratch|memory|malloc)\s{1,3}allocation\s{1,3}"
                                           r"failed\b", re.IGNORECASE)
# (Sixty-third pass) Xcode's alert when iOS ends an app for its memory footprint: "The app “MLCChat” has been killed by
# the operating system because it is using too much memory." iOS's jetsam terminates a process above its memory limit
# (developer.apple.com/documentation/xcode/identifying-high-memory-use-with-jetsam-event-reports), the counterpart of
# Linux's OOM killer; the limit is the process's footprint of the system's memory (mlc-ai/mlc-llm#2028). Read, like
# the buffer wording above, only where no device is named.
OS_KILLED_FOR_MEMORY = re.compile(r"\bkilled by the (?:operating )?system because it (?:is|was) using too much memory\b",
                                  re.IGNORECASE)
_ANY_DEVICE_WORDS = _CPU_ALLOCATOR_DEVICE_WORDS + ("device", "cl_", "tpu", "accelerator", "cudnn", "cublas", "nccl",
                                                   "hbm", "gddr", "directml", "d3d", "ascend", "gaudi", "habana",
                                                   "neuron", "显存", "显卡")
# RAM said short in Chinese: "内存" is the host's memory (the GPU's is "显存", video memory), "不足/不够/耗尽" short or
# exhausted; glibc's zh_CN text of ENOMEM is "无法分配内存" ("[Errno 12] 无法分配内存" from Python). A text that also
# names the GPU ("GPU内存不足", "CUDA out of memory") is about device memory and is not read so (:func:`classify`).
_ZH_RAM_SHORTAGE = re.compile(r"(?<![显存卡uU])内存(?:严重)?(?:不足|不够|耗尽|爆掉|爆了|炸了)|\[errno 12\] ?无法分配内存|"
                              # "内存OOM": the same with the English abbreviation (OpenGVLab/InternVL#554, host RAM
                              # with more DataLoader workers).
                              r"(?<![显存卡uU])内存\s{0,2}OOM",
                              re.IGNORECASE)
_ZH_DEVICE_WORDS = ("显存", "显卡", "gpu", "cuda", "device", "设备", "tried to allocate", "hip ", "mps", "vram")
# Windows' commit-limit code named alone ("Error 1455", ComfyUI#8065's title): ERROR_COMMITMENT_LIMIT is system error
# 1455 whatever the prefix ("The paging file is too small for this operation to complete", learn.microsoft.com "System
# Error Codes (1300-1699)"), the host's RAM plus page file, never a GPU's memory.
# The same limit in users' shorter words ("page file too small", "pagefile is too small").
# Win32's VirtualAlloc failing (learn.microsoft.com, "VirtualAlloc function": committing pages charges the system commit
# limit, and the call fails when the charge cannot be had; NiceHashMiner-Archived#652 "memory alloc failed: virtualalloc
# failed", solved by a larger page file), and an error that asks for more "virtual memory" (Windows' own name for the
# page file setting: System > Advanced system settings > Performance > Virtual memory; nanominer#20, fixed by a page
# file of the DAG size times the cards): the same commit limit.
_COMMIT_LIMIT_CODE = re.compile(r"\berror\s{0,2}1455\b|\b(?:paging|page)\s?file\s(?:is\s|was\s)?too\ssmall\b|"
                                r"\bvirtualalloc\s{0,2}(?:\(\)\s{0,2})?failed\b|"
                                r"\b(?:increas|rais|enlarg|extend)(?:e|ed|ing)?\s{1,3}(?:the\s{1,3}|your\s{1,3})?"
                                r"(?:windows\s{1,3})?virtual\s{1,3}memory\b",
                                re.IGNORECASE)
# TensorFlow's CPU allocator warning of one host allocation above a tenth of the free RAM
# (tensorflow/core/framework/cpu_allocator_impl.cc, CPUAllocator::AllocateRaw: "Allocation of N exceeds 10% of free
# system memory."; faustomorales/keras-ocr#81, the process stopping after it on an 8 GB Windows machine): the host's
# memory. It is a warning that TensorFlow logs in runs that go on, so a device allocator's failure in the same text
# (_TF_DEVICE_OOM) is read from its own words instead.
_TF_HOST_WARNING = "of free system memory"
_TF_DEVICE_OOM = ("_bfc", "device:gpu", "cuda_error_out_of_memory", "cuda out of memory", "gpu memory")
# TensorFlow before 1.0 names no allocator in its op-level OOM ("Resource exhausted: OOM when allocating tensor with
# shape..." from tensorflow/core/kernels/conv_ops.cc), but the failing node's placement follows it in the graph's own
# attribute, "[[Node: Conv2D_2 = Conv2D[..., _device="/job:localhost/replica:0/task:0/cpu:0"](...)]]" (the device
# names of tensorflow/core/util/device_name_utils.cc, "/job:J/replica:R/task:T/cpu:N" before "/device:CPU:N"). A node
# placed on the CPU allocates from the CPU allocator, the host's RAM (tensorflow#576: the MNIST tutorial's evaluation in
# a 3 GB VM). A GPU job's log names a GPU device ("/gpu:0" as a _Recv's send_device, "GPU_0_bfc", "device:GPU:0"),
# and then this placement is one node of many and is not read so.
_TF_CPU_NODE = re.compile(r"OOM when allocating tensor[\s\S]{0,2000}?\[\[\s{0,3}Node:[^\n]{0,3000}?"
                          r"_device\s{0,2}=\s{0,2}\\?\"/job:\w{1,40}/replica:\d{1,4}/task:\d{1,4}/(?:device:)?cpu:\d",
                          re.IGNORECASE)
# The compilers of a CUDA build running out of the host's memory, in their own words: NVIDIA's PTX assembler
# ("ptxas fatal   : Memory allocation failure", its host malloc refused), the EDG C++ front end that nvcc runs as
# cudafe++ ("catastrophic error: out of memory"; MSVC-style logs put a space before the colon) and GCC's cc1plus
# (libiberty's xmalloc_failed, libiberty/xmalloc.c: "cc1plus: out of memory allocating N bytes after a total of M
# bytes"). Compilers are host programs, so a parallel build of heavy CUDA sources (flash-attention, CUTLASS) that fails
# so ran out of RAM (or the Windows commit limit), whatever GPU the machine has (onnxruntime#25377).
# Ray's memory monitor, which kills a worker when the node's host memory passes its threshold
# (RAY_memory_usage_threshold, 0.95 by default): the raylet's kill message "Task was killed due to the node running low
# on memory. Memory on the node (IP: ..., ID: ...) where the task (...) was running was X GB / Y GB (r), which exceeds
# the memory usage threshold of 0.95. Ray killed this worker ..." raised as ray.exceptions.OutOfMemoryError
# (python/ray/exceptions.py; real-stanford/flingbot#11, OpenRLHF/OpenRLHF#1013), and before Ray 2.0 the Python monitor
# (python/ray/_private/memory_monitor.py, raise_if_low_memory, as the traceback of ray-project/ray#15226 shows it):
# "RayOutOfMemoryError: More than 95% of the memory on node NAME is used (X / Y GB)". The figures are the node's RAM,
# never a GPU's; a GPU OOM inside a Ray task arrives as "RayTaskError(OutOfMemoryError)" with the framework's own CUDA
# wording instead, which none of these phrases matches.
# The raylet's periodic summary of the same kills (src/ray/raylet/node_manager.cc: "N Workers (tasks / actors) killed
# due to memory pressure (OOM), M Workers crashed due to other reasons at node ...", with a link to the docs' page
# ray-core/scheduling/ray-oom-prevention.html; WM-PO/WMPO#3) is the same monitor's host-RAM kill (fifty-fourth pass).
RAY_MEMORY_MONITOR_WORDS = ("node running low on memory", "exceeds the memory usage threshold", "rayoutofmemoryerror",
                            "ray.exceptions.outofmemoryerror", "% of the memory on node",
                            "killed due to memory pressure (oom)", "ray-oom-prevention")
# The same monitor's list of the node's largest processes, printed under its kill message ("Top 10 memory users:" then
# "PID MEM(GB) COMMAND", the Python monitor's "PID MEM COMMAND"), quoted alone (verl-project/verl#224: eight rollout
# workers at 11 GB each on a 96 GB node): resident host memory per process, Ray's workers named "ray::...".
_RAY_TOP_MEMORY_TABLE = re.compile(r"\bPID[ \t]{1,8}MEM(?:\(GB\))?[ \t]{1,8}COMMAND[ \t]*\r?\n(?:[^\n]{0,200}\n){0,3}"
                                   r"[ \t]{0,8}\d{1,9}[ \t]{1,8}\d{1,6}(?:\.\d{1,3})?(?:GiB)?[ \t]{1,8}ray::")


# (Sixty-eighth pass) A host memory monitor's kill said in words: a worker "killed" on the line that says the node's
# memory passed a "memory (usage) threshold". Ray's memory monitor kills a worker when the node's memory usage exceeds
# memory_usage_threshold (0.95 by default; docs.ray.io, "Out-Of-Memory Prevention": "the memory monitor ... will kill a
# task or actor process to free up memory" once usage is above the threshold), earlyoom and systemd-oomd likewise kill
# at a threshold of the host's RAM/PSI (earlyoom README, "-m PERCENT"; systemd-oomd.service(8)). A user who paraphrases
# the kill ("node hits the memory threshold and the worker is killed", beside ~230 GB RSS per worker) describes host RAM;
# a line that names the GPU / VRAM / CUDA / device memory is left out.
_MEMORY_THRESHOLD_KILL = re.compile(
    r"^(?![^\n]{0,400}?\b(?:gpu|vram|cuda|device memory|video memory)\b)[^\n]{0,400}?(?:"
    r"\bmemory[ -](?:usage[ -])?threshold\b[^\n]{0,120}?\bkill(?:ed|s|ing)?\b|"
    r"\bkill(?:ed|s|ing)?\b[^\n]{0,120}?\bmemory[ -](?:usage[ -])?threshold\b)", re.IGNORECASE | re.MULTILINE)


# (Sixty-eighth pass) Any "CUDA driver error: ..." beside the expandable segments that made the call. PyTorch's
# caching allocator reaches the driver API only through ExpandableSegment, whose cuMemCreate / cuMemMap /
# cuMemSetAccess / cuMemAddressReserve calls are wrapped in C10_CUDA_DRIVER_CHECK ("CUDA driver error: " +
# cuGetErrorString; c10/cuda/CUDACachingAllocator.cpp, ExpandableSegment::map, and c10/cuda/driver_api.h,
# https://github.com/pytorch/pytorch). A refusal other than out-of-memory there ("unknown error", "operation not
# supported", "invalid argument") is the platform's virtual-memory support refusing the mapping (a WSL2 driver that
# failed cuMemSetAccess for a GPUDirect-RDMA-capable allocation, fixed in a later driver): the deciding check is to run
# without expandable_segments, not memory.
_VMM_DRIVER_ERROR = re.compile(r"\bCUDA driver error:\s{0,3}\S", re.IGNORECASE)
_VMM_CALL_WORDS = re.compile(r"\bExpandableSegment\b|\bexpandable_segments\s{0,2}:\s{0,2}True\b|"
                             r"\bcuMem(?:SetAccess|Map|Create|AddressReserve)\b", re.IGNORECASE)


def expandable_segment_refused(text: str) -> bool:
    """A driver-API error of PyTorch's expandable segments (``expandable_segments``), whatever its wording."""
    return _VMM_DRIVER_ERROR.search(text) is not None and _VMM_CALL_WORDS.search(text) is not None


def memory_threshold_kill(text: str) -> bool:
    """A process killed on a line that says the host's memory passed a monitor's threshold (``host_ram``)."""
    return _MEMORY_THRESHOLD_KILL.search(text) is not None


def ray_memory_monitor(text: str) -> bool:
    """Ray's memory monitor in its own words or with its table of the node's largest processes (host RAM)."""
    low = text.lower()
    return any(w in low for w in RAY_MEMORY_MONITOR_WORDS) or _RAY_TOP_MEMORY_TABLE.search(text) is not None
TOOLCHAIN_HOST_OOM = re.compile(r"\bptxas\s{0,3}fatal\s{0,8}:\s{0,3}memory allocation failure|"
                                 r"\bcatastrophic error\s{0,2}:\s{0,3}out of memory\b|"
                                 r"\bcc1(?:plus)?(?:\.exe)?:\s{0,3}out of memory allocating \d|"
                                 # LLVM's bad-alloc handler (llvm/lib/Support/ErrorHandling.cpp,
                                 # report_bad_alloc_error: "LLVM ERROR: out of memory", written when the compiler's own
                                 # new/malloc fails): the kernel compiler (an OpenCL / HIP JIT) ran out of host memory.
                                 r"\bLLVM ERROR:\s{0,3}out of memory\b", re.IGNORECASE)
_TF_GPU_PLACEMENT = re.compile(r"/(?:device:)?gpu:\d|_bfc\b|cuda_error|\bcuda out of memory", re.IGNORECASE)
# A CUDA library function the loader could not find in the library it loaded: XLA/TSL's lazy stubs report a symbol
# missing from the libcudart/libcublas/... found at run time as "<function> symbol not found." (xla/tsl/cuda/
# cudart_stub.cc, LoadSymbol / GetSymbolNotFoundError), which happens when that library is older than the one jaxlib was
# built against (sokrypton/ColabFold#532: "operation gpuGetLastError() failed: cudaGetErrorString symbol not found.").
# A library/driver version mismatch, never a refused allocation.
_CUDA_SYMBOL_MISSING = re.compile(r"\b(?:cu|cuda|cublas|cudnn|cusolver|cusparse|cufft|curand|nccl)[A-Za-z_]{2,60}\s"
                                  r"symbol not found\b")
# A CUDA memory call that failed with the runtime's "unknown error" (cudaErrorUnknown, 999, or the driver's
# CUDA_ERROR_UNKNOWN: cudaGetErrorString's text, CUDA Runtime API "Error Handling") and never with out-of-memory: the
# runtime could not work with the driver at all, since a memory query (cudaMemGetInfo) allocates nothing and still
# failed (SPECFEM/specfem3d_globe#617: "cudaMalloc failed: unknown error" on every rank, "cudaMemGetInfo fails, unknown
# error"; the maintainer: a local installation problem). The call is named before the error on its line.
_CUDA_CALL_UNKNOWN_ERROR = re.compile(r"\b(?:cuda|cu)(?:Malloc\w{0,12}|MemGetInfo|MemAlloc\w{0,8}|Mem_?GetInfo\w{0,4})\b"
                                      r"[^\n]{0,40}?\bfail\w{0,3}\b[:,]?\s{0,3}unknown error\b|"
                                      # The same status in two other wrappers' words (issue 28, fifty-first pass):
                                      # Torch7/cutorch's THCudaCheck "cuda runtime error (30) : unknown error at
                                      # .../THCStorage.c:N" (30 is cudaErrorUnknown's number before CUDA 10.1 renumbered
                                      # it 999, driver_types.h; torch/cutorch#197: a driver/GPU fault after hours of
                                      # training) and OpenCV's cudaSafeCall in GpuMat::allocate "Gpu API call (unknown
                                      # error) in allocate" (modules/core/src/cuda/gpu_mat.cu; fixstars/libSGM#30: a
                                      # build for another GPU architecture): a status that is not out-of-memory.
                                      # The THC wording only where the failing call is an allocation (its source
                                      # file is the storage or allocator code); a bare "unknown error" names none.
                                      r"\bcuda runtime error\s{0,2}\((?:30|999)\)\s{0,3}:\s{0,3}unknown error\b"
                                      r"[^\n]{0,200}?(?:storage|alloc)\w{0,30}\.(?:c|cc|cu|cpp|h)\b|"
                                      r"\(unknown error\)\s{1,3}in\s{1,3}(?:function\s{1,3})?'?\w{0,30}alloc\w{0,10}\b",
                                      re.IGNORECASE)
# llama.cpp's model loader failing to allocate a weights buffer ("error loading model: unable to allocate backend
# buffer", src/llama.cpp llm_load_tensors before it named the buffer type) inside Ollama's runner ("llama runner process
# has terminated", llm/server.go). Ollama's scheduler offloads only the layers its estimate fits in free VRAM
# (llm/memory.go EstimateGPULayers) and leaves the rest in a CPU buffer, so with no device allocator's line beside it
# (ggml-cuda's "cudaMalloc failed", ggml-metal's "failed to allocate Metal buffer") the buffer that failed is the host's:
# the maintainer in ollama/ollama#5958 and #5764 ("you're trying to load a ~40G model, on an 8G GPU ... and don't have
# ~32G of available host memory"), answered by ollama#5926's "model requires more system memory" check.
_SCHEDULED_BACKEND_BUFFER = "unable to allocate backend buffer"
_RUNNER_TERMINATED = "llama runner process has terminated"
_GGML_DEVICE_WORDS = ("cudamalloc", "on device", "cuda", "rocm", "hip", "metal", "vulkan", "sycl", "vram", "gpu")
# A runtime's fixed-size memory pool refusing an allocation, and the runtime going on with other memory: Triton
# Inference Server's CUDA pool, a CNMEM pool of --cuda-memory-pool-byte-size per GPU (64 MB by default; "Failed to
# allocate CUDA memory with byte size N on GPU G: CNMEM_STATUS_OUT_OF_MEMORY, falling back to pinned system memory",
# triton-inference-server/server#1765, 2 GB of a 22 GB P40 in use), and LuisaCompute's 64 MB pinned staging pool
# ("Failed to allocate x bytes from CUDAHostBufferPool. Falling back to ad-hoc allocation.", LuisaGroup/LuisaRender#20,
# the maintainer: a warning, safe to ignore). The pool's size is the limit, not the GPU, and nothing failed.
_POOL_FALLBACK = re.compile(r"\b(?:failed|unable) to allocate\b[^\n]{0,160}?(?:pool|cnmem)\w{0,40}[^\n]{0,80}?"
                            r"\bfall(?:ing)?\s{1,3}back\b", re.IGNORECASE)


def runner_backend_buffer(text: str) -> bool:
    """Ollama's runner ended on llama.cpp's bare backend-buffer failure with no device allocator's line beside it
    (``_SCHEDULED_BACKEND_BUFFER`` above): read as the host's buffer, an inference from Ollama's scheduler rather than
    the failing call's own words, so the rule ranks it below a named host allocator (gpudesk.oom.rules.signature)."""
    low = flatten_whitespace(text)
    return _SCHEDULED_BACKEND_BUFFER in low and _RUNNER_TERMINATED in low and not any(w in low for w in _GGML_DEVICE_WORDS)


_RUST_ALLOC = re.compile(r"^\s{0,8}memory allocation of \d{1,20} bytes failed", re.IGNORECASE | re.MULTILINE)
_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ecc", ("uncorrectable ecc", "ecc_uncorrectable", "eccuncorrectable")),
    ("xid", ("fallen off the bus", "gpu is lost", "gpu has fallen")),
    ("driver_version", ("driver version is insufficient", "cudaerrorinsufficientdriver", "insufficient driver",
                        "driver/library version mismatch",
                        # The CUDA runtime's own strings for a runtime that could not start on this driver (CUDA
                        # Runtime API, enum cudaError): cudaErrorSystemDriverMismatch (803, "system has unsupported
                        # display driver / cuda driver combination"), cudaErrorCompatNotSupportedOnDevice (804) and
                        # cudaErrorNoDevice (100, "no CUDA-capable device is detected"). A pinned host buffer that
                        # "failed to allocate" with one of them as its reason (ggml_cuda_host_malloc prints
                        # cudaGetErrorString) failed because CUDA never started, not for want of memory
                        # (ollama/ollama#5517, abetlen/llama-cpp-python#1687, janhq/jan#3782).
                        "unsupported display driver / cuda driver combination", "cudaerrorsystemdrivermismatch",
                        "forward compatibility was attempted on non supported hw", "cudaerrorcompatnotsupportedondevice",
                        "no cuda-capable device is detected", "cudaerrornodevice",
                        # (Sixty-seventh pass) PTX the driver's JIT cannot compile: cudaErrorUnsupportedPtxVersion
                        # (222, CUDA Runtime API, enum cudaError: "the provided PTX was compiled with an unsupported
                        # toolchain. The most common reason for this, is the PTX was generated by a compiler newer
                        # than what is supported by the CUDA driver and PTX JIT compiler"; CUDA_ERROR_UNSUPPORTED_PTX_
                        # VERSION in the driver API). A toolkit newer than the driver, fixed by a newer driver, never
                        # by memory (YoshitakaMo/localcolabfold#44, logged after a "Not Enough GPU memory?" guess).
                        "provided ptx was compiled with an unsupported toolchain", "cudaerrorunsupportedptxversion",
                        "cuda_error_unsupported_ptx_version")),
    ("shared_memory", ("out of resource: shared memory", "outofresources: out of resource: shared",
                       "memory space vmem", "memory space smem",
                       # A Tenstorrent Tensix core's L1, its on-chip SRAM (1,499,136 B on Wormhole, 1,572,864 B on
                       # Blackhole, the "max L1 size" of the message): tt-metal checks each program's statically
                       # allocated circular buffers against it when the program is compiled
                       # (tt_metal/impl/program/program.cpp, Program_::validate_circular_buffer_region: "Statically
                       # allocated circular buffers on core range R grow to N B which is beyond max L1 size of M B"; and
                       # "... in program P clash with L1 buffers on core range R. L1 buffer allocated at A and static
                       # circular buffer region ends at E", circular buffers growing from the bottom of L1 meeting the
                       # L1 tensors allocated from its top; tenstorrent/tt-metal#28835), and tt-mlir's compiler checks
                       # an op's L1 plan the same way ("required L1 memory usage N exceeds memory capacity M",
                       # tt-mlir#7937). The kernel's per-core working set, set by the op's tiling and the tensors
                       # placed in L1, not the chip's DRAM (tt-inference-server#277, #225; tt-metal#45331, #54621).
                       "beyond max l1 size", "clash with l1 buffers", "required l1 memory usage",
                       # The same limit in the XLA:TPU compiler's allocation check ("Allocation (size=N) would exceed
                       # memory (size=M) :: #allocationK [shape = ..., space=vmem, ...]", openxla/xla
                       # docs/errors/error_1001.md, "HBM and Vmem OOM").
                       "space=vmem", "space=smem",
                       # A kernel's dynamic shared memory above the SM's opt-in limit: cudaFuncSetAttribute(...,
                       # cudaFuncAttributeMaxDynamicSharedMemorySize, N) refuses it (TVM's CUDA module: "Failed to set
                       # the allowed dynamic shared memory size to N", src/runtime/cuda/cuda_module.cc, mlc-llm#2044),
                       # and ptxas rejects a static one at build time ("uses too much shared data").
                       "allowed dynamic shared memory size", "cudafuncattributemaxdynamicsharedmemorysize",
                       "uses too much shared data",
                       # A launch refused for the per-block resources of the SM, registers and shared memory for the
                       # threads of one block (cudaErrorLaunchOutOfResources, "too many resources requested for
                       # launch": CUDA Runtime API, "Data types used by CUDA Runtime", enum cudaError: "a launch did
                       # not occur because it did not have appropriate resources ... the user has requested too many
                       # threads or blocks"; Pose-Group/DCPose#46, 1024 threads per block on a Jetson): fewer threads
                       # per block fix it, device memory never does.
                       "too many resources requested for launch", "cudaerrorlaunchoutofresources",
                       "cuda_error_launch_out_of_resources")),
    ("host_ram", ("defaultcpuallocator", "alloc_cpu.cpp", "cpuallocator.cpp", "cpu_buffer_type_alloc_buffer",
                  "core/src/alloc.cpp", "cv::outofmemoryerror", "(-4:insufficient memory)", "for an array with shape",
                  "_arraymemoryerror", "by allocator cpu", "by allocator mklcpu", "allocator (cpu) ran out of memory",
                  "failed to allocate cpu buffer", "error code 12 (cannot allocate memory)", "std::bad_alloc",
                  # The same exception as MSVC's C++ runtime words its what() (std::bad_alloc::what() returns
                  # "bad allocation" on Windows; onnxruntime#16305's "Status Message: bad allocation"): the host's
                  # operator new refused the allocation.
                  "bad allocation",
                  # Intel oneMKL's aligned host allocator (mkl_malloc/mkl_calloc, "Memory Management" in the oneMKL
                  # developer reference): a buffer of the host's RAM for MKL's CPU routines, never device memory
                  # (CTranslate2 on the CPU, Purfview/whisper-standalone-win#511: gone after closing other programs).
                  "mkl_malloc: failed", "mkl_calloc: failed",
                  "java.lang.outofmemoryerror", "killed by signal: killed", "oom-kill", "out of memory: killed process",
                  # The same kernel OOM killer as kernels before 5.0 word it (mm/oom_kill.c, oom_kill_process():
                  # "%s: Kill process %d (%s) score %u or sacrifice child", %s "Out of memory" or "Memory cgroup out
                  # of memory"; then "Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB"): the
                  # victim's resident host memory, RAM and swap exhausted (NervanaSystems/deepspeech#48).
                  "out of memory: kill process", "or sacrifice child", "kb, anon-rss:",
                  "cannot allocate memory (12)", "cl_out_of_host_memory", "ur_result_error_out_of_host_memory",
                  "host allocation of size", "requires more system memory", "insufficient system memory",
                  "not enough system memory", "paging file is too small", "winerror 1455", "os error 1455",
                  # Kubernetes' container memory limit (the kubelet's "OOMKilled" reason), Colab's RAM meter,
                  # and the C library's ENOMEM as Python prints it (fork, mmap of host memory).
                  "oomkilled", "using all available ram", "[errno 12] cannot allocate memory",
                  # PyTorch's MapAllocator mapping a file into host memory ("unable to mmap N bytes from file
                  # <FILE>: Cannot allocate memory (12)", aten/src/ATen/MapAllocator.cpp: the file in angle brackets,
                  # then strerror(errno)): mmap's ENOMEM, the host's RAM / address-space limit (overcommit, the
                  # container's memory limit, ulimit -v) while loading weights (vllm#9753). A /torch_ file is /dev/shm
                  # (dev_shm, read first).
                  ">: cannot allocate memory",
                  # The kubelet's node event for a kernel OOM kill it saw in /dev/kmsg ("System OOM encountered,
                  # victim process: NAME, pid: N", event reason SystemOOM; pkg/kubelet/oom/oom_watcher_linux.go,
                  # https://github.com/kubernetes/kubernetes): the node's RAM or the pod's cgroup limit.
                  "system oom encountered",
                  # The kubelet's eviction of a pod under node memory pressure (pkg/kubelet/eviction/helpers.go:
                  # "The node was low on resource: memory."; kubeflow/kubeflow#1261): the node's RAM.
                  "the node was low on resource: memory",
                  "页面文件太小",
                  # Torch7's and early PyTorch's TH CPU allocator (THAlloc in TH/THGeneral.c: "$ Torch: not enough
                  # memory: you tried to allocate NGB. Buy new RAM!"): host memory by construction.
                  "buy new ram", "thgeneral.c",
                  # PaddlePaddle's CPUAllocator (paddle/fluid/memory/detail/system_allocator.cc, CPUAllocator::Alloc:
                  # posix_memalign failing, "Fail to alloc memory of N size, error code is E", E = errno 12 ENOMEM);
                  # its GPU allocator words its failures "Cannot malloc N MB GPU memory" (PaddleOCR#2199).
                  "fail to alloc memory of",
                  # SuperLU, the sparse direct solver behind scipy.sparse.linalg.spsolve/splu (SRC/memory.c and
                  # [sdcz]memory.c: every failed SUPERLU_MALLOC aborts with "SUPERLU_MALLOC fails for <buffer> in
                  # <function>()"): a CPU library, so its malloc is the host's heap (MarcoForte/closed-form-matting#21).
                  "superlu_malloc fails",
                  # Hadoop YARN's NodeManager killing a container above its memory limit (ContainersMonitorImpl:
                  # "Container [pid=N,containerID=...] is running beyond physical memory limits. Current usage: X of
                  # Y physical memory used"; Spark on YARN: "Container killed by YARN for exceeding memory limits"):
                  # the executor's host memory, not the GPU's.
                  "running beyond physical memory limits", "killed by yarn for exceeding memory limits",
                  # The kernel's OOM killer named in words with a space ("~43 GB RAM (OOM kill)", "the OOM killer"):
                  # it kills a process for the host's memory, never for a GPU's.
                  "oom kill", *RAY_MEMORY_MONITOR_WORDS)),
    ("expandable_segments", ("cuda driver error: out of memory",)),
    ("va_reserve", ("cumemaddressreserve", "hipmemaddressreserve")),
    ("buffer_limit", ("greater than the maximum allowed buffer size", "larger than buffer maximum",
                      # TensorFlow.js's WebGL backend lays each tensor out as one 2-D texture and checks both sides
                      # against the GL context's MAX_TEXTURE_SIZE (gl.getParameter, read into the
                      # WEBGL_MAX_TEXTURE_SIZE flag) before creating it (tfjs-backend-webgl/src/webgl_util.ts,
                      # validateTextureSize, https://github.com/tensorflow/tfjs at 0fc04d95): "Requested texture size
                      # [WxH] greater than WebGL maximum on this browser / GPU [MxM]". A per-texture dimension limit of
                      # the browser's GL implementation (4096 on many mobile GPUs, 2048 in some Firefox builds,
                      # tensorflow/tfjs#689, #1686), not video memory: [35597x64] is refused under 16384 (#920).
                      "greater than webgl maximum",
                      # CubeCL's memory manager (the runtime under Burn's wgpu / CUDA backends): a request above the
                      # slice size of its largest configured pool is refused before the device is asked
                      # (cubecl-runtime src/memory_management/dynamic.rs, "No memory pool big enough to reserve
                      # {size} bytes." / "... to alloc {size} bytes.", tracel-ai/cubecl at 88a693f5; the largest
                      # pool follows the adapter's max_storage_buffer_binding_size, cubecl-wgpu src/runtime.rs at
                      # 6c2ab53f): a per-allocation limit of the runtime's pool configuration, not a full card.
                      "no memory pool big enough to",
                      "exceeds device buffer size limit", "exceeds device memory allocation limit",
                      "not enough space in the context's memory pool", "not enough space in the scratch memory pool",
                      "memory block with size larger than", "allocation size exceeds the maximum",
                      # PyTorch MPS (aten/src/ATen/mps/MPSAllocator.mm: a buffer above MTLDevice.maxBufferLength),
                      # MPSNDArray's 4 GiB limit, and MLX's count of Metal buffers ("[metal::malloc] Resource limit
                      # (N) exceeded", mlx/backend/metal/allocator.cpp: the device's resource-count limit).
                      "invalid buffer size", "total bytes of ndarray > 2**32", "[metal::malloc] resource limit",
                      # MPSNDArray's element-count check on the same array descriptor ("[MPSNDArray initWithDevice:
                      # descriptor:] Error: product of dimension sizes > 2**31", a failed assertion in MPSCore's
                      # MPSNDArray.mm; Apple's MPS engineer in pytorch#84039: the NDArray's creation, whatever the
                      # unified memory): a per-array limit, like its 2**32-byte one.
                      "product of dimension sizes > 2**31",
                      # wgpu (the WebGPU runtime of Burn, candle's wgpu backend and others; wgpu-core's
                      # CreateBufferError::MaxBufferSize: "Buffer size N is greater than the maximum buffer size (M)",
                      # M the adapter's max_buffer_size limit).
                      "is greater than the maximum buffer size",
                      # Dawn, Chrome's WebGPU ("Buffer size (N) exceeds the max buffer size limit (M). This adapter
                      # supports a higher maxBufferSize of ...", apple/embedding-atlas#159).
                      "exceeds the max buffer size limit",
                      # OpenVINO's GPU plugin: one memory object above the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE
                      # ("[GPU] Exceeded max size of memory object allocation: requested N bytes, but max alloc size
                      # supported by device is M bytes", ocl_engine.cpp; llama.cpp#20661 on an Arc A750).
                      "exceeded max size of memory object allocation",
                      # PyTorch MPS's own size checks before a Metal kernel runs (aten/src/ATen/native/mps/operations/
                      # LinearAlgebra.mm: "Output size of the matrix multiplication is larger than currently supported
                      # by the MPS backend: M,N, needs to be less than 2**32 elements"; pytorch#141909): a limit on one
                      # tensor's element count, whatever the free memory.
                      "larger than currently supported by the mps backend",
                      # One dimension above 2**31-1: PyTorch MPS checks it before building the MPSGraph tensor
                      # (pytorch/pytorch#158824, aten/src/ATen/native/mps/OperationUtils.mm: "MPSGaph does not support
                      # tensor dims larger than INT_MAX", sic; pytorch#164415), where Metal itself aborts with
                      # "NDArray dimension length > INT_MAX".
                      "does not support tensor dims larger than int_max", "ndarray dimension length > int_max",
                      # Metal's per-buffer limit named in users' words (MTLDevice.maxBufferLength: "Metal buffer limit
                      # exceeded", one allocation "as a single Metal buffer" above it; exo-explore/exo#1048).
                      "metal buffer limit", "maxbufferlength", "single metal buffer",
                      # FlashInfer's bump allocator over the workspace buffer the caller gives it
                      # (include/flashinfer/allocator.h, AlignedAllocator::aligned_alloc: "Buffer overflow when
                      # allocating memory for NAME with size N and alignment A, but only M bytes available in
                      # AlignedAllocator. Increase the workspace buffer size."): the serving engine's fixed workspace
                      # (vLLM's FLASHINFER_WORKSPACE_BUFFER_SIZE, 256 MiB until vllm-project/vllm#26048 made it
                      # configurable; vllm#25342), not the device's memory.
                      "bytes available in alignedallocator", "increase the workspace buffer size",
                      # The same bump allocator's two earlier wordings (flashinfer-ai/flashinfer#413, commit 5e36c527,
                      # 2024-07: "Failed to allocate memory for NAME with size N and alignment A in AlignedAllocator";
                      # before it "Out of workspace memory in AlignedAlloactor", sic): no "available" figure, the
                      # same fixed workspace (sglang's flashinfer_workspace_size; sgl-project/sglang#2102).
                      "in alignedallocator", "in alignedalloactor")),
    # ONNX Runtime's BFC arena at its own limit (onnxruntime/core/framework/bfc_arena.cc, BFCArena::Extend: "Available
    # memory of A is smaller than requested bytes of R", A = the arena's memory_limit minus what it already holds):
    # the limit is the session's gpu_mem_limit / arena config, not the device (infiniflow/ragflow#10295).
    ("arena_limit", ("is smaller than requested bytes of",)),
    # PyTorch's caching allocator asserting on one of its expandable segments ("!block->expandable_segment_ INTERNAL
    # ASSERT FAILED at .../CUDACachingAllocator.cpp", pytorch/pytorch#119452): with expandable_segments:True beside
    # garbage_collection_threshold or max_split_size_mb, its release path near a full device tried to free blocks of an
    # expandable segment as if they were ordinary segments (the fix, pytorch/pytorch#134338, "expandable_segments <->
    # other allocator options"). An allocator bug under that option combination, not the shortage's message.
    ("expandable_assert", ("expandable_segment_ internal assert failed",)),
    # cudaErrorDevicesUnavailable (46): "all CUDA-capable devices are busy or unavailable" (CUDA Runtime API, "Data
    # types", cudaError: "Devices are often busy/unavailable due to use of cudaComputeModeProhibited,
    # cudaComputeModeExclusiveProcess, or when long running CUDA kernels have filled up the GPU"); PyTorch words it
    # "CUDA-capable device(s) is/are busy or unavailable". A new context is refused because another process owns the
    # GPU (exclusive-process mode) or keeps it busy: the holder is another process, not this job's size
    # (artidoro/qlora#70: leftover training processes kept respawning until a reboot).
    ("devices_unavailable", ("device(s) is/are busy or unavailable", "devices are busy or unavailable",
                             "cudaerrordevicesunavailable", "cuda_error_devices_unavailable")),
    ("allocator_nvml_assert", ("nvml_success == r internal assert failed",)),
    ("metal_oom", ("kiogpucommandbuffercallbackerroroutofmemory", "insufficient memory (ioaf code 8)",
                   "command buffer execution failed: insufficient memory",
                   # ggml-metal's own report of a failed command buffer (MTLCommandBufferStatusError = 5), which
                   # llama.cpp prints before the Metal error text when the working set is exceeded (llama.cpp#3414).
                   "ggml_metal_graph_compute: command buffer")),
    # MLX's memory limit (mlx/backend/metal/allocator.cpp, malloc_or_wait: it waits for scheduled work to free
    # memory and then throws "[malloc_or_wait] Unable to allocate N bytes." when active + cached + N stays above the
    # allocator's limit, 1.5 x the device's recommendedMaxWorkingSetSize unless mx.metal.set_memory_limit says
    # otherwise; ml-explore/mlx#63, #64 on 8 GB Macs).
    ("mlx_memory_limit", ("[malloc_or_wait] unable to allocate",)),
    # The same check in Paddle's 2017 sources (paddle/platform/gpu_info.cc, GpuMaxChunkSize: PADDLE_ENFORCE_LE(
    # allocating, available) without a message, so EnforceNotMet prints "enforce allocating <= available failed, A > F";
    # PaddlePaddle/Paddle#7227, a 10.48 GB first chunk against 3.03 GB available).
    # (Fifty-eighth pass: the strict form of the same check, PADDLE_ENFORCE_LT, "enforce allocating < available
    # failed, A >= F", PaddlePaddle/Paddle#6265.)
    ("pool_chunk", ("insufficient gpu memory to allocation", "enforce allocating <= available failed",
                    "enforce allocating < available failed")),
    # faiss's GPU scratch space: StandardGpuResources reserves its temporary memory (a share of the GPU, 1.5 GiB at
    # most) in one cudaMalloc when first used (faiss/gpu/utils/StackDeviceMemory.cpp, the Stack constructor;
    # StandardGpuResources.cpp "alloc fail type TemporaryMemoryBuffer"); each resources object reserves its own.
    ("scratch_reserve", ("stackdevicememory::stack::stack(", "type temporarymemorybuffer")),
    ("context_init", ("cuctxcreate", "cudeviceprimaryctxretain", "cuda_init_device", "failed initializing streamexecutor",
                      # PyTorch's lazy CUDA initialisation (torch/cuda/__init__.py _lazy_init -> torch._C._cuda_init):
                      # the first CUDA call creates the context there.
                      "torch._c._cuda_init()", "in _lazy_init",
                      "cudasetdevice", "aclrtsetdevice", "rtsetdevice execution failed",
                      "kernel runtime initialization failed", "runtime init failed")),
    # PyTorch's DataLoader pin-memory thread (torch/utils/data/_utils/pin_memory.py: _pin_memory_loop -> do_one_step ->
    # pin_memory(data, device), tensor.pin_memory() through the caching host allocator's cudaHostAlloc; its failure is
    # re-raised as "Caught <Error> in pin memory thread for device N", ExceptionWrapper's where=): the batch being
    # page-locked in host memory (hearbenchmark/hear-eval-kit#316 and mittagessen/kraken#510: gone with
    # pin_memory=False).
    # (A program's own wrapper of cudaHostRegister raising "CUDA Error while trying to pin memory" when the call's status
    # is not cudaSuccess: the page-locking of an existing host tensor, as in layer-offloading trainers' pin_tensor_
    # helpers; Nerogar/OneTrainer#820.)
    ("pin_memory", ("in pin memory thread", "pin memory thread exited unexpectedly", "pin_memory=true", "pin_memory(", "cudahostalloc", "cudamallochost", "cudahostregister",
                    "while trying to pin memory",
                    "hiphostregister", "hiphostmalloc", "hipmallochost",
                    # The driver API's page-locked host allocations (CUDA Driver API, "Memory Management":
                    # cuMemAllocHost, cuMemHostAlloc, cuMemHostRegister), as PG-Strom's DMA buffers call them
                    # ("failed on cuMemAllocHost: CUDA_ERROR_OUT_OF_MEMORY", heterodb/pg-strom#215).
                    "cumemallochost", "cumemhostalloc", "cumemhostregister",
                    "pinned memory", "cachinghostallocator",
                    # A pinned buffer said to have failed or fallen back: ggml's CUDA_Host buffers are page-locked
                    # (ggml_cuda_host_malloc -> cudaMallocHost) and fall back to pageable CPU memory when that fails
                    # (ollama/ollama#17380: "silent CUDA_Host -> CPU pinned buffer fallback", fixed by a larger page
                    # file on Windows).
                    "pinned buffer fallback", "pinned buffer allocation failed", "failed to allocate pinned buffer",
                    # CuPy's pinned host pool (cupy/cuda/pinned_memory.pyx: alloc_pinned_memory, PinnedMemoryPool,
                    # cudaHostAlloc), used as the staging buffer of host-device copies (cupy#1576, fixed by cupy#1593
                    # "Fallback to synchronous transfer if pinned memory could not be allocated").
                    "pinned_memory.pyx", "alloc_pinned_memory", "pinnedmemorypool",
                    # MXNet's page-locked host storage (src/storage/pinned_memory_storage.h: PinnedMemoryStorage::
                    # Alloc -> cudaMallocHost, CHECK "e == cudaSuccess || e == cudaErrorCudartUnloading"), the
                    # staging buffers of its data iterators (apache/mxnet#8041: train_mnist.py on Windows).
                    "pinned_memory_storage",
                    # TensorFlow's / XLA's StreamExecutor host allocation (cuMemHostAlloc, page-locked):
                    # "failed to alloc N bytes on host: CUDA_ERROR_..." (stream_executor/cuda/cuda_driver.cc)
                    "bytes on host:",
                    # ComfyUI's HostBuffer: the model file is read into host memory that ComfyUI page-locks itself
                    # with cudaHostRegister (Comfy-Org/ComfyUI#14252, "Fix interoperation with external source of
                    # pinned memory pressure"); its reads fail as "HostBuffer.read_file_slice failed" or
                    # "hostbuf_file_reader_read failed", and --disable-pinned-memory turns the pinning off (#14250).
                    "hostbuffer.read_file_slice failed", "hostbuf_file_reader_read failed",
                    # cudaErrorOperatingSystem (304, "OS call failed or operation not supported on this OS"): the
                    # driver's page-locking of host memory (mlock / the OS's locked-page limit) refused, as PyTorch's
                    # caching host allocator meets it when pinning (THCCachingHostAllocator.cpp: cudaHostAlloc);
                    # FalkonML/falkon#31: beyond ~400 centres, gone with pin_memory=False ("some configurations do not
                    # support pinning more than a little RAM").
                    "os call failed or operation not supported on this os", "cudaerroroperatingsystem",
                    # (Sixty-seventh pass) A program's own page-locking of host memory said in words: "Unable to pin
                    # host memory with error code: -1" is mlock(2) returning -1 after a host buffer was registered
                    # with the device (LMCache-Ascend's HostRegisteredMemoryManager, csrc/managed_mem.cpp: "this can
                    # happen in non-privileged mode or not enough rlimit"). mlock fails with ENOMEM/EPERM when the
                    # locked bytes would pass RLIMIT_MEMLOCK (mlock(2), "ENOMEM ... the caller had a nonzero
                    # RLIMIT_MEMLOCK soft resource limit, but tried to lock more memory than the limit permitted"):
                    # `ulimit -l` (LimitMEMLOCK= of a systemd service), not device or host capacity.
                    "unable to pin host memory", "failed to pin host memory", "mlock failed", "mlock() failed")),
    ("library_init", ("cudnn_status_not_initialized", "cudnn_status_alloc_failed", "cudnn_status_internal_error",
                      "cublas_status_alloc_failed", "cublas_status_not_initialized", "dnn library initialization failed",
                      "failed to determine best cudnn convolution algorithm", "could not create cudnn handle",
                      "create cublas handle failed", "create cudnn handle failed", "cublascreate", "cudnncreate",
                      # cuSOLVER's handle, created by jaxlib's linear-algebra kernels on first use (jaxlib/gpu/solver
                      # kernels: "operation cusolverDnCreate(&handle) failed", nrbennet/dl_binder_design#38), and XLA's
                      # compiler finding no DNN library at all (its RET_CHECK "dnn != nullptr" in
                      # xla/service/gpu/gpu_compiler.cc, sokrypton/ColabFold#405).
                      "cusolverdncreate", "dnn != nullptr",
                      # The algorithm queries that need a handle: StreamExecutor answers them only through the DNN or
                      # BLAS support it holds, and reports them failed when that support was never created (the handle
                      # failed before): TensorFlow's "Check failed: stream->parent()->GetConvolveAlgorithms(...)"
                      # (tensorflow/core/kernels/conv_ops.cc, after "could not create cudnn handle", ymgaq/AQ#73) and
                      # XLA's "RET_CHECK failure (.../gemm_algorithm_picker.cc:N) stream->parent()->
                      # GetBlasGemmAlgorithms(...)" (jax-ml/jax#13504, gone once TensorFlow in the same process stopped
                      # preallocating).
                      "->getconvolvealgorithms(", "->getblasgemmalgorithms(",
                      # (Fifty-eighth pass) TensorFlow 1.13-2.x's convolution op saying the same in its own words when
                      # the algorithm query fails for want of the handle: "Failed to get convolution algorithm. This is
                      # probably because cuDNN failed to initialize, so try looking to see if a warning log message was
                      # printed above." (the conv op's errors::Unknown in tensorflow/core/kernels/conv_ops.cc, the
                      # line ymgaq/AQ#73 quotes beside "could not create cudnn handle"; tensorflow#37559 shows it alone
                      # and is fixed by TF_FORCE_GPU_ALLOW_GROWTH=true).
                      "this is probably because cudnn failed to initialize",
                      # TensorRT's builder creating the cuDNN / cuBLAS handles of its tactics (TensorRT 7-8
                      # safeContext.cpp, logged through its ILogger: "Cudnn Error in initializeCommonContext: 1 (Could
                      # not initialize cudnn, please check cudnn installation.)"; 1 is CUDNN_STATUS_NOT_INITIALIZED,
                      # what cudnnCreate returns when it cannot allocate its handle's memory: gpudesk.oom.library_words).
                      "error in initializecommoncontext", "could not initialize cudnn", "could not initialize cublas")),
)
# faiss's default GPU scratch reservation (StandardGpuResourcesImpl::getDefaultTempMemForGPU in
# faiss/gpu/StandardGpuResources.cpp: ``k4GiBTempMem`` 512 MiB on a GPU of at most 4 GiB, ``k8GiBTempMem`` 1 GiB up to
# 8 GiB, ``kMaxTempMem`` 1.5 GiB above; the documentation of setTempMemory: "never more than 1.5 GiB"; the maintainer
# in faiss#1031: 512 MB taken on a 4 GB GPU "with no indices whatsoever, it's an allocation for temporary memory
# scratch space"). faiss reserves it in one cudaMalloc when a resources object is first used, so a faiss failure of
# exactly 1.5 GiB, the size on every GPU above 8 GiB, is that reservation whatever wording the release prints ("failed
# to cudaMalloc 1610612736 bytes", faiss#779, #2580; "alloc fail type TemporaryMemoryBuffer", #2105). 512 MiB and
# 1 GiB are not read so: they are common sizes of index data too (faiss#2020: 512 MiB refused on a 24 GB GPU, whose
# scratch is 1.5 GiB), and the text rarely says how large the GPU is.
FAISS_SCRATCH_BYTES = (1536 * 1024**2,)
# NCCL's ``ncclUnhandledCudaError`` ("unhandled cuda error", src/misc/utils.cc ``ncclGetErrorString``): a CUDA call
# inside NCCL failed, cudaMalloc of its buffers among them; NCCL_DEBUG=WARN prints which ("Cuda failure 'out of
# memory'", include/checks.h ``CUDACHECK``). nccl-tests word it "Test NCCL failure common.cu:N 'unhandled cuda error'"
# (src/common.h ``NCCLCHECK``).
_NCCL_CUDA_ERROR = "unhandled cuda error"
# NCCL's ``ncclSystemError`` ("unhandled system error", src/misc/utils.cc ``ncclGetErrorString``; torch adds "System
# call (e.g. socket, malloc) or external library call failed or device error"): a system call inside NCCL failed. At a
# communicator's start on one node the calls are those of its shared-memory transport, a file in /dev/shm per peer pair
# (src/transport/shm.cc, src/misc/shmutils.cc), and a container's /dev/shm is 64 MB unless the run raises it; NCCL's
# troubleshooting guide names that first for containers ("Docker": "NCCL uses shared memory ... make sure enough shared
# memory is available, --shm-size=1g", docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html).
# Without a word of memory, that is the reading, with NCCL_DEBUG=INFO's "Last error" line as the confirmation
# (MiniMax-AI/MiniMax-01#42, llm-d/llm-d#352: vLLM workers in pods whose /dev/shm was small or full of stale segments).
_NCCL_SYSTEM_ERROR = "unhandled system error"
_OOM_WORD = re.compile(r"\bOOM\b")
# CUDA's cudaErrorLaunchFailure ("unspecified launch failure"; CUDA Runtime API, enum cudaError: "An exception occurred
# on the device while executing a kernel. Common causes include dereferencing an invalid device pointer and accessing
# out of bounds shared memory ... This leaves the process in an inconsistent state"): a kernel's fault, which the driver
# logs as an Xid (13, 31, 43; 48, 63, 74, 79 for a faulty card: docs.nvidia.com/deploy/xid-errors), never a refused
# allocation (opendatalab/MinerU#426: the GPU unusable until a reboot, fixed by replacing the card).
_LAUNCH_FAILURE = ("unspecified launch failure", "cudaerrorlaunchfailure", "cuda_error_launch_failed")
# An out-of-memory raised on the line of a runtime's own initialisation source (Torch7's cutorch ``init.c``, NCCL's
# ``init.cu``, PaddlePaddle's ``platform/device_context.cc``, whose CUDADeviceContext constructor creates the device's
# stream and its cuBLAS/cuDNN handles): the failing allocation is the runtime's start-up (its context and first
# buffers), whichever order the file and the words come in.
_INIT_SOURCE = r"\b(?:init|device_context)\.(?:c|cc|cu|cpp)\b"
_INIT_FILE = re.compile(_INIT_SOURCE + r"[^\n]{0,80}?(?:out of memory|error=2\b)|out of memory[^\n]{0,20}?\(?/[^\n]{0,120}?"
                        + _INIT_SOURCE, re.IGNORECASE)
# A tool's or runtime's initialisation reported as failing with an out-of-memory error ("nvidia-container-cli:
# initialization error: cuda error: out of memory": libnvidia-container creates a CUDA context on each GPU to list the
# devices before it honours NVIDIA_VISIBLE_DEVICES, NVIDIA/nvidia-docker#831). Nothing of the process's own is
# allocated yet, so the memory a context needs (a few hundred MiB) is held by something else on that GPU: another
# process, a display. (cudaErrorInitializationError alone, error 3, is not an out-of-memory and is not read so.)
_INIT_ERROR_OOM = re.compile(r"\binitiali[sz]ation (?:error|failed)\b[^\n]{0,60}?out of memory", re.IGNORECASE)
# The same start-up in a Lua traceback: an out-of-memory raised while Torch7 loads its CUDA package (``require
# 'cutorch'``: cutorch's init calls THCudaInit, lib/THC/THCGeneral.c, which sets every visible device in turn and so
# creates a context on each before the script allocates anything; torch/cutorch#441, failing while three other jobs
# trained on the other GPUs). Lua's traceback names the loader frame "in function 'require'" (luaL_traceback); the
# failing check is in THCGeneral.c (THCudaInit's file), not in a tensor or storage file of the script's own work.
_LUA_REQUIRE_OOM = re.compile(r"THCGeneral\.c\b[^\n]{0,80}?(?:out of memory|error=2\b)[\s\S]{0,600}?"
                              r"\bin function 'require'", re.IGNORECASE)
# cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, N) refuses a shared-memory size above the
# device's opt-in limit with cudaErrorInvalidValue ("invalid argument"; CUDA Runtime API, "cudaFuncSetAttribute": "If
# the specified attribute cannot be written, or if the value is incorrect, then cudaErrorInvalidValue is returned").
# The same call failing with "out of memory" is device memory: the call is the first use of the kernel, where the
# driver loads its module (lazy loading, CUDA_MODULE_LOADING=LAZY, CUDA 11.7+) into device memory a framework's
# up-front pool may have taken (borisdayma/dalle-mini#185: JAX's preallocation, fixed with
# XLA_PYTHON_CLIENT_MEM_FRACTION).
_FUNC_ATTRIBUTE_OOM = re.compile(r"cudafuncsetattribute\b[^\n]{0,300}?out of memory", re.IGNORECASE)
# A process killed by SIGKILL with no words of its own: the Linux OOM killer's usual mark (the shell's "Killed" line,
# torchrun's "exitcode: -9" in ChildFailedError, Python's "died with <Signals.SIGKILL: 9>"). A scheduler's or a user's
# kill reads the same, so it is the likelier reading, not a certain one (gpudesk.oom.rules.signature).
# (The shell's line may come back with the user's punctuation after it, as a title or a quote does: "Killed！",
# Tangshitao/QuadTreeAttention#25, or named as the error it was: "Killed error", anishathalye/neural-style#131, whose
# maintainer pointed to the OOM killer.)
# The same kill as an exit status: 128 + 9 = 137 (a shell, Docker's "exited with code 137"), a launcher's "return code
# = -9", Go's "signal: killed" (Ollama's runner).
_SIGKILL = re.compile(r"exit ?code:?\s{0,2}-9\b|<Signals\.SIGKILL: 9>|\bsignal 9\b|\bSIGKILL\b|"
                      # (The line may carry Docker Compose's log prefix, "<service>-<n>  | ": compose prints each
                      # container's output after its name and a bar, docker/compose pkg/compose/printer.go and
                      # cmd/formatter/logs.go; lichess-org/lila-docker#84, "lila-1  | Killed".)
                      r"^\s{0,8}(?:[\w.-]{1,64}\s{1,8}\|\s{1,4})?Killed(?:\s{1,2}error)?[!！.。]{0,3}\s*$|"
                      r"signal: killed|exit(?:ed with)?[ _]code:?\s{0,2}137\b|exit status 137\b|"
                      r"return code\s{0,2}=\s{0,2}-9\b|"
                      # (Fifty-seventh pass) a launcher reporting its child's Popen.returncode, negative -N being the
                      # signal N that ended it (Python's subprocess docs, "Popen.returncode"): Lightning's
                      # _ChildProcessObserver, "[rank: 1] Child process with PID P terminated with code -9. Forcefully
                      # terminating all other processes" (tier4/autoware-ml#78 quotes it with the PID elided).
                      r"\bterminated with (?:exit |return )?code:?\s{0,2}-9\b|"
                      # bash's report of a job or script command ended by SIGKILL (jobs.c, the signal's description
                      # "Killed"): "<script>: line 46:  1881 Killed   <command>" or "[1]+  Killed   <command>".
                      # (Fifty-seventh pass: "line" as bash's catalogs translate it in "%s: line %d: " (error.c; po/
                      # it.po "riga", de.po "Zeile", fr.po "ligne", es.po "línea", pt_BR.po "linha"): "./invoke.sh: riga
                      # 24:  8612 Killed   ..." under an Italian locale, invoke-ai/InvokeAI#2308; fr.po's "ligne %d : "
                      # puts a space before the colon.) The word "Killed" itself is the C library's: bash's jobs.c
                      # (j_strsignal) prints strsignal(WTERMSIG), so under glibc it is glibc's catalog entry for
                      # SIGKILL (sysdeps/generic/siglist.h "Killed"; po/de.po "Getötet", fr.po "Processus arrêté",
                      # es.po "Terminado (killed)", it.po "Ucciso", pt_BR.po "Morto"; bminor/glibc at 04e750e7), and
                      # bash's own siglist.c entry only where the system has no strsignal (bash po/de.po "Abgebrochen
                      # (Killed)", fr.po "Tué", es.po "Matado"; bminor/bash at 637f5c86). An older catalog leaves it
                      # English ("riga 24:  8612 Killed").
                      r"\b(?:line|riga|Zeile|ligne|línea|linha) \d{1,7} ?:\s{1,4}\d{1,10}\s{1,4}"
                      r"(?:Killed|Getötet|Processus arrêté|Terminado \(killed\)|Ucciso|Morto|Abgebrochen \(Killed\)|"
                      r"Tué|Matado)(?!\w)|"
                      r"^\[\d{1,4}\][+-]?\s{1,4}Killed\b|"
                      # zsh's reports of the same (the default shell of macOS, where the kernel's memory-pressure
                      # killer, jetsam, also ends the largest process with SIGKILL): "zsh: killed     python x.py",
                      # and its job line "[1]    12345 killed     python x.py".
                      # (Fifty-ninth pass: the job line also where the program left its last line unterminated,
                      # "MVM coalescing... [1]    51630 killed     ./vgg16.test", illinois-impact/puma-compiler#6:
                      # zsh prints the report on the cursor's line, so it is read wherever it starts, with the
                      # padding zsh puts after the status before the command.)
                      r"\bzsh: killed\b|^\[\d{1,4}\][+-]?\s{1,8}\d{1,10}\s{1,8}killed\s|"
                      r"(?<=\s)\[\d{1,4}\][+-]?\s{1,8}\d{1,10}\s{1,8}(?-i:killed)\s{2,8}\S|"
                      # The same in Chinese: bash's "Killed" under a zh_CN locale (the signal description comes from
                      # glibc's translated strsignal, "已杀死"), and a user's own wording of a process the system
                      # ended ("进程被系统终止/杀死/kill": "the process was terminated/killed by the system"; "进程被
                      # killed了", InternLM/InternLM#55 when loading the model took RAM to 21 GB). "被终止" alone (merely
                      # "terminated") is not read as a kill.
                      r"已杀死|被(?:操作)?系统(?:强制)?(?:终止|杀死|杀掉|杀了|干掉|kill)|"
                      r"被(?:内核)?(?:强制)?(?:杀死|杀掉|干掉)|被\s{0,2}kill(?:ed)?(?![a-z])|"
                      # The English verb with a Chinese result particle ("kill掉", "killed off") or said of a process
                      # that ended by itself ("自己kill", "自动kill": no one else stopped it; Langchain-Chatchat#4841).
                      r"(?<![a-z])kill(?:ed)?\s{0,2}掉|自(?:己|动)\s{0,2}(?:被\s{0,2})?kill(?![a-z])|"
                      # The shell's "Killed" quoted by a user in prose ('"killed" will appear in second epoch',
                      # ajhamdi/MVTN#2): the line they saw, in quotes.
                      r"[\"'“‘]killed[\"'”’]|"
                      # A user's English for the same: a process "killed due to memory reasons", "killed due to OOM",
                      # "killed because of lack of memory" (Tomiinek/Multilingual_Text_to_Speech#76, Cam2BEV#6). A
                      # device allocation that fails raises an error in the process; only the kernel's OOM killer
                      # (mm/oom_kill.c) or a cgroup limit kills it for memory.
                      r"\bkilled\s{1,3}(?:due\s{1,3}to|because\s{1,3}of|for)\s{1,3}(?:the\s{1,3}|a\s{1,3})?"
                      r"(?:oom\b|memory\b|lack\s{1,3}of\s{1,3}memory\b|insufficient\s{1,3}memory\b)|"
                      # The shell's "Killed" line under other locales: bash prints strsignal(SIGKILL), which glibc
                      # translates (its libc catalogues, msgid "Killed": fr "Processus arrêté", de "Getötet", es
                      # "Terminado (killed)", it "Ucciso", pt_BR "Morto", ru "Убито", ja "強制終了", ko "죽었음", zh_TW
                      # "強制結束", pl "Unicestwiony", nl "Geëlimineerd", tr "Süreç durduruldu"). Read only as a line
                      # of its own, as the shell writes it (nerfstudio#2016: "Processus arrêté" while caching images).
                      r"^\s{0,8}(?:Processus arrêté|Getötet|Terminado \(killed\)|Ucciso|Morto|Убито|強制終了|죽었음|"
                      r"強制結束|Unicestwiony|Geëlimineerd|Süreç durduruldu)[!！.。]{0,3}\s*$",
                      re.IGNORECASE | re.MULTILINE)
# A process that ended by itself, with no error of its own, while it was loading a model or its parameters (the user's
# words: "使用Lora微调加载参数时自动结束进程", "the process ends automatically while loading the parameters",
# zai-org/VisualGLM-6B#227; "the script exits silently while loading the checkpoint"). A Python error prints a
# traceback and a CUDA out-of-memory error has its own message; SIGKILL cannot be caught, so the process vanishes
# without a word, and the kernel's OOM killer sends it when RAM and swap run out (mm/oom_kill.c) — loading is the
# step where a whole checkpoint sits in host RAM at once (and once per process when several are launched). The likelier
# reading (the kernel log decides), read as ``sigkill``.
_SILENT_EXIT = re.compile(r"(?:自动|自己|突然|默默)(?:地)?(?:结束|退出|终止)(?:了)?(?:进程|程序)|"
                          r"(?:进程|程序)(?:就|会)?(?:自动|自己|突然|直接|默默)(?:地)?(?:结束|退出|终止|关闭)|"
                          r"\b(?:process|script|program|python|training)\s{1,3}(?:just\s{1,3})?(?:exits|exited|ends|"
                          r"ended|terminates|terminated|quits|quit|dies|died|stops|stopped)\s{1,3}(?:by itself|on its "
                          r"own|silently|automatically|without (?:any |an )?(?:error|traceback|message|output))",
                          re.IGNORECASE)
_LOADING = re.compile(r"加载|载入|\bload(?:ing|s|ed)?\b", re.IGNORECASE)


# A notebook's kernel that died or crashed with no error of its own ("The kernel appears to have died. It will restart
# automatically.", Jupyter's notice when the kernel process exits unexpectedly; users: "Kernel crashes after restarting
# crashed jupyter notebook", alihaydaroglu/suite3d#51), with a notebook named. A restart alone is not read so (a user
# or a scheduler restarts a kernel too: tests/oom/test_oom_sixteenth_pass.py). The
# kernel is a process of its own: ended by SIGKILL (the OOM killer, when RAM, swap or /dev/shm are exhausted) or by a
# native crash, so host memory is the likelier reading, less firmly than a kill the shell reports (``kernel_died``).
_KERNEL_DIED = re.compile(r"\bkernel\s{1,3}(?:appears\s{1,3}to\s{1,3}have\s{1,3}died|(?:has\s{1,3}|had\s{1,3})?died|"
                          r"crash(?:es|ed|ing)?|keeps?\s{1,3}(?:dying|crashing))|"
                          r"内核(?:已经|总是|一直)?(?:挂了|挂掉|崩溃|死了|死掉)",
                          re.IGNORECASE)
_NOTEBOOK_WORDS = re.compile(r"notebook|jupy?ter|ipykernel|\bcolab\b|\bkaggle\b", re.IGNORECASE)


def notebook_kernel_died(text: str) -> bool:
    """True when the text says a notebook's kernel died or crashed (``_KERNEL_DIED``; a restart alone does not count)."""
    return (_KERNEL_DIED.search(text) is not None and _NOTEBOOK_WORDS.search(text) is not None) or \
        "kernel appears to have died" in text.lower()


def silent_exit_while_loading(text: str) -> bool:
    """True when the text says the process ended by itself while it was loading (``_SILENT_EXIT``)."""
    return _SILENT_EXIT.search(text) is not None and _LOADING.search(text) is not None


# SIGTRAP as macOS's shell reports it (BSD's description of signal 5), and the marks of a model running when it came
# (a tqdm step bar "0/50 [00:00<?, ?it/s]", or the frameworks that run on Apple silicon's GPU): ``sigtrap_mac``.
_SIGTRAP_MAC = re.compile(r"\btrace/bpt trap\b", re.IGNORECASE)
_MODEL_RUNNING = re.compile(r"\d\s{0,2}(?:it/s|s/it)\]|\?it/s\]|\bmps\b|\bmetal\b|\btorch\b|\bmlx\b|diffusers|"
                            r"\bpipeline\b", re.IGNORECASE)
# (ROCm's HSA runtime reports a kernel's bad address as "Memory access fault by GPU node-N ... Page not present";
# a misaligned access is the same kind of kernel fault.)
_ILLEGAL_ADDRESS = ("illegal memory access", "cudaerrorillegaladdress", "cuda_error_illegal_address",
                    "memory access fault by gpu", "misaligned address", "cudaerrormisalignedaddress")
# Words of an out-of-memory failure of the text's own: with them, an illegal access is a consequence, not the story.
# (Sixtieth pass) gunicorn's arbiter reporting a worker ended by a signal, "Worker (pid:%s) was sent %s!", adds its
# own guess " Perhaps out of memory?" when the signal is SIGKILL (benoitc/gunicorn at
# 65ac1a3a4c0aa00960968c720d6e6bd2ac32f1b9, gunicorn/arbiter.py, reap_workers): the words are the supervisor's guess
# about the kill, not a runtime's allocation failure, so they do not stop the SIGKILL reading (exllamav2#556).
_GUNICORN_GUESS = re.compile(r"was sent sigkill!\s{0,2}perhaps out of memory\?")
_OOM_OWN = ("out of memory", "tried to allocate", "outofmemory", "out_of_memory", "failed to allocate")
_BARE = re.compile(r"cuda error[:\s]{1,3}out of memory|hip error[:\s]{1,3}out of memory|hiperroroutofmemory|cuda_error_out_of_memory|cudaerrormemoryallocation|"
                   r"cuda failure\s{0,3}'?out of memory|cuda failure\s{0,3}2\b|cuda error 2\b|cuda error\s{0,2}\(2\)|cuda error\(2\)|"
                   r"cuda runtime error.{0,80}out of memory|result=2\b|"
                   # MXNet's pooled storage manager (src/storage/pooled_storage_manager.h: "cudaMalloc retry failed: "
                   # << cudaGetErrorString(e)), CTranslate2's CUDA_CHECK (src/cuda/utils.h: "CUDA failed with error "
                   # + cudaGetErrorString), OpenCV's cudaSafeCall (cv::Error::GpuApiCallError, "(-217:Gpu API call)").
                   r"cudamalloc (?:retry )?failed:\s{0,2}out of memory|cuda failed with error\s{0,2}out of memory|"
                   r"gpu api call\)\s{0,2}out of memory|"
                   # Programs' own CUDA-call checks that print cudaGetErrorString after the call site: ethminer's
                   # CUDA_SAFE_CALL ("CUDA error in func initEpoch_internal at line 123 out of memory",
                   # libethash-cuda/CUDAMiner_cuda.h, ethminer#1891) and the quoted string of NiceHash excavator's
                   # ("CUDA error 'out of memory' in func 'cuda_daggerhashimoto::run' line 1292", excavator#25).
                   r"cuda error in func(?:tion)?\s{1,3}[\w:]{1,80}\s{1,3}at line\s{1,3}\d{1,6}\s{1,3}out of memory|"
                   r"cuda error\s{0,2}'out of memory'", re.IGNORECASE)


# Device allocators that throw C++'s std::bad_alloc for device memory: RMM (``rmm::out_of_memory`` derives from
# ``rmm::bad_alloc``, itself a ``std::bad_alloc``; include/rmm/detail/error.hpp, "RMM_ERROR_OUT_OF_MEMORY") and Thrust
# (``thrust::system::detail::bad_alloc``, whose what() reads "std::bad_alloc: cudaErrorMemoryAllocation: out of memory").
_DEVICE_BAD_ALLOC_WORDS = ("rmm", "thrust", "cudaerror", "cuda error", "hiperror", "out_of_memory")


def _device_bad_alloc(low: str) -> bool:
    """A ``std::bad_alloc`` thrown by a device allocator (the text names one), not by the host's ``operator new``."""
    return ("bad_alloc" in low or "bad allocation" in low) and any(w in low for w in _DEVICE_BAD_ALLOC_WORDS)


def _onnxruntime_on_cpu(low: str) -> bool:
    """An ONNX Runtime arena failure on a node the CPU provider runs: its arena is host memory.

    ONNX Runtime's ``BFCArena`` serves every provider, so its "Failed to allocate memory for requested buffer" does
    not say which memory. The node does: the NCHWc layout transformer (``onnxruntime/core/optimizer/
    nchwc_transformer.cc``) rewrites only nodes assigned to the CPU execution provider and names them ``..._nchwc``;
    a session whose only provider is ``CPUExecutionProvider`` allocates only host memory (DayBreak-u/chineseocr_lite#355).
    """
    if "bfcarena" not in low and "bfc_arena" not in low:
        return False
    if "_nchwc" in low:
        return True
    gpu_providers = ("cudaexecutionprovider", "tensorrtexecutionprovider", "rocmexecutionprovider",
                     "dmlexecutionprovider", "cuda_call", "cudnn")
    return "cpuexecutionprovider" in low and not any(p in low for p in gpu_providers)


# PyTorch's MapAllocator naming the shared-memory file of a tensor passed between processes (``dev_shm`` above).
_TORCH_SHM_FILE = ("unable to write to file </torch", "unable to open shared memory object </torch",
                   "from file </torch", "unable to resize file </torch", "unable to open file </torch")


# ENOSPC ("No space left on device", errno 28) is a filesystem's answer, never a GPU allocator's (CUDA refuses device
# memory with cudaErrorMemoryAllocation / CUDA_ERROR_OUT_OF_MEMORY). A training or inference job that meets it while
# its GPU has room is writing to the RAM-backed /dev/shm: the DataLoader workers pass every batch through it and Docker
# gives a container 64 MB there (docs.docker.com, "docker run --shm-size"; ultralytics/ultralytics#1238: "No space left
# on device with plenty of space left on GPU", fixed by --ipc=host). A job that was saving a checkpoint or installing
# packages was writing to a disk instead, and is not read so.
_ENOSPC_GPU_WORDS = ("gpu", "cuda", "vram", "dataloader")
_DISK_WRITE_WORDS = ("torch.save", "save_pretrained", "save_checkpoint", "pip install", "conda install", "apt-get",
                     "docker pull", "docker build", "/var/lib/docker", "failed to register layer", "write_file",
                     "no space left on device: '/", "no space left on device: \"/")


def _enospc_beside_gpu(low: str) -> bool:
    """ENOSPC in a text about a GPU job that names no disk write (see ``_ENOSPC_GPU_WORDS``)."""
    return any(w in low for w in _ENOSPC_GPU_WORDS) and not any(w in low for w in _DISK_WRITE_WORDS)


def enospc_beside_gpu_only(text: str) -> bool:
    """``dev_shm`` read from ENOSPC beside a GPU job alone, no word of shared memory: the likelier filesystem, not a
    named one (gpudesk.oom.rules.signature ranks it below a named /dev/shm)."""
    low = flatten_whitespace(text)
    return ("no space left on device" in low and _enospc_beside_gpu(low) and not any(w in low for w in _DEV_SHM_WORDS)
            and "/torch_" not in low and not any(w in low for w in _TORCH_SHM_FILE))


def flatten_whitespace(text: str) -> str:
    """``text`` lower-cased with every run of spaces, tabs and line breaks made one space.

    Pastes from terminals, e-mails and issue forms are wrapped at a fixed width ("killed by signal: Bus\nerror",
    "out of shared\nmemory"): a signature's words must match across the break as they do on one line.
    """
    return " ".join(text.lower().split())


# A request refused by a fixed region planned ahead of time, whose size the message states: the region's size is the
# limit, not the device's free memory (TVM's Relax VM static memory plan: "storage allocation failure, attempted to
# allocate N at offset 0 in region that is M bytes", src/runtime/relax_vm/memory_manager.cc; mlc-llm#860, fixed by the
# context and prefill-chunk sizes the model was compiled for). Read only when the request exceeds that region.
_REGION = re.compile(r"\bin (?:a |the )?(?:region|arena|pool) (?:that is|of size|of)\s{0,2}(\d{1,20})\s{0,2}bytes?\b",
                     re.IGNORECASE)


# Runtimes that reserve a device pool when they start and fail there as a whole (the pool, not a tensor of the job):
# AMReX's main arena takes 3/4 of the device memory at initialisation unless amrex.the_arena_init_size says otherwise
# (AMReX runtime parameters, "Memory"; Src/Base/AMReX_Arena.cpp allocate_system: "CUDA error 2 in file
# .../AMReX_Arena.cpp ... out of memory", AMReX-Codes/amrex#3189), and Taichi maps its field storage pool at ti.init
# (device_memory_GB / device_memory_fraction; 1 GB by default where CUDA has no unified memory, taichi-dev/taichi#2172:
# "CUDA Error CUDA_ERROR_OUT_OF_MEMORY: out of memory while calling malloc (cuMemAlloc_v2)" from
# Program::initialize_runtime_system, taichi#765, #3356, #8128).
_STARTUP_POOL = (("amrex", ("amrex_arena.cpp", "amrex::arena")),
                 ("taichi", ("initialize_runtime_system", "ti.init(")))


# Taichi's CUDA backend asks the driver itself (cuMemAlloc) only for that up-front pool: fields are then carved from the
# pool by Taichi's own allocator, whose exhaustion it words as "Out of CUDA pre-allocated memory" (taichi/runtime/llvm/
# runtime_module/runtime.cpp; the pool itself from LlvmRuntimeExecutor / Program::initialize_runtime_system through
# CUDADriver's malloc, taichi/rhi/cuda/cuda_driver.h, whose failures read "CUDA Error CUDA_ERROR_OUT_OF_MEMORY: out of
# memory while calling malloc (cuMemAlloc_v2)"). Such a failure with no Python traceback of the program (nothing of
# its own had run: taichi#765, a second Taichi program started beside the first) is the pool's reservation at start.
_TAICHI_DRIVER_MALLOC = re.compile(r"while calling malloc \(cumemalloc(?:_v2)?\)")
_PY_TRACEBACK = "traceback (most recent call last)"


def startup_pool_runtime(low: str) -> str | None:
    """The runtime whose start-up pool a (lower-cased, flattened) out-of-memory text names (``_STARTUP_POOL``)."""
    for runtime, words in _STARTUP_POOL:
        if runtime in low and any(w in low for w in words):
            return runtime
    if "taichi" in low and _TAICHI_DRIVER_MALLOC.search(low) and _PY_TRACEBACK not in low:
        return "taichi"
    return None


def _rmm_pool_cap(low: str) -> bool:
    """RMM's pool resource at the maximum_pool_size it was created with (rmm/mr/device/pool_memory_resource.hpp:
    "Maximum pool size exceeded", thrown as rmm::out_of_memory): the pool's cap, not the device. RMM's arena resource
    words its failures the same but sizes its arena from the device's free memory (arena_memory_resource.hpp, "No room
    in arena"; dmlc/xgboost#11457 with 1.95 GB free for a 5.99 GB request): that one is the device's capacity."""
    return ("maximum pool size exceeded" in low and "pool_memory_resource" in low
            and "arena_memory_resource" not in low and "no room in arena" not in low)


# SGLang's scheduler when its KV pool allocator returns nothing for a decode or prefill batch
# (python/sglang/srt/managers/schedule_batch.py, alloc_token_slots / alloc_paged_token_slots_*: "Decode out of memory.
# Try to lower your batch size.\nTry to allocate N tokens.\nAvaliable tokens: M" [sic], M the allocator's
# available_size() plus the radix cache's evictable tokens; https://github.com/sgl-project/sglang). With a page size
# above 1 the paged allocator hands out whole pages, so a batch whose requests each need a new page can be refused while
# the token count says M >= N: the scheduler's estimate of the next decode's pages, not the pool's capacity, failed to
# retract in time (sgl-project/sglang#4602, fixed by #4913 "Fix oom error for large page size").
_TOKEN_POOL = re.compile(r"(?:decode|prefill) out of memory\b.{0,200}?allocate\s{1,3}(\d{1,12})\s{1,3}tokens?\b"
                         r".{0,120}?ava(?:il|li)able\s{1,3}tokens?:\s{0,3}(\d{1,12})", re.IGNORECASE | re.DOTALL)


def token_pool_has_room(text: str) -> bool:
    """An engine's KV-pool refusal whose own counts say the pool had the tokens (``_TOKEN_POOL``)."""
    m = _TOKEN_POOL.search(text)
    return m is not None and int(m.group(2)) >= int(m.group(1))


# A buffer's length checked against the device's per-buffer limit and refused: Metal's debug layer validating a new
# buffer against MTLDevice.maxBufferLength (MTLDebugDevice "failed assertion `Buffer Validation newBufferWith*:length
# 0x86004000 must not exceed 2048 MB"; llama.cpp#6861, where slaren notes Metal's maximum buffer size and that the
# compute buffer cannot be split). The check names the limit of one buffer, not the device's free memory.
_BUFFER_LENGTH_LIMIT = re.compile(r"\bbuffer.{0,200}?\blength\s{0,2}[=:]?\s{0,2}(?:0x[0-9a-f]{1,16}|\d{1,20})\s{0,2}"
                                  r"(?:bytes?)?\s{0,3}(?:must not|may not|cannot|can't|shall not) exceed\b", re.IGNORECASE)

# MLX's count of resident Metal buffers (mlx/backend/metal/allocator.cpp, MetalAllocator::malloc: "[metal::malloc]
# Resource limit (N) exceeded." once the allocator holds resource_limit buffers, the device's
# maxResourcesPerDevice-style cap of 499000 on Apple silicon; https://github.com/ml-explore/mlx): a limit on how many
# buffers exist, not on their bytes, so it is read with or without the "[metal::malloc]" prefix a title drops.
RESOURCE_COUNT_LIMIT = re.compile(r"\bresource limit\s{0,2}\(\s{0,2}(\d{1,12})\s{0,2}\)\s{0,2}exceeded", re.IGNORECASE)


# A runtime's per-allocation maximum stated as such, with the request above it: Level Zero's
# ze_device_properties_t.maxMemAllocSize ("maximum memory allocation size in bytes"), OpenCL's
# CL_DEVICE_MAX_MEM_ALLOC_SIZE and Vulkan's maxMemoryAllocationSize cap one allocation well below the device's memory
# (a quarter of it by default on Intel GPUs), and a HIP-on-Level-Zero runtime refuses a hipMalloc above it ("chipStar's
# allocation limit is 4294959104 bytes, so the 4294967296-byte request fails", CHIP-SPV/chipStar#1186).
_STATED_ALLOCATION_LIMIT = re.compile(
    r"\b(?:max(?:imum)?\s{1,3}(?:memory\s{1,3})?alloc(?:ation)?\s{1,3}size|(?:per[- ]|single[- ])?allocation\s{1,3}"
    r"(?:size\s{1,3})?limit|maxmemallocsize|max_mem_alloc_size)\s{0,3}(?:is|of|=|:)\s{0,3}(\d{1,20})\s{0,2}bytes?\b",
    re.IGNORECASE)


def _stated_allocation_limit(text: str, requested: int | None) -> bool:
    m = _STATED_ALLOCATION_LIMIT.search(text)
    return requested is not None and m is not None and requested > int(m.group(1))


def _region_limit(text: str, requested: int | None) -> bool:
    m = _REGION.search(text)
    return requested is not None and m is not None and requested > int(m.group(1))


# WSL2's GPU paravirtualisation driver (dxgkrnl, drivers/hv/dxgkrnl in the WSL2 kernel,
# https://github.com/microsoft/WSL2-Linux-Kernel) asking the Windows host to make an allocation resident in video
# memory, refused with ENOMEM ("dxgkio_make_resident: Ioctl failed: -12" in dmesg): the host's video memory manager
# keeps a share of the GPU for Windows, so the ceiling sits below what nvidia-smi shows free inside WSL
# (microsoft/WSL#41176: refused with about 2 GB free per GPU; a lower engine budget then passed).
_WSL_RESIDENCY = re.compile(r"dxgkio_make_resident\b[^\n]{0,40}?(?:-12\b|enomem)", re.IGNORECASE)


# Marks of a framework that preallocates the GPU (XLA under JAX or TensorFlow), as gpudesk.oom.parsers.cublas reads them.
_PREALLOCATING_MARKS = ("xla", "jax", "stream_executor", "tensorflow")


# A memory figure that is not a number: a size or estimate computed from missing values prints as NaN (JavaScript and
# IEEE 754's not-a-number; "undefined" is JavaScript's missing unit), Infinity or "inf" (fifty-fifth pass; a model
# loader's guardrail estimating "approximately NaN undefined of memory" for an architecture it could not size,
# lmstudio-ai/lmstudio-bug-tracker#1038, fixed in the next release). No memory can be short of a size that is not one:
# the estimate is the bug (``absurd_size``). The figure must be the need or the request, before "of memory" or a unit.
NOT_A_NUMBER_SIZE = re.compile(
    r"\b(?:requires?|required|needs?|needed|request(?:s|ed)?|allocat(?:e|ing)|size(?:\s{1,3}of)?|estimated(?:\s{1,3}at)?)"
    r"\s{1,3}(?:approximately\s{1,3}|about\s{1,3}|roughly\s{1,3}|around\s{1,3}|~\s{0,2})?(?:NaN|Infinity|inf)"
    r"(?:\s{1,3}(?:undefined|null|[KMGT]i?B|bytes?))?\s{1,3}(?:of\s{1,3}(?:gpu\s{1,3}|video\s{1,3}|device\s{1,3}|system\s{1,3})?"
    r"(?:memory|vram|ram)|[KMGT]i?B|bytes?)\b", re.IGNORECASE)


def classify(text: str, requested: int | None = None, negative_size: int | None = None,
             backend: str | None = None, total_bytes: int | None = None) -> str | None:
    """The signature of ``text`` (see the module docstring), or None. ``requested`` / ``negative_size`` are the
    figures the parsers read; ``backend`` is the one :func:`gpudesk.oom.parsers.generic.detect_backend` found;
    ``total_bytes`` the failing device's capacity when the text gives it.
    Words match across line breaks (:func:`flatten_whitespace`)."""
    low = flatten_whitespace(text)
    if (requested is not None and (requested >= ABSURD_REQUEST_BYTES or requested == WRAPPED_MINUS_ONE_BYTES)
            or "more than 1eb" in low or negative_size is not None or absurd_for_device(text, requested, total_bytes)
            or NOT_A_NUMBER_SIZE.search(text) is not None):
        return "absurd_size"
    if vgpu_words.counter_wrapped(text):
        return "absurd_size"  # a vGPU layer's usage counter wrapped below zero (gpudesk.oom.vgpu_words)
    if requested is None and CHECKPOINT_RESTORE.search(text) and (any(w in low for w in _OOM_OWN) or _BARE.search(text)):
        return "checkpoint_version"  # a binary checkpoint read by another version (CHECKPOINT_RESTORE)
    if pool_words.fixed_pool_runtime(text) is not None:
        return "fixed_pool"
    if vgpu_words.hami_oom(text) is not None:
        return "vgpu_limit"
    if "ecc" in low and any(w in low for w in _WORDS[0][1]):
        return "ecc"
    if _XID.search(text) or gpu_fault_without_xid(text):
        return "xid"
    if _WSL_RESIDENCY.search(text):
        return "wsl_residency"
    if ("bus error" in low and any(w in low for w in _DEV_SHM_WORDS)) or _BARE_BUS_ERROR.search(text) or \
            _WORKER_BUS_ERROR.search(low) or _SIGBUS_EXIT.search(text) or (
            "no space left on device" in low and "/torch_" in low) or any(w in low for w in _TORCH_SHM_FILE):
        return "dev_shm"
    if VERBS_ENOMEM.search(low):
        # NCCL's "unhandled system error" with its InfiniBand transport's registration refused as ENOMEM beside it
        # (vllm#19613: "Call to ibv_reg_dmabuf_mr failed with error Cannot allocate memory"): the system call that
        # failed is the verbs registration, pinned memory against RLIMIT_MEMLOCK, not a /dev/shm segment.
        return "pin_memory"
    if any(w in low for w in _SHM_SEGMENT_WORDS) or ("posix_fallocate failed" in low and "nccl" in low) or (
            "/dev/shm/nccl-" in low and any(w in low for w in _SHM_FILE_FAILURES)):
        return "shm_segment"
    if _NCCL_SYSTEM_ERROR in low and "nccl" in low and not any(w in low for w in _OOM_OWN) and \
            _OOM_WORD.search(text) is None:
        return "nccl_system_error"
    if "no space left on device" in low and (any(w in low for w in _DEV_SHM_WORDS) or _enospc_beside_gpu(low)):
        return "dev_shm"
    if exit_marks.worker_exit_in_container(text):
        return "worker_exit_shm"
    # A need above what there was, in a sentence that places the memory in /dev/shm or the host (gpudesk.oom.need_have).
    stated = need_have.find(text)
    if stated is not None and stated.place == "shared_memory":
        return "dev_shm"
    if stated is not None and stated.place == "host":
        return "host_ram"
    # Start-up refusals worded as out of memory (gpudesk.oom.start_refusal_words): ROCm's /dev/kfd or HSA runtime, and
    # NVENC's encode session, both before any allocation of the program's.
    if start_refusal_words.rocm_runtime_start(text):
        return "rocm_start"
    if start_refusal_words.nvenc_session_refused(text):
        return "nvenc_session"
    # (Cython turns a C++ std::bad_alloc into Python's MemoryError: cudf's "MemoryError('std::bad_alloc')" from RMM
    # is device memory.)
    if (_PY_MEMORY_ERROR.search(text) and not any(w in low for w in _DEVICE_WORDS) and not _device_bad_alloc(low)) \
            or _RUST_ALLOC.search(text) or _RAM_SHORTAGE.search(text) or _COMMIT_LIMIT_CODE.search(text) or (
                _CPU_ALLOCATOR_WORDS.search(text) and not any(w in low for w in _CPU_ALLOCATOR_DEVICE_WORDS)) or (
                (HOST_BUFFER_ALLOCATION_FAILED.search(text) or OS_KILLED_FOR_MEMORY.search(text))
                and not any(w in low for w in _ANY_DEVICE_WORDS)) or (
                _ZH_RAM_SHORTAGE.search(text) and not any(w in low for w in _ZH_DEVICE_WORDS)):
        return "host_ram"
    if _TF_HOST_WARNING in low and not any(w in low for w in _TF_DEVICE_OOM):
        return "host_ram"
    if _TF_CPU_NODE.search(text) and _TF_GPU_PLACEMENT.search(text) is None:
        return "host_ram"
    if TOOLCHAIN_HOST_OOM.search(text) or ray_memory_monitor(text) or memory_threshold_kill(text):
        return "host_ram"
    if engine_placed_rest_on_host(text) and not any(w in low for w in _OOM_OWN) and _OOM_WORD.search(text) is None:
        return "host_ram"
    if host_memory_nearly_full(text) and not any(w in low for w in _OOM_OWN):
        return "host_ram"
    if runner_backend_buffer(text):
        return "host_ram"
    if VERBS_ENOMEM.search(low):
        return "pin_memory"
    func_attribute_oom = _FUNC_ATTRIBUTE_OOM.search(low) is not None
    if (limit_words.shared_memory_limit(text) or limit_words.kernel_resource_limit(text)) and not func_attribute_oom:
        return "shared_memory"
    if limit_words.buffer_size_limit(text) or limit_words.vulkan_allocation_count(text):
        return "buffer_limit"
    heap = limit_words.heap_size_exceeded(text)
    if heap is not None and heap[1] <= VULKAN_BAR_HEAP_BYTES:
        # A heap no larger than the BAR window is the host-visible device-local heap, never the card's VRAM
        # (gpudesk.oom.limit_words); a request above a larger heap is left to the capacity readings.
        return "vulkan_heap"
    if _CUDA_SYMBOL_MISSING.search(text):
        return "driver_version"
    if _CUDA_CALL_UNKNOWN_ERROR.search(text) and not any(w in low for w in _OOM_OWN):
        return "runtime_unusable"
    if library_words.version_changed_under_generic_question(text):
        return "library_changed"
    if _POOL_FALLBACK.search(text):
        return "pool_fallback"
    if "memory capacity is unbalanced" in low:
        # SGLang's comparison of its ranks' free memory at start (gpudesk.oom.rules.multi_gpu_imbalance).
        return "rank_free_imbalance"
    if expandable_segment_refused(text):
        return "expandable_segments"
    for key, words in _WORDS[1:]:
        if key == "shared_memory" and func_attribute_oom:
            continue  # device memory, not the shared-memory limit (_FUNC_ATTRIBUTE_OOM)
        if any(w in low for w in words
               if not (w in ("std::bad_alloc", "bad allocation") and _device_bad_alloc(low))):
            return key
    if "cudnn_status_execution_failed" in low and any(w in low for w in _PREALLOCATING_MARKS):
        # cuDNN's kernel failing under XLA / TensorFlow (gpudesk.oom.parsers.cublas, CUDNN_EXECUTION_FAILED): its own
        # allocations outside the framework's preallocated pool, as at handle creation.
        return "library_init"
    if "unable to allocate" in low and "mlx" in low:
        # MLX's allocator limit quoted without its "[malloc_or_wait]" prefix (a title: 'malloc error "Unable to
        # allocate" on 8GB RAM Mac', ml-explore/mlx#63).
        return "mlx_memory_limit"
    if _onnxruntime_on_cpu(low):
        return "host_ram"
    if _INIT_FILE.search(text) or _INIT_ERROR_OOM.search(low) or _LUA_REQUIRE_OOM.search(text):
        return "context_init"
    if startup_pool_runtime(low) is not None and any(w in low for w in _OOM_OWN):
        return "startup_pool"
    if _rmm_pool_cap(low):
        return "arena_limit"
    if (_region_limit(text, requested) or _stated_allocation_limit(text, requested) or _BUFFER_LENGTH_LIMIT.search(low)
            or RESOURCE_COUNT_LIMIT.search(low)):
        return "buffer_limit"
    if token_pool_has_room(text):
        return "token_pool_accounting"
    if "faiss" in low and requested in FAISS_SCRATCH_BYTES:
        return "scratch_reserve"
    if any(w in low for w in _ILLEGAL_ADDRESS) and not any(w in low for w in _OOM_OWN):
        return "illegal_address"
    if any(w in low for w in _LAUNCH_FAILURE) and not any(w in low for w in _OOM_OWN):
        return "launch_failure"
    if backend == "vulkan" and requested is not None and requested >= VULKAN_LARGE_BYTES:
        return "vulkan_large"
    if backend == "vulkan" and requested is None and _VULKAN_BUFFER_CREATE.search(text) and not _ANY_SIZE.search(text):
        return "vulkan_unsized"
    if "xpu out of memory" in low and requested is not None and requested >= XPU_LARGE_BYTES:
        return "xpu_large"
    if "hipmemcreate" in low and requested is None and "hipmemaddressreserve" not in low:
        return "vmm_handle"
    if _GRAPH_BUFFER_REFUSED.search(text) and requested is None:
        return "graph_buffer"
    if extension_arch_bad_alloc(text):
        return "extension_arch"
    if _BARE.search(text) and requested is None and host_offload_setting(text):
        return "pin_memory"
    if _BARE.search(text):
        return "bare_cuda_error"
    if _NCCL_CUDA_ERROR in low and "nccl" in low:
        return "nccl_cuda_error"
    if (_SIGKILL.search(text) or silent_exit_while_loading(text) or exit_marks.killed_without_error(text)) \
            and not any(w in _GUNICORN_GUESS.sub("", low) for w in _OOM_OWN):
        return "sigkill"
    if exit_marks.paused_after_unfinished_load(text) and not any(w in low for w in _OOM_OWN):
        return "load_exit_paused"
    if exit_marks.worker_found_dead(text) and not any(w in low for w in _OOM_OWN):
        return "worker_exit"  # a DataLoader worker gone with no signal named, outside a container (exit_marks)
    if notebook_kernel_died(text) and not any(w in low for w in _OOM_OWN):
        return "kernel_died"
    if _SIGTRAP_MAC.search(text) and _MODEL_RUNNING.search(text):
        return "sigtrap_mac"
    return None


# The deciding check of a runtime's fixed pool (``fixed_pool``, :mod:`gpudesk.oom.pool_words`): the pool's configured
# size against what the message says it needed.
FIXED_POOL_CHECK = Check("buffer_limit", "grep -n -i -E 'memory|stack|buffer|INITIAL_MEMORY' <the model, scene or build "
                                         "settings>",
                         N_("If the size the runtime was configured with is below what the message asks for, the "
                            "runtime's own fixed pool refused it, not the GPU or the host: raise that setting (or make "
                            "the scene or problem smaller); free memory elsewhere changes nothing."))
