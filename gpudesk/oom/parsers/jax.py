"""JAX / XLA ``RESOURCE_EXHAUSTED`` texts (oom.md §3.3).

Matches on ``RESOURCE_EXHAUSTED`` or the older ``Resource exhausted: Out of memory``, then reads any size
("allocate 6291456 bytes", "allocate 6.00GiB"), the device when named, and the ``BufferAssignment stats``
block (parameter / constant / maybe_live_out / preallocated temp / total allocation, total fragmentation)
and ``Peak buffers`` (size, shape, op name).
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import SIZE, to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_EXHAUSTED = re.compile(r"RESOURCE_EXHAUSTED|Resource exhausted:\s*Out of memory|XlaRuntimeError", re.I)
# The size may follow a line break and an approximation sign where a user rounded it in the paste ("allocate \n~140GB",
# martinpacesa/BindCraft#225).
_REQUEST = re.compile(r"Out of memory (?:while )?trying to allocate\s{1,8}[~\u2248]?\s{0,2}" + SIZE, re.I)
_DEVICE = re.compile(r"\b(?:gpu|cuda)[:_ ](\d{1,12})\b", re.I)
_STAT = re.compile(r"^[ \t]*(parameter|constant|maybe_live_out|preallocated temp|total) allocation:\s*" + SIZE, re.M | re.I)
_FRAG = re.compile(r"total fragmentation:\s*" + SIZE + r"\s*\((\d{1,20}(?:\.\d{1,20})?)%\)", re.I)
_BUFFER = re.compile(r"Buffer\s+(\d{1,12}):\s*\n?\s*Size:\s*" + SIZE, re.I)
_SHAPE = re.compile(r"Shape:\s*(\w+\[[\d,]*\])")


# TensorFlow's op-level failure ("OP_REQUIRES failed at conv_ops.cc : RESOURCE_EXHAUSTED: OOM when allocating tensor
# with shape[...] ... by allocator GPU_0_bfc", tensorflow/core/framework/op_kernel.cc): TensorFlow 2 prints the status
# code by name too, but only TensorFlow's op kernels allocate "tensors"; XLA and JAX word their failures "Out of memory
# while trying to allocate". Such a text is TensorFlow's (gpudesk.oom.parsers.tensorflow), not XLA's.
_TF_OP_TENSOR = re.compile(r"OOM when allocating tensor", re.I)


def matches(text: str) -> bool:
    if _TF_OP_TENSOR.search(text) and not _REQUEST.search(text):
        return False
    return bool(_EXHAUSTED.search(text) and (_REQUEST.search(text) or "RESOURCE_EXHAUSTED" in text))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    report.framework = "jax"
    report.kind = "xla_resource_exhausted"
    parsed = report.parsed
    req = _REQUEST.search(text)
    if req:
        report.requested_bytes = to_bytes(req.group(1), req.group(2))
        parsed["requested_bytes"] = report.requested_bytes
    else:
        report.missing.append(N_("requested size ('trying to allocate ...')"))
    dev = _DEVICE.search(text)
    report.device_index = int(dev.group(1)) if dev else None
    report.ensure_device(report.device_index)
    if dev:
        parsed["device_index"] = int(dev.group(1))
    else:
        report.missing.append(N_("device"))
    for m in _STAT.finditer(text):
        parsed[f"xla_{m.group(1).lower().replace(' ', '_')}_allocation_bytes"] = to_bytes(m.group(2), m.group(3))
    frag = _FRAG.search(text)
    if frag:
        parsed["xla_total_fragmentation_bytes"] = to_bytes(frag.group(1), frag.group(2))
        parsed["xla_total_fragmentation_ratio"] = float(frag.group(3)) / 100
    buffers = [to_bytes(m.group(2), m.group(3)) for m in _BUFFER.finditer(text)]
    if buffers:
        parsed["xla_peak_buffers_count"] = len(buffers)
        parsed["xla_largest_peak_buffer_bytes"] = max(buffers)
    shape = _SHAPE.search(text)
    if shape:
        parsed["xla_first_peak_buffer_shape"] = shape.group(1)
    return True
