"""The RAPIDS Accelerator for Apache Spark sizing its RMM pool at executor start, before it allocates anything.

Each executor's plugin initialises GPU memory once, when the executor starts and before any task runs
(``GpuDeviceManager.initializeMemory`` → ``initializeRmm`` / ``computeRmmInitSizes``, NVIDIA/spark-rapids,
``sql-plugin/src/main/scala/com/nvidia/spark/rapids/GpuDeviceManager.scala``): it reads the device's free and total
memory (``Cuda.memGetInfo``) and sizes one RMM pool from them. Its own checks word what it found:

* 0.1/0.2 (2020)::

    WARN GpuDeviceManager: Initial RMM allocation(13736.4248046875 MB) is larger than free memory(74.4375 MB)

  the pool is ``allocFraction × total``; the total itself is not printed;
* 21.x::

    java.lang.IllegalArgumentException: The initial allocation of 1319.96 MB (calculated from
    spark.rapids.memory.gpu.allocFraction (=0.9) and 1466.625 MB free memory) was less than the minimum allocation of
    4031.90625 (calculated from spark.rapids.memory.gpu.minAllocFraction (=0.25) and 16127.625 MB total memory)

* later releases::

    The pool allocation of X MiB (gpu.free: F,spark.rapids.memory.gpu.allocFraction: ... was less than allocation of
    M MiB (gpu.total: T MiB, ...

At that moment the executor holds only its CUDA context, so what is not free is held by other processes (another
executor placed on the same GPU, another job) or, when small, by the driver and the context. The figures are recorded
in the terms of :mod:`gpudesk.oom.parsers.startup_free` (``free_at_start_bytes``, ``total_at_start_bytes`` when
printed, the pool asked for as ``engine_budget_bytes``) under the report kind ``rmm_pool_startup_free``.
"""

from __future__ import annotations

import re

from gpudesk.oom.report import MemoryReport
from gpudesk.units import MIB

# The plugin's "MB" is binary (MIB): GpuDeviceManager.scala prints its figures through ``toMB(x) = x / 1024 / 1024.0``,
# and the later wording says MiB outright.
_NUM = r"(\d{1,12}(?:\.\d{1,16})?)"
# 2020: the pool (allocFraction × total) above the free memory.
_LARGER_THAN_FREE = re.compile(r"Initial RMM allocation\s*\(\s*" + _NUM + r"\s*MB\s*\)\s*is larger than free memory\s*"
                               r"\(\s*" + _NUM + r"\s*MB\s*\)", re.IGNORECASE)
# 21.x: allocFraction × free below minAllocFraction × total.
_BELOW_MIN = re.compile(r"initial allocation of\s+" + _NUM + r"\s*MB\s*\(calculated from\s+\S{0,60}allocFraction\s*"
                        r"\(=\s*[\d.]{1,8}\)\s*and\s+" + _NUM + r"\s*MB free memory\)\s*was less than the minimum "
                        r"allocation of\s+" + _NUM + r"[^\n]{0,120}?and\s+" + _NUM + r"\s*MB total memory",
                        re.IGNORECASE)
# Later releases: the same check in the "(gpu.free: F, ..." / "(gpu.total: T MiB" wording.
_POOL_BELOW = re.compile(r"pool allocation of\s+" + _NUM + r"\s*MiB\s*\(gpu\.free:\s*" + _NUM + r"[^\n]{0,300}?"
                         r"was less than allocation of\s+" + _NUM + r"\s*MiB\s*\(gpu\.total:\s*" + _NUM,
                         re.IGNORECASE)


def matches(text: str) -> bool:
    return any(p.search(text) for p in (_LARGER_THAN_FREE, _BELOW_MIN, _POOL_BELOW))


def _mib(value: str) -> int:
    return int(float(value) * MIB)


def parse(text: str, report: MemoryReport) -> bool:
    flat = re.sub(r"\s+", " ", text)
    total: int | None = None
    m = _BELOW_MIN.search(flat) or _POOL_BELOW.search(flat)
    if m is not None:
        pool, free, total = _mib(m.group(1)), _mib(m.group(2)), _mib(m.group(4))
    else:
        m = _LARGER_THAN_FREE.search(flat)
        if m is None:
            return False
        pool, free = _mib(m.group(1)), _mib(m.group(2))
    report.framework = "rapids"
    report.kind = "rmm_pool_startup_free"
    dev = report.ensure_device(report.device_index)
    dev.free_bytes = free
    report.parsed.update({"free_at_start_bytes": free, "engine_budget_bytes": pool})
    if total is not None and total > 0:
        dev.total_bytes = total
        report.parsed["total_at_start_bytes"] = total
    return True
