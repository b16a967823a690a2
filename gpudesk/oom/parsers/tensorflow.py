"""TensorFlow OOM texts (oom.md §3.2): ResourceExhaustedError, BFC allocator dumps, StreamExecutor failures.

* ``OOM when allocating tensor with shape[64,2016,9,9] and type float on /job:.../device:GPU:0 by allocator
  GPU_0_bfc``: the failing tensor; its size is shape × dtype bytes (derived, noted).
* ``Allocator (GPU_0_bfc) ran out of memory trying to allocate 3.41GiB``: the request.
* ``Stats:`` block: ``Limit / InUse / MaxInUse / NumAllocs / MaxAllocSize`` (XLA adds ``Reserved /
  PeakReserved / LargestFreeBlock``), raw bytes.
* ``failed to allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY``: a driver-level
  allocation outside the BFC pool (kind ``cuda_driver_oom``). TensorFlow's ROCm StreamExecutor
  (tensorflow/stream_executor/rocm/rocm_driver.cc, ``GpuDriver::DeviceAllocate``) prints the same line with the
  HIP status instead: ``from device: hipError_t(1002)`` (1002 = hipErrorMemoryAllocation in HIP's numbering of
  that time; hipErrorOutOfMemory = 2 today; later releases print ``HIP_ERROR_OutOfMemory``, keras#13889) - the same
  BFC pool reservation, on an AMD GPU.
"""

from __future__ import annotations

import math
import re

from gpudesk.oom.parsers.units import SIZE, to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_, _

DTYPE_BYTES = {
    "float": 4, "float32": 4, "half": 2, "float16": 2, "bfloat16": 2, "double": 8, "float64": 8,
    "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
    "bool": 1, "complex64": 8, "complex128": 16,
}
_TENSOR = re.compile(
    r"OOM when allocating tensor (?:(?:with|of) shape\s*\[([\d,\s]*)\])?\s*(?:and type (\w+))?"
    r"(?:\s+on\s+\S*?device:GPU:(\d{1,12}))?(?:\s+by allocator (\S+))?",
    re.I,
)
_ALLOCATOR = re.compile(r"Allocator \((\S+?)\) ran out of memory trying to allocate\s+" + SIZE, re.I)
_STAT = re.compile(r"^[ \t]*(Limit|InUse|MaxInUse|NumAllocs|MaxAllocSize|Reserved|PeakReserved|LargestFreeBlock):\s+(\d{1,12})\s*$", re.M)
_DRIVER = re.compile(r"failed to allocate\s+" + SIZE + r"\s*(?:\((\d{1,12}) bytes\))?\s*from device:\s*"
                     r"(?:CUDA_ERROR_OUT_OF_MEMORY|hipError_t\(1002\)|hipErrorOutOfMemory|hipErrorMemoryAllocation|"
                     r"HIP_ERROR_OutOfMemory)", re.I)
_EXHAUSTED = re.compile(r"ResourceExhaustedError|Resource exhausted", re.I)
_BFC_DEV = re.compile(r"GPU_(\d{1,12})_bfc")


def matches(text: str) -> bool:
    xla = "RESOURCE_EXHAUSTED" in text or "XlaRuntimeError" in text  # JAX texts mention tensorflow/compiler/xla
    return bool(_TENSOR.search(text) or _ALLOCATOR.search(text) or _DRIVER.search(text) or _stats(text)
                or ("tensorflow" in text.lower() and _EXHAUSTED.search(text) and not xla))


def _stats(text: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in _STAT.finditer(text)}


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    report.framework = "tensorflow"
    parsed = report.parsed
    tensor = _TENSOR.search(text)
    alloc = _ALLOCATOR.search(text)
    driver = _DRIVER.search(text)
    stats = _stats(text)
    if tensor:
        report.kind = "tf_resource_exhausted"
    elif alloc or stats:
        report.kind = "tf_bfc_dump"
    elif driver:
        report.kind = "cuda_driver_oom"
    else:
        report.kind = "tf_resource_exhausted"
    index = None
    if tensor and tensor.group(3) is not None:
        index = int(tensor.group(3))
    else:
        bfc = _BFC_DEV.search(text)
        index = int(bfc.group(1)) if bfc else None
    report.device_index = index
    dev = report.ensure_device(index)
    if index is not None:
        parsed["device_index"] = index
    if tensor and tensor.group(1):
        shape = [int(x) for x in tensor.group(1).replace(" ", "").split(",") if x]
        report.tensor_shape = shape
        report.dtype = tensor.group(2)
        parsed["tensor_elements"] = math.prod(shape) if shape else 0
        size = DTYPE_BYTES.get((tensor.group(2) or "").lower())
        if size is not None:
            report.requested_bytes = math.prod(shape) * size
            parsed["requested_bytes"] = report.requested_bytes
            report.notes.append(_("Requested size computed from shape × {size} bytes per {dtype}.").format(
                size=size, dtype=tensor.group(2)))
        else:
            report.missing.append(_("element size of dtype {dtype!r}").format(dtype=tensor.group(2)))
    if tensor and tensor.group(4):
        report.allocator_name = tensor.group(4)
    if alloc:
        report.allocator_name = alloc.group(1)
        report.requested_bytes = to_bytes(alloc.group(2), alloc.group(3))
        parsed["requested_bytes"] = report.requested_bytes
    if driver and report.requested_bytes is None:
        report.requested_bytes = int(driver.group(3)) if driver.group(3) else to_bytes(driver.group(1), driver.group(2))
        parsed["requested_bytes"] = report.requested_bytes
    if driver:
        parsed["driver_oom"] = 1
    if re.search(r"CUBLAS_STATUS_(NOT_INITIALIZED|ALLOC_FAILED)", text):
        parsed["cublas_handle_failed"] = 1
    for key, value in stats.items():
        parsed[f"bfc_{_snake(key)}" + ("" if key == "NumAllocs" else "_bytes")] = value
    if "Limit" in stats:
        dev.total_bytes = stats["Limit"]
    if "InUse" in stats:
        dev.allocated_bytes = stats["InUse"]
    if "MaxInUse" in stats:
        dev.peak_allocated_bytes = stats["MaxInUse"]
    if "Reserved" in stats:
        dev.reserved_bytes = stats["Reserved"]
    if "PeakReserved" in stats:
        dev.peak_reserved_bytes = stats["PeakReserved"]
    if "LargestFreeBlock" in stats:
        dev.largest_free_block_bytes = stats["LargestFreeBlock"]
    if "Limit" in stats and "InUse" in stats:
        dev.free_bytes = stats["Limit"] - stats["InUse"]
    if report.requested_bytes is None:
        report.missing.append(N_("requested size"))
    if not stats:
        report.missing.append(N_("BFC allocator 'Stats:' block (limit / in use)"))
    return True


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
