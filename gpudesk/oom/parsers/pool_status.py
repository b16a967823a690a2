"""A GPU runtime's memory status printout: the device's use, its pool's live and held memory, and the pool's cap.

CUDA.jl prints it with every ``OutOfGPUMemoryError`` and from ``CUDA.memory_status()`` (JuliaGPU/CUDA.jl, src/pool.jl
``memory_status``; lib/cudadrv/memory.jl ``Mem.info`` for the device figures):

* "Effective GPU memory usage: 99.55% (11.688 GiB/11.741 GiB)": the device's used and total memory as the driver
  reports them (``cuMemGetInfo``: used = total - free), so what is free is the difference;
* "Memory pool usage: 8.505 GiB (10.406 GiB reserved)": what live arrays hold, and what the pool holds from the driver
  (the caching allocator's allocated and reserved, in PyTorch's terms);
* "CUDA allocator usage: 13.984 GiB (capped at 14.000 GiB)" (CUDA.jl 2.x): what the allocator holds and the cap it was
  started with (``JULIA_CUDA_MEMORY_LIMIT``), a per-process limit below the device.

Read by meaning ("memory usage: P% (U/T)", "usage: A (R reserved)", "usage: U (capped at C)"), in any runtime that
words its status so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudesk.oom.parsers.units import to_bytes

_SIZE = r"(\d{1,20}(?:\.\d{1,6})?)\s{0,2}([KMGTP]i?B|bytes?)"
_DEVICE_USAGE = re.compile(r"\bmemory usage\s{0,2}:\s{0,3}\d{1,3}(?:\.\d{1,3})?\s{0,2}%\s{0,3}\(\s{0,2}" + _SIZE
                           + r"\s{0,2}/\s{0,2}" + _SIZE + r"\s{0,2}\)", re.IGNORECASE)
# (Sixty-sixth pass) gpustat's row of one GPU, "[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | (null)":
# the temperature, the utilisation, then the memory used and total the driver reports (NVML nvmlDeviceGetMemoryInfo),
# printed in its "MB" of 1024 * 1024 bytes (wookayin/gpustat, gpustat/core.py: "MB = 1024 * 1024", memory.used //
# MB) - the same reading as the device usage above.
_GPUSTAT_ROW = re.compile(r"'C,\s{0,3}\d{1,3}\s{0,2}%\s{0,3}\|\s{0,3}(\d{1,9})\s{0,2}/\s{0,2}(\d{1,9})\s{0,2}MB\b")
_POOL_USAGE = re.compile(r"\bpool usage\s{0,2}:\s{0,3}" + _SIZE + r"\s{0,3}\(\s{0,2}" + _SIZE + r"\s{1,3}reserved\s{0,2}\)",
                         re.IGNORECASE)
_CAPPED_USAGE = re.compile(r"\busage\s{0,2}:\s{0,3}" + _SIZE + r"\s{0,3}\(\s{0,2}capped at\s{1,3}" + _SIZE
                           + r"\s{0,2}\)", re.IGNORECASE)


@dataclass
class PoolStatus:
    """The figures of a status printout (bytes; None = not printed)."""

    used_bytes: int | None = None
    total_bytes: int | None = None
    allocated_bytes: int | None = None
    reserved_bytes: int | None = None
    cap_bytes: int | None = None

    @property
    def free_bytes(self) -> int | None:
        if self.used_bytes is None or self.total_bytes is None or self.used_bytes > self.total_bytes:
            return None
        return self.total_bytes - self.used_bytes


def _bytes(number: str, unit: str) -> int:
    return to_bytes(number, unit)


def read(text: str) -> PoolStatus | None:
    """The status figures in ``text`` (the first of each line), or None when it has none."""
    status = PoolStatus()
    device = _DEVICE_USAGE.search(text)
    if device:
        status.used_bytes, status.total_bytes = _bytes(device.group(1), device.group(2)), _bytes(device.group(3),
                                                                                                  device.group(4))
    row = None if device else _GPUSTAT_ROW.search(text)
    if row:
        status.used_bytes, status.total_bytes = _bytes(row.group(1), "MiB"), _bytes(row.group(2), "MiB")
    pool = _POOL_USAGE.search(text)
    if pool:
        status.allocated_bytes, status.reserved_bytes = _bytes(pool.group(1), pool.group(2)), _bytes(pool.group(3),
                                                                                                    pool.group(4))
    capped = _CAPPED_USAGE.search(text)
    if capped:
        status.reserved_bytes = status.reserved_bytes or _bytes(capped.group(1), capped.group(2))
        status.cap_bytes = _bytes(capped.group(3), capped.group(4))
    if device is None and row is None and pool is None and capped is None:
        return None
    return status
