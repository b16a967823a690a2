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
        NVLink (NCCL's transport, :func:`gpudesk.sizing.engines.common.nccl_device_bytes`). fp8_tensor_cores:
        the catalog gives the GPU FP8 tensor/matrix-core throughput (``GPU.supports_fp8``), so FP8 weights run
        on its FP8 matmuls.
    """

    name: str
    total_bytes: int
    backend: str = "CUDA"
    unified: bool = False
    note: str = ""
    nvlink: bool = False
    fp8_tensor_cores: bool = False


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
                        nvlink=bool(gpu.nvlink_gbps and gpu.nvlink_gbps > 0), fp8_tensor_cores=gpu.supports_fp8)



#: Streaming multiprocessors by device name, most specific first (NVIDIA architecture whitepapers: Hopper H100
#: SXM5 132 and PCIe 114, H100 NVL/H200/GH200/H800 as H100 SXM5; Ampere GA100 A100/A800 108, A30 56, GA102 RTX 3090
#: 82, A10 72, A40/RTX A6000 84; Ada AD102 RTX 4090 128, RTX 4090 D 114, L40/L40S/RTX 6000 Ada 142, AD103 RTX 4080
#: 76, AD104 L4 58, AD107 RTX 4060 24; Turing T4 40; Volta V100 80; Blackwell B200 148, RTX 5090 170). What ``torch.cuda.get_device_properties().multi_processor_count`` reports,
#: which vLLM's Triton sampler sizes its scratch rows by (:func:`gpudesk.sizing.engines.forward.triton_buffer_bytes`).
STREAMING_MULTIPROCESSORS: tuple[tuple[str, int], ...] = (
    ("h100 pcie", 114), ("h100", 132), ("h200", 132), ("gh200", 132), ("h800", 132), ("b200", 148),
    ("a100", 108), ("a800", 108), ("a30", 56), ("rtx 5090", 170), ("rtx 4090 d", 114), ("rtx 4090", 128),
    ("rtx 4080", 76), ("rtx 4060", 24), ("rtx 3090", 82), ("rtx 6000 ada", 142),
    ("rtx a6000", 84), ("l40", 142), ("l4", 58), ("a40", 84), ("a10", 72), ("t4", 40), ("v100", 80),
)


def streaming_multiprocessors(name: str) -> int:
    """The SM count of the device called ``name`` (catalog name or as the engine prints it; case and ``-``/``_``
    ignored), 0 when not known (then terms sized by it are left out)."""
    key = re.sub(r"[-_]+", " ", name.lower())
    key = re.sub(r"rtx(\d)", r"rtx \1", key)
    for part, count in STREAMING_MULTIPROCESSORS:
        if part in key:
            return count
    return 0


#: AMD GPU -> its LLVM target (AMD ROCm "GPU hardware specifications": MI50/MI60/Radeon VII gfx906, MI100 gfx908,
#: MI210/MI250 gfx90a, MI300/MI325 gfx942, MI350/MI355 gfx950, Radeon PRO W7900 / RX 7900 gfx1100), most specific
#: first.
AMD_GFX_TARGETS: tuple[tuple[str, str], ...] = (
    ("mi50", "gfx906"), ("mi60", "gfx906"), ("radeon vii", "gfx906"), ("mi100", "gfx908"), ("mi210", "gfx90a"),
    ("mi250", "gfx90a"), ("mi300", "gfx942"), ("mi325", "gfx942"), ("mi350", "gfx950"), ("mi355", "gfx950"),
    ("w7900", "gfx1100"), ("rx 7900", "gfx1100"),
)


def amd_gfx_target(name: str) -> str | None:
    """The LLVM target (``gfx906``, ``gfx942``...) of the AMD GPU called ``name``, None when not an AMD GPU known
    here."""
    key = re.sub(r"[-_]+", " ", name.lower())
    for part, target in AMD_GFX_TARGETS:
        if part in key:
            return target
    return None
