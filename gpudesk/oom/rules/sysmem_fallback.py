"""``sysmem_fallback``: on Windows the driver spills to shared system memory instead of failing (oom.md §3.5
rule 10; LoRA_Easy_Training_Scripts#267: 295 s/it with 1.5 GB "shared GPU memory").

Fires on text that mentions shared GPU memory / the "Sysmem Fallback Policy", or a probe/evidence report
with ``shared_gpu_memory_bytes`` > 0 (Windows PDH counters). 0.6. Allocated memory above the GPU's total capacity
(by more than 2 %) can only be the spill itself → 0.96 (above "one request larger than the GPU") when the request
itself is as large as the GPU: only the fallback can serve it, so whether the fallback is on and how much shared
memory it has decides the outcome (microsoft/WSL#11050: a 30 GiB tensor placed on a 16 GiB GPU, the second refused).
When the failing request is smaller than the GPU, the job's many allocations together outgrew VRAM and then the
shared memory behind it too (the driver gives the GPU at most half of the system RAM as shared memory, "Graphics
Memory Reporting through WDDM", learn.microsoft.com): the job's total need is the cause to act on, the spill how it got
that far → 0.6, below the shortage (Xilluill/KV-Edit#16: 20.56 GiB held on a 6 GiB card, the model needs 24 GB;
huggingface/meshgen#7: 13.98 GiB on an 8 GiB card).
A request more than twice the GPU (single_allocation_exceeds_capacity's implausible size) and larger than everything
the spill has served so far (the allocated memory) is not one the fallback was about to serve: the shared memory
behind VRAM is at most half the system RAM (WDDM, above), and the job never reached that size before this one
tensor. The request's shape is the cause to act on, the spill how the live tensors got there → 0.6
(xinntao/Real-ESRGAN#861: 110.72 GiB asked on an 8 GiB card holding 28.49 GiB, the whole image at once, no tiling).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import check_command
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
    if r.platform == "rocm" and hit:
        return _amd_placement(f, hit.group(0))
    return Cause(
        id="sysmem_fallback",
        title=_("Windows driver spills GPU memory to system RAM"),
        confidence=0.96 if spilled and not _beyond_any_spill(f.requested, f.total, allocated) and (
            f.requested is None or f.total is None or f.requested >= f.total) else 0.6,
        evidence=evidence(shared_gpu_memory_bytes=shared, text=hit.group(0) if hit else None,
                          allocated_bytes=allocated if spilled else None,
                          total_capacity_bytes=f.total if spilled else None),
        explanation=_("The NVIDIA Windows driver's Sysmem Fallback Policy moves allocations to shared system memory "
                    "when VRAM is full: no OOM, but each step becomes many times slower."),
        fix=_("NVIDIA Control Panel → Manage 3D settings → CUDA - Sysmem Fallback Policy → Prefer No Sysmem Fallback "
            "(for python.exe), then reduce memory use until it fits in VRAM"),
        more_fixes=[_("WSL2 does not honour this policy; reduce batch / resolution there.")],
    )


def _beyond_any_spill(requested: int | None, total: int | None, allocated: int | None) -> bool:
    """The one request is over twice the GPU and over all the job has placed so far (VRAM plus spill)."""
    return (requested is not None and total is not None and allocated is not None
            and requested > 2 * total and requested > allocated)


def _amd_placement(f: Facts, said: str) -> Cause:
    """Shared GPU memory named on an AMD GPU (platform ``rocm``: HIP/ROCm words or an AMD target such as gfx1151). The
    Sysmem Fallback Policy is a setting of NVIDIA's Windows driver (since 536.40); AMD's driver has no such switch and
    places each allocation itself, in VRAM (on an APU the carve-out the firmware reserves, "UMA frame buffer" or AMD's
    "Variable Graphics Memory") or in shared system memory (GTT). Allocations that land in shared memory while the
    VRAM is not full are the driver's placement, not the job's size: the driver's version is what to check
    (ROCm/TheRock#3032 on gfx1151 under Windows, fixed by a driver release). 0.65: above the NVIDIA reading's 0.6."""
    platform = f.report.platform
    return Cause(
        id="not_capacity",
        title=_("Likely not capacity: the AMD driver placed GPU memory in shared system memory"),
        confidence=0.65,
        evidence=evidence(text=said, deciding_check="driver_version",
                          check_command=check_command("driver_version", platform)),
        explanation=_("On an AMD GPU the driver decides whether an allocation goes to the GPU's own memory or to "
                      "shared system memory; there is no NVIDIA-style fallback switch. Memory that lands in shared "
                      "memory while the GPU's own memory has room is the driver's placement (a driver fault, or an APU "
                      "whose dedicated carve-out is small), and the job then runs out of the shared part."),
        fix=_("Update the AMD driver (AMD Software: Adrenalin Edition on Windows; amdgpu and ROCm on Linux) and check "
              "that the PyTorch build matches the ROCm version; on an APU, give the GPU a larger dedicated share (BIOS "
              "UMA frame buffer size, or Variable Graphics Memory in AMD Software)"),
        more_fixes=[_("Compare the GPU's dedicated and shared memory in use (Task Manager → Performance → GPU, or "
                      "rocm-smi --showmeminfo vram gtt) while the job runs.")],
    )
