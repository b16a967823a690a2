"""Apple MPS out-of-memory messages (PyTorch's MPS allocator, ``aten/src/ATen/mps/MPSAllocator.mm``).

``MPS backend out of memory (MPS allocated: 7.43 GB, other allocations: 24.46 GB, max allowed: 32.00 GB).
Tried to allocate 129.21 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit
for memory allocations (may cause system failure).``

* "MPS allocated" = live MPS tensors of this process;
* "other allocations" = the rest of this process's Metal driver memory (the MPS heap cache, other libraries);
* "max allowed" = high-watermark ratio × the device's recommended working set (default ratio 1.7,
  ``default_high_watermark_ratio`` in https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/mps/MPSAllocator.h).

Sizes are binary (the allocator's ``format_size`` divides by 1024 and prints "GB" before 2.1, "GiB" after).
The report's device 0 takes the limit as its total, so the account reads: total = allocated + other + free.
"""

from __future__ import annotations

import re

from gpudesk.oom.parsers.units import SIZE, to_bytes
from gpudesk.oom.report import MemoryReport
from gpudesk.i18n import N_

_MSG = re.compile(
    r"MPS backend out of memory\s*\(\s*MPS allocated:\s*" + SIZE + r",\s*other allocations:\s*" + SIZE
    + r",\s*max allowed:\s*" + SIZE + r"\s*\)",
    re.IGNORECASE,
)
_WORDS = re.compile(r"MPS backend out of memory")
# (Sixtieth pass) The message cut to its first figure, "MPS backend out of memory (MPS allocated: 1024.00 MB).
# Tried to allocate 256 bytes on shared pool." (actions/runner-images#11899): the live tensors alone are read.
_ALLOCATED_ONLY = re.compile(r"MPS backend out of memory\s*\(\s*MPS allocated:\s*" + SIZE + r"\s*\)", re.IGNORECASE)
_REQ = re.compile(r"Tried to allocate\s+" + SIZE + r"(?:\s+on\s+(private|shared)\s+pool)?")
_RATIO = re.compile(r"PYTORCH_MPS_HIGH_WATERMARK_RATIO\s*[=:]\s*['\"]?(\d{1,3}(?:\.\d{1,6})?)")


def matches(text: str) -> bool:
    return bool(_WORDS.search(text))


def parse(text: str, report: MemoryReport) -> bool:
    if not matches(text):
        return False
    report.framework = "pytorch"
    report.kind = "mps_oom"
    report.platform = "mps"
    parsed = report.parsed
    m = _MSG.search(text)
    dev = report.ensure_device(0)
    report.device_index = 0
    if m:
        allocated = to_bytes(m.group(1), m.group(2))
        other = to_bytes(m.group(3), m.group(4))
        limit = to_bytes(m.group(5), m.group(6))
        dev.allocated_bytes = allocated
        dev.other_allocations_bytes = other
        dev.total_bytes = limit or None
        dev.free_bytes = max(0, limit - allocated - other) if limit else None
        parsed["mps_allocated_bytes"] = allocated
        parsed["mps_other_allocations_bytes"] = other
        parsed["mps_max_allowed_bytes"] = limit
    else:
        alone = _ALLOCATED_ONLY.search(text)
        if alone:
            parsed["mps_allocated_bytes"] = to_bytes(alone.group(1), alone.group(2))
        report.missing.append(N_("MPS figures ('MPS allocated: ..., other allocations: ..., max allowed: ...')"))
    req = _REQ.search(text)
    if req:
        report.requested_bytes = to_bytes(req.group(1), req.group(2))
        parsed["requested_bytes"] = report.requested_bytes
        if req.group(3):
            parsed["mps_pool"] = req.group(3).lower()
    else:
        report.missing.append(N_("requested size ('Tried to allocate ...')"))
    # Text after the message's own hint: a ratio the user set (a log line or the command).
    hint_free = text.replace("PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable", "")
    ratio = _RATIO.search(hint_free)
    if ratio:
        parsed["mps_high_watermark_ratio"] = float(ratio.group(1))
    return True
