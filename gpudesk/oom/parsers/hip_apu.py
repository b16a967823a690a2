"""HIP on AMD APUs: the "total capacity" of a PyTorch OOM message is not the device's limit (issue 32).

PyTorch's message takes both figures from ``hipMemGetInfo``. On an APU (Ryzen AI "Strix Halo" gfx1151, Phoenix
gfx1103 ...) the GPU has a small VRAM carve-out and allocates the rest from system memory through GTT; ROCm
reports the carve-out as the total while the free figure counts GTT memory too, so free can exceed total
(ROCm/TheRock#4598: "GPU 0 has a total capacity of 15.49 GiB of which 84.98 GiB is free"). On a discrete GPU free
can never exceed total, and the generic parser treats such a figure as garbage; on HIP it is a measurement, and it
is the total that does not bound the device. See the amdgpu driver's ``mem_info_vram_total`` / ``mem_info_gtt_total``
(Linux Documentation/gpu/amdgpu/driver-misc.rst).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.units import format_bytes
from gpudesk.oom.report import MemoryReport


def apu_capacity(report: MemoryReport, total: int | None, free: int | None, reserved: int) -> int | None:
    """The capacity to use for a HIP message: when its free exceeds its total, free plus this process's reserved
    memory (a lower bound on what the device can allocate: both were in its hands at the failure), else ``total``.

    The printed total is kept in ``report.parsed["carveout_total_bytes"]`` and a note says why it was set aside.
    """
    if report.platform != "rocm" or total is None or free is None or free <= total:
        return total
    report.parsed["carveout_total_bytes"] = total
    report.notes.append(_("HIP reports {free} free of a {total} total: on an APU the total is the VRAM carve-out and "
                          "free memory includes system memory the GPU can also use (GTT), so the total is not the "
                          "device's limit.").format(free=format_bytes(free), total=format_bytes(total)))
    return free + max(0, reserved)
