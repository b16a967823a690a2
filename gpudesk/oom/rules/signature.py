"""Causes a text's signature decides (:mod:`gpudesk.oom.signatures`), ranked with the check that tells them apart.

* A not-capacity signature (Triton shared memory, host RAM, a garbage size, ECC, Xid, driver version,
  expandable segments on an unsupported platform, a per-buffer limit, pinned host memory) → ``not_capacity``
  at 0.96: the text names the mechanism, so no figure can outweigh it. A Vulkan allocation of 2 GiB or more
  that fails (``vulkan_large``) is only the likelier reading → 0.6, above a plain shortage (0.5).
* An illegal memory access with no out-of-memory failure of its own in the text → ``not_capacity`` 0.96 (a
  kernel's bad address, found with ``CUDA_LAUNCH_BLOCKING=1`` / ``compute-sanitizer``).
* A failed CUDA context → ``other_process`` 0.8 (a context needs a few hundred MiB of a GPU someone filled); a
  runtime start-up failure whose text names no memory failure at all (MindSpore's "Ascend kernel runtime
  initialization failed") → ``other_process`` 0.55 with the driver/runtime mismatch at 0.4.
* A cuDNN/cuBLAS handle created by a framework that sets its layers up eagerly and keeps no pool (Caffe's and
  MXNet's glog "Check failed: ... _STATUS_SUCCESS", Torch7's "Error in CuDNN:") → cuDNN: a library mismatch first
  (``not_capacity`` 0.55 with the library check), memory 0.45; cuBLAS (shipped with the CUDA runtime):
  ``genuine_shortage`` 0.55, the library reading 0.3.
* A cuDNN/cuBLAS/XLA library initialisation failure allocates outside the framework's allocator: where the
  framework pre-allocates (TensorFlow, JAX/XLA) → ``preallocation`` 0.6; else → ``genuine_shortage`` 0.55 and
  ``other_process`` 0.4 (a status pasted with no caller's words around it reads as TensorFlow's: ``preallocation``);
  XLA's own line "Memory usage: F bytes free, T bytes total" decides it: more than half
  free → a library or driver mismatch (``not_capacity``, 0.8). JAX (which leaves a quarter of the GPU outside its
  pool) → a missing or mismatched cuDNN / old driver first (``not_capacity`` 0.65 with ``ldconfig -p | grep cudnn``
  and the versions), preallocation 0.45. PyTorch's ``CUDNN_STATUS_NOT_INITIALIZED`` (memory and a library mismatch
  both end there): in a traceback through the backward pass (the forward's cuDNN ops had worked) →
  ``genuine_shortage`` 0.55 with the library check, the library reading 0.4; anywhere else → the library first
  (``not_capacity`` 0.55), memory 0.45 (:func:`_not_initialized_pytorch`).
* DataLoader workers killed by a bus error with shared memory named (``dev_shm``) → ``not_capacity`` 0.96 with
  ``df -h /dev/shm`` (host memory: ``host_ram``'s kind of check), the fix ``--shm-size`` / ``--ipc=host``.
* PaddlePaddle's up-front chunk larger than what is available (``pool_chunk``) → ``preallocation`` 0.7, then
  ``other_process`` 0.4.
* A process killed by SIGKILL with no out-of-memory words of its own ("Killed", torchrun's "exitcode: -9") →
  ``not_capacity`` 0.7 with the kernel log's OOM-killer line as the check: the likelier reading, since a scheduler's
  kill looks the same.
* A DataLoader worker found dead in a container (``worker_exit_shm``) → ``not_capacity`` 0.75 with ``df -h /dev/shm``;
  a Windows pause prompt after an unfinished checkpoint load (``load_exit_paused``) → the commit limit 0.65
  (:mod:`gpudesk.oom.rules.exit_causes`).
* A bare CUDA error while the model is built (:mod:`gpudesk.oom.start_words`) → ``other_process`` 0.6, the job's own
  need 0.45. cuDNN's NOT_INITIALIZED that stays at batch size 1 or beside versions the user varied
  (:mod:`gpudesk.oom.library_words`) → the library first (0.55), memory 0.45.
* Metal's command-buffer out-of-memory → ``genuine_shortage`` 0.7 (the working set is full).
* The caching allocator's NVML assert (MIG) → ``genuine_shortage`` 0.6: an OOM whose figures were lost.
* A bare ``CUDA error: out of memory`` → a ranked set, never one confident answer. From a PyTorch release that
  prints the "asynchronously reported" note (its allocator words its own failures "Tried to allocate"): pinned host
  memory 0.4 (0.75 when the text shows pinning or WSL), another process 0.35, an ECC fault 0.2, a bad driver state
  0.15. The one line alone (release unknown): the job's own need 0.45, another process 0.4, pinned memory 0.35:
  the threads that paste only this line were mostly fixed by a smaller batch (ssd.pytorch#257, RefineDet.PyTorch#13,
  TranSummar#7, scene-baseline#4, ECO-pytorch#40, Detectron.pytorch#11, CR-GAN#8; a driver reset in
  maskrcnn-benchmark#238, pinned memory under WSL in microsoft/WSL#8447). For
  ggml's own pool (llama.cpp, Ollama) the job's buffers come first (``genuine_shortage`` 0.5); for NCCL,
  a rank other than 0 touching GPU 0 makes another process first.
  A bare CUDA error whose own figures show free memory covering the request four times and by at least 1 GiB
  (XGBoost's "- Free memory: F / - Requested memory: R") → ``not_capacity`` 0.7 (a limit or an earlier sticky error
  reported at the allocation, found with ``compute-sanitizer``: the illegal-access reading 0.45).
* A traceback through CUDA-graph capture → ``cuda_graph_pools`` 0.85 (the captured pools are what failed).
* A bare CUDA error with a multi-process launch in the text (torchrun, torch.distributed, DDP, MPI, Horovod,
  DeepSpeed's or Accelerate's launcher) → another process (the job's other ranks) first, 0.5; an asynchronous
  host-to-device copy (``non_blocking=True``) counts as pinning. Every bare set names ``sudo fuser -v /dev/nvidia*``
  beside nvidia-smi for a holder nvidia-smi cannot show (another container's process, a zombie).
* A model's process ended by a trap on a Mac (``sigtrap_mac``) → ``genuine_shortage`` 0.55 with memory pressure and
  swap as the check; a Vulkan buffer refused with no size in the text (``vulkan_unsized``) → the per-allocation limit
  or a small heap first (``not_capacity`` 0.5, ``buffer_limit``'s check), a full device 0.45. WebGPU's and OpenCL's
  per-buffer limits (wgpu, Dawn, OpenVINO's GPU plugin) name their own checks (the adapter's limits, clinfo). The
  Vulkan validation layer's "attempting to allocate N bytes from heap H, but size of that heap is only M bytes" with a
  heap of 256 MiB or less (``vulkan_heap``: the host-visible BAR heap) → ``not_capacity`` 0.9, with the heaps and
  memory types as the check (iree#12876, gpu-alloc#72).
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers import smi_table
from gpudesk.oom.report import MemoryReport
from gpudesk.units import format_bytes
from gpudesk.oom import library_words, limit_words, need_have, start_words, vgpu_words
from gpudesk.oom.rules import exit_causes, fixed_pools, garbage_sizes, multi_gpu_imbalance
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import (BUFFER_COUNT_CHECK, CHECKPOINT_CHECK, CHECKS, DEV_SHM_CHECK, GGML_PINNED_CHECK, DATALOADER_PINNED_CHECK,
                                    HIDDEN_HOLDER_CHECK, LIBRARY_CHECK, MAC_MEMORY_CHECK, NOT_CAPACITY,
                                    PADDLE_PREALLOCATION_COMMAND, POOL_FALLBACK_CHECK,
                                    ROCM_START_CHECK, NVENC_SESSION_CHECK,
                                    VERBS_ENOMEM, VERBS_PINNED_CHECK, bare_bus_error, check_line, sigbus_exit,
                                    OOM_KILLER_CHECK, OPENCL_LIMIT_CHECK, PAGE_FILE_CHECK, RESOURCE_COUNT_LIMIT,
                                    SHM_SEGMENT_CHECK, TOOLCHAIN_HOST_OOM, TT_L1_CHECK, WEBGL_TEXTURE_CHECK, ray_memory_monitor, NOT_A_NUMBER_SIZE, VULKAN_COUNT_CHECK, VULKAN_HEAP_CHECK, WEBGPU_LIMIT_CHECK, WRAPPED_MINUS_ONE_BYTES, WRAPPED_SIZE_CHECK,
                                    check_command,
                                    flatten_whitespace,
                                    enospc_beside_gpu_only, names_managed_memory, names_unified_allocator,
                                    beyond_card_only, rasterizer_garbage, runner_backend_buffer,
                                    startup_pool_runtime)

_PREALLOCATING = ("tensorflow", "jax", "xla")
_XLA_USAGE = re.compile(r"Memory usage:\s{0,3}(\d{1,20}) bytes free,\s{0,3}(\d{1,20}) bytes total")
_NCCL_OTHER_RANK = re.compile(r"\brank [1-9]\d{0,5}\b.{0,80}\bdevice 0\b", re.IGNORECASE)

def _heap_bytes(r: MemoryReport) -> int | None:
    """The size of the Vulkan heap an allocation exceeded (gpudesk.oom.limit_words.heap_size_exceeded)."""
    heap = limit_words.heap_size_exceeded(r.text or "")
    return heap[1] if heap is not None else None


def _check_line(key: str, platform: str | None = None) -> str:
    check = CHECKS[key]
    return check_line(command=check_command(key, platform), meaning=i18n._(check.meaning))


def _not_capacity(key: str, confidence: float, f: Facts) -> Cause:
    r = f.report
    limit = r.parsed.get("buffer_limit_bytes")
    titles = {
        "shared_memory": _("Not a memory problem: the kernel needs more on-chip memory than the core has"),
        "host_ram": _("Not a GPU memory problem: host RAM ran out"),
        "oom_killer": _("Likely not GPU memory: the process was killed (SIGKILL), the mark of the host's OOM killer"),
        "dev_shm": _("Not a GPU memory problem: the DataLoader workers ran out of shared memory (/dev/shm)"),
        "shm_segment": _("Not a GPU memory problem: NCCL could not create its shared-memory segments (/dev/shm)"),
        "absurd_size": _("Not a memory problem: the requested size is garbage"),
        "checkpoint_version": _("Likely not memory: a binary checkpoint read by another version or GPU"),
        "extension_arch": _("Likely not memory: a compiled CUDA extension (simple-knn) built for another GPU or CUDA "
                            "toolkit"),
        "ecc": _("Not a capacity problem: an uncorrectable ECC error (GPU memory fault)"),
        "xid": _("Not a capacity problem: the driver lost the GPU (Xid)"),
        "driver_version": _("Not a memory problem: the driver is older than the CUDA runtime"),
        "runtime_unusable": _("Not a memory problem: the CUDA runtime cannot work with the driver (unknown error)"),
        "expandable_segments": _("Not a capacity problem: expandable segments are refused on this platform"),
        "buffer_limit": _("Not a capacity problem: one buffer exceeds the per-allocation limit"),
        "va_reserve": _("Not a capacity problem: a virtual address reservation was refused"),
        "vmm_handle": _("Likely not capacity: HIP's per-allocation memory handles hit a limit (open files)"),
        "managed_memory": _("Not a capacity problem: managed (unified) memory cannot oversubscribe the GPU under "
                            "WSL2 or Windows"),
        "managed_oversubscription": _("Likely not capacity: managed (unified) memory larger than this GPU can "
                                      "back was refused"),
        "vulkan_large": _("Likely not capacity: a Vulkan allocation above the driver's per-allocation limit"),
        "vulkan_heap": _("Not a capacity problem: a Vulkan allocation larger than the small heap it was asked from"),
        "pool_fallback": _("Not a GPU capacity problem: the runtime's own fixed-size pool was full, and it fell back "
                           "to other memory"),
        "xpu_large": _("Likely not capacity: an Intel GPU allocation of 4 GiB or more, above Level Zero's default limit"),
        "vulkan_unsized": _("Likely not capacity: Vulkan refused one buffer (its per-allocation limit or the memory type "
                            "chosen)"),
        "pin_memory": _("Not a GPU capacity problem: page-locked (pinned) host memory ran out"),
        "free_exceeds_request": _("Not a capacity problem: the memory was free"),
        "illegal_address": _("Not a memory problem: a kernel accessed memory outside its buffers"),
        "rocm_start": _("Not a capacity problem: ROCm's driver or runtime refused to start on this GPU"),
        "nvenc_session": _("Not a capacity problem: the GPU's video encoder refused a new encode session"),
        "library_mismatch": _("Likely not memory: cuDNN/cuBLAS is missing or does not match the driver or the "
                              "framework"),
    }
    explanations = {
        "rocm_start": _("The failure is in ROCm's start-up: opening the kernel driver (/dev/kfd) or the HSA runtime's "
                        "own resources (HSA_STATUS_ERROR_OUT_OF_RESOURCES, which the runtime also returns when it "
                        "cannot create its threads, events or queues), with no allocation of the program's named. A "
                        "driver or ROCm release that does not support this GPU, or a driver in a bad state, fails "
                        "this way with the GPU's memory free."),
        "nvenc_session": _("The encoder's session could not be opened (NVENC status 10, NV_ENC_ERR_OUT_OF_MEMORY), "
                           "before any frame was allocated. The driver returns it when the card's limit of "
                           "concurrent encode sessions is reached or when it cannot create the encoder at all; "
                           "video memory is rarely the reason."),
        "shared_memory": _("The kernel's tile needs more on-chip memory than one core offers (a GPU SM's shared "
                           "memory, the 'Hardware limit' Triton names, or a TPU core's VMEM). Device memory was not "
                           "involved."),
        "host_ram": _("The failing allocation is in system memory (the framework's CPU allocator, a CPU buffer): the "
                      "GPU is not full, the computer is."),
        "oom_killer": _("The process ended by SIGKILL with no error of its own: on Linux that is how the kernel's OOM "
                        "killer ends the largest process when host RAM and swap run out (loading a checkpoint into "
                        "RAM, one copy per rank, many DataLoader workers). A scheduler's time or memory limit kills "
                        "the same way."),
        "dev_shm": _("A DataLoader worker was killed by a bus error: it passes each batch to the main process through "
                     "/dev/shm, a RAM-backed filesystem, and a page it wrote could not be backed. Containers get "
                     "64 MiB there unless told otherwise; the GPU is not involved."),
        "shm_segment": _("NCCL passes data between the ranks of one node through shared-memory segments in "
                         "/dev/shm, a RAM-backed filesystem; creating one failed (no space left there). Containers "
                         "get 64 MiB there unless told otherwise; the GPU is not involved."),
        "extension_arch": _("simple-knn's distCUDA2 runs once on the input point cloud and needs only tens of MB. "
                            "Thrust's allocation fails there when the extension has no code for this GPU's "
                            "architecture or was built with another CUDA toolkit: its sort sizes scratch memory from "
                            "kernels that never ran, so the card is refused memory it has."),
        "absurd_size": (_("A request of exactly {bytes:,} bytes is 2^32 - 1, what a size of -1 becomes when it is "
                          "stored as an unsigned 32-bit number: no allocator asks for that on its own, so a size "
                          "came out as -1 (a count not found, an empty range) before the allocation.").format(
                              bytes=f.requested)
                        if f.requested == WRAPPED_MINUS_ONE_BYTES else
                        _("A request of {size} is more than any device or computer has: it comes from an overflowed "
                          "or uninitialised size, usually after an earlier error.").format(
                              size=format_bytes(f.requested) if f.requested else _("more than 1 EiB or below zero"))),
        "checkpoint_version": _("The allocation failed while a binary checkpoint was being restored. Such a "
                                "checkpoint holds the context's internal arrays and their sizes in the layout of the "
                                "exact version and hardware that wrote it; read by another, the sizes are garbage and "
                                "even a small system asks for more than the card has."),
        "ecc": _("The GPU reported an uncorrectable error in its memory. Every later CUDA call can fail, often as "
                 "'out of memory'; freeing memory does not help."),
        "xid": _("The kernel log holds an Xid event: the driver reset or lost the GPU, and later allocations fail "
                 "whatever is free."),
        "driver_version": _("The CUDA runtime the program was built with needs a newer driver than the one "
                            "installed; nothing runs on the GPU until they match."),
        "runtime_unusable": _("The memory calls failed with CUDA's 'unknown error', not with out-of-memory, and even "
                              "a query of free memory (which allocates nothing) can fail so: the runtime cannot use "
                              "the driver or the GPU, most often a broken or mismatched installation."),
        "expandable_segments": _("'CUDA driver error: out of memory' comes from the expandable-segments path of "
                                 "PyTorch's allocator (cuMemCreate / cuMemMap), which this platform refuses even "
                                 "with memory free."),
        "vmm_handle": _("hipMemCreate makes one physical-memory handle per allocation, and ROCm keeps a file "
                        "descriptor open for each: many small allocations reach the process's open-files limit "
                        "(ulimit -n) and fail as 'out of memory' with most of the GPU free."),
        "managed_memory": _("The failing allocation is CUDA managed memory (bitsandbytes' paged optimizers use it to "
                            "spill to host RAM). Under WSL2 and on Windows managed memory cannot exceed the GPU's "
                            "free memory, so it is refused where Linux would page it out."),
        "managed_oversubscription": _("The failing allocator is a unified (managed) memory one: a runtime that "
                                      "reserves its whole working range as managed memory relies on the GPU paging it "
                                      "on demand. Only Pascal or newer GPUs on Linux can oversubscribe managed "
                                      "memory; older GPUs, Windows and WSL2 refuse a range larger than the GPU's "
                                      "memory, even with the GPU empty."),
        "va_reserve": _("The failing call is cuMemAddressReserve: it reserves virtual addresses for a pool that "
                        "grows later and maps no memory. Its 'out of memory' means the address range was refused "
                        "(too large for the platform, WSL or the driver), while the device's memory can be free."),
        "buffer_limit": _("A single buffer is larger than the device allows for one allocation ({limit}); the "
                          "rest of the memory may be free.").format(
                              limit=format_bytes(limit) if isinstance(limit, int) else _("the driver's limit")),
        "pool_fallback": _("The runtime keeps a memory pool of a fixed size that it set aside itself (Triton's CUDA "
                           "pool is 64 MB per GPU by default); a buffer larger than what is left in it is refused "
                           "there, and the runtime goes on with other memory (pinned host memory, a one-off "
                           "allocation), slower but not failed. The GPU itself can have plenty free."),
        "vulkan_large": _("Vulkan drivers cap one allocation (maxMemoryAllocationSize, often 2-4 GiB); a request of "
                          "{size} fails there even when the GPU has room.").format(size=format_bytes(f.requested)),
        "vulkan_heap": _("The allocation of {size} was asked from a memory heap of only {heap}: the memory type chosen "
                         "(device-local and host-visible) lives in the PCIe BAR window, which is 256 MiB without "
                         "Resizable BAR whatever the card's memory; the large device-local heap may be free.").format(
                             size=format_bytes(f.requested), heap=format_bytes(_heap_bytes(r))),
        "vulkan_unsized": _("A Vulkan runtime's buffer creation failed with VK_ERROR_OUT_OF_DEVICE_MEMORY and no size "
                            "or capacity in the text. Vulkan returns it not only when the heap is full but for one "
                            "allocation above the driver's maxMemoryAllocationSize (often 2-4 GiB) and when the memory "
                            "type asked for lives in a small heap (device-local and host-visible memory is a 256 MiB "
                            "window without Resizable BAR), so the GPU can have room."),
        "xpu_large": _("Intel GPUs refuse one allocation of 4 GiB or more unless the program opts in to large "
                       "buffers; a request of {size} fails there even when the GPU has room.").format(
                           size=format_bytes(f.requested)),
        "pin_memory": _("The failing allocation is page-locked host memory for copies to the GPU (pin_memory, "
                        "cudaHostAlloc). It has its own limit, small under WSL2."),
        "free_exceeds_request": _("The device reported enough memory free for the request, so the refusal came "
                                  "from a limit below the capacity."),
        "illegal_address": _("'An illegal memory access was encountered' means a kernel read or wrote an address "
                             "outside its allocations. CUDA reports it at the next synchronising call, so the op in "
                             "the traceback is often not the one at fault; more memory does not help."),
        "library_mismatch": _("The library's handle could not be created. That happens when no cuDNN/cuBLAS is "
                              "installed where the loader looks, when the installed one differs from the version the "
                              "framework was built with, or when the driver is older than both; memory is the other "
                              "reading, and the check tells them apart."),
    }
    fixes = {
        "rocm_start": _("Check that this GPU's gfx target is supported by the installed ROCm release and that the "
                        "amdgpu kernel driver matches it; reboot if the driver reports errors, and run rocminfo until "
                        "it lists the GPU before running the program"),
        "nvenc_session": _("End the other encodes (or the programs holding encode sessions), use fewer parallel "
                           "encoder streams, and update the NVIDIA driver; on a card without NVENC encode on the CPU"),
        "shared_memory": _("Use a smaller kernel config: num_stages=1 or 2 and smaller BLOCK sizes (Pallas/XLA on TPU: "
                           "smaller block shapes), or the engine's option for older GPUs; a GPU with more shared "
                           "memory per SM also works"),
        "host_ram": _("Free host RAM or add swap / enlarge the Windows page file; load with mmap or "
                      "low_cpu_mem_usage=True, or process the data in smaller pieces"),
        "oom_killer": _("Load the model with mmap / low_cpu_mem_usage=True (or on rank 0 only), use fewer DataLoader "
                        "workers or ranks per node, or add RAM or swap; raise the job's memory limit if a scheduler "
                        "set one"),
        "dev_shm": _("Give the container more shared memory (docker run --shm-size=8g, or --ipc=host; Kubernetes: an "
                     "emptyDir with medium: Memory on /dev/shm), or lower num_workers / the batch size"),
        "shm_segment": _("Give the container more shared memory (docker run --shm-size=8g, or --ipc=host; Kubernetes: "
                         "an emptyDir with medium: Memory on /dev/shm), free /dev/shm, or set NCCL_SHM_DISABLE=1 to "
                         "route the ranks around it"),
        "extension_arch": _("Rebuild the extension for this GPU: delete its build folder, set TORCH_CUDA_ARCH_LIST to "
                            "the card's compute capability and reinstall it with the CUDA toolkit PyTorch uses (pip "
                            "install --no-build-isolation --force-reinstall submodules/simple-knn)"),
        "absurd_size": _("Find the shape that produced the size (print shapes before the failing op); fix the "
                         "earlier error first if one came before"),
        "ecc": _("Run nvidia-smi -q -d ECC; with uncorrectable errors reset the GPU (nvidia-smi -r) or use another one"),
        "checkpoint_version": _("Restart from a saved State (portable across versions) rather than the binary "
                                "checkpoint, or load the checkpoint with the version and GPU that wrote it"),
        "xid": _("Run dmesg | grep -i xid; reset or reboot, check power and cooling, then rerun"),
        "driver_version": _("Update the NVIDIA driver, or install the framework build for the CUDA version the "
                            "driver supports"),
        "runtime_unusable": _("Check the installation: nvidia-smi must list the GPU, and the CUDA toolkit the program "
                              "was built with must match the driver; run a CUDA sample (deviceQuery) before the job"),
        "expandable_segments": _("Remove expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF on this platform"),
        "vmm_handle": _("Raise the open-files limit (ulimit -n 65536) before starting, allocate fewer larger "
                        "buffers, or use a ROCm release that no longer keeps a descriptor per allocation"),
        "managed_memory": _("Use a non-paged optimizer (torch.optim.AdamW or bitsandbytes' AdamW8bit instead of "
                            "PagedAdamW), or run on native Linux where managed memory can page out"),
        "managed_oversubscription": _("Make the runtime reserve less managed memory than the GPU holds (its "
                                      "memory-pool or device-memory size setting), or run on a Pascal or newer GPU "
                                      "on native Linux"),
        "va_reserve": _("Reserve a smaller range: for llama.cpp set GGML_CUDA_POOL_VMM_MAX_SIZE lower or build with "
                        "GGML_CUDA_NO_VMM=ON (the legacy pool); update the driver; under WSL run natively if it persists"),
        "buffer_limit": _("Make the largest buffer smaller: a smaller batch / ubatch / context, or a build that "
                          "splits buffers; on Vulkan, GGML_VK_FORCE_MAX_ALLOCATION_SIZE sets the split size"),
        "pool_fallback": _("Raise the pool's size option to hold the largest buffer (tritonserver "
                           "--cuda-memory-pool-byte-size=0:<bytes>), or leave it: the warning costs speed, not "
                           "correctness"),
        "vulkan_heap": _("Allocate large buffers from a DEVICE_LOCAL memory type without HOST_VISIBLE and upload "
                         "through a staging buffer (in a library: a device-only usage flag, or a release that stops "
                         "preferring the host-visible heap), or enable Resizable BAR in the firmware so that heap "
                         "spans the whole memory"),
        "vulkan_large": _("Make the largest buffer smaller (-ub / -b / -c for llama.cpp), or set "
                          "GGML_VK_FORCE_MAX_ALLOCATION_SIZE to the driver's maxMemoryAllocationSize"),
        "vulkan_unsized": _("Compare the failing buffer's size with vulkaninfo's maxMemoryAllocationSize and heap sizes; "
                            "split the buffer (a smaller batch or tile), or have the runtime allocate it device-local "
                            "only"),
        "xpu_large": _("Set UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1 before starting Python (and build SYCL kernels with "
                       "-ze-opt-greater-than-4GB-buffer-required), or split the tensor into pieces under 4 GiB"),
        "pin_memory": _("Pin less host memory at once (smaller or fewer pinned buffers, or turn pinning off in the "
                        "program that pins), check the locked-memory limit (ulimit -l) and the host's free RAM; under "
                        "WSL2 raise the memory in .wslconfig"),
        "free_exceeds_request": _("Look for the limit that refused it: a per-process cap, the WDDM/WSL or ROCm-on-"
                                  "Windows allocation limit, an APU carve-out, a MIG slice or a container limit"),
        "illegal_address": _("Rerun with CUDA_LAUNCH_BLOCKING=1 (or under compute-sanitizer) to find the kernel at "
                             "fault; then check its indices and inputs, or update the library or driver that ships it"),
        "library_mismatch": _("Install the cuDNN (and CUDA libraries) the framework was built for, e.g. the pip "
                              "wheels it names (jax[cuda12], nvidia-cudnn-cu12), or update the NVIDIA driver; then "
                              "rerun"),
    }
    if key == "pin_memory" and _DATALOADER.search(r.text or ""):
        # PyTorch's DataLoader pins each batch in its pin-memory thread (torch/utils/data/_utils/pin_memory.py);
        # pin_memory=False there is the switch. Named only when the text shows a DataLoader.
        fixes["pin_memory"] = _("Set pin_memory=False in the DataLoader (or avoid pinned buffers); under WSL2 raise the "
                                "memory in .wslconfig")
    if key == "pin_memory" and r.runtime == "cupy":
        # CuPy stages host-device copies through its own pinned pool (cupy/cuda/pinned_memory.pyx), not a DataLoader.
        fixes["pin_memory"] = _("Free CuPy's pinned pool (cupy.get_default_pinned_memory_pool().free_all_blocks()), "
                                "copy the array in smaller pieces, or use a CuPy release with cupy#1593, which falls "
                                "back to a synchronous copy when pinned memory cannot be allocated")
    if key == "pin_memory" and r.runtime == "comfyui":
        # ComfyUI page-locks the host copies of model weights it streams to the GPU (cudaHostRegister, its HostBuffer;
        # Comfy-Org/ComfyUI#14252); --disable-pinned-memory turns that off (#14250).
        fixes["pin_memory"] = _("Start ComfyUI with --disable-pinned-memory (the weights are then streamed from "
                                "pageable memory), close other programs that pin memory, or update ComfyUI")
    if key == "pin_memory" and _ggml_cuda(r):
        # ggml's CUDA backend page-locks its host buffers itself (ggml_cuda_host_malloc -> cudaMallocHost,
        # ggml/src/ggml-cuda/ggml-cuda.cu); GGML_CUDA_NO_PINNED makes it use pageable memory (llama.cpp#1735).
        fixes["pin_memory"] = _("Set GGML_CUDA_NO_PINNED=1 before starting (ggml then uses pageable host memory), or "
                                "raise the WSL memory in .wslconfig (memory=) and restart WSL")
    stated = need_have.find(r.text or "") if key == "dev_shm" else None
    if key == "dev_shm" and (bare_bus_error(r.text or "") or sigbus_exit(r.text or "")):
        # The shell's "Bus error" alone (signatures.bare_bus_error), or a launcher's "return code = -7"
        # (signatures.sigbus_exit): a bus error with no worker named, the likeliest backing said as such.
        titles["dev_shm"] = _("Likely not GPU memory: a bus error, most often shared memory (/dev/shm) that could not "
                              "back a page")
        explanations["dev_shm"] = _("The process was ended by SIGBUS. The kernel sends it when a page of a "
                                    "memory-mapped file cannot be backed: most often /dev/shm full or small (the "
                                    "DataLoader workers pass batches through it; Docker gives 64 MB), else a file "
                                    "mapped by the program that was truncated.")
    elif stated is not None and stated.place == "shared_memory":
        # A request sized against what /dev/shm has free, refused before any worker wrote there (gpudesk.oom.need_have:
        # Ray's plasma store sizing its object store, src/ray/object_manager/plasma/store_runner.cc): no DataLoader
        # worker and no bus error is involved.
        titles["dev_shm"] = _("Not a GPU memory problem: a request for {need} in shared memory (/dev/shm) is more than "
                              "the {have} there").format(need=format_bytes(stated.need_bytes),
                                                         have=format_bytes(stated.have_bytes))
        explanations["dev_shm"] = _("The program sizes a store of its own in /dev/shm, a RAM-backed filesystem (Ray "
                                    "keeps its object store there), and asked for more than that filesystem has. "
                                    "Containers get 64 MiB there unless told otherwise; the GPU is not involved.")
        fixes["dev_shm"] = _("Give the container more shared memory (docker run --shm-size=8g, or --ipc=host; "
                             "Kubernetes: an emptyDir with medium: Memory on /dev/shm), free /dev/shm, or ask the "
                             "program for a smaller store (Ray: --object-store-memory)")
    verbs = key == "pin_memory" and VERBS_ENOMEM.search(r.text or "") is not None
    if verbs:
        # RDMA verbs pin what they register against RLIMIT_MEMLOCK (signatures.VERBS_ENOMEM).
        explanations["pin_memory"] = _("An RDMA verbs call (ibv_*) could not pin host memory for the network "
                                       "adapter: the locked-memory limit (ulimit -l) was reached, not the RAM or the "
                                       "GPU's memory.")
        fixes["pin_memory"] = _("Raise the locked-memory limit for the job: memlock unlimited in "
                                "/etc/security/limits.conf (then log in again), docker run --ulimit memlock=-1, or "
                                "LimitMEMLOCK=infinity for a systemd service or the batch scheduler's daemon")
    if key == "buffer_limit" and _WEBGPU_LIMIT.search(r.text or ""):
        # WebGPU devices start with the spec's default limits (maxBufferSize 256 MiB) unless the program asks the
        # adapter for more when it requests the device (wgpu: Limits::default(), DeviceDescriptor.required_limits; the
        # WebGPU spec's requestDevice requiredLimits); gfx-rs/wgpu#6221: "268435456 is the default limit, you need to
        # explicitly request higher limits via required_limits".
        fixes["buffer_limit"] = _("Ask the adapter for its own limit when creating the device (wgpu: "
                                  "required_limits with max_buffer_size = adapter.limits().max_buffer_size; WebGPU: "
                                  "requestDevice({requiredLimits: {maxBufferSize: adapter.limits.maxBufferSize}})), or "
                                  "split the buffer below the limit")
    if key == "buffer_limit" and r.platform in ("metal", "mps") and r.runtime in (None, "llamacpp", "ollama"):
        # Metal refuses one buffer above MTLDevice.maxBufferLength whatever the free memory, and llama.cpp's compute
        # buffer is one buffer that cannot be split; its size grows with the micro-batch and the context, and flash
        # attention avoids materialising the attention scores in it (slaren in llama.cpp#6861: a smaller -ub such as
        # 64, or flash attention; a smaller context when the model and its context do not fit the device anyway).
        # The limit itself is MTLDevice.maxBufferLength (Apple's Metal documentation), readable through PyObjC.
        fixes["buffer_limit"] = _("Make the largest Metal buffer smaller than the device's maxBufferLength (python3 -c "
                                  "\"import Metal; print(Metal.MTLCreateSystemDefaultDevice().maxBufferLength())\"): "
                                  "for llama.cpp a smaller micro-batch (-ub 64 or 128) or context (-c), or flash "
                                  "attention (-fa), which shrinks the compute buffer; other runtimes: a smaller batch "
                                  "or sequence")
    if key == "buffer_limit" and CUBECL_POOL in (r.text or "").lower():
        # CubeCL's memory manager (Burn's GPU backends) refuses a request above the largest slice of every pool it was
        # configured with (cubecl-runtime src/memory_management/dynamic.rs, "No memory pool big enough to reserve N
        # bytes.", tracel-ai/cubecl at 88a693f5); the default pools take their page size from the device
        # (MemoryDeviceProperties.max_page_size: wgpu's max_storage_buffer_binding_size, cubecl-wgpu src/runtime.rs;
        # a quarter of the memory on CUDA/HIP, cubecl-cuda src/runtime.rs; tracel-ai/cubecl at 4057f39e), and a
        # custom MemoryConfiguration (its pool options' page / max allocation size) sets them otherwise. ggml's and
        # llama.cpp's settings do not reach it.
        fixes["buffer_limit"] = _("Keep every single tensor under CubeCL's largest pool page: a smaller batch or input "
                                  "size; the page follows the device's limit (wgpu: max_storage_buffer_binding_size), "
                                  "and a custom memory configuration of the runtime (cubecl-runtime's "
                                  "MemoryConfiguration with larger pool pages) raises it where the device allows")
    if key == "buffer_limit" and r.platform == "xpu" and r.runtime is None:
        # An Intel GPU's per-allocation maximum (Level Zero's ze_device_properties_t.maxMemAllocSize, what clinfo shows
        # as "Max memory allocation") holds for each buffer whatever the free memory; SYCL's Unified Runtime lifts it
        # for programs that opt in (UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1, with kernels built for >4 GB buffers), and
        # any program can split the data over several allocations under it.
        fixes["buffer_limit"] = _("Keep every single allocation under the device's maximum (clinfo | grep -i 'max "
                                  "memory allocation'): split the data over several buffers or run a smaller problem "
                                  "size; a SYCL / Level Zero program may opt in to larger buffers with "
                                  "UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1 (kernels built with "
                                  "-ze-opt-greater-than-4GB-buffer-required)")
    if key == "buffer_limit" and r.runtime == "mlx":
        # MLX allocates each array as one Metal buffer (mlx/backend/metal/allocator.cpp), so the attention scores of a
        # long prompt's prefill chunk are one buffer whose size grows with the chunk; mlx-lm's generate_step processes
        # the prompt in prefill_step_size tokens at a time (mlx_lm/generate.py), and a smaller step keeps every buffer
        # under maxBufferLength (exo-explore/exo#1048: 65536 tokens per step made one ~37 GB buffer on a 48 GB Mac).
        fixes["buffer_limit"] = _("Keep every single array under the device's maxBufferLength: process the prompt in "
                                  "smaller chunks (mlx-lm's prefill_step_size, e.g. 2048 or 4096), or a smaller batch "
                                  "or sequence; more memory does not raise the per-buffer limit")
    if key == "buffer_limit" and r.runtime == "mlc":
        # TVM's Relax VM plans its buffers statically for the context and prefill chunk the model was configured with
        # (src/runtime/relax_vm/memory_manager.cc); a request beyond the planned region needs a plan that covers it.
        fixes["buffer_limit"] = _("Keep the input within what the memory plan was made for, or plan for more: "
                                  "mlc_llm gen_config --context-window-size / --prefill-chunk-size (or mlc_llm serve "
                                  "--overrides \"context_window_size=...;prefill_chunk_size=...\"), then rerun")
    if key == "host_ram" and TOOLCHAIN_HOST_OOM.search(r.text or ""):
        # The CUDA build's compilers (ptxas, cudafe++, cc1plus) ran out of host memory (signatures.TOOLCHAIN_HOST_OOM):
        # every parallel job holds one heavy translation unit's compiler in RAM.
        explanations["host_ram"] = _("The compiler of a build ran out of memory (ptxas, the CUDA front end or "
                                     "cc1plus, all programs on the host): the parallel compile jobs together need "
                                     "more RAM than the machine has; the GPU plays no part.")
        fixes["host_ram"] = _("Build with fewer parallel jobs (MAX_JOBS=2 for PyTorch extensions, --parallel 2 or "
                              "make -j2), or add RAM / enlarge the Windows page file")
    if key == "host_ram" and ray_memory_monitor(r.text or ""):
        # Ray's memory monitor killed a task for the node's RAM (signatures.ray_memory_monitor): the workers and
        # actors on the node together pass its threshold; Ray schedules by CPU/GPU counts, not by host memory, unless
        # tasks declare memory= (Ray's docs, "Out-Of-Memory Prevention" and "Memory-aware scheduling").
        explanations["host_ram"] = _("Ray's memory monitor killed the task because the node's host RAM passed its "
                                     "threshold: the figures it quotes are the machine's RAM used by all the "
                                     "workers and actors on it, not GPU memory.")
        fixes["host_ram"] = _("Run fewer tasks or actors per node at once (give each num_cpus or memory= so Ray "
                              "schedules fewer), shrink what each holds in host RAM (replay buffers, datasets, "
                              "weights offloaded to the CPU), or add RAM; raising RAY_memory_usage_threshold only "
                              "moves the kill to the kernel's OOM killer")
    count_limit = RESOURCE_COUNT_LIMIT.search(r.text or "") if key == "buffer_limit" else None
    if count_limit is not None:
        # MLX's allocator counts the Metal buffers it holds and refuses one more at its resource limit
        # (mlx/backend/metal/allocator.cpp, MetalAllocator::malloc, https://github.com/ml-explore/mlx): a count, so
        # the bytes in use say nothing; many small arrays alive at once reach it (ml-explore/mlx-lm#831, fixed in the
        # model's cache path by mlx-lm#839).
        titles["buffer_limit"] = _("Not a capacity problem: too many Metal buffers at once (a limit on their "
                                   "number, not their bytes)")
        explanations["buffer_limit"] = _("The runtime refuses a new buffer once it holds {count} of them: the limit "
                                         "counts buffers, not bytes, so it is reached with memory free, by many small "
                                         "arrays kept alive at once.").format(count=count_limit.group(1))
        fixes["buffer_limit"] = _("Keep fewer arrays alive at once: evaluate each step (mx.eval), drop arrays and "
                                  "caches you no longer need, and update MLX and mlx-lm (releases that fix a model's "
                                  "cache path); a smaller model or more memory does not help")
    if key == "absurd_size" and f.requested is None and NOT_A_NUMBER_SIZE.search(r.text or ""):
        # The figure is not a number (signatures ``NOT_A_NUMBER_SIZE``): the estimate or size was computed from
        # missing values, so the refusal says nothing about memory.
        explanations["absurd_size"] = _("The memory figure in the message is not a number (NaN or infinity): the "
                                        "program computed the size or its estimate from missing values, for example "
                                        "for a model architecture it does not know how to size. Nothing was short "
                                        "of memory; the estimate is the bug.")
        fixes["absurd_size"] = _("Update the program (a release that knows this model or format), or turn off the "
                                 "check that relies on the estimate; report the model and version if the newest "
                                 "release still prints it")
    vulkan_count = key == "buffer_limit" and count_limit is None and limit_words.vulkan_allocation_count(r.text or "")
    if vulkan_count:
        # VK_ERROR_TOO_MANY_OBJECTS (-10) from vkAllocateMemory: the device's maxMemoryAllocationCount, the number of
        # allocations alive at once (Vulkan specification, VkPhysicalDeviceLimits), not its bytes
        # (gpudesk.oom.limit_words.vulkan_allocation_count).
        titles["buffer_limit"] = _("Not a capacity problem: too many Vulkan allocations at once (a limit on their "
                                   "number, not their bytes)")
        explanations["buffer_limit"] = _("Vulkan returned VK_ERROR_TOO_MANY_OBJECTS (-10): the program reached the "
                                         "device's maxMemoryAllocationCount, the number of memory allocations alive "
                                         "at once. The limit counts allocations, not bytes, so it is reached with "
                                         "memory free, by many small buffers (a small tile size, many small "
                                         "tensors).")
        fixes["buffer_limit"] = _("Make fewer, larger allocations: a larger tile size or batch, or a runtime and "
                                  "driver that suballocate from large blocks (update both); more memory does not "
                                  "help")
    texture = _WEBGL_TEXTURE.search(r.text or "") if key == "buffer_limit" else None
    if texture is not None:
        # TensorFlow.js's WebGL backend stores each tensor as one 2-D texture and refuses it when a side is above the GL
        # context's MAX_TEXTURE_SIZE (tfjs-backend-webgl/src/webgl_util.ts, validateTextureSize, tensorflow/tfjs at
        # 0fc04d95): a limit of the browser's GL implementation on one texture's width and height, so a narrow
        # [35597x64] texture is refused under 16384 with few texels (tensorflow/tfjs#920), and the same model loads in
        # a browser or on a device with a larger limit (#689, #1686).
        titles["buffer_limit"] = _("Not a capacity problem: one tensor's WebGL texture is wider or taller than this "
                                   "browser and GPU allow")
        explanations["buffer_limit"] = _("TensorFlow.js's WebGL backend stores each tensor as a 2-D texture and "
                                         "refuses one whose side is above the GL context's maximum texture size: "
                                         "[{requested}] asked, at most {limit} per side here. A limit of the browser's "
                                         "WebGL on one texture's width and height, not of video memory; other "
                                         "browsers and GPUs allow more (16384 on many desktop GPUs, 4096 on many "
                                         "phones).").format(requested=texture.group(1), limit=texture.group(2))
        fixes["buffer_limit"] = _("Make the largest tensor's texture smaller: a smaller input resolution or batch, a "
                                  "smaller layer (an embedding's vocabulary, a dense layer's width); or run in a "
                                  "browser or device with a larger WebGL maximum, or on tfjs's WebGPU or WASM backend "
                                  "(tf.setBackend('webgpu') or 'wasm'), which do not store tensors as textures")
    tt_l1 = _TT_L1.search(r.text or "") if key == "shared_memory" else None
    if tt_l1 is not None:
        # A Tenstorrent Tensix core's L1 (signatures ``shared_memory``): tt-metal checks a program's circular buffers
        # against it (tt_metal/impl/program/program.cpp), its bank allocator an L1 tensor's share per core
        # (gpudesk.oom.rules.bank_allocator); moving the tensors to DRAM or sharding the op over more cores makes it fit
        # (tt-metal#14840, #11695; tt-metal#28835: circular buffers growing up meet L1 buffers growing down).
        titles["shared_memory"] = _("Not a DRAM problem: an op needs more L1 (each core's on-chip SRAM) than a "
                                    "Tenstorrent core has")
        explanations["shared_memory"] = _("Each Tensix core has its own L1, about 1.5 MB of SRAM, shared by the op's "
                                          "circular buffers and any tensor placed in L1. The op's buffers on one core "
                                          "(its tiling, or a tensor given an L1 memory config) do not fit there; the "
                                          "chip's DRAM was not the limit, and a model that fits the device can hit "
                                          "this.")
        fixes["shared_memory"] = _("Keep large tensors in DRAM (memory_config=ttnn.DRAM_MEMORY_CONFIG), shard the "
                                   "tensor over more cores, or use a smaller block/tile configuration or sequence "
                                   "length for the op; with a compiler (tt-mlir, tt-forge) report the op, since its "
                                   "L1 planning chose the placement")
    check_key = {"pool_fallback": "buffer_limit", "vulkan_large": "buffer_limit", "vulkan_heap": "buffer_limit", "vulkan_unsized": "buffer_limit", "xpu_large": "buffer_limit", "dev_shm": "host_ram",
                 "shm_segment": "host_ram",
                 "va_reserve": "free_exceeds_request", "vmm_handle": "free_exceeds_request",
                 "managed_memory": "free_exceeds_request", "managed_oversubscription": "free_exceeds_request",
                 "library_mismatch": "driver_version", "extension_arch": "driver_version",
                 "runtime_unusable": "driver_version",
                 "rocm_start": "driver_version", "nvenc_session": "free_exceeds_request",
                 "oom_killer": "host_ram", "checkpoint_version": "absurd_size"}.get(key, key)
    own_check = {"pool_fallback": POOL_FALLBACK_CHECK, "dev_shm": DEV_SHM_CHECK, "shm_segment": SHM_SEGMENT_CHECK, "library_mismatch": LIBRARY_CHECK, "oom_killer": OOM_KILLER_CHECK,
                 "rocm_start": ROCM_START_CHECK, "nvenc_session": NVENC_SESSION_CHECK,
                 "checkpoint_version": CHECKPOINT_CHECK}.get(key)
    if key == "pin_memory" and _ggml_cuda(r):
        own_check = GGML_PINNED_CHECK
    if verbs:
        own_check = VERBS_PINNED_CHECK
    if key == "pin_memory" and own_check is None and _DATALOADER.search(r.text or ""):
        own_check = DATALOADER_PINNED_CHECK
    if texture is not None:
        own_check = WEBGL_TEXTURE_CHECK
    elif tt_l1 is not None:
        own_check = TT_L1_CHECK
    elif key == "buffer_limit" and _WEBGPU_LIMIT.search(r.text or ""):
        own_check = WEBGPU_LIMIT_CHECK
    elif key == "buffer_limit" and _OPENCL_LIMIT.search(r.text or ""):
        own_check = OPENCL_LIMIT_CHECK
    elif count_limit is not None:
        own_check = BUFFER_COUNT_CHECK
    elif vulkan_count:
        own_check = VULKAN_COUNT_CHECK
    elif key == "vulkan_heap":
        own_check = VULKAN_HEAP_CHECK
    elif key == "absurd_size" and f.requested == WRAPPED_MINUS_ONE_BYTES:
        own_check = WRAPPED_SIZE_CHECK
    command = own_check.command if own_check is not None else check_command(check_key, r.platform)
    deciding_line = (check_line(command=command, meaning=i18n._(own_check.meaning))
                     if own_check is not None else _check_line(check_key, r.platform))
    return Cause(
        id="not_capacity",
        title=titles[key],
        confidence=confidence,
        evidence=evidence(not_capacity_kind=key, deciding_check=check_key, check_command=command,
                          requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total),
        explanation=explanations[key],
        fix=fixes[key],
        checks=[deciding_line],
    )


def on_chip_limit(f: Facts) -> Cause:
    """A Tenstorrent L1 share refused by the bank allocator (gpudesk.oom.rules.bank_allocator): the on-chip limit
    (``shared_memory``), as the signature reads tt-metal's circular-buffer check."""
    return _not_capacity("shared_memory", 0.8, f)


def _mac_trap(f: Facts) -> Cause:
    """A model's process ended by SIGTRAP on a Mac (signatures ``sigtrap_mac``): Metal could not back an allocation, the
    likelier reading (0.55), with memory pressure and swap as the check."""
    check = MAC_MEMORY_CHECK
    return Cause(
        id="genuine_shortage",
        title=_("Likely out of memory: the process was ended by a trap on a Mac"),
        confidence=0.55,
        evidence=evidence(deciding_check=check.key, check_command=check.command),
        explanation=_("macOS ended the process with SIGTRAP ('Trace/BPT trap') while the model ran. On Apple silicon "
                      "the GPU shares the system's memory, and when Metal cannot back an allocation (the model and its "
                      "buffers larger than memory plus swap, or PyTorch's MPS limit turned off) the process is ended "
                      "this way instead of raising an out-of-memory error."),
        fix=_("Use a smaller or quantised model, a lower resolution or fewer frames, and attention slicing "
              "(pipe.enable_attention_slicing()); keep PYTORCH_MPS_HIGH_WATERMARK_RATIO at its default so MPS raises "
              "an error instead of exhausting memory"),
        more_fixes=[_("Close other applications: on a Mac they share the same memory as the GPU.")],
        checks=[check_line(command=check.command, meaning=i18n._(check.meaning))],
    )


# OpenCL's per-object limit in OpenVINO's GPU plugin's words (signatures ``buffer_limit``).
_OPENCL_LIMIT = re.compile(r"max size of memory object allocation|max alloc size supported by device|"
                           r"CL_DEVICE_MAX_MEM_ALLOC_SIZE", re.IGNORECASE)
# WebGPU's per-buffer limit in wgpu's and Dawn's words (signatures ``buffer_limit``).
_WEBGPU_LIMIT = re.compile(r"greater than the maximum buffer size|exceeds the max buffer size limit|maxBufferSize|"
                           r"\bwgpu", re.IGNORECASE)


# TensorFlow.js's WebGL texture refusal (signatures ``buffer_limit``): the requested [WxH] and the maximum per side.
_WEBGL_TEXTURE = re.compile(r"requested texture size\s{0,2}\[\s{0,2}(\d{1,9}\s{0,2}x\s{0,2}\d{1,9})\s{0,2}\]\s{0,3}"
                            r"greater than webgl maximum\b[^\[\n]{0,60}\[\s{0,2}(\d{1,9})", re.IGNORECASE)
# A Tenstorrent core's L1 named in tt-metal's or tt-mlir's words (signatures ``shared_memory``; an L1 bank share in
# gpudesk.oom.rules.bank_allocator).
_TT_L1 = re.compile(r"beyond max L1 size|clash with L1 buffers|required L1 memory usage|"
                    r"B L1 buffer across \d{1,6} banks?", re.IGNORECASE)


# What shows a PyTorch DataLoader in a text: its name, its package (torch.utils.data / torch/utils/data) or its
# pin-memory thread's own error ("Caught ... in pin memory thread", "Pin memory thread exited unexpectedly",
# torch/utils/data/_utils/pin_memory.py and dataloader.py).
_DATALOADER = re.compile(r"dataloader|torch[./\\]utils[./\\]data|pin memory thread", re.IGNORECASE)


def _ggml_cuda(r: MemoryReport) -> bool:
    """ggml's CUDA backend (its HIP build for ROCm too), whose host buffers GGML_CUDA_NO_PINNED governs; not its
    Vulkan backend, which pins through the Vulkan driver and falls back by itself."""
    return r.runtime in ("llamacpp", "ollama") and r.backend in ("cuda", "rocm")


def _generic(cause_id: str, confidence: float, title: str, explanation: str, fix: str, check_key: str,
             f: Facts) -> Cause:
    platform = f.report.platform
    return Cause(id=cause_id, title=title, confidence=confidence,
                 evidence=evidence(deciding_check=check_key, check_command=check_command(check_key, platform),
                                   requested_bytes=f.requested, total_capacity_bytes=f.total, free_bytes=f.free),
                 explanation=explanation, fix=fix, checks=[_check_line(check_key, platform)])


def _with_command(command: str, cause: Cause) -> Cause:
    """``cause`` with its deciding check's command replaced by ``command`` (evidence and check lines alike)."""
    before = cause.evidence.get("check_command")
    cause.evidence["check_command"] = command
    if isinstance(before, str):
        cause.checks = [check.replace(before, command, 1) for check in cause.checks]
    return cause


# faiss's scratch reservation (signatures "scratch_reserve"): the deciding check is a smaller reservation.
SCRATCH_COMMAND = "res.setTempMemory(256 * 1024 * 1024)"


def _scratch_reserve(f: Facts) -> Cause:
    return Cause(id="preallocation", title=_("A library's up-front scratch reservation does not fit"), confidence=0.65,
                 evidence=evidence(deciding_check="preallocation", check_command=SCRATCH_COMMAND,
                                   requested_bytes=f.requested, total_capacity_bytes=f.total, free_bytes=f.free),
                 explanation=_("faiss reserves its GPU scratch memory in one allocation when its resources object is "
                               "first used (a share of the GPU, up to 1.5 GiB per object); that reservation failed: "
                               "the memory the job and other objects already hold leaves it no room."),
                 fix=_("Reserve less scratch memory (res.setTempMemory), create one StandardGpuResources per thread "
                       "and reuse it, and leave room beside other frameworks in the process"),
                 checks=[check_line(
                     command=SCRATCH_COMMAND,
                     meaning=_("If the error goes away with a smaller scratch reservation, the reservation was what "
                               "did not fit."))])


# The deciding check of an engine's token-pool refusal with room (signatures "token_pool_accounting").
TOKEN_POOL_COMMAND = "--page-size 1"


def _token_pool_accounting(f: Facts) -> Cause:
    """SGLang refused a batch while its own counts show the KV pool had the tokens (signatures ``_TOKEN_POOL``): with a
    page size above 1 the allocator hands out whole pages and the scheduler under-counted the pages the next decode
    needs, so it did not retract requests in time (sgl-project/sglang#4602, fixed by #4913). 0.7: the counts are the
    engine's own; a pool that was really full reads the same when they are stale."""
    return Cause(
        id="not_capacity",
        title=_("Likely not capacity: the engine's KV pool had the tokens it refused"),
        confidence=0.7,
        evidence=evidence(not_capacity_kind="token_pool_accounting", deciding_check="free_exceeds_request",
                          check_command=TOKEN_POOL_COMMAND, runtime=f.report.runtime),
        explanation=_("The engine's own counts say more tokens were available than the batch asked for. With a page "
                      "size above 1 its allocator hands out whole pages, and the scheduler's estimate of the pages "
                      "the next decode step needs fell short, so it did not retract requests in time: page "
                      "bookkeeping, not the GPU's memory."),
        fix=_("Run with --page-size 1, or update SGLang to a release that counts the pages of the next decode "
              "(sgl-project/sglang#4913); lowering --max-running-requests also leaves the scheduler more room"),
        checks=[check_line(
            command=TOKEN_POOL_COMMAND,
            meaning=_("If the same load runs with a page size of 1, the page accounting refused the batch, not the "
                      "pool's size."))])


def _other_process(confidence: float, f: Facts) -> Cause:
    return _generic("other_process", confidence, _("Another process holds the GPU"),
                    _("The failing call needs device memory outside the job's own allocator (a CUDA context, a "
                      "library handle, a collective's buffers); it fails when something else already filled the GPU."),
                    _("Run nvidia-smi: stop the other processes or pick a free GPU with CUDA_VISIBLE_DEVICES; in "
                      "multi-GPU jobs call torch.cuda.set_device(local_rank) first in every rank"), "other_process", f)


def _graph_buffer(f: Facts) -> Cause:
    """ggml's graph allocator refused the one buffer of a whole compute graph, no size given (signatures
    ``graph_buffer``): a driver's per-allocation limit first (0.55), weakly."""
    cause = _not_capacity("buffer_limit", 0.55, f)
    cause.title = _("Likely not capacity: the compute graph's single buffer is above the driver's per-allocation "
                    "limit")
    cause.explanation = _("The graph allocator puts all of a compute graph's intermediate tensors in one buffer and "
                          "asks the driver for it in one piece, so a large input makes it one very large allocation. "
                          "Drivers cap a single allocation (Vulkan's maxMemoryAllocationSize, some Windows drivers "
                          "at 2-4 GB) below the card's memory, and refuse it with memory free.")
    cause.fix = _("Make the input smaller (a lower resolution, or tiles) so the graph's buffer shrinks; try another "
                  "backend or driver whose per-allocation limit is larger")
    return cause


def _shortage(confidence: float, f: Facts, explanation: str) -> Cause:
    return Cause(id="genuine_shortage", title=_("Not enough GPU memory for this job"), confidence=confidence,
                 evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, free_bytes=f.free,
                                   runtime=f.report.runtime),
                 explanation=explanation,
                 fix=_("Reduce what this step keeps on the GPU (batch, resolution, context, layers on the GPU)"),
                 more_fixes=[_("Use a GPU with more memory.")])


def check(f: Facts) -> list[Cause]:
    r = f.report
    sig = r.signature
    out: list[Cause] = []
    if r.graph_capture and sig not in NOT_CAPACITY:
        out.append(Cause(
            id="cuda_graph_pools", title=_("Out of memory while capturing CUDA graphs"),
            confidence=0.5 if r.kind == "traceback_only" else 0.85,
            evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total),
            explanation=_("The traceback runs through CUDA-graph capture: each captured batch size keeps its own "
                          "static buffers in a private pool, so capture needs memory the eager run never used."),
            fix=_("Capture fewer or smaller graphs (vLLM: --cudagraph-capture-sizes / --max-num-seqs or "
                  "--enforce-eager; Megatron/TE: fewer graphed layers), or leave headroom for them "
                  "(--gpu-memory-utilization lower)"),
            more_fixes=[_("Share one memory pool between graphs (torch.cuda.graph(..., pool=first_graph.pool()))."),
                        _("Disable CUDA graphs to confirm: the job then fits.")]))
    if sig is None and (_wsl(f) or _windows(f)) and names_managed_memory(r.text or ""):
        out.append(_not_capacity("managed_memory", 0.85, f))
    elif sig in (None, "bare_cuda_error") and r.host_os is None and names_unified_allocator(r.text or ""):
        # A unified-memory allocator failing with no figures and no OS said (signatures.names_unified_allocator):
        # the device or the OS cannot oversubscribe managed memory (0.55, above the bare error's shortage).
        out.append(_not_capacity("managed_oversubscription", 0.55, f))
    if sig is None and _wsl(f) and _figureless_device_oom(f):
        # WSL2 limits page-locked host memory (docs.nvidia.com/cuda/wsl-user-guide, "Known Limitations": pinned system
        # memory availability is limited), and a DataLoader's pin_memory=True fails there as a CUDA out-of-memory
        # (ddPn08/rvc-webui#78: "CUDA out of memory in WSL2", fixed by pin_memory=False). A message with no figure
        # cannot tell it from the job's own need, so it is ranked beside the shortage (0.4, second), with its check.
        # At batch size 1 (library_words.fails_at_batch_one) the job's own step is at its least, so the platform's
        # limit comes first (0.5, above the figureless shortage's 0.45; AnyaCoder/Bert-VITS2#1: "cuda out of memory
        # with bs=1" under WSL, gone on native Windows).
        out.append(_not_capacity("pin_memory", 0.5 if library_words.fails_at_batch_one(r.text or "") else 0.4, f))
    if sig is None and r.backend == "directml" and r.host_os != "wsl" and f.requested is None and f.total is None:
        # DirectML runs on Direct3D 12 under WDDM, whose video memory manager backs device allocations with system
        # memory it can evict them to, so the Windows commit limit (RAM + page file) refuses them too
        # (lshqqytiger/stable-diffusion-webui-amdgpu#174: the page file capped at 8 GB, set back to automatic). With no
        # figure to weigh, that reading is ranked beside the shortage, with the commit counters as the check.
        out.append(_page_file(0.4, f))
    if not isinstance(sig, str):
        return out
    if sig == "buffer_limit" and _METAL_ARRAY_BUFFER in (r.text or "").lower():
        out.append(_metal_array_over_max_buffer(f))
        out.append(_not_capacity(sig, 0.6, f))
    elif sig == "buffer_limit" and r.platform == "metal" and _METAL_BUFFER_VALIDATION.search(r.text or ""):
        # Metal's buffer validation: the per-buffer limit refused it (first), and on a device whose memory sets that
        # limit a buffer this large often means the model and its context do not fit anyway (slaren in
        # llama.cpp#6861: even without the compute buffer the allocations exceed what Metal can give the iPhone).
        out.append(_not_capacity(sig, 0.96, f))
        out.append(_shortage(0.5, f, _("Metal derives its limits from the device's memory: a buffer above the "
                                       "per-buffer limit can mean that the model and its context do not fit this "
                                       "device at all; then only a smaller context or model helps.")))
    elif sig == "dev_shm" and bare_bus_error(r.text or ""):
        # A bus error with no word of shared memory (signatures.bare_bus_error): /dev/shm is the likeliest backing that
        # faults so, not the only one (a memory-mapped file truncated under the process does too), hence 0.6.
        out.append(_not_capacity(sig, 0.6, f))
    elif sig == "dev_shm" and enospc_beside_gpu_only(r.text or ""):
        # ENOSPC beside a GPU job with no filesystem named (signatures.enospc_beside_gpu_only): /dev/shm is the
        # likeliest filesystem such a job fills, not a named one, hence 0.75.
        out.append(_not_capacity(sig, 0.75, f))
    elif sig == "host_ram" and runner_backend_buffer(r.text or ""):
        # Read from Ollama's scheduler, not from the call's own words (signatures.runner_backend_buffer): 0.8.
        out.append(_not_capacity(sig, 0.8, f))
    elif sig == "pin_memory" and VERBS_ENOMEM.search(r.text or ""):
        # ENOMEM from a verbs call is the memlock limit as a rule, the adapter's own resources at times: 0.8.
        out.append(_not_capacity(sig, 0.8, f))
    elif sig == "fixed_pool":
        out.append(fixed_pools.fixed_pool(f))
    elif sig == "library_changed":
        # ColabFold's catch-all question with no exception after it, beside a changed version
        # (gpudesk.oom.library_words.version_changed_under_generic_question): the library first, memory second.
        out.append(_not_capacity("library_mismatch", 0.55, f))
        out.append(_shortage(0.45, f, _("The runtime asks whether memory ran out for any error it catches; with no "
                                        "error pasted after the question, a real shortage reads the same.")))
    elif sig == "vgpu_limit":
        out.append(fixed_pools.vgpu_limit(f))
    elif sig == "absurd_size" and vgpu_words.counter_wrapped(r.text or ""):
        out.append(fixed_pools.wrapped_counter(_not_capacity(sig, 0.96, f)))
    elif sig == "buffer_limit" and CUBECL_POOL in (r.text or "").lower() and r.requested_bytes is None:
        # CubeCL's pool refusal with no size (a paste cut before it): the words name the mechanism, but no figure
        # shows the request above any limit, so it stays below the 0.96 of a sized refusal.
        out.append(_not_capacity(sig, 0.8, f))
    elif sig == "extension_arch":
        # A card that is really full (another process) refuses Thrust the same way: the build first, 0.7.
        out.append(_not_capacity(sig, 0.7, f))
        out.append(_shortage(0.3, f, _("If another process holds the GPU's memory, the extension is refused memory "
                                       "the same way: nvidia-smi shows which.")))
    elif sig == "absurd_size" and rasterizer_garbage(r.text or "", r.requested_bytes):
        out.append(garbage_sizes.rasterizer_count(_not_capacity(sig, 0.9, f)))
    elif sig == "absurd_size" and beyond_card_only(r.requested_bytes, r.device.total_bytes if r.device else None):
        out.append(garbage_sizes.beyond_card(_not_capacity(sig, 0.9, f)))
    elif sig == "buffer_limit" and f.requested is not None and f.total is not None and f.requested > f.total:
        # (Fifty-eighth pass) A per-allocation limit refusing a request larger than the device's whole memory
        # ("Current platform can NOT allocate memory block with size larger than 4GB! Tried to allocate 40.00 GiB
        # (GPU 0; 15.11 GiB total capacity; ...", intel/ipex-llm#11798): no setting of the limit could serve it, the
        # device itself cannot hold it, so the request larger than the device leads
        # (single_allocation_exceeds_capacity, 0.9) and the limit follows.
        out.append(_not_capacity(sig, 0.6, f))
    elif sig == "checkpoint_version":
        # The call that failed restores a checkpoint (gpudesk.oom.signatures.CHECKPOINT_RESTORE): its sizes come from
        # the file, 0.75; a card already full refuses a good checkpoint too, so the shortage follows.
        out.append(_not_capacity(sig, 0.75, f))
        out.append(_shortage(0.3, f, _("If the checkpoint was written by this same version and GPU, the system may "
                                       "simply not fit: nvidia-smi shows how full the card is.")))
    elif sig in ("rocm_start", "nvenc_session"):
        # A start-up refusal read from the runtime's own words (gpudesk.oom.start_refusal_words): 0.85, the point of
        # failure precedes any allocation of the program's, but a device that is already full can refuse a start too.
        out.append(_not_capacity(sig, 0.85, f))
    elif sig in NOT_CAPACITY:
        out.append(_not_capacity(sig, 0.96, f))
    elif sig == "wsl_residency":
        out.extend(_wsl_residency(f))
    elif sig == "xpu_large":
        out.append(_not_capacity(sig, _xpu_large_confidence(f), f))
    elif sig == "vulkan_large":
        out.append(_not_capacity(sig, 0.6, f))
    elif sig == "vulkan_heap":
        # The validation layer's own comparison of the request with the whole heap: no free memory makes it fit.
        out.append(_not_capacity(sig, 0.9, f))
    elif sig == "rank_free_imbalance":
        out.append(multi_gpu_imbalance.rank_free_check(f))
        out.append(_other_process(0.5, f))
    elif sig == "pool_fallback":
        out.append(_not_capacity(sig, 0.85, f))
    elif sig == "vulkan_unsized":
        out.append(_not_capacity(sig, 0.5, f))
        out.append(_shortage(0.45, f, _("The Vulkan device's memory may be full: the text gives no figure to tell.")))
    elif sig == "graph_buffer":
        out.append(_graph_buffer(f))
        out.append(_shortage(0.5, f, _("The graph's intermediate tensors may not fit the device at this input size: "
                                       "the text gives no size or capacity to tell.")))
    elif sig == "vmm_handle":
        out.append(_not_capacity(sig, 0.6, f))
        out.append(_shortage(0.4, f, _("hipMemCreate allocates device memory: with the GPU full it fails the same "
                                       "way.")))

    elif sig == "context_init" and not any(w in (r.text or "").lower() for w in _MEMORY_WORDS):
        # The runtime's start-up failed and the text names no memory failure: another holder first, at a
        # confidence that says so, with the driver/runtime mismatch that stops a start-up as well.
        out.append(_other_process(0.55, f))
        out.append(_not_capacity("driver_version", 0.4, f))
    elif sig == "context_init":
        out.append(_other_process(0.8, f))
        out.append(_not_capacity("ecc", 0.2, f))
    elif sig == "library_init":
        out.extend(_library_init(f))
    elif sig == "pool_chunk":
        # The signature is PaddlePaddle's own check (GpuMaxChunkSize), named or not: Paddle's switch is the check.
        out.append(_with_command(PADDLE_PREALLOCATION_COMMAND, _generic("preallocation", 0.7, _("The framework's up-front memory chunk is larger than the free "
                                                     "memory"),
                            _("PaddlePaddle's allocator reserves FLAGS_fraction_of_gpu_memory_to_use of the GPU in one "
                              "chunk at start and refuses to run when that chunk is more than what is available "
                              "(the 'allocating > available' figures): the fraction, or another process on the GPU, "
                              "leaves it no room."),
                            _("Lower FLAGS_fraction_of_gpu_memory_to_use (e.g. export "
                              "FLAGS_fraction_of_gpu_memory_to_use=0.5) or switch to growth "
                              "(FLAGS_allocator_strategy=auto_growth); stop other processes on the GPU"),
                            "preallocation", f)))
        out.append(_other_process(0.4, f))
    elif sig == "scratch_reserve":
        out.append(_scratch_reserve(f))
        out.append(_other_process(0.35, f))
    elif sig == "sigkill":
        out.append(_not_capacity("oom_killer", 0.7, f))
    elif sig == "worker_exit_shm":
        out.append(exit_causes.worker_exit_in_container(_not_capacity("dev_shm", 0.75, f)))
    elif sig == "worker_exit":
        out.append(exit_causes.worker_found_dead(_not_capacity("oom_killer", 0.6, f)))
    elif sig == "load_exit_paused":
        out.append(exit_causes.paused_after_load(_page_file(0.65, f)))
    elif sig == "kernel_died":
        # A notebook kernel that died (signatures.notebook_kernel_died): the OOM killer's SIGKILL or a native crash;
        # host memory first at 0.55, with the kernel log as the check.
        cause = _not_capacity("oom_killer", 0.55, f)
        cause.title = _("Likely not GPU memory: the notebook's kernel died, most often killed by the host's OOM killer")
        cause.explanation = _("A notebook's kernel is a process of its own; when it dies with no Python error, the "
                              "operating system ended it, most often the OOM killer because RAM, swap or /dev/shm ran out (a "
                              "native crash is the other reading). Memory left by an earlier crashed run, such as "
                              "files in /dev/shm or another kernel still alive, counts too.")
        cause.more_fixes = [_("Free what an earlier run left: shut down other kernels, and remove its files from "
                              "/dev/shm (ls -la /dev/shm)."), *cause.more_fixes]
        out.append(cause)
        if "gpu" in (r.text or "").lower():
            # On a GPU server the kernel also dies in a native abort when its first CUDA allocation finds the GPU
            # held by other notebooks' kernels (radiasoft/devops#224): the second reading, with nvidia-smi.
            out.append(_other_process(0.4, f))
    elif sig == "sigtrap_mac":
        out.append(_mac_trap(f))
    elif sig == "metal_oom":
        out.append(_shortage(0.7, f, _("A Metal command buffer ran out of memory: the model, its cache and this "
                                       "step's buffers exceed the GPU working set macOS allows (about two thirds "
                                       "to three quarters of unified memory).")))
    elif sig == "devices_unavailable":
        # signatures._WORDS: cudaErrorDevicesUnavailable, a context refused on a GPU another process owns.
        cause = _other_process(0.7, f)
        cause.title = _("Another process owns the GPU: the device is busy or unavailable")
        cause.explanation = _("CUDA refuses a new context with 'busy or unavailable' when the GPU is in "
                              "exclusive-process (or prohibited) compute mode and another process already holds it, or "
                              "when long-running work of another process fills it. The job's own size plays no part.")
        cause.fix = _("Run nvidia-smi: end the processes still holding the GPU (a reboot clears ones that keep "
                      "coming back), or set the compute mode back to Default with sudo nvidia-smi -c 0")
        out.append(cause)
    elif sig == "expandable_assert":
        # signatures._WORDS: the allocator's assert on an expandable segment (pytorch#119452, fixed by #134338).
        cause = _not_capacity("expandable_segments", 0.75, f)
        cause.title = _("Not a capacity problem: PyTorch's allocator asserted on an expandable segment")
        cause.explanation = _("The assert is raised inside PyTorch's caching allocator when expandable segments are "
                              "combined with garbage_collection_threshold or max_split_size_mb: near a full GPU it "
                              "tries to release blocks of an expandable segment as if they were ordinary ones. An "
                              "allocator bug under that option combination (fixed in later PyTorch releases), not the "
                              "out-of-memory message.")
        cause.fix = _("Remove expandable_segments:True, or the other options beside it (garbage_collection_threshold, "
                      "max_split_size_mb), from PYTORCH_CUDA_ALLOC_CONF, or update PyTorch")
        out.append(cause)
    elif sig == "allocator_nvml_assert":
        out.append(_shortage(0.6, f, _("PyTorch's allocator failed while building its out-of-memory message (NVML "
                                       "cannot be queried on a MIG slice): an allocation failed, and the slice is "
                                       "smaller than the whole GPU.")))
    elif sig == "startup_pool":
        out.append(_startup_pool(f))
        out.append(_other_process(0.4, f))
    elif sig == "arena_limit":
        out.append(_arena_limit(f))
        out.append(_shortage(0.4, f, _("The pool holds what the job needs up to its limit; the limit may already be "
                                       "as large as the GPU allows.")))
    elif sig == "mlx_memory_limit" and f.requested is not None and f.requested < _MLX_TINY_BYTES:
        out.append(_shortage(0.65, f, _("MLX could not allocate even a few bytes: after freeing its cache and "
                                        "waiting for running work, the arrays the step keeps alive fill MLX's limit "
                                        "(1.5 times the working set the GPU recommends), so the step's own need "
                                        "exceeds what this Mac's unified memory holds; raising the limit only moves "
                                        "it into swap.")))
        out.append(_mlx_memory_limit(f))
        out[-1].confidence = 0.45
    elif sig == "mlx_memory_limit":
        out.append(_mlx_memory_limit(f))
        out.append(_shortage(0.5, f, _("The Mac's unified memory may be too small for this step: MLX's limit is set "
                                       "from the working set the GPU recommends, and Metal refuses the buffer the "
                                       "same way when memory and swap run out.")))
    elif sig == "token_pool_accounting":
        out.append(_token_pool_accounting(f))
        out.append(_generic("kv_cache_budget", 0.4, _("The engine's KV cache pool is too small for the batch"),
                            _("If the counts are stale, the pool was really full: the batch needs more KV cache than "
                              "the memory fraction left."),
                            _("Lower --max-running-requests, or raise --mem-fraction-static if the GPU has room"),
                            "free_exceeds_request", f))
    elif sig == "nccl_cuda_error":
        out.extend(_nccl_cuda_error(f))
    elif sig == "nccl_system_error":
        out.append(_nccl_system_error(f))
    elif sig == "launch_failure":
        out.append(_launch_failure(f))
    elif sig == "bare_cuda_error" and r.kind != "pin_memory_thread":
        out.extend(_bare(f))  # (the DataLoader pin-memory thread has its own reading: allocation_outside_allocator)
    return out


# A serving engine's own memory budget named in the text (vLLM's and SGLang's settings, either spelling).
_ENGINE_BUDGET_WORDS = re.compile(r"gpu[-_]memory[-_]utili[sz]ation|mem[-_]fraction[-_]static|"
                                  r"kv[-_]cache[-_]free[-_]gpu[-_]mem[-_]fraction", re.IGNORECASE)
_SERVING_ENGINES = ("vllm", "sglang", "trtllm", "tgi", "lmdeploy")


def _wsl_residency(f: Facts) -> list[Cause]:
    """WSL2 could not make the job's device memory resident (signatures ``_WSL_RESIDENCY``): the Windows host keeps
    part of the GPU, so what the job commits must stay below what nvidia-smi shows free. The first knob is the budget
    the job sets itself: a serving engine's memory share (kv_cache_budget, 0.75), a framework's up-front pool
    (preallocation, 0.7); otherwise the job's own size (0.55), the other Windows programs on the GPU second."""
    r = f.report
    text = r.text or ""
    runtime = r.runtime or r.framework
    command = "dmesg | grep -i dxgkio_make_resident"
    explanation = _("WSL2's GPU driver could not make the job's memory resident on the GPU (dxgkio_make_resident "
                    "failed with ENOMEM): Windows keeps part of the video memory for itself, so under WSL2 the real "
                    "ceiling is below what nvidia-smi shows free.")
    deciding_line = check_line(
        command=command, meaning=_("one ENOMEM line per refused residency request confirms the WSL2 ceiling"))
    if runtime in _SERVING_ENGINES or _ENGINE_BUDGET_WORDS.search(text):
        first = Cause(id="kv_cache_budget", title=_("The engine's memory budget is above what WSL2 can make resident"),
                      confidence=0.75, evidence=evidence(check_command=command),
                      explanation=explanation,
                      fix=_("Lower the engine's memory share until a few GB per GPU stay free (vLLM: "
                            "--gpu-memory-utilization 0.8; SGLang: --mem-fraction-static 0.8), or a smaller KV cache "
                            "(--max-model-len); or run natively on Linux"),
                      checks=[deciding_line])
    elif runtime in _PREALLOCATING:
        first = Cause(id="preallocation", title=_("The framework's up-front pool is above what WSL2 can make resident"),
                      confidence=0.7, evidence=evidence(check_command=command),
                      explanation=explanation,
                      fix=_("Take less up front: TF_FORCE_GPU_ALLOW_GROWTH=true (TensorFlow) or "
                            "XLA_PYTHON_CLIENT_MEM_FRACTION=.7 (JAX), then rerun"),
                      checks=[deciding_line])
    else:
        first = _shortage(0.55, f, explanation)
        first.fix = _("Leave a few GB of the GPU unused under WSL2: a smaller batch, model or context, a lower memory "
                      "share if the program sets one, or run natively on Linux")
        first.checks = [deciding_line]
    return [first, _generic("other_process", 0.35, _("Windows programs may hold part of the GPU"),
                            _("Under WSL2 the Windows desktop and its programs share the GPU; their video memory is "
                              "not listed by nvidia-smi inside WSL."),
                            _("Close GPU-heavy Windows programs (browsers, games, other AI tools), or check the GPU's "
                              "dedicated memory in the Windows Task Manager"), "other_process", f)]


_MEMORY_WORDS = ("memory", "oom", "alloc", "resource exhausted", "resourceexhausted")
# The glog CHECK of a C++ framework that creates its cuDNN/cuBLAS handles when it sets up its layers and has no
# up-front pool (Caffe's ``CUDNN_CHECK``, ``include/caffe/util/cudnn.hpp``: "Check failed: status ==
# CUDNN_STATUS_SUCCESS"; MXNet's ``CHECK_EQ(err, CUBLAS_STATUS_SUCCESS) << "Create cublas handle failed"``,
# ``mshadow/stream_gpu-inl.h``), and Torch7's cudnn.torch ("Error in CuDNN: ..."), which does the same.
_EAGER_HANDLE_CALLER = re.compile(r"check failed:[^\n]{0,60}(?:cudnn|cublas)_status_success|create cublas handle failed|"
                                  r"error in cudnn:", re.IGNORECASE)


def _xpu_large_confidence(f: Facts) -> float:
    """How strongly an Intel GPU refusal of 4 GiB or more reads as Level Zero's per-allocation limit.

    PyTorch's XPU caching allocator gets each new segment from ``sycl::malloc_device``; Level Zero refuses one
    allocation above the device's ``maxMemAllocSize`` (4 GiB on most Intel GPUs unless
    ``UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1``; Level Zero spec, ``ze_relaxed_allocation_limits_exp_desc_t``) however
    much memory is free. So: the message says the device had at least the request free -> only the limit can have
    refused it (0.95, above a "fragmented" reading of a near-empty cache: torch-xpu-ops#3011, #5046); PyTorch's own
    holdings leave less than the request on the device -> capacity decides first, the limit is secondary (0.3,
    IPEX#851); a per-process cap in the message is met first (0.6, torch-xpu-ops#2392); otherwise 0.6.
    """
    if f.requested is None:
        return 0.6
    if f.allowed is not None and f.total is not None and f.allowed < f.total:
        return 0.6  # a per-process cap ("N GiB allowed") is the first limit the request meets: per_process_cap
    if f.free is not None and f.free >= f.requested:
        return 0.95
    held = f.reserved if f.reserved is not None else f.allocated
    if f.total is not None and held is not None and f.total - held < f.requested:
        return 0.3
    return 0.6


# A library status with no caller's wording around it. PyTorch always wraps its library failures ("RuntimeError:
# cuDNN error: ...", "CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"), and so do Torch7
# ("Error in CuDNN:"), CNTK ("cuDNN failure 2:") and MXNet ("Check failed: e == CUDNN_STATUS_SUCCESS"); the status
# alone is what users clip from TensorFlow's StreamExecutor log line, and those threads are fixed by memory growth
# (tensorflow#14345, #7072; pythonlessons/TensorFlow-2.x-YOLOv3#107; oarriaga/paz#208).
_BARE_STATUS = re.compile(r"\s{0,4}(?:CUDNN|CUBLAS)_STATUS_[A-Z_]{3,40}\s{0,4}")


# cuDNN's CUDNN_STATUS_NOT_INITIALIZED and nothing else, or after an issue form's title tag ("[Bug]: ..."). The cuDNN
# API reference words the status "The cuDNN library was not initialized properly ... usually due to an error in the
# CUDA Runtime API called by cudnnCreate() or by an error in the hardware setup", while a handle whose memory could not
# be allocated is CUDNN_STATUS_ALLOC_FAILED (or INTERNAL_ERROR, above): with no framework named whose pool could have
# taken the memory, the status names the library's start (a build for another GPU, CUDA or driver) first, as
# _not_initialized_pytorch reads PyTorch's wording of it (AUTOMATIC1111/stable-diffusion-webui#9589: the torch build
# reinstalled for a K80's older driver fixed it). The bare ALLOC_FAILED / INTERNAL_ERROR statuses, and cuBLAS's
# NOT_INITIALIZED (which cublasCreate also returns when it cannot get its resources, google/flax#445), stay with the
# up-front pool below.
_BARE_CUDNN_NOT_INITIALIZED = re.compile(r"\s{0,4}(?:\[[A-Za-z ]{2,16}\]:?\s{0,4})?CUDNN_STATUS_NOT_INITIALIZED\s{0,4}")


# PyTorch's own wording of a cuBLAS failure: ``TORCH_CUDABLAS_CHECK`` formats "CUDA error: <status> when calling
# `<call>`" (aten/src/ATen/cuda/Exceptions.h, https://github.com/pytorch/pytorch), with or without the "RuntimeError:"
# its Python binding adds; PyTorch has no up-front pool.
_TORCH_BLAS_WORDING = re.compile(r"(?:CUBLAS|CUDNN)_STATUS_[A-Z_]{3,40} when calling `")


def _not_pytorch_wording(r: MemoryReport) -> bool:
    """A library status that PyTorch did not word: the status alone, or no runtime and no PyTorch words at all
    (flexflow-train#51: Legion maps a fixed framebuffer up front, ``-ll:fsize``, as TensorFlow and JAX do)."""
    if _BARE_STATUS.fullmatch(r.text or "") is not None:
        return True
    if _TORCH_BLAS_WORDING.search(r.text or "") is not None:
        return False
    return r.runtime is None and r.framework in (None, "unknown")


def _jax_wording(r: MemoryReport) -> bool:
    """JAX's own XLA: jaxlib's words, or XLA's sources outside TensorFlow's tree (TensorFlow 2.15+ vendors XLA as
    ``external/local_xla``; JAX builds it as ``external/xla``)."""
    low = (r.text or "").lower()
    if r.framework == "jax" or r.runtime == "jax":
        return True
    return r.runtime == "xla" and "local_xla" not in low and "tensorflow" not in low


def _library_mismatch_first(f: Facts) -> list[Cause]:
    """JAX's cuDNN handle: JAX preallocates 75 % of the GPU (XLA_PYTHON_CLIENT_MEM_FRACTION, docs.jax.dev "GPU memory
    allocation"), so the quarter it leaves holds a handle and its workspace; what stops the handle is a cuDNN the
    loader cannot find or that differs from the one jaxlib was built with ("Loaded runtime CuDNN library ... but source
    was compiled with"), or an old driver (jax#16078: installing cuDNN; jthlab/phlash#31: a driver update)."""
    return [_not_capacity("library_mismatch", 0.65, f),
            _generic("preallocation", 0.45, _("The framework's preallocation left no memory for cuDNN/cuBLAS"),
                     _("JAX maps 75 % of the GPU at start; a second process or framework on the same GPU leaves the "
                       "library too little."),
                     _("Set XLA_PYTHON_CLIENT_PREALLOCATE=false or XLA_PYTHON_CLIENT_MEM_FRACTION=.5, then rerun"),
                     "preallocation", f),
            _other_process(0.35, f)]


# XLA's convolution autotuner (xla/service/gpu/conv_algorithm_picker.cc) when every candidate algorithm failed.
_AUTOTUNER = "best cudnn convolution algorithm"


# cuBLAS's handle alone: its words, with none of cuDNN's (the DNN library's own failures read as above).
_BLAS_WORDS = ("cublas", "getblasgemmalgorithms", "blas support")
_DNN_WORDS = ("cudnn", "dnn library", "dnn != nullptr", "convolve", "cusolver")


def _blas_only(low: str) -> bool:
    return any(w in low for w in _BLAS_WORDS) and not any(w in low for w in _DNN_WORDS)


def _blas_preallocation(f: Facts) -> list[Cause]:
    """XLA or TensorFlow without its cuBLAS handle ("Failed to create cublas handle", then the GEMM autotuner's
    RET_CHECK on ``GetBlasGemmAlgorithms`` in ``xla/service/gpu/gemm_algorithm_picker.cc``, which StreamExecutor answers
    only through the BLAS support it could not create). cuBLAS is part of the CUDA release the framework's wheels pin
    (jaxlib's ``nvidia-cublas-cu12`` dependency), so unlike a separately installed cuDNN it is seldom missing or
    mismatched; ``cublasCreate`` allocates the handle's device resources (cuBLAS documentation, "cublasCreate()":
    "allocates hardware resources on the host and device") with cudaMalloc, outside the framework's pool. With the GPU
    mapped up front (by JAX, or by TensorFlow in the same process) there is nothing left: jax-ml/jax#13504 was fixed by
    making TensorFlow grow instead of preallocating. Preallocation first (0.6), the library second (0.4)."""
    return [_generic("preallocation", 0.6, _("The framework's preallocation left no memory for cuBLAS"),
                     _("cuBLAS allocates its handle's device memory with cudaMalloc, outside the framework's pool; "
                       "JAX (and TensorFlow in the same process) map most of the GPU at start, so the handle could "
                       "not be created and every matrix multiplication that needs it fails."),
                     _("Set XLA_PYTHON_CLIENT_PREALLOCATE=false or XLA_PYTHON_CLIENT_MEM_FRACTION=.5, and if "
                       "TensorFlow runs in the same process let it grow (tf.config.experimental.set_memory_growth or "
                       "TF_FORCE_GPU_ALLOW_GROWTH=true) or hide the GPU from it; then rerun"),
                     "preallocation", f),
            _not_capacity("library_mismatch", 0.4, f), _other_process(0.35, f)]


def _autotuner_preallocation(f: Facts) -> list[Cause]:
    """XLA's "Failed to determine best cudnn convolution algorithm": the autotuner runs after cuDNN's handle was
    created (a missing or mismatched library stops earlier, at "DNN library initialization failed"), and profiles each
    candidate algorithm with scratch memory and cuDNN's own device allocations made outside XLA's preallocated pool;
    when all of them fail, that memory could not be had. cuDNN's CUDNN_STATUS_EXECUTION_FAILED under XLA (read only
    there, gpudesk.oom.parsers.cublas) is the same memory failing when the chosen algorithm runs (jax#12461, its
    maintainers: preallocation). Preallocation first (elixir-nx/nx#1000: memory_fraction 0.6
    fixed it; jax#8506: the maintainer, JAX must leave cuDNN a minimum), the library reading second."""
    return [_generic("preallocation", 0.6, _("The framework's preallocation left no memory for cuDNN/cuBLAS"),
                     _("XLA's convolution autotuner tries each cuDNN algorithm with scratch memory and cuDNN's own "
                       "allocations outside the preallocated pool; every algorithm failed, so that memory was not "
                       "there."),
                     _("Set XLA_PYTHON_CLIENT_PREALLOCATE=false or XLA_PYTHON_CLIENT_MEM_FRACTION=.5 (TensorFlow: "
                       "TF_FORCE_GPU_ALLOW_GROWTH=true), then rerun"),
                     "preallocation", f),
            _not_capacity("library_mismatch", 0.4, f), _other_process(0.35, f)]


def _not_initialized_pytorch(f: Facts) -> list[Cause]:
    """PyTorch's ``CUDNN_STATUS_NOT_INITIALIZED``: ``cudnnCreate`` could not start.

    The cuDNN API reference words the status "The cuDNN library was not initialized properly ... usually due to an
    error in the CUDA Runtime API called by cudnnCreate() or by an error in the hardware setup" (a cuDNN or a PyTorch
    build for other GPUs or another CUDA, a driver older than the runtime), while the handle's own allocation failing is
    its ``CUDNN_STATUS_ALLOC_FAILED`` / ``INTERNAL_ERROR``; a runtime that cannot load the library's kernels for lack of
    device memory still reports it (haotian-liu/LLaVA#392: a small convolution run first showed the real out-of-memory).
    What the text decides is when it failed. PyTorch creates a handle lazily at the first cuDNN op of each device and
    thread (``aten/src/ATen/cudnn/Handle.cpp``), and the autograd engine runs the backward pass on a thread of its own
    (:func:`gpudesk.oom.library_words.failed_in_backward`): a failure in backward comes after the forward's handle
    worked, so the library loads and memory is the reading (seanie12/Info-HCVAE#7) → ``genuine_shortage`` 0.55. With no
    such frame the failure is at the first cuDNN op of the run, where a build that does not match the GPU, driver or
    CUDA fails on every input (the threads that quote the line alone: LLaVA#458, werner-duvaud/muzero-general#139,
    chen-zhoujian/SegNet-pytorch#2, NVIDIA/pix2pixHD#285, all fixed or diagnosed by another build) → the library first,
    ``not_capacity`` 0.55 with its check, memory 0.45. Ranked either way, with the check that separates them."""
    if not library_words.failed_in_backward(f.report.text or ""):
        mismatch = _not_capacity("library_mismatch", 0.55, f)
        # PyTorch's pip and conda builds bring their own cuDNN and CUDA runtime, so the build is what must match the
        # GPU (its compute capability in torch.cuda.get_arch_list()) and the driver.
        mismatch.fix = _("Install the PyTorch build made for this GPU and driver (its CUDA version at most the "
                         "driver's, and the GPU's sm_XX in torch.cuda.get_arch_list()); pip and conda builds bring "
                         "their own cuDNN, so a separately installed one must not shadow it; then rerun")
        return [mismatch,
                _generic("genuine_shortage", 0.45, _("Not enough GPU memory for this job"),
                         _("cuDNN could not create its handle (CUDNN_STATUS_NOT_INITIALIZED) at the first cuDNN op of "
                           "the run: the GPU may already have been full of the model when the library started (a "
                           "small convolution run first shows the real out-of-memory error)."),
                         _("Reduce what this step keeps on the GPU (batch, resolution, context, layers on the GPU)"),
                         "other_process", f),
                _outside_allocator(0.4, f), _other_process(0.35, f)]
    cause = _shortage(0.55, f, _("cuDNN could not create its handle (CUDNN_STATUS_NOT_INITIALIZED) in the backward "
                                 "pass, after the forward pass had used cuDNN: the library works, and the backward "
                                 "thread's handle found the GPU full of the forward's activations."))
    cause.evidence.update(evidence(deciding_check="driver_version", check_command=LIBRARY_CHECK.command))
    cause.checks = [check_line(command=LIBRARY_CHECK.command,
                                                       meaning=i18n._(LIBRARY_CHECK.meaning))]
    return [cause, _outside_allocator(0.5, f), _not_capacity("library_mismatch", 0.4, f), _other_process(0.35, f)]


def _outside_allocator(confidence: float, f: Facts) -> Cause:
    r = f.report
    return Cause(id="allocation_outside_allocator", title=_("A CUDA library could not allocate memory"),
                 confidence=confidence,
                 evidence=evidence(library_status=r.parsed.get("library_status"), deciding_check="other_process",
                                   check_command=check_command("other_process", r.platform)),
                 explanation=_("cuDNN and cuBLAS allocate their handles and workspaces with cudaMalloc, outside "
                               "PyTorch's caching allocator, which keeps its freed blocks cached: the GPU was full of "
                               "the job's tensors and cache when the library initialised (the real OOM hides behind "
                               "the library's status)."),
                 fix=_("Leave room for the libraries: a smaller batch, torch.cuda.empty_cache() before the first "
                       "matmul/conv, or a GPU with free memory (CUDA_VISIBLE_DEVICES)"),
                 checks=[_check_line("other_process", r.platform)])


# The CudaCall format that CNTK wrote and ONNX Runtime kept ("cuDNN failure 4: CUDNN_STATUS_INTERNAL_ERROR ; GPU=0 ;
# hostname=... ; expr=cudnnCreate(...)"; "CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ... expr=cublasCreate(
# &cublas_handle_)"): CNTK's Source/Math/CommonMatrix.h / CuDnnCommon.h CUDNN_CALL and CUBLAS_CALL
# (https://github.com/microsoft/CNTK), ONNX Runtime's onnxruntime/core/providers/cuda/cuda_call.cc CudaCall
# (https://github.com/microsoft/onnxruntime). Both create their cuDNN/cuBLAS handles when a device or a session is set
# up (ONNX Runtime: the CUDA execution provider's per-thread context, cuda_execution_provider.cc, and its stream,
# cuda_stream_handle.cc), and neither keeps a cache of freed blocks for the library to compete with, so an allocation
# status there (ALLOC_FAILED, and cuDNN's INTERNAL_ERROR, which it returns when its own cudaMalloc fails) reads as a
# full GPU first; a status that names the library itself (NOT_INITIALIZED, VERSION_MISMATCH, ARCH_MISMATCH) as a
# mismatched install first.
_CUDACALL = re.compile(r"\b(?:cudnn|cublas) failure \d{1,3}:\s{0,2}(?:cudnn|cublas)_status_([a-z_]{3,40})", re.IGNORECASE)
_LIBRARY_STATUSES = ("not_initialized", "version_mismatch", "arch_mismatch", "not_supported")


def _cudacall_handle(f: Facts, status: str) -> list[Cause]:
    """A cuDNN/cuBLAS status in the CudaCall format (``_CUDACALL``), ranked by what the status names."""
    shortage = _shortage(0.55, f, _("cuDNN/cuBLAS could not allocate their handle or workspace when the device was "
                                    "set up: the GPU had no room left for them beside the model."))
    shortage.evidence.update(evidence(deciding_check="driver_version", check_command=LIBRARY_CHECK.command))
    shortage.checks = [check_line(command=LIBRARY_CHECK.command,
                                                        meaning=i18n._(LIBRARY_CHECK.meaning))]
    if status.lower() in _LIBRARY_STATUSES:
        return [_not_capacity("library_mismatch", 0.55, f), _generic(
            "genuine_shortage", 0.45, _("Not enough GPU memory for this job"),
            _("cuDNN/cuBLAS could not start: the GPU may have been full when the device was set up."),
            _("Reduce what this step keeps on the GPU (batch, resolution, context, layers on the GPU)"),
            "other_process", f), _other_process(0.35, f)]
    return [shortage, _other_process(0.4, f), _not_capacity("library_mismatch", 0.35, f)]


# The text says the library failed after the program moved to another machine or after the driver / CUDA / cuDNN was
# changed ("after trying to load this onto my beefier PC", invoke-ai/InvokeAI#25; "on a different machine", "after
# updating the NVIDIA driver"): the installed driver, CUDA runtime and cuDNN are what changed, and a handle that cannot
# be created in an environment the program has not run in is a version mismatch first.
_OTHER_MACHINE = re.compile(
    r"\bonto\s{1,3}(?:my|a|an|another|the)\s{1,3}(?:\w{2,12}\s{1,3})?(?:pc|machine|computer|workstation|server|laptop)\b"
    r"|\b(?:another|different|new|second)\s{1,3}(?:\w{2,12}\s{1,3})?(?:pc|machine|computer|workstation|server|laptop)\b"
    r"|\bafter\s{1,3}(?:updating|upgrading|installing|reinstalling|changing)\s{1,3}(?:the\s{1,3}|my\s{1,3})?"
    r"(?:nvidia\s{1,3}|gpu\s{1,3}|graphics\s{1,3})?(?:drivers?|cuda|cudnn|toolkit)\b",
    re.IGNORECASE)


# Words that say the library itself could not be set up (a binding's or a user's wording).
_LIBRARY_NOT_LOADED = re.compile(r"\b(?:unable to|cannot|can't|could not|couldn't|failed to) (?:instantiate|load|find|open)"
                                 r" (?:the )?(?:lib)?cudnn\b")


# XLA's own words for a DNN/solver library it could not start, whichever framework embeds it: StreamExecutor's
# "DNN library initialization failed. Look at the errors above for more details." (xla/stream_executor/cuda/
# cuda_dnn.cc, CudnnSupport::Init, after cudnnCreate fails; the errors above it are the loader's "Loaded runtime CuDNN
# library: X but source was compiled with: Y"), the compiler's RET_CHECK "dnn != nullptr" (no DNN library loaded at
# all), and jaxlib's cusolverDnCreate. XLA preallocates before it compiles, but leaves a quarter of the GPU
# (XLA_PYTHON_CLIENT_MEM_FRACTION=.75, docs.jax.dev "GPU memory allocation"), room for a handle; the threads that quote
# them were a jaxlib built for another CUDA/cuDNN than the one installed (YoshitakaMo/localcolabfold#236, the
# maintainer: install jax[cuda11] for CUDA 11.8; nrbennet/dl_binder_design#38: XLA_PYTHON_CLIENT_MEM_FRACTION=.5 did
# not help, a conda CUDA newer than the driver did it). The library first, preallocation second (_library_mismatch_first).
_XLA_LIBRARY_WORDS = ("dnn library initialization failed", "dnn != nullptr", "cusolverdncreate")


def _library_init(f: Facts) -> list[Cause]:
    r = f.report
    usage = _XLA_USAGE.search(r.text or "")
    runtime = r.runtime or r.framework
    if usage:
        free, total = int(usage.group(1)), int(usage.group(2))
        if total and free / total > 0.5:
            return [_not_capacity("driver_version", 0.8, f)]
    low = (r.text or "").lower()
    if _AUTOTUNER in low or "cudnn_status_execution_failed" in low:
        return _autotuner_preallocation(f)
    if _blas_only(low) and (_jax_wording(r) or any(w in low for w in _PREALLOCATING)):
        return _blas_preallocation(f)
    if _jax_wording(r) or any(w in low for w in _XLA_LIBRARY_WORDS):
        return _library_mismatch_first(f)
    if _OTHER_MACHINE.search(r.text or ""):
        return _library_mismatch_first(f)
    if library_words.library_not_memory(r.text or "") and not any(w in low for w in _PREALLOCATING):
        # The failure stays at batch size 1, or the installed versions are what the user varied
        # (gpudesk.oom.library_words): the library first, memory second.
        return _cudacall_handle(f, "not_initialized")
    cudacall = _CUDACALL.search(r.text or "")
    if cudacall is not None and not any(w in low for w in _PREALLOCATING):
        return _cudacall_handle(f, cudacall.group(1))
    if _EAGER_HANDLE_CALLER.search(r.text or "") and not any(w in low for w in _PREALLOCATING):
        return _eager_handle(f)
    if ("cudnn_status_not_initialized" in low and runtime not in _PREALLOCATING and r.framework not in _PREALLOCATING
            and _LIBRARY_NOT_LOADED.search(low) and not any(w in low for w in _MEMORY_WORDS)):
        # cuDNN's NOT_INITIALIZED beside words that say the library itself could not be set up, naming no framework
        # with an up-front pool and no memory at all ("Unable to instantiate Cudnn ... CUDNN_STATUS_NOT_INITIALIZED",
        # chelsea0x3b/cudarc#113, a cuDNN the binding could not load): a mismatched or missing install comes first
        # (as in _cudacall_handle).
        return _cudacall_handle(f, "not_initialized")
    if runtime in _GGML_RUNTIMES:
        return _ggml_handle(f)
    if _BARE_CUDNN_NOT_INITIALIZED.fullmatch(r.text or "") is not None:
        # cuDNN's NOT_INITIALIZED alone (a title, "[Bug]: CUDNN_STATUS_NOT_INITIALIZED"): the library's start, as in
        # _not_initialized_pytorch, not a pool the text names.
        return _cudacall_handle(f, "not_initialized")
    if (runtime in _PREALLOCATING or r.framework in _PREALLOCATING or _not_pytorch_wording(r)
            or any(w in low for w in _TF_TRT_WORDS)):
        return [_generic("preallocation", 0.6, _("The framework's preallocation left no memory for cuDNN/cuBLAS"),
                         _("cuDNN and cuBLAS allocate their handles and workspaces with cudaMalloc, outside the "
                           "framework's pool; TensorFlow and JAX/XLA map most of the GPU at start, so the library "
                           "finds nothing left."),
                         _("Turn preallocation off: TF_FORCE_GPU_ALLOW_GROWTH=true (TensorFlow) or "
                           "XLA_PYTHON_CLIENT_PREALLOCATE=false / XLA_PYTHON_CLIENT_MEM_FRACTION=.5 (JAX), then rerun"),
                         "preallocation", f),
                _other_process(0.35, f), _not_capacity("library_mismatch", 0.3, f)]
    if "cudnn_status_not_initialized" in (r.text or "").lower():
        return _not_initialized_pytorch(f)
    return [_outside_allocator(0.6, f),
            _shortage(0.5, f, _("cuDNN/cuBLAS could not allocate their handle or workspace: the GPU was already "
                                "full when the library initialised.")),
            _other_process(0.4, f), _not_capacity("library_mismatch", 0.3, f)]


_GGML_RUNTIMES = ("llamacpp", "ollama")
# TF-TRT: TensorRT engines built inside a TensorFlow process (its log lines name their source,
# tensorflow/compiler/tf2tensorrt/..., and its warnings "TF-TRT Warning"; its op is TRTEngineOp). TensorRT's engine
# memory comes from TensorFlow's allocator (TRTDeviceAllocator, tf2tensorrt/utils/trt_allocator.cc), but the cuDNN and
# cuBLAS handles its builder creates are cudaMalloc'd outside it, after TensorFlow's BFC pool has mapped most of the
# GPU at start: a handle that cannot be created there is that preallocation (tensorflow/tensorrt#283, whose reporter's
# twin thread tensorflow/tensorflow#53730 was fixed by set_memory_growth).
_TF_TRT_WORDS = ("tf2tensorrt", "tf-trt", "trtengineop")


def _ggml_handle(f: Facts) -> list[Cause]:
    """ggml's CUDA backend creating its cuBLAS handle (``cublas_handle`` in ``ggml/src/ggml-cuda/common.cuh``,
    https://github.com/ggml-org/llama.cpp): it is created lazily at the first matrix multiplication, after llama.cpp
    has allocated the model buffer (``-ngl`` layers), the KV cache (``-c`` tokens; without ``-c`` the context the model
    was trained for, n_ctx_train, since llama.cpp takes 0 as "the model's own") and the compute buffer. A handle that
    cannot be created means those buffers filled the device; of them the context-sized KV cache is the one a default
    setting makes large (llama.cpp#10080: ``-ngl 31 -c 8192`` started), the layers offloaded the other knob."""
    budget = _generic("kv_cache_budget", 0.6, _("The context's KV cache left no room for cuBLAS"),
                      _("llama.cpp creates its cuBLAS handle at the first matrix multiplication, after the model "
                        "buffer, the KV cache and the compute buffer are allocated; the KV cache grows with the "
                        "context (-c), and without -c the model's full training context is used, so these buffers "
                        "filled the GPU."),
                      _("Start with a smaller context (-c 8192 or less; Ollama: num_ctx) and, if that is not enough, "
                        "fewer layers on the GPU (-ngl; Ollama: num_gpu) or a quantised KV cache (-ctk q8_0 -ctv "
                        "q8_0 with -fa)"), "other_process", f)
    budget.evidence.pop("deciding_check", None)
    budget.evidence["check_command"] = "grep -E 'n_ctx|KV buffer size' <llama.cpp start-up log>"
    budget.checks = [_("llama.cpp's start-up log: 'n_ctx' and the 'KV buffer size' of each device; a context of the "
                       "model's full training length makes the KV cache the largest buffer after the weights.")]
    return [budget, _shortage(0.5, f, _("cuBLAS could not create its handle: the model's layers on the GPU and its "
                                        "buffers already filled it.")),
            _other_process(0.4, f), _not_capacity("library_mismatch", 0.3, f)]


def _eager_handle(f: Facts) -> list[Cause]:
    """A handle created when the framework set up its layers (``_EAGER_HANDLE_CALLER``), with no pool of its own.

    cuDNN is a separate install whose version must match the one the framework was built against; its
    ``CUDNN_STATUS_NOT_INITIALIZED`` at set-up is first that mismatch (karpathy/neuraltalk2#122: cuDNN 5.0.5 replaced
    by 5.1.3; NVIDIA/gpu-rest-engine#23: the image's cuDNN fixed), memory second. cuBLAS ships with the CUDA runtime
    the framework links, so its handle failing reads first as the GPU having no room for its workspace
    (awslabs/sockeye#897: a smaller model fixed it), the library reading last.
    """
    low = (f.report.text or "").lower()
    if "cudnn" in low and "cublas" not in low:
        mismatch = _not_capacity("library_mismatch", 0.55, f)
        return [mismatch, _shortage(0.45, f, _("cuDNN could not create its handle: the GPU may have been full when "
                                               "the framework set up its layers.")), _other_process(0.35, f)]
    return [_shortage(0.55, f, _("cuBLAS could not create its handle when the framework set up its layers: the GPU "
                                 "had no room left for its workspace.")),
            _other_process(0.4, f), _not_capacity("library_mismatch", 0.3, f)]


_ASYNC_NOTE = "kernel errors might be asynchronously reported"
# A cryptocurrency miner's DAG named in its words: the algorithms that build one (Ethash/Etchash, whose first name was
# "Dagger-Hashimoto"; KawPow/ProgPoW) or the DAG named with its epoch, size, buffer or generation (a workflow tool's
# "DAG" alone is not a miner's).
_DAG_WORDS = re.compile(r"daggerhashimoto|\bet(?:c)?hash\b|\bkawpow\b|\bprogpow\b|"
                        r"\bDAG\s{1,2}(?:epoch|size|file|buffer|generation)\b|\b(?:generating|buffer for|create)\s{1,2}DAG\b",
                        re.IGNORECASE)


def _figureless_device_oom(f: Facts) -> bool:
    """A recognised CUDA out-of-memory text with no request, capacity, free or held figure."""
    r = f.report
    return (r.source == "text" and r.kind != "unknown" and r.platform in (None, "cuda") and not f.other
            and all(v is None for v in (f.requested, f.total, f.free, f.allocated, f.reserved)))


def _wsl(f: Facts) -> bool:
    """The job ran under WSL2 (its words in the text, or the user said so: gpudesk.oom.user_context); page-locked
    memory is limited there."""
    return f.report.host_os == "wsl"


def _windows(f: Facts) -> bool:
    """The job ran on native Windows (WDDM), where driver allocations count against the commit limit."""
    return f.report.host_os == "windows"


def _page_file(confidence: float, f: Facts) -> Cause:
    """Native Windows: the driver refused device memory because the system commit limit (RAM + page file) was
    reached (gpudesk.oom.user_context)."""
    command = PAGE_FILE_CHECK.command
    return Cause(
        id="not_capacity",
        title=_("Likely not GPU memory: the Windows commit limit (RAM + page file) was reached"),
        confidence=confidence,
        evidence=evidence(not_capacity_kind="page_file", deciding_check="host_ram", check_command=command,
                          requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total),
        explanation=_("On Windows the video memory manager can move device allocations to system memory, so the "
                      "driver charges them against the system commit limit (RAM plus the page file). With a small page "
                      "file it refuses a device allocation while the GPU still has memory free, and the error carries "
                      "no figures."),
        fix=_("Let Windows manage the page file size, or set it to at least the GPU's memory plus the model's size "
              "(System > Advanced system settings > Performance > Virtual memory), then restart; close programs "
              "that hold much RAM"),
        checks=[check_line(command=command, meaning=i18n._(PAGE_FILE_CHECK.meaning))],
    )


def _others_given(f: Facts) -> bool:
    """The user gave other processes' memory on this GPU and it is large: at least 1 GiB or a tenth of the GPU."""
    if not f.other:
        return False
    return f.other >= 1024**3 or (f.total is not None and f.other >= f.total / 10)


# A GPU of a pasted nvidia-smi table at least this full is one whose memory is taken (gpudesk.oom.parsers.smi_table).
SMI_FULL_SHARE = 0.9


def _smi_full_gpu(text: str) -> Cause | None:
    """A bare CUDA error pasted with an nvidia-smi table in which a GPU is at least :data:`SMI_FULL_SHARE` used.

    The bare error is a CUDA call outside the framework's allocator (PyTorch words its own failures with figures,
    module docstring of ``_bare``): a context, a handle, a first buffer, which need little memory. A GPU the table shows
    full had that memory taken before the call, by whatever the table counts: another user's process in the threads
    that paste one (yangjianxin1/GPT2-chitchat#19: someone's TensorFlow job at 15.5 of 16 GB on GPU 0, GPUs 1-3
    empty). A GPU the table shows nearly empty is where to run instead.
    """
    rows = smi_table.gpu_memory(text)
    full = [i for i, (used, total) in enumerate(rows) if used >= SMI_FULL_SHARE * total]
    if not full:
        return None
    used, total = rows[full[0]]
    free_gpus = [i for i, (u, t) in enumerate(rows) if u <= 0.1 * t]
    fix = (_("Run on a GPU the table shows free: CUDA_VISIBLE_DEVICES={index}, or stop the process that fills GPU "
             "{full}").format(index=free_gpus[0], full=full[0]) if free_gpus else
           _("Stop the process that fills GPU {full}, or wait until it frees the memory").format(full=full[0]))
    return Cause(id="other_process", title=_("Another process holds the GPU"), confidence=0.7,
                 evidence=evidence(deciding_check="other_process", check_command=check_command("other_process", None),
                                   smi_gpu_index=full[0], smi_used_bytes=used, smi_total_bytes=total),
                 explanation=_("The nvidia-smi table pasted with the error shows GPU {index} with {used} of {total} in "
                               "use, and the failing call is one the framework's allocator does not make (a context, "
                               "a library handle, a first buffer): the memory was taken before it ran.").format(
                                   index=full[0], used=format_bytes(used), total=format_bytes(total)),
                 fix=fix,
                 more_fixes=[_("In multi-GPU jobs call torch.cuda.set_device(local_rank) first in every rank.")],
                 checks=[_check_line("other_process", None)])


def _one_line_shortage(f: Facts) -> Cause:
    cause = _shortage(0.45, f, _("A one-line 'CUDA error: out of memory' carries no figures. In most public threads "
                                 "with only this line, a smaller batch or input fixed it: the job needed more than "
                                 "the GPU had. Another process holding the GPU and pinned host memory (WSL) are the "
                                 "next readings; one command tells the first two apart."))
    cause.evidence.update(evidence(deciding_check="other_process",
                                   check_command=check_command("other_process", f.report.platform)))
    cause.checks = [_check_line("other_process", f.report.platform), _check_line("pin_memory", f.report.platform)]
    # The text cannot decide between the job's own need and another holder; the check's answer can, once given back
    # (gpudesk.oom.user_context): the other processes' total, and the OS where WSL's pinned-memory limit applies.
    cause.more_fixes.insert(0, _("Not decided by the text: run {command}, then diagnose again with the other processes' "
                                 "total given (--other-processes-gib N, or the window's \"Memory held by other "
                                 "processes\" box) and the OS if it is WSL (--os wsl): the ranking then uses them.")
                            .format(command=check_command("other_process", f.report.platform)))
    return cause


# Free memory that covers a bare CUDA error's request this many times over (and at least this much) cannot have been
# short: the refusal is an earlier sticky error reported at the allocation or a limit (dmlc/xgboost#7140: 47996 bytes
# refused with 11.3 GB free; the maintainer: the error happened before the allocation, run compute-sanitizer).
_FREE_COVERS_TIMES = 4
_FREE_COVERS_MIN_BYTES = 1024**3


def _free_covers(f: Facts) -> bool:
    return (f.free is not None and f.requested is not None
            and f.free >= max(_FREE_COVERS_TIMES * f.requested, _FREE_COVERS_MIN_BYTES))


def _startup_pool(f: Facts) -> Cause:
    """A runtime's own device pool, reserved at start, did not fit (signatures ``startup_pool``): AMReX's arena (3/4 of
    the device by default, amrex.the_arena_init_size) or Taichi's field storage (ti.init device_memory_GB /
    device_memory_fraction). The reservation is sized from the device, not from the job, so what else holds the GPU
    (another process, a second rank or framework) decides whether it fits. 0.65, another holder 0.4."""
    runtime = startup_pool_runtime(flatten_whitespace(f.report.text or ""))
    if runtime == "amrex":
        fix = _("Reserve less up front: amrex.the_arena_init_size=<bytes> (0 grows the arena on demand), or give each "
                "rank its own GPU; the arena takes 3/4 of the device at start by default")
        command = "amrex.the_arena_init_size=0"
    else:
        fix = _("Reserve less up front: ti.init(arch=ti.cuda, device_memory_fraction=0.5) or device_memory_GB=<N> "
                "(TI_DEVICE_MEMORY_GB), below what the GPU has free")
        command = "ti.init(..., device_memory_GB=1)"
    return Cause(id="preallocation", title=_("The runtime's up-front memory pool does not fit"), confidence=0.65,
                 evidence=evidence(deciding_check="preallocation", check_command=command, runtime=runtime,
                                   requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total),
                 explanation=_("The runtime reserves its device memory pool in one piece when it starts, sized from "
                               "the GPU rather than from the job; that reservation failed, so something else already "
                               "holds part of the GPU or the pool is set larger than the device can give."),
                 fix=fix,
                 checks=[check_line(
                     command=command,
                     meaning=_("If the error goes away with a smaller reservation, the up-front pool was what did not "
                               "fit; nvidia-smi shows what else holds the GPU."))])


# MLX's Metal allocator refusing one array's buffer above MTLDevice.maxBufferLength (mlx/backend/metal/allocator.cpp,
# MetalAllocator::malloc: "Attempting to allocate N bytes which is greater than the maximum allowed buffer size of M
# bytes"; "[metal::malloc]" in later releases).
_METAL_ARRAY_BUFFER = "which is greater than the maximum allowed buffer size"
# CubeCL's memory manager finding no pool for a request (signatures ``buffer_limit``; see _signature_fix).
CUBECL_POOL = "no memory pool big enough to"
# Metal's debug layer validating a new buffer's length (signatures._BUFFER_LENGTH_LIMIT; llama.cpp#6861).
_METAL_BUFFER_VALIDATION = re.compile(r"newbuffer\w{0,40}\*?:?\s{0,2}length\b[^\n]{0,60}must not exceed", re.IGNORECASE)


def _metal_array_over_max_buffer(f: Facts) -> Cause:
    """One MLX array larger than the largest buffer Metal gives on this Mac (0.9). MLX keeps each array's data in
    one Metal buffer, so an array above ``maxBufferLength`` cannot exist, whatever else is free; on Apple silicon that
    maximum is derived from the unified memory (16 GiB on a 32 GB M1 in riccardomusmeci/mlx-llm#22, 28 GiB and 80.6
    GiB in the others reported), so the array is about as large as the GPU can hold in one piece: a long prompt's
    attention or cache array (mlx-llm#22: a 17,000-token prompt; a prompt cache of 48.7 GB), to be made smaller or cut
    in chunks. Unlike a container buffer that a runtime can split (ggml-metal's model buffer "larger than buffer
    maximum", which later builds map in several views), the array itself must shrink: single allocation, with the
    per-buffer limit as the check."""
    r = f.report
    limit = r.parsed.get("buffer_limit_bytes")
    limit_bytes = limit if isinstance(limit, int) else None
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("One array is larger than the largest buffer this Mac's GPU can hold"),
        confidence=0.9,
        evidence=evidence(requested_bytes=f.requested, buffer_limit_bytes=limit_bytes, runtime=r.runtime,
                          deciding_check="buffer_limit", check_command=check_command("buffer_limit", "metal")),
        explanation=(_("MLX keeps each array in one Metal buffer; this array needs {requested}, above the "
                       "{limit} Metal allows for one buffer on this Mac, a limit set from its unified memory. No "
                       "setting lets one array exceed it.").format(requested=format_bytes(f.requested),
                                                                    limit=format_bytes(limit_bytes))
                     if f.requested is not None and limit_bytes is not None else
                     _("MLX keeps each array in one Metal buffer, and this array is larger than Metal allows for one "
                       "buffer on this Mac, a limit set from its unified memory.")),
        fix=_("Make that array smaller: a shorter prompt or context, a prefill in chunks (prefill_step_size of "
              "mlx_lm's generate_step), a smaller batch, or a quantised KV cache (mlx_lm --kv-bits)"),
        more_fixes=[_("A Mac with more unified memory has a larger per-buffer maximum "
                      "(mx.metal.device_info()['max_buffer_length']).")],
        checks=[_("Print mx.metal.device_info()['max_buffer_length']: the array's size above it is what failed.")])


# A request too small to be the step's big buffer (MLX's allocator rounds small requests up to a page): when even it
# is refused, the live arrays alone fill the limit (mlx/backend/metal/allocator.cpp: malloc_or_wait first releases the
# cache, then waits for scheduled work, then throws).
_MLX_TINY_BYTES = 1024**2


def _mlx_memory_limit(f: Facts) -> Cause:
    """MLX's allocator refused the buffer at its own memory limit (signatures ``mlx_memory_limit``). Its Metal
    allocator counts active plus cached memory against a limit, 1.5 x the device's recommendedMaxWorkingSetSize by
    default; ``malloc_or_wait`` waits for scheduled work to free memory and throws "[malloc_or_wait] Unable to
    allocate N bytes" when it stays above (mlx/backend/metal/allocator.cpp, https://github.com/ml-explore/mlx).
    ``mx.metal.set_memory_limit(limit, relaxed=True)`` lets the allocation proceed into swap instead of raising
    (ml-explore.github.io/mlx, "mlx.core.metal.set_memory_limit"); ml-explore/mlx-examples#21: a 128 MiB buffer
    refused on an 8 GB Mac with 4 GB free, run once the limit was raised (mlx#64). 0.6, not more: Metal refusing the
    buffer itself is worded the same way, and with ``relaxed`` (the later default) only Metal's refusal raises it;
    threads resolved by a smaller need (mlx-examples#70: float16 and a smaller batch) read the same, hence the
    shortage next to it (rules/genuine_shortage)."""
    return Cause(
        id="per_process_cap",
        title=_("MLX's memory limit refused the allocation"),
        confidence=0.6,
        evidence=evidence(requested_bytes=f.requested, runtime=f.report.runtime),
        explanation=_("MLX's Metal allocator counts its active and cached buffers against its own memory limit (by "
                      "default 1.5 times the working set the GPU recommends) and raises this error when a buffer "
                      "would stay above it after waiting for running work, before macOS runs out of memory."),
        fix=_("Raise MLX's limit with mx.metal.set_memory_limit(limit, relaxed=True), which lets the allocation use "
              "swap; the default follows the GPU's recommended working set, which sudo sysctl "
              "iogpu.wired_limit_mb=<MB> raises on macOS 14+"),
        more_fixes=[_("Call mx.metal.clear_cache() between steps and lower the cache with mx.metal.set_cache_limit()."),
                    _("If the limit is not the problem, reduce what the step holds: batch size, precision (float16), "
                      "context length.")],
        checks=[_("Print mx.metal.get_active_memory(), mx.metal.get_cache_memory() and "
                  "mx.metal.device_info()['max_recommended_working_set_size']: active plus cached near 1.5 times "
                  "the working set is the limit that refused it.")])


_ARENA_AVAILABLE = re.compile(r"available memory of\s{1,3}(\d{1,20})\s{1,3}is smaller than", re.IGNORECASE)


def _arena_limit(f: Facts) -> Cause:
    """ONNX Runtime's BFC arena refused to grow past its own limit (signatures ``arena_limit``): ``BFCArena::Extend``
    compares the request with the arena's ``memory_limit`` minus what it holds, before asking the device
    (onnxruntime/core/framework/bfc_arena.cc). The limit is the CUDA execution provider's ``gpu_mem_limit`` (or an
    arena config's ``max_mem``; unlimited unless set), so a cap set for the session refused it, whatever the GPU had
    free (infiniflow/ragflow#10295: "Available memory of 0", answered by raising gpu_mem_limit). 0.8."""
    text = f.report.text or ""
    if "maximum pool size exceeded" in text.lower():
        return _rmm_pool_max(f)
    m = _ARENA_AVAILABLE.search(text)
    left = int(m.group(1)) if m else None
    return Cause(
        id="per_process_cap",
        title=_("The session's memory limit refused the allocation"),
        confidence=0.8,
        evidence=evidence(requested_bytes=f.requested, arena_available_bytes=left),
        explanation=(_("ONNX Runtime's arena checks each growth against the limit set for the session "
                       "(gpu_mem_limit) before it asks the GPU; the request of {requested} is more than the {left} "
                       "left under that limit, so the GPU's own free memory was never asked.").format(
                           requested=format_bytes(f.requested), left=format_bytes(left))
                     if f.requested is not None and left is not None else
                     _("ONNX Runtime's arena checks each growth against the limit set for the session (gpu_mem_limit) "
                       "before it asks the GPU; the request was more than was left under that limit, so the GPU's own "
                       "free memory was never asked.")),
        fix=_("Raise the CUDA execution provider's gpu_mem_limit (providers=[('CUDAExecutionProvider', "
              "{'gpu_mem_limit': N})]) or remove it, and set arena_extend_strategy='kSameAsRequested' so the arena "
              "grows only by what is asked"),
        more_fixes=[_("Run fewer sessions in the process, or smaller inputs, if the limit must stay.")],
        checks=[_("Print session.get_provider_options()['CUDAExecutionProvider']['gpu_mem_limit']: a value below the "
                  "GPU's memory is the limit that refused it.")])


def _rmm_pool_max(f: Facts) -> Cause:
    """RMM's pool resource reached the maximum_pool_size it was created with (``pool_memory_resource.hpp``, "Maximum
    pool size exceeded"): the cap the program (or a library such as cuDF, cuML or cupoch) set on the pool refused the
    growth, before the device was asked (neka-nat/cupoch#98: a 1 GB pool request "with plenty of GPU memory"). 0.8."""
    return Cause(
        id="per_process_cap",
        title=_("The memory pool's maximum size refused the allocation"),
        confidence=0.8,
        evidence=evidence(requested_bytes=f.requested),
        explanation=_("RMM's pool resource grows only up to the maximum_pool_size it was created with and raises "
                      "out_of_memory at that cap whatever the GPU has free."),
        fix=_("Create the pool with a larger maximum (rmm.mr.PoolMemoryResource(upstream, initial_pool_size=..., "
              "maximum_pool_size=...)) or without one, and keep initial_pool_size at or below the maximum"),
        checks=[_("Print the pool's settings where it is created (rmm.reinitialize / PoolMemoryResource arguments): "
                  "a maximum below what the job needs is the limit that refused it.")])


# nccl-tests' own failure wording (src/common.h, ``NCCLCHECK`` / ``CUDACHECK``: "Test NCCL failure", "Test CUDA
# failure"): the benchmark runs alone by design, so a failure there is first a GPU someone else holds.
_NCCL_TESTS = re.compile(r"\btest (?:nccl|cuda) failure\b", re.IGNORECASE)
# nccl-tests' notice that it capped its buffers at the GPU's capacity (src/common.cu ``run()``, NVIDIA/nccl-tests at
# 01d67614: "We need sendbuff, recvbuff, expected (when datacheck enabled), plus 1G for the rest": memMaxBytes =
# (min totalGlobalMem - 1 GiB) / 3, or / 2 without the data check, then "Reducing maxBytes to %ld due to memory
# limitation"). The figure comes from the device's total, not from its free memory, and the buffers are allocated
# before the communicators are created: with the notice printed, the test's own buffers take all but 1 GiB of every
# GPU, and the CUDA context plus NCCL's own device buffers (channels, proxy and NVLS buffers, cudaMalloc'd by the
# library outside the test's buffers) must fit in that 1 GiB (NVIDIA/nccl-tests#220: "1 GiB headroom might be too
# small"; #322: every rank fails with 'unhandled cuda error' after the 16 GiB size).
_NCCL_TESTS_CAPPED = re.compile(r"\breducing maxbytes to (\d{6,20}) due to memory limitation\b", re.IGNORECASE)
NCCL_TESTS_HEADROOM_BYTES = 1 << 30
NCCL_DEBUG_COMMAND = "NCCL_DEBUG=WARN"


def _nccl_cuda_error(f: Facts) -> list[Cause]:
    """NCCL's "unhandled cuda error" without out-of-memory words of its own (signatures ``nccl_cuda_error``).

    A CUDA call inside NCCL failed. NCCL allocates its channel and proxy buffers with cudaMalloc outside the
    framework's allocator when a communicator first runs a collective, so on a device other processes (or a framework's
    cache) already fill, that allocation is the usual failure (scitix/sichek#71: GPUs held by a training job; an
    nccl-tests run that capped its buffers at the GPU's capacity has its own reading, ``_nccl_tests_headroom``); a driver that
    does not match the CUDA NCCL was built with, or a peer-access call the platform refuses, end the same way
    (TheAtticusProject/cuad#9: "updating drivers"). Ranked, with ``NCCL_DEBUG=WARN`` naming the failing call: another
    holder first (0.6 for nccl-tests, which run alone; 0.45 otherwise), the job's own memory, then the driver."""
    text = f.report.text or ""
    alone = _NCCL_TESTS.search(text) is not None
    capped = _NCCL_TESTS_CAPPED.search(text)
    if capped is not None:
        return _nccl_tests_headroom(f, int(capped.group(1)))
    holder = _other_process(0.6 if alone else 0.45, f)
    debug = check_line(
        command=NCCL_DEBUG_COMMAND,
        meaning=_("Rerun with this set: NCCL then prints the CUDA call that failed. \"Cuda failure 'out of memory'\" is "
                  "memory (nvidia-smi shows who holds it); another failure, such as 'invalid argument' or a peer-access "
                  "error, is the driver or the platform."))
    holder.checks.append(debug)
    shortage = _shortage(0.35, f, _("NCCL allocates its buffers with cudaMalloc outside the framework's allocator when "
                                    "a communicator first runs; the job's own tensors and cache may have left no room."))
    return [holder, shortage, _not_capacity("driver_version", 0.3, f)]


def _nccl_tests_headroom(f: Facts, max_bytes: int) -> list[Cause]:
    """NCCL's "unhandled cuda error" in an nccl-tests run that printed "Reducing maxBytes to N due to memory
    limitation" (``_NCCL_TESTS_CAPPED``): the test sized its buffers from the GPU's total and left 1 GiB beside them for
    the CUDA context and NCCL's own buffers, so NCCL's allocation outside the test's buffers is the first reading
    (0.65, above another holder's 0.6 for a run without the notice), with NCCL_DEBUG=WARN naming the failing call; a
    GPU someone else holds comes next (the cap assumes an empty GPU), then the driver."""
    cause = Cause(
        id="allocation_outside_allocator",
        title=_("NCCL's own buffers did not fit beside the benchmark's buffers"),
        confidence=0.65,
        evidence=evidence(nccl_tests_max_bytes=max_bytes, nccl_tests_headroom_bytes=NCCL_TESTS_HEADROOM_BYTES,
                          deciding_check="other_process", check_command=NCCL_DEBUG_COMMAND),
        explanation=_("nccl-tests printed that it reduced maxBytes to {max_bytes} bytes: it sizes its send, receive "
                      "and check buffers from the GPU's total memory and leaves {headroom} beside them for everything "
                      "else. NCCL allocates its channel and proxy buffers with cudaMalloc outside those buffers, and "
                      "together with the CUDA context they did not fit in that room.").format(
                          max_bytes=max_bytes, headroom=format_bytes(NCCL_TESTS_HEADROOM_BYTES)),
        # -e takes a size with a K/M/G suffix in powers of 1024 (nccl-tests src/common.cu parsesize): half the cap,
        # rounded down to whole GiB (at least 1G), is a value the user can type as it stands
        fix=_("Run the test with a smaller largest size (-e {size}G, about half of the {max_bytes:,} bytes it capped "
              "to) or without the data check (-c 0: two buffers instead of three), so that more than 1 GiB is left "
              "for NCCL").format(size=max(1, max_bytes // 2 // 1024**3), max_bytes=max_bytes),
        more_fixes=[_("Run nvidia-smi before the test: the cap assumes that nothing else holds the GPU.")],
        checks=[check_line(
            command=NCCL_DEBUG_COMMAND,
            meaning=_("Rerun with this set: \"Cuda failure 'out of memory'\" from NCCL is its own buffers; "
                      "nvidia-smi during the run shows whether another process also holds the GPU."))],
    )
    return [cause, _other_process(0.5, f), _not_capacity("driver_version", 0.3, f)]


def _nccl_system_error(f: Facts) -> Cause:
    """NCCL's "unhandled system error" with no word of memory (signatures ``nccl_system_error``): its shared-memory
    segments in /dev/shm first, 0.6 (a socket or an InfiniBand call fails the same way), with NCCL_DEBUG=INFO's
    "Last error" line as the confirmation."""
    cause = _not_capacity("shm_segment", 0.6, f)
    cause.title = _("Likely not GPU memory: NCCL's system error, most often its shared-memory segments (/dev/shm)")
    cause.explanation = _("NCCL reports 'unhandled system error' when a system call of its own fails. When a "
                          "communicator starts on one node those calls create its shared-memory segments in /dev/shm, "
                          "which a container limits to 64 MB unless the run raises it and which stale segments of "
                          "crashed runs fill; a socket or network call is the other reading.")
    cause.more_fixes = [_("Rerun with NCCL_DEBUG=INFO: its 'Last error' line names the call that failed (a shared-"
                          "memory segment, a socket, an InfiniBand verb)."),
                        _("Remove the segments that crashed runs left (ls -la /dev/shm: nccl-* and psm_* files).")]
    return cause


def _launch_failure(f: Facts) -> Cause:
    """CUDA's "unspecified launch failure" with no word of memory (signatures ``launch_failure``): a kernel's fault on
    the device, which the driver logs as an Xid; the kernel log is the check, 0.6."""
    cause = _not_capacity("xid", 0.6, f)
    cause.title = _("Not a memory problem: a kernel failed on the device (unspecified launch failure)")
    cause.explanation = _("'unspecified launch failure' is an exception on the device while a kernel ran: an "
                          "invalid pointer, an out-of-bounds access, or a faulty GPU. The driver logs it as an Xid "
                          "event and the process's CUDA context is unusable afterwards; no allocation was refused.")
    cause.fix = _("Run dmesg | grep -i xid at the time of the failure; rerun with CUDA_LAUNCH_BLOCKING=1 to find the "
                  "kernel; if the GPU stays unusable until a reboot or the failure follows one card, test or replace "
                  "that card")
    return cause


# A multi-process launch named in the text: torchrun / torch.distributed's launcher, its ranks' log prefix, DDP,
# MPI, Horovod, DeepSpeed's and Accelerate's launchers. A rank that does not bind its GPU before its first CUDA call
# (torch.cuda.set_device(local_rank), or CUDA_VISIBLE_DEVICES per rank) creates its CUDA context on GPU 0, 0.3-1.2 GiB
# each (returnn#1469: 15 contexts of 1.19 GiB; pytorch#135279, #49481), and the allocation that then fails there is a
# call outside the allocator: the bare error. So with a launch in the text, another process (the same job's other
# ranks) is the first reading of a bare error (0.5), the job's own need next.
_DISTRIBUTED_LAUNCH = re.compile(r"\btorchrun\b|torch[./\\]distributed|\bdistributed_c10d\b|\blocal[_-]rank\b|\[rank\d{1,5}\]|init_process_group|"
                                 r"DistributedDataParallel|\bmpirun\b|\bhorovodrun\b|deepspeed\.launcher|"
                                 r"\bdeepspeed --num_gpus|accelerate launch", re.IGNORECASE)


def names_distributed_launch(text: str) -> bool:
    """The text names a multi-process launch (``_DISTRIBUTED_LAUNCH``)."""
    return _DISTRIBUTED_LAUNCH.search(text) is not None


_PINNED_WORDS = ("non_blocking=true", "non_blocking = true", "cachinghostallocator", "cudahostalloc")
# The word pin_memory where it does not say pinning is on: set off ("pin_memory=False", "pin_memory: 0"), or a
# parameter's name in a function's signature ("torch_tensor_cpp(data, dtype, device, requires_grad, pin_memory)", R
# torch's tensor constructor quoted by its error, Kaggle/docker-rstats#182: an argument every tensor creation passes,
# FALSE by default).
_PIN_MEMORY_WORD = re.compile(r"pin_memory(?!\s{0,2}[=:]\s{0,2}['\"]?(?:false|0)\b)(?<!,\spin_memory)(?<!,pin_memory)"
                              r"|pin_memory(?!\s{0,2}[=:]\s{0,2}['\"]?(?:false|0)\b)(?!\s{0,2}[,)])")


def _names_pinning(low: str) -> bool:
    """The (lower-cased) text names page-locked host memory in use: an asynchronous copy, PyTorch's caching host
    allocator, cudaHostAlloc, or pin_memory where it is not off or a parameter's name (``_PIN_MEMORY_WORD``)."""
    return any(w in low for w in _PINNED_WORDS) or _PIN_MEMORY_WORD.search(low) is not None
# A frame of a module's forward pass in the traceback ('File ".../modeling.py", line 1208, in forward'): the failing call
# ran inside the model's computation on device tensors, where no page-locked host buffer is allocated (the DataLoader's
# pin thread and .to(..., non_blocking=True) copies do that, outside forward); a device allocation outside the
# caching allocator (a library's workspace, a kernel's own) failed there, so the GPU was full.
_FORWARD_FRAME = re.compile(r'line \d{1,7}, in (?:forward|_forward)\s*$', re.MULTILINE)


# The traceback's last frame is PyTorch's cache release (``torch.cuda.empty_cache()`` -> ``torch._C._cuda_emptyCache()``)
# and the bare out-of-memory is raised there (_release_call_failed's docstring).
_RELEASE_CALL_FAILED = re.compile(r"(?:\b_cuda_emptyCache\(\)|\bempty_cache\(\))[ \t]{0,8}\n[ \t]{0,8}"
                                  r"(?:RuntimeError|torch\.\w{1,30}Error):\s{0,3}CUDA error:\s{0,3}out of memory")


def _release_call_failed(f: Facts) -> Cause:
    """A bare ``CUDA error: out of memory`` raised by ``torch.cuda.empty_cache()``: a call that only gives memory back.

    ``empty_cache`` returns the caching allocator's unused blocks to the driver (c10/cuda/CUDACachingAllocator.cpp,
    ``emptyCache`` -> ``release_cached_blocks`` -> ``cudaFree``, after synchronising the device); it asks for no
    memory. ``cudaFree`` "may also return error codes from previous, asynchronous launches" (CUDA Runtime API
    reference, cudaFree), which PyTorch's note about errors "asynchronously reported" says too. An out-of-memory there
    is therefore the driver's state, not a request the card could not hold: a driver that fails calls that used to
    work (deepbeepmeep/Wan2GP#1215: every preset failed in ``empty_cache`` after the 591.44 driver update, and rolling
    back to 581.80 fixed it), or a GPU fault (an uncorrectable ECC error is reported at the same call,
    TheLastBen/fast-stable-diffusion#702). 0.6, the driver first, the Xid log beside it."""
    key = "driver_version"
    return Cause(
        id="not_capacity",
        title=_("Not a capacity problem: a call that only frees memory failed (the driver's state)"),
        confidence=0.6,
        evidence=evidence(not_capacity_kind="release_call_failed", deciding_check=key,
                          check_command=check_command(key, f.report.platform)),
        explanation=_("The error was raised by torch.cuda.empty_cache(), which gives the cache's unused memory back "
                      "to the driver and asks for none. An out-of-memory there is an error the driver reported for "
                      "an earlier call or for its own state: a driver update that broke calls that used to work, or a "
                      "GPU fault, not a job larger than the card."),
        fix=_("If the error started after a driver update, roll back to the previous driver (or install the next "
              "one); check dmesg (or the Windows event log) for Xid errors, then restart the machine and rerun"),
        more_fixes=[_("Run with CUDA_LAUNCH_BLOCKING=1 to find the call that really failed before empty_cache().")],
        checks=[_check_line(key, f.report.platform)],
    )


def _bare(f: Facts) -> list[Cause]:
    causes = _bare_ranked(f)
    hidden = check_line(command=HIDDEN_HOLDER_CHECK.command,
                                              meaning=i18n._(HIDDEN_HOLDER_CHECK.meaning))
    for cause in causes:
        if cause.id in ("other_process", "genuine_shortage") and cause.evidence.get("deciding_check") == "other_process":
            cause.checks.append(hidden)  # the holder nvidia-smi cannot show (another container, a zombie)
    if _DISTRIBUTED_LAUNCH.search(f.report.text or "") and not _others_given(f):
        for cause in causes:
            if cause.id == "other_process" and cause.confidence < 0.5:
                cause.confidence = 0.5
                cause.explanation = _("The text shows a multi-process launch. A rank that does not bind its own GPU "
                                      "before its first CUDA call creates its CUDA context on GPU 0, beside the other "
                                      "ranks' contexts, and the allocation that then fails there is outside the "
                                      "framework's allocator: the bare error.")
        causes.sort(key=lambda c: -c.confidence)
    return causes


def _bare_ranked(f: Facts) -> list[Cause]:
    r = f.report
    text = r.text or ""
    runtime = r.runtime
    low = text.lower()
    if _free_covers(f):
        return [_not_capacity("free_exceeds_request", 0.7, f), _not_capacity("illegal_address", 0.45, f),
                _other_process(0.3, f)]
    if _others_given(f):
        return [_other_process(0.75, f), _shortage(0.4, f, _("The job's own allocations and the other processes' "
                                                             "together exceed the GPU."))]
    table = _smi_full_gpu(text)
    if table is not None:
        return [table, _shortage(0.4, f, _("The job's own allocations may be what fills the GPU in the table."))]
    if vgpu_words.names_sharing_layer(text):
        # A GPU-sharing layer places several pods on one card (gpudesk.oom.vgpu_words.names_sharing_layer), and the
        # refusal is the card's, not the layer's: the pods beside this one first.
        return [fixed_pools.pods_beside(_other_process(0.55, f)),
                _shortage(0.45, f, _("The job's own allocations may be what fills the card."))]
    if runtime in ("llamacpp", "ollama") and _wsl(f):
        # ggml's CUDA backend page-locks its host buffers (ggml_cuda_host_malloc -> cudaMallocHost in
        # ggml/src/ggml-cuda/ggml-cuda.cu; GGML_CUDA_NO_PINNED turns it off), and WSL2 caps page-locked memory well
        # below the host's RAM (docs.nvidia.com/cuda/wsl-user-guide, "Known Limitations": pinned memory is limited):
        # a bare CUDA error under WSL is that allocation first (ggml-org/llama.cpp#1230).
        return [_not_capacity("pin_memory", 0.6, f), _shortage(0.5, f, _("ggml's CUDA backend could not allocate its own buffers (weights, KV cache, "
                                            "compute pool): the model and context do not fit in what is free.")),
                _other_process(0.4, f)]
    if runtime in ("llamacpp", "ollama"):
        return [_shortage(0.5, f, _("ggml's CUDA backend could not allocate its own buffers (weights, KV cache, "
                                    "compute pool): the model and context do not fit in what is free.")),
                _other_process(0.4, f), _not_capacity("ecc", 0.15, f)]
    if runtime == "nccl" and _NCCL_OTHER_RANK.search(text):
        return [_other_process(0.6, f), _shortage(0.4, f, _("NCCL could not allocate its buffers: the GPU was full."))]
    if runtime == "nccl":
        return [_shortage(0.5, f, _("NCCL allocates its channel buffers with cudaMalloc outside the framework's "
                                    "allocator; the GPU was full of the job's tensors and cache when it asked.")),
                _other_process(0.4, f), _not_capacity("ecc", 0.15, f)]
    if "cumemcreate" in low.replace("_", "") or "cu_mem_create" in low or "cumemalloc" in low:
        return [_shortage(0.5, f, _("The driver refused a device allocation (cuMemCreate / cuMemAlloc): the GPU is "
                                    "full.")),
                _other_process(0.4, f), _not_capacity("ecc", 0.15, f)]
    # Page-locked memory named in the text: pin_memory, or an asynchronous host-to-device copy (non_blocking=True needs
    # a pinned source, so offloading code pins its host tensors first; kijai/ComfyUI-WanVideoWrapper#422: the bare
    # error "always" with non_blocking on), or PyTorch's caching host allocator (CachingHostAllocator.cpp).
    pinned = _names_pinning(low) or _wsl(f)
    pytorch = r.framework == "pytorch" or "runtimeerror: cuda error" in low or "runtimeerror: hip error" in low
    if not pinned and start_words.failed_at_start(text):
        # The first CUDA call of the process, while the model is built (gpudesk.oom.start_words): the context could
        # not be had, so the device was held by something else; the job's own need second.
        return [_other_process(0.6, f), _shortage(0.45, f, _("The model's own first tensors may be larger than what "
                                                             "the GPU has free.")),
                _not_capacity("driver_version", 0.2, f)]
    if _RELEASE_CALL_FAILED.search(text):
        return [_release_call_failed(f), _not_capacity("xid", 0.4, f), _not_capacity("ecc", 0.35, f),
                _other_process(0.3, f)]
    if pinned or (pytorch and _ASYNC_NOTE in low and _FORWARD_FRAME.search(text) is None):
        # PyTorch's caching allocator reports its own failures as "Tried to allocate ..." (every release that
        # prints the asynchronous-error note does); a bare CUDA error is a call outside it, and in a running job
        # the commonest such allocation is page-locked host memory.
        causes = [_not_capacity("pin_memory", 0.75 if pinned else 0.4, f), _other_process(0.35, f),
                  _not_capacity("ecc", 0.2, f), _not_capacity("xid", 0.15, f)]
        return causes + [_page_file(0.38, f)] if _windows(f) else causes
    if pytorch:
        # The one line alone (the release unknown): in the public threads that paste just this line, the
        # resolution is most often a smaller batch (module docstring), so the job's own need comes first, with the
        # check that tells it from another process.
        causes = [_one_line_shortage(f), _other_process(0.4, f), _not_capacity("pin_memory", 0.35, f),
                  _not_capacity("ecc", 0.2, f), _not_capacity("xid", 0.15, f)]
        return causes + [_page_file(0.38, f)] if _windows(f) else causes
    # Any other runtime allocates device memory itself, so its bare CUDA error is first its own allocation; on
    # native Windows the commit limit (RAM + page file) is the next reading (gpudesk.oom.user_context).
    if _windows(f) and _DAG_WORDS.search(text):
        # A miner's DAG (Ethash/Etchash "Dagger-Hashimoto" dataset, several GB) is allocated once per card at start; on
        # native Windows each card's allocation is charged against the commit limit, so a rig needs a page file of about
        # the DAG size times the cards (nanominer#20's maintainer; excavator#311: one card works, three fail, fixed by
        # more RAM / virtual memory). With no figure, the commit limit comes first, the card's own size second.
        return [_page_file(0.55, f),
                _shortage(0.5, f, _("The runtime's own device allocation failed (it prints no figures): the GPU is "
                                    "full.")),
                _other_process(0.4, f), _not_capacity("ecc", 0.2, f)]
    if _windows(f):
        return [_shortage(0.5, f, _("The runtime's own device allocation failed (it prints no figures): the GPU is "
                                    "full.")),
                _page_file(0.45, f), _other_process(0.4, f), _not_capacity("ecc", 0.2, f)]
    return [_shortage(0.5, f, _("The runtime's own device allocation failed (it prints no figures): the GPU is full.")),
            _other_process(0.4, f), _not_capacity("ecc", 0.2, f), _not_capacity("xid", 0.15, f)]
