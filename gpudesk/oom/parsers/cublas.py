"""OOMs outside the caching allocator (oom.md §3.1 "hidden OOMs"): cuBLAS/cuDNN handle failures,
``CUDA error: out of memory`` (context creation, extensions), NCCL ``Cuda failure 'out of memory'`` and the
DataLoader pin-memory thread. None of them carries allocator numbers.

Ascend's HCCL (CANN's collective library, the NCCL of the NPU stack) allocates its communication buffers
(``HCCL_BUFFSIZE`` MB per communicator and direction, default 200; the MC2 fused MoE dispatch/combine operators'
tiling buffers, ``HcclAllocComResourceByTiling``) through the CANN runtime, outside torch_npu's caching allocator;
when that fails CANN prints ``Failed to allocate resource[DeviceMemory] with info [size:N]`` next to the HCCL call
(kind ``nccl_oom``, ``collective_library`` = HCCL, the size as the request; CANN error reference EL0004, HCCL
environment variables).
"""

from __future__ import annotations

import re

from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_CUBLAS = re.compile(r"CUBLAS_STATUS_(ALLOC_FAILED|NOT_INITIALIZED)(?:\s+when calling\s+`?([\w(), ]+?)`?(?:\s|$))?")
_CUDNN = re.compile(r"CUDNN_STATUS_(ALLOC_FAILED|NOT_INITIALIZED|INTERNAL_ERROR)")
# cuDNN's kernel launch failing inside a framework that preallocates the GPU (XLA under JAX or TensorFlow: their
# stream_executor's cuda_dnn.cc): cuDNN's own device allocations for the chosen algorithm are made outside the
# framework's pool and fail at execution (cuDNN API reference, CUDNN_STATUS_EXECUTION_FAILED: "The GPU program failed
# to execute"; BVLC/caffe#2197, the maintainer: the algorithm cuDNN picked needs more memory than was left; the JAX
# maintainers on jax#12461/#17217: XLA's preallocation). Elsewhere the status is as often a kernel fault and is not read.
CUDNN_EXECUTION_FAILED = re.compile(r"CUDNN_STATUS_EXECUTION_FAILED")
PREALLOCATING_MARKS = ("xla", "jax", "stream_executor", "tensorflow")
_CUDA_ERR = re.compile(r"CUDA error:\s*out of memory", re.IGNORECASE)
# Two independent searches (linear): "NCCL" somewhere and NCCL's CUDA failure text somewhere. A single
# "NCCL.*?failure" pattern rescans the rest of the text from every "NCCL" (quadratic on "NCCL " * 20000).
_NCCL_WORD = re.compile(r"NCCL")
_NCCL_FAIL = re.compile(r"Cuda failure\s{0,4}'?out of memory'?|cudaErrorMemoryAllocation", re.IGNORECASE)
_HCCL_WORD = re.compile(r"Hccl|HCCL")
_HCCL_FAIL = re.compile(r"Failed to allocate|Memory resources are exhausted|out of memory", re.IGNORECASE)
_CANN_SIZE = re.compile(r"resource\[DeviceMemory\] with info \[size:(\d{1,15})\]")
# The DataLoader's own words for its pin-memory thread: "Caught <Error> in pin memory thread for device N" (the
# thread's exception re-raised) and "Pin memory thread exited unexpectedly" (the thread died without one:
# torch/utils/data/dataloader.py, _MultiProcessingDataLoaderIter._try_get_data, checks
# self._pin_memory_thread.is_alive() after a queue timeout).
_PIN = re.compile(r"Caught \w+ in pin memory thread(?: for device (\d{1,12}))?|pin memory thread exited unexpectedly",
                  re.IGNORECASE)


def _nccl(text: str) -> bool:
    return bool(_NCCL_WORD.search(text) and _NCCL_FAIL.search(text))


def _hccl(text: str) -> bool:
    return bool(_HCCL_WORD.search(text) and _HCCL_FAIL.search(text))


def execution_failed_under_preallocation(text: str) -> bool:
    """cuDNN's execution failure in a text from XLA / TensorFlow (``CUDNN_EXECUTION_FAILED``)."""
    if CUDNN_EXECUTION_FAILED.search(text) is None:
        return False
    low = text.lower()
    return any(w in low for w in PREALLOCATING_MARKS)


def matches(text: str) -> bool:
    return bool(_CUBLAS.search(text) or _CUDNN.search(text) or _CUDA_ERR.search(text) or _nccl(text)
                or _hccl(text) or _PIN.search(text) or execution_failed_under_preallocation(text))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    parsed = report.parsed
    cublas = _CUBLAS.search(text)
    cudnn = _CUDNN.search(text)
    pin = _PIN.search(text)
    if cublas:
        report.kind = "cublas_alloc_failed"
        parsed["library_status"] = f"CUBLAS_STATUS_{cublas.group(1)}"
        if cublas.group(2):
            parsed["library_call"] = cublas.group(2).strip()
    elif cudnn:
        report.kind = "cudnn_alloc_failed"
        parsed["library_status"] = f"CUDNN_STATUS_{cudnn.group(1)}"
    elif execution_failed_under_preallocation(text):
        report.kind = "cudnn_alloc_failed"
        parsed["library_status"] = "CUDNN_STATUS_EXECUTION_FAILED"
    elif _nccl(text):
        report.kind = "nccl_oom"
    elif _hccl(text):
        report.kind = "nccl_oom"
        parsed["collective_library"] = "HCCL"
        size = _CANN_SIZE.search(text)
        if size:
            report.requested_bytes = int(size.group(1))
            parsed["requested_bytes"] = report.requested_bytes
    elif pin:
        report.kind = "pin_memory_thread"
        if pin.group(1):
            parsed["device_index"] = int(pin.group(1))
            report.device_index = int(pin.group(1))
    else:
        report.kind = "cuda_error_oom"
    if report.framework == "unknown":
        low = text.lower()
        # (jaxlib's own module, "jaxlib.xla_extension.XlaRuntimeError", names JAX even where its XLA was built from
        # TensorFlow's tree, "external/org_tensorflow/...".)
        report.framework = ("jax" if "jaxlib" in low else "tensorflow" if "tensorflow" in low
                            else "pytorch" if ("torch" in low or "runtimeerror" in low) else "unknown")
    report.missing.append(N_("allocator figures (this error happens outside the caching allocator)"))
    return True
