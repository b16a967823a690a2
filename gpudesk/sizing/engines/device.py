"""The memory a GPU can use: a discrete card's reported total, or the share of unified memory the OS lets the
GPU wire.

- Discrete cards: the driver's reported total (:func:`gpudesk.sizing.capacity.reported_total_bytes`), the figure
  vLLM, SGLang and TensorRT-LLM multiply their memory fractions by (``torch.cuda.mem_get_info`` total).
- Apple silicon: Metal reports ``recommendedMaxWorkingSetSize``; llama.cpp prints it at start-up
  (``ggml_metal_init: recommendedMaxWorkingSetSize = 21845.34 MB`` on a 32 GB Mac, 2/3 of RAM; ``51539.61 MB`` on
  a 64 GB Mac, 3/4). macOS 14+ lets the user raise it with ``sudo sysctl iogpu.wired_limit_mb=N``
  (ggml-org/llama.cpp discussion 2182; ml-explore/mlx ``docs``: "Large models on macOS"). Default here: 2/3 of
  RAM up to 32 GiB, 3/4 above.
- NVIDIA GB10 (DGX Spark): 128 GB of LPDDR5x shared by CPU and GPU; CUDA reports the system memory as the GPU's
  total, so the OS and other processes come out of the same pool (NVIDIA DGX Spark user guide, "Memory").
- GH200: the GPU's own HBM (96 or 144 GB) is what the engines size their pools from; the 480 GB of LPDDR5X
  behind NVLink-C2C is host memory (reachable for offload, e.g. vLLM ``--cpu-offload-gb``), not more VRAM
  (NVIDIA Grace Hopper Superchip architecture whitepaper).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudesk.i18n import _

if TYPE_CHECKING:
    from gpudesk.catalog import GPU

from gpudesk.units import GIB
#: The OS, desktop and other processes on a DGX Spark (DGX OS idle) out of its unified pool.
SPARK_OS_RESERVE_BYTES = 8 * GIB


@dataclass(frozen=True)
class DeviceMemory:
    """One accelerator's memory as an engine sees it.

    Attributes:
        name: display name. total_bytes: what the engine takes as the device total.
        backend: ggml backend name (CUDA, ROCm, Metal, Vulkan) for buffer labels. unified: memory shared with
        the CPU. note: how the figure was obtained. nvlink: the GPUs of a tensor-parallel group are linked by
        NVLink (NCCL's transport, :func:`gpudesk.sizing.engines.common.nccl_device_bytes`).
    """

    name: str
    total_bytes: int
    backend: str = "CUDA"
    unified: bool = False
    note: str = ""
    nvlink: bool = False


def apple_wired_limit_bytes(ram_bytes: int, wired_limit_mb: int | None = None) -> int:
    """The GPU working-set limit of an Apple-silicon Mac: ``iogpu.wired_limit_mb`` when set, else 2/3 of RAM up to
    32 GiB and 3/4 above (module docstring)."""
    if wired_limit_mb:
        return int(wired_limit_mb) * 1024 * 1024
    return ram_bytes * 2 // 3 if ram_bytes <= 32 * GIB else ram_bytes * 3 // 4


_APPLE_RE = re.compile(r"^(?:apple|mac|m[1-5](?:-?(?:pro|max|ultra))?)[-_: ]?(\d+)\s*(?:gb|g)?$", re.I)


def unified_device(text: str, wired_limit_mb: int | None = None) -> DeviceMemory | None:
    """A unified-memory device named by ``text`` (``apple-64gb``, ``m3-max-128``, ``gb10``, ``dgx-spark``), or
    None when ``text`` names none (then it is a catalog GPU)."""
    key = text.strip().lower()
    if key in ("gb10", "dgx-spark", "dgx spark", "spark"):
        total = 128 * 10**9
        return DeviceMemory("NVIDIA GB10 (DGX Spark)", total - SPARK_OS_RESERVE_BYTES, "CUDA", True,
                            _("128 GB unified LPDDR5x less about 8 GiB for the OS"))
    match = _APPLE_RE.match(key)
    if match:
        ram = int(match.group(1)) * GIB
        limit = apple_wired_limit_bytes(ram, wired_limit_mb)
        return DeviceMemory(_("Apple silicon, {gib} GB").format(gib=match.group(1)), limit, "Metal", True,
                            _("GPU wired limit {limit_gib:.1f} GiB of {gib} GB (iogpu.wired_limit_mb)").format(
                                limit_gib=limit / GIB, gib=match.group(1)))
    return None


def catalog_device(gpu: GPU, ecc_enabled: bool | None = None) -> DeviceMemory:
    """A catalog GPU as the engines see it: the driver's reported total with ECC on or off (None: as the card
    ships, :func:`gpudesk.sizing.capacity.gpu_reported_total_bytes`); AMD Instinct cards (``mi*``) under ROCm.

    ``gpu`` is a :class:`gpudesk.catalog.GPU` (its ``id``, ``name``, ``memory_bytes``, ``memory_type``,
    ``ecc_default_on``).
    """
    from gpudesk.sizing.capacity import gpu_reported_total_bytes

    backend = "ROCm" if str(gpu.id).startswith("mi") else "CUDA"
    return DeviceMemory(gpu.name, gpu_reported_total_bytes(gpu, ecc_enabled), backend,
                        nvlink=bool(gpu.nvlink_gbps and gpu.nvlink_gbps > 0))

