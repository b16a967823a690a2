"""``sysmem_fallback``: on Windows the driver spills to shared system memory instead of failing (oom.md §3.5
rule 10; LoRA_Easy_Training_Scripts#267: 295 s/it with 1.5 GB "shared GPU memory").

Fires on text that mentions shared GPU memory / the "Sysmem Fallback Policy", or a probe/evidence report
with ``shared_gpu_memory_bytes`` > 0 (Windows PDH counters). 0.6. Allocated memory above the GPU's total capacity
(by more than 2 %) can only be the spill itself → 0.96 (above "one request larger than the GPU").
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

_TEXT = re.compile(r"shared GPU memory|sysmem\s*fallback|shared memory fallback", re.I)


def check(f: Facts) -> Cause | None:
    r = f.report
    shared = r.parsed.get("shared_gpu_memory_bytes")
    hit = _TEXT.search(r.text or "")
    # Tensors that already exist beyond the GPU's capacity can only live in system memory the driver maps for the
    # GPU (WDDM's shared GPU memory, also under WSL2: microsoft/WSL#11050: 30 GiB allocated on a 15.99 GiB GPU).
    beyond = r.parsed.get("allocated_beyond_capacity_bytes")
    allocated = f.allocated if f.allocated is not None else beyond if isinstance(beyond, int) else None
    spilled = (allocated is not None and f.total is not None and allocated > 1.02 * f.total
               and allocated < 64 * f.total)
    if not hit and not shared and not spilled:
        return None
    return Cause(
        id="sysmem_fallback",
        title=_("Windows driver spills GPU memory to system RAM"),
        confidence=0.96 if spilled else 0.6,
        evidence=evidence(shared_gpu_memory_bytes=shared, text=hit.group(0) if hit else None,
                          allocated_bytes=allocated if spilled else None,
                          total_capacity_bytes=f.total if spilled else None),
        explanation=_("The NVIDIA Windows driver's Sysmem Fallback Policy moves allocations to shared system memory "
                    "when VRAM is full: no OOM, but each step becomes many times slower."),
        fix=_("NVIDIA Control Panel → Manage 3D settings → CUDA - Sysmem Fallback Policy → Prefer No Sysmem Fallback "
            "(for python.exe), then reduce memory use until it fits in VRAM"),
        more_fixes=[_("WSL2 does not honour this policy; reduce batch / resolution there.")],
    )
