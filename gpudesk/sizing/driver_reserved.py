"""Framebuffer the NVIDIA driver reserves on the card, counted in a device reading that includes it.

The driver keeps part of every GPU's framebuffer for itself. NVML's version-2 memory query splits it out:
``nvmlMemory_v2_t`` has ``total``, ``reserved``, ``free`` and ``used``, and nvidia-smi (R510+ drivers) prints it
under "FB Memory Usage" as "Reserved" beside "Used". The version-1 query ``nvmlDeviceGetMemoryInfo`` with an
``nvmlMemory_t`` (``total``, ``free``, ``used`` only) reports it inside ``used``, so ``used + free == total``
(NVML API reference, "nvmlDeviceGetMemoryInfo" / "nvmlMemory_v2_t",
https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html). On an idle A100 the v1 ``used`` reads
912 MB against 7.8 MB from v2, which matches nvidia-smi (rust-nvml/nvml-wrapper issue 57 and PR 58, 2024-03-25);
"an idle GPU reports a few hundred MB to ~1 GB used (driver reserved)" (scitix/sichek PR 113). py3nvml's binding
has the v1 struct only ("nvmlDeviceGetMemoryInfo `used` memory ... actually corresponds to the `reserved` memory",
fbcotter/py3nvml issue 25, 2023-08-18), and pynvml / nvidia-ml-py call v1 unless given ``version=nvmlMemory_v2``
(nvidia-ml-py 11.515.48 ``nvmlDeviceGetMemoryInfo(handle, version=None)``, quoted in XuehaiPan/nvitop PR 30).
So a device figure read through v1 -- optimum-benchmark's memory tracker reads py3nvml's
``nvmlDeviceGetMemoryInfo(handle).used`` (huggingface/optimum-benchmark 57d69c61 and 09886e96
``optimum_benchmark/trackers/memory.py`` ``_cuda_peak_memory``; f75d9f93 the same beside the PyTorch counters;
since 94599060 ``max_global_vram`` reads pynvml's v1 ``used`` while ``max_process_vram`` sums the process's
``usedGpuMemory``) -- holds this reserve on top of what the process holds; the process's own memory (context +
caching allocator + runtime buffers) is what the estimate's device figure counts. The reserve is the card's and the
driver's, not the job's: the user reads it from ``nvidia-smi -q -d MEMORY`` ("Reserved"), and it is also memory the
job can never use, which ``cudaMemGetInfo``'s total (``torch.cuda.mem_get_info``) already leaves out.
"""

from __future__ import annotations

from dataclasses import replace

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.estimate import MemoryEstimate, ordered_breakdown
from gpudesk.units import MIB

# The most any card reserves is about 1 GiB (above); a figure far beyond that is a typing error (GiB for MiB).
MAX_DRIVER_RESERVED_MIB = 16 * 1024


def check_driver_reserved_mib(mib: int) -> int:
    """The validated reserve in MiB.

    Raises:
        SizingError: not a whole number, negative, or above :data:`MAX_DRIVER_RESERVED_MIB`.
    """
    if isinstance(mib, bool) or not isinstance(mib, int) or not 0 <= mib <= MAX_DRIVER_RESERVED_MIB:
        raise SizingError("driver_reserved_mib", _("the driver's reserved memory is a whole number of MiB from 0 to "
                                                   "{maximum} (nvidia-smi -q -d MEMORY prints it as Reserved); "
                                                   "got {value!r}.").format(maximum=MAX_DRIVER_RESERVED_MIB, value=mib))
    return mib


def with_driver_reserved(estimate: MemoryEstimate, mib: int) -> MemoryEstimate:
    """``estimate`` with the component ``driver_reserved`` (``mib`` MiB on every GPU) and its assumption; the
    estimate itself when ``mib`` is 0. The part is outside the process: only the device figure holds it."""
    if not check_driver_reserved_mib(mib):
        return estimate
    breakdown = ordered_breakdown({**estimate.breakdown, "driver_reserved": mib * MIB})
    note = (_("driver-reserved framebuffer {mib} MiB per GPU, in the device figure only (a reading through "
              "NVML's v1 nvmlDeviceGetMemoryInfo used holds it)").format(mib=mib),
            "NVML nvmlMemory_v2_t reserved; rust-nvml/nvml-wrapper#57; fbcotter/py3nvml#25")
    return replace(estimate, breakdown=breakdown, assumptions=(*estimate.assumptions, note))
