"""PaddlePaddle's buddy allocator refused with the device's figures: memory held outside Paddle (``other_process``).

Paddle's buddy (naive best-fit, earlier "legacy") allocator reports a refusal with the device's own figures, read from
``cudaMemGetInfo`` at that moment, beside what Paddle itself has handed out: "Cannot allocate S in GPU N, available A,
total T, GpuMinChunkSize ..., GpuMaxChunkSize ..., GPU memory used: U" (paddle/fluid/memory/allocation/
legacy_allocator.cc, later naive_best_fit_allocator.cc: ``platform::GpuMemoryUsage(&avail, &total)`` and
``Used<CUDAPlace>(place)``, the buddy allocator's bytes in use; https://github.com/PaddlePaddle/Paddle). Paddle 1.x
prints the figures run together ("available 5.937500MBtotal 7981694976GpuMinChunkSize ..."). What the device is missing
beyond Paddle's use and the free memory, T − A − U, is held outside the allocator's tensors: by other processes, or by
chunks Paddle took and keeps free in its own pool. When Paddle uses almost nothing (:data:`OWN_SHARE_MAX` of the device
or less) and more than half of the device is held outside, the pool cannot be the holder (it grows a chunk at a time as
tensors need it, and a run that uses almost nothing has not needed it): another process holds the GPU (0.85, above the shortage the refusal alone reads as, 0.7), the
process list its check (PaddlePaddle/Paddle#18819: 324.75 kB used, 5.94 MB available of 7.98 GB, so lowering the
fraction flag to 0.003 changed nothing).
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line
from gpudesk.units import format_bytes

CONFIDENCE = 0.85
OWN_SHARE_MAX = 0.05  # Paddle's own bytes in use, as a share of the device, at or below which its pool is not the holder
OUTSIDE_SHARE_MIN = 0.5  # the share of the device held outside Paddle's use and the free memory
_UNITS = {"b": 1, "kb": 2**10, "mb": 2**20, "gb": 2**30, "tb": 2**40}
_SIZE = r"(\d{1,15}(?:\.\d{1,15})?)\s{0,2}([kKMGT]?B)"  # a decimal figure: float() always reads it
# The refusal with its figures, spelled "available" or "avaliable", with or without separators (Paddle 1.x).
_REFUSAL = re.compile(r"Cannot allocate\s{1,3}" + _SIZE + r"\s{1,3}in GPU \d{1,3},\s{0,3}ava(?:i|)l(?:i|)able\s{1,3}"
                      + _SIZE + r",?\s{0,3}total\s{1,3}(\d{1,20})(?:\s{0,2}([kKMGT]?B))?")
_USED = re.compile(r"GPU memory used:\s{0,3}" + _SIZE)


def _bytes(value: str, unit: str | None) -> int:
    return int(float(value) * _UNITS[(unit or "B").lower()])


def check(f: Facts) -> Cause | None:
    text = f.report.text or ""
    refusal, used_m = _REFUSAL.search(text), _USED.search(text)
    if refusal is None or used_m is None:
        return None
    # The patterns admit only decimal figures and the units of _UNITS: nothing here can fail to convert.
    requested = _bytes(refusal.group(1), refusal.group(2))
    available = _bytes(refusal.group(3), refusal.group(4))
    total = _bytes(refusal.group(5), refusal.group(6))
    used = _bytes(used_m.group(1), used_m.group(2))
    outside = total - available - used
    if total <= 0 or used > OWN_SHARE_MAX * total or outside < OUTSIDE_SHARE_MIN * total:
        return None
    key = "other_process"
    command = check_command(key, f.report.platform)
    return Cause(
        id="other_process",
        title=_("PaddlePaddle uses almost none of the GPU: another process holds it"),
        confidence=CONFIDENCE,
        evidence=evidence(requested_bytes=requested, free_bytes=available, total_capacity_bytes=total,
                          framework_used_bytes=used, held_outside_bytes=outside, deciding_check=key,
                          check_command=command),
        explanation=_("Paddle's allocator has {used} in use and the device has {available} free of {total}, so "
                      "{outside} is held outside Paddle's tensors. A run that uses this little has not grown its own "
                      "pool to that size: another process (an earlier run still alive, a second job) holds the GPU, "
                      "which is why lowering FLAGS_fraction_of_gpu_memory_to_use does not help.").format(
                          used=format_bytes(used), available=format_bytes(available), total=format_bytes(total),
                          outside=format_bytes(outside)),
        fix=_("Run nvidia-smi, stop the processes that hold this GPU (or wait for them), or run on a free GPU with "
              "CUDA_VISIBLE_DEVICES"),
        checks=[check_line(command=command, meaning=i18n._(CHECKS[key].meaning))],
    )
