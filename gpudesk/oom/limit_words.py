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
    r"|\bshared[- ]memory\s{1,3}per\s{1,3}block\b[^\n]{0,80}?\b(?:exceeds?|exceeding|above|greater than|more than)\b",
    re.IGNORECASE)
_BUFFER_SIZE_LIMIT = re.compile(
    r"\b(?:beyond|above|exceeds?|exceeding|larger than|greater than|bigger than)\s{1,3}(?:the\s{1,3})?"
    r"(?:device'?s\s{1,3})?max(?:imum)?\.?\s{1,3}(?:allowed\s{1,3})?(?:single\s{1,3})?buffer\s{1,3}size\b"
    r"|\bmaximum\s{1,3}allowed\s{1,3}buffer\s{1,3}size\s{1,3}of\s{1,3}the\s{1,3}device\b",
    re.IGNORECASE)


def shared_memory_limit(text: str) -> bool:
    """A kernel's shared memory per block said to exceed the device's limit (module docstring)."""
    return "shared" in text.lower() and _SHARED_MEMORY_LIMIT.search(text) is not None


def buffer_size_limit(text: str) -> bool:
    """One allocation said to exceed the device's maximum buffer size (module docstring)."""
    return "buffer" in text.lower() and _BUFFER_SIZE_LIMIT.search(text) is not None


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
