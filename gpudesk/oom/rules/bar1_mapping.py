"""The NVIDIA kernel driver refused a mapping's virtual address space (BAR1): address space, not VRAM.

The driver's resource manager maps GPU memory for the CPU (and for display clients) through the BAR1 aperture, a
window of virtual addresses, 256 MiB on most consumer cards without Resizable BAR. When no range of that window is
left for a new mapping, ``dmaAllocMapping_GM107`` logs "can't alloc VA space for mapping." and the call fails with
``NV_ERR_NO_MEMORY`` ("NVRM: Out of memory [NV_ERR_NO_MEMORY]"; NVIDIA/open-gpu-kernel-modules,
src/nvidia/src/kernel/gpu/mem_mgr/virt_mem_allocator.c, https://github.com/NVIDIA/open-gpu-kernel-modules), and the DRM
side then reports "Failed to map NvKmsKapiMemory". The framebuffer memory can be mostly free: many small mappings
(browser and Wayland surfaces, each taking at least a big page of the window) or mappings never released fill the
window first (omacom/omarchy#5372: Chromium's hardware video decode under Wayland, BAR1 exhaustion over time). So this
is not the card's capacity (0.9): the driver and the program that maps (its version, its hardware acceleration) are
what to change; ``nvidia-smi -q -d MEMORY`` shows BAR1's own used and total beside the framebuffer's.
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import N_, _
from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import Check, check_line

CONFIDENCE = 0.9
# The resource manager's own line for the refused mapping range.
_VA_FOR_MAPPING = re.compile(r"\bcan't alloc VA space for mapping\b|\bdmaAllocMapping\w{0,12}:\s{0,3}can't alloc VA",
                             re.IGNORECASE)
# Its deciding check: BAR1's used and total, which nvidia-smi lists apart from the framebuffer (key: the driver, the
# nearest check id for a driver-side limit fixed by the driver or the mapping program).
BAR1_CHECK = Check("driver_version", "nvidia-smi -q -d MEMORY",
                   N_("Compare 'BAR1 Memory Usage' (used / total) with 'FB Memory Usage': BAR1 near its total with the "
                      "framebuffer free means the mapping window is full, not the memory; note the driver version, "
                      "and whether the count of mappings grows (browser hardware acceleration, video decode)."))


def check(f: Facts) -> Cause | None:
    if not _VA_FOR_MAPPING.search(f.report.text or ""):
        return None
    c = BAR1_CHECK
    return Cause(
        id="not_capacity",
        title=_("Not a capacity problem: the driver ran out of BAR1 address space for a mapping"),
        confidence=CONFIDENCE,
        evidence=evidence(not_capacity_kind="bar1_mapping", deciding_check=c.key, check_command=c.command),
        explanation=_("The NVIDIA kernel driver could not find virtual addresses for a new mapping in the BAR1 window, "
                      "the aperture through which the CPU and display clients see GPU memory (often 256 MiB). That "
                      "window fills with many small mappings, or with mappings that are never released, while the "
                      "GPU's memory itself is free."),
        fix=_("Update the NVIDIA driver, turn off the program's hardware acceleration or video decode that keeps "
              "creating mappings (a browser under Wayland), and restart it or reload the driver to release the "
              "window; enabling Resizable BAR in the firmware enlarges the window"),
        checks=[check_line(command=c.command, meaning=i18n._(c.meaning))],
    )
