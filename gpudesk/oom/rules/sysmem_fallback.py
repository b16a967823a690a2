"""``sysmem_fallback``: on Windows the driver spills to shared system memory instead of failing (oom.md §3.5
rule 10; LoRA_Easy_Training_Scripts#267: 295 s/it with 1.5 GB "shared GPU memory").

Fires on text that mentions shared GPU memory / the "Sysmem Fallback Policy", or a probe/evidence report
with ``shared_gpu_memory_bytes`` > 0 (Windows PDH counters). 0.6.
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
    if not hit and not shared:
        return None
    return Cause(
        id="sysmem_fallback",
        title=_("Windows driver spills GPU memory to system RAM"),
        confidence=0.6,
        evidence=evidence(shared_gpu_memory_bytes=shared, text=hit.group(0) if hit else None),
        explanation=_("The NVIDIA Windows driver's Sysmem Fallback Policy moves allocations to shared system memory "
                    "when VRAM is full: no OOM, but each step becomes many times slower."),
        fix=_("NVIDIA Control Panel → Manage 3D settings → CUDA - Sysmem Fallback Policy → Prefer No Sysmem Fallback "
            "(for python.exe), then reduce memory use until it fits in VRAM"),
        more_fixes=[_("WSL2 does not honour this policy; reduce batch / resolution there.")],
    )
