"""PyTorch's out-of-memory message from its cudaMallocAsync backend (``PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync``,
c10/cuda/CUDAMallocAsyncAllocator.cpp; the last line is the ``set_per_process_memory_fraction`` limit, 2^64 bytes when
none is set), as TGI's warm-up prints it inside a Rust panic (literal ``\\n`` escapes; TGI#563):

``Allocation on device 0 would exceed allowed memory. (out of memory)
Currently allocated     : 16.08 GiB
Requested               : 4.83 GiB
Device limit            : 22.20 GiB
Free (according to CUDA): 11.12 MiB
PyTorch limit (set by user-supplied memory fraction)
                        : 22.20 GiB``

Pastes come cut above the first line (a console scrolled or a store that keeps the last lines: the table from
"Requested" down, ltdrdata/ComfyUI-Impact-Pack#364) or re-flowed without the colons ("Requested 666.02 MiB", "Device
limit 13.81 GiB", Acly/krita-ai-diffusion#517, the app's own error dialog). The rows "Device limit" and "Free (according
to CUDA)" together are this template's and no other's, so they are read as the message when the head is missing, and
each row's colon is optional.
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import SIZE, to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_HEAD = re.compile(r"Allocation on device\s+(\d{1,4})\s+would exceed allowed memory")
_ALLOC = re.compile(r"Currently allocated\s*:?\s*" + SIZE)
_REQ = re.compile(r"Requested\s*:?\s*" + SIZE)
_LIMIT = re.compile(r"Device limit\s*:?\s*" + SIZE)
_FREE = re.compile(r"Free \(according to CUDA\)\s*:?\s*" + SIZE)
_CAP = re.compile(r"memory fraction\)\s*:?\s*" + SIZE)


def _table(text: str) -> bool:
    """The template's own rows without its head line (module docstring)."""
    flat = text.replace("\\n", "\n")
    return _LIMIT.search(flat) is not None and _FREE.search(flat) is not None


def matches(text: str) -> bool:
    return bool(_HEAD.search(text)) or _table(text)


def _size(m: re.Match[str] | None) -> int | None:
    return None if m is None else to_bytes(m.group(1), m.group(2))


def parse(text: str, report: MemoryReport) -> bool:
    head = _HEAD.search(text)
    if head is None and not _table(text):
        return False
    flat = text.replace("\\n", "\n")
    report.framework = "pytorch"
    report.kind = "pytorch_allowed_memory"
    index = int(head.group(1)) if head is not None else 0  # the cut head named the device; the table is device 0's
    report.device_index = index
    dev = report.ensure_device(index)
    dev.allocated_bytes = _size(_ALLOC.search(flat))
    dev.total_bytes = _size(_LIMIT.search(flat))
    dev.free_bytes = _size(_FREE.search(flat))
    dev.allowed_bytes = _size(_CAP.search(flat))
    report.requested_bytes = _size(_REQ.search(flat))
    for key, value in (("allocated_bytes", dev.allocated_bytes), ("total_capacity_bytes", dev.total_bytes),
                       ("free_bytes", dev.free_bytes), ("allowed_bytes", dev.allowed_bytes),
                       ("requested_bytes", report.requested_bytes)):
        if value is not None:
            report.parsed[key] = value
    if report.requested_bytes is None:
        report.missing.append(N_("requested size ('Requested : ...')"))
    return True
