"""Per-kernel and per-buffer limits stated in a user's or a runtime's own words (issue 28, twenty-second pass), read by
:func:`gpudesk.oom.signatures.classify` beside the runtimes' exact messages.

* Shared memory per thread block: a kernel launch asks for its dynamic shared memory, and above the device's opt-in
  maximum (``cudaDevAttrMaxSharedMemoryPerBlockOptin``: 99 KiB on compute capability 8.6/8.9/12.0, 163 KiB on 8.0,
  227 KiB on 9.0; CUDA C Programming Guide, "Compute Capabilities", technical specifications table) the launch is
  refused whatever the device memory: "the generated kernels require more dynamic shared memory than the GPU permits
  ... device opt-in shared-memory limit: 101,376 B" (state-spaces/mamba#1044, tilelang/Triton kernels on a Blackwell
  workstation GPU). Triton words the same check "out of resource: shared memory" (``triton/compiler/compiler.py``).
  IREE's HAL drivers check each kernel's shared memory before setting it on the function and word the refusal
  "requested shared memory size of %d bytes larger than allowed size of %d bytes"
  (``runtime/src/iree/hal/drivers/cuda/native_executable.c``, the HIP/HSA drivers alike, https://github.com/iree-org/iree;
  older releases without "bytes": iree-org/iree#12975, 819200 asked against 166912 on an A100-class SM).
* One buffer above the device's maximum buffer size: ggml's graph allocator sizes its compute buffer from the graph
  (``ggml_gallocr_reserve_n`` in ``ggml/src/ggml-alloc.c``, https://github.com/ggml-org/llama.cpp) and asks the
  backend for it as one buffer; a backend whose single allocation is capped (Vulkan's ``maxMemoryAllocationSize``,
  ``maxStorageBufferRange``; Metal's ``maxBufferLength``) refuses it with the device's memory free
  ("ggml_gallocr_reserve_n tries to allocate beyond max buffer size", ggml-org/llama.cpp#11332 on an Intel iGPU under
  Vulkan).
* One tensor above the backend's maximum buffer size, checked by the program before it allocates (fifty-ninth pass):
  stable-diffusion.cpp's model manager compared each weight tensor with ``ggml_backend_buft_get_max_size`` of its
  params buffer type and refused it, "model manager tensor '%s' is too large for params buffer: %zu > %zu"
  (src/model_manager.cpp, ``ModelManager::alloc_params_buffers``, added in leejet/stable-diffusion.cpp 563137a5 and
  removed in 6e66a1a4a41315d636ff8e284ad1a88df230bb0d, "allow oversized Vulkan parameter tensors": on Vulkan the
  figure is the allocator's preferred block, 1 GiB, not a hard limit; leejet/stable-diffusion.cpp#1659). The tensor's
  size and the limit side by side, the first above the second: the per-buffer limit, not the device's memory.
* One allocation above the size of the memory heap it was asked from: the Vulkan spec requires ``allocationSize`` of
  ``vkAllocateMemory`` to be at most the size of the heap of the memory type chosen (VUID-vkAllocateMemory-
  pAllocateInfo-01713), and the Khronos validation layer words a breach "attempting to allocate N bytes from heap H,
  but size of that heap is only M bytes" (Vulkan-ValidationLayers, ``layers/core_checks/cc_device_memory.cpp``).
  Without Resizable BAR the memory type that is both DEVICE_LOCAL and HOST_VISIBLE lives in a heap of at most the
  256 MiB PCIe BAR window, whatever the card's VRAM (AMD GPUOpen, "Vulkan device memory", A. Sawicki; iree-org/iree#5268
  and #12876, zakarumych/gpu-alloc#72: 0.6-1.7 GB asked from a 246-256 MiB heap of an 8+ GiB card).
"""

from __future__ import annotations

import re

_SHARED_MEMORY_LIMIT = re.compile(
    r"\bmore\s{1,3}(?:dynamic\s{1,3})?shared[- ]memory\s{1,3}(?:per\s{1,3}block\s{1,3})?than\b"
    r"|\bopt-?in\s{1,3}shared[- ]memory\s{1,3}limit\b"
    r"|\brequested\s{1,3}shared\s{1,3}memory\s{1,3}size\s{1,3}of\s{1,3}\d{1,12}(?:\s{1,3}bytes)?\s{1,3}larger\s{1,3}than"
    r"\s{1,3}(?:the\s{1,3})?allowed\s{1,3}size\b"
    r"|\bshared[- ]memory\s{1,3}per\s{1,3}block\b[^\n]{0,80}?\b(?:exceeds?|exceeding|above|greater than|more than)\b"
    # The shortage said of the GPU's (or a block's) shared memory itself: tiny-cuda-nn's FullyFusedMLP checks the
    # shared memory its fused kernel needs for the chosen width against the device's per-block limit before launching
    # ("FullyFusedMLP: insufficient shared memory available on the GPU. Reduce `n_neurons` ...",
    # include/tiny-cuda-nn/networks/fully_fused_mlp.h, https://github.com/NVlabs/tiny-cuda-nn; vosen/ZLUDA#171 with
    # 4 of 16 GB in use). Placed on the GPU, a device or a block, so that PyTorch DataLoader's "insufficient shared
    # memory (shm)" (/dev/shm, host memory) is not read here.
    r"|\b(?:insufficient|not enough)\s{1,3}shared[- ]memory\s{1,3}(?:is\s{1,3})?(?:available\s{1,3})?"
    r"(?:on|in|for|per)\s{1,3}(?:the\s{1,3}|this\s{1,3}|each\s{1,3})?(?:gpu|device|block|thread block|sm)\b",
    re.IGNORECASE)
_BUFFER_SIZE_LIMIT = re.compile(
    r"\b(?:beyond|above|exceeds?|exceeding|larger than|greater than|bigger than)\s{1,3}(?:the\s{1,3})?"
    r"(?:device'?s\s{1,3})?max(?:imum)?\.?\s{1,3}(?:allowed\s{1,3})?(?:single\s{1,3})?buffer\s{1,3}size\b"
    r"|\bmaximum\s{1,3}allowed\s{1,3}buffer\s{1,3}size\s{1,3}of\s{1,3}the\s{1,3}device\b",
    re.IGNORECASE)
# A tensor refused for its buffer's maximum size, both figures given (module docstring): groups 1, 2.
TENSOR_OVER_BUFFER_MAX = re.compile(r"\btensor\s{1,3}'[^'\n]{1,200}'\s{1,3}is\s{1,3}too\s{1,3}large\s{1,3}for\s{1,3}"
                                    r"(?:the\s{1,3})?\w{1,20}\s{1,3}buffer\s{0,2}:\s{0,3}(\d{1,20})\s{0,3}>\s{0,3}(\d{1,20})\b")


def shared_memory_limit(text: str) -> bool:
    """A kernel's shared memory per block said to exceed the device's limit (module docstring)."""
    return "shared" in text.lower() and _SHARED_MEMORY_LIMIT.search(text) is not None


# Triton's per-kernel resource refusal with both figures (sixty-fifth pass): ``OutOfResources(required, limit, name)``
# (triton-lang/triton, python/triton/runtime/errors.py) words itself "out of resource: {name}, Required: {required},
# Hardware limit: {limit}. Reducing block sizes or `num_stages` may help."; the compiler raises it when a kernel's
# shared memory per block (or its registers) is above the SM's limit (python/triton/compiler/compiler.py,
# CompiledKernel._init_handles, ``max_shared``). PyTorch Inductor re-raises it under the kernel's name and as an
# "OutOfMemoryError: out of resource: triton_per_fused_..." with "Required: 327768 Hardware limit:232448" on the next
# line (pytorch#175250 on an H100: 232,448 B is one SM's shared memory, the 80 GB of HBM were never the limit). The
# name need not be "shared memory", so the figures decide: a requirement above the hardware limit it is compared with.
_KERNEL_RESOURCE_LIMIT = re.compile(
    r"\bout\s{1,3}of\s{1,3}resources?\s{0,2}:[^\n]{0,200}?\s{1,8}required\s{0,2}:\s{0,3}(\d{1,12})\s{0,3},?\s{0,3}"
    r"hardware\s{1,3}limit\s{0,2}:\s{0,3}(\d{1,12})\b", re.IGNORECASE)


def kernel_resource_limit(text: str) -> bool:
    """A kernel's per-block resource (shared memory, registers) refused by Triton with the requirement above the
    hardware limit, both figures given (``_KERNEL_RESOURCE_LIMIT``)."""
    m = _KERNEL_RESOURCE_LIMIT.search(text)
    return m is not None and int(m.group(1)) > int(m.group(2)) > 0


def buffer_size_limit(text: str) -> bool:
    """One allocation said to exceed the device's maximum buffer size (module docstring)."""
    if "buffer" not in text.lower():
        return False
    if _BUFFER_SIZE_LIMIT.search(text) is not None:
        return True
    over = TENSOR_OVER_BUFFER_MAX.search(text)
    return over is not None and int(over.group(1)) > int(over.group(2)) > 0


_HEAP_SIZE_EXCEEDED = re.compile(
    r"\ballocate\s{1,3}(\d{1,20})\s{1,3}bytes\s{1,3}from\s{1,3}heap\s{1,3}\d{1,3}\s{0,2},\s{0,3}but\s{1,3}size\s{1,3}"
    r"of\s{1,3}that\s{1,3}heap\s{1,3}is\s{1,3}only\s{1,3}(\d{1,20})\s{1,3}bytes\b",
    re.IGNORECASE)


def heap_size_exceeded(text: str) -> tuple[int, int] | None:
    """(requested bytes, heap size bytes) of a Vulkan allocation larger than the whole heap it was asked from, in the
    validation layer's words (module docstring); None when the text does not say so or the request fits the heap."""
    if "heap" not in text.lower():
        return None
    match = _HEAP_SIZE_EXCEEDED.search(text)
    if match is None:
        return None
    requested, heap = int(match.group(1)), int(match.group(2))
    return (requested, heap) if requested > heap else None


# A Vulkan call's failure printed with its VkResult as a number ("vkAllocateMemory failed -2", ncnn's
# ``NCNN_LOGE("vkAllocateMemory failed %d", ret)``, https://github.com/Tencent/ncnn src/gpu.cpp / allocator.cpp). The
# codes are the Vulkan specification's (VkResult, vulkan_core.h): VK_ERROR_OUT_OF_HOST_MEMORY = -1 and
# VK_ERROR_OUT_OF_DEVICE_MEMORY = -2 are memory; VK_ERROR_TOO_MANY_OBJECTS = -10 is what vkAllocateMemory returns when
# the number of live allocations would pass the device's ``maxMemoryAllocationCount`` (VkPhysicalDeviceLimits; 4096 on
# many drivers): a count of allocations, not bytes, reached with most of the memory free. The number is read whole,
# so "-10" is never read as "-1" (fifty-fifth pass; nihui/realcugan-ncnn-vulkan#41: -10 with tiles of 65 pixels or
# less, about 4 of 16 GB in use).
_VK_CALL_RESULT = re.compile(r"\bvk[A-Z]\w{1,48}\s{1,3}(?:failed|returned)\s{0,3}(?:with\s{1,3})?(?:result\s{0,3})?"
                             r"[=:]?\s{0,3}(-\d{1,10})(?![\d.])")
VK_OUT_OF_HOST_MEMORY = -1
VK_OUT_OF_DEVICE_MEMORY = -2
VK_TOO_MANY_OBJECTS = -10
_VK_TOO_MANY_OBJECTS_NAMES = ("vk_error_too_many_objects", "errortoomanyobjects")


def vulkan_results(text: str) -> set[int]:
    """The VkResult numbers of the Vulkan calls the text says failed (``_VK_CALL_RESULT``)."""
    if "vk" not in text.lower():
        return set()
    return {int(m.group(1)) for m in _VK_CALL_RESULT.finditer(text)}


def vulkan_memory_result(text: str) -> bool:
    """A Vulkan call failed with VK_ERROR_OUT_OF_HOST_MEMORY (-1) or VK_ERROR_OUT_OF_DEVICE_MEMORY (-2) as a number."""
    return bool(vulkan_results(text) & {VK_OUT_OF_HOST_MEMORY, VK_OUT_OF_DEVICE_MEMORY})


def vulkan_allocation_count(text: str) -> bool:
    """A Vulkan allocation refused for the number of allocations (VK_ERROR_TOO_MANY_OBJECTS, by name or as -10)."""
    low = text.lower()
    if any(w in low for w in _VK_TOO_MANY_OBJECTS_NAMES):
        return True
    return VK_TOO_MANY_OBJECTS in vulkan_results(text)
