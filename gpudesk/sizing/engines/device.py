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
from functools import lru_cache
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



#: Device names as engines and logs print them (``torch.cuda.get_device_name``: "NVIDIA H100 80GB HBM3", "NVIDIA
#: A100-SXM4-80GB", "Tesla T4"; catalog names) -> the catalog GPU they are, most specific first. Matched on the name
#: lower-cased with ``-``/``_`` as spaces. Only names, no facts: the SM count and the LLVM target are read from that
#: catalog row (:func:`streaming_multiprocessors`, :func:`amd_gfx_target`). Where one name covers several SKUs of one
#: die configuration the row chosen has the same SM count and target (an A100 of either memory size: 108 SMs; the
#: H100 NVL and H200 NVL the H100 SXM5's GH100 configuration, 132; an MI250 or MI250X: gfx90a; the Radeon VII is the
#: MI50's Vega 20, gfx906).
DEVICE_NAME_GPUS: tuple[tuple[str, str], ...] = (
    ("h100 pcie", "h100-pcie"), ("gh200", "gh200"), ("h100", "h100-sxm5"), ("h200", "h200-sxm"),
    ("h800", "h800-sxm5"), ("gb200", "gb200"), ("b200", "b200"),
    ("a100", "a100-80-sxm4"), ("a800", "a800-80-sxm4"), ("a30", "a30"), ("rtx 5090", "rtx5090"),
    ("rtx 4090 d", "rtx4090d"), ("rtx 4090", "rtx4090"), ("rtx 4080", "rtx4080"), ("rtx 4060", "rtx4060"),
    ("rtx 3090", "rtx3090"), ("rtx 6000 ada", "rtx-6000-ada"), ("rtx a6000", "rtx-a6000"), ("l40s", "l40s"),
    ("l40", "l40"), ("l4", "l4"), ("a40", "a40"), ("a10", "a10"), ("t4", "t4"), ("v100", "v100-sxm2-32"),
    ("mi50", "mi50-32"), ("mi60", "mi60"), ("radeon vii", "mi50-32"), ("mi100", "mi100"), ("mi210", "mi210"),
    ("mi250", "mi250x"), ("mi300", "mi300x"), ("mi325", "mi325x"), ("mi350", "mi350x"), ("mi355", "mi355x"),
    ("w7900", "radeon-pro-w7900"), ("rx 7900", "rx7900xtx"),
)

_GFX = re.compile(r"\bgfx[0-9a-f]+\b", re.I)


def catalog_gpu_id(name: str) -> str | None:
    """The catalog GPU id of the device called ``name`` (catalog name or as the engine prints it; case and
    ``-``/``_`` ignored), None when the name is none of :data:`DEVICE_NAME_GPUS`."""
    key = re.sub(r"[-_]+", " ", name.lower())
    key = re.sub(r"rtx(\d)", r"rtx \1", key)
    for part, gpu_id in DEVICE_NAME_GPUS:
        if part in key:
            return gpu_id
    return None


@lru_cache(maxsize=4)
def _catalog_facts(path: str) -> dict[str, tuple[int | None, str | None]]:
    """gpu id -> (SM count, chip) of the catalog at ``path``, read once per catalog file."""
    from gpudesk.catalog import open_catalog

    return {g.id: (g.sm_count, g.chip) for g in open_catalog(path).gpus()}


def _facts(gpu_id: str) -> tuple[int | None, str | None]:
    from gpudesk.paths import catalog_path

    return _catalog_facts(str(catalog_path())).get(gpu_id, (None, None))


def streaming_multiprocessors(name: str) -> int:
    """The SM count of the device called ``name`` (see :func:`catalog_gpu_id`): the catalog's
    (``gpu_streaming_multiprocessors``, db/gpu_sms.csv); 0 when not known (then terms sized by it are left out). What
    ``torch.cuda.get_device_properties().multi_processor_count`` reports, which vLLM's Triton sampler sizes its
    scratch rows by (:func:`gpudesk.sizing.engines.forward.triton_buffer_bytes`)."""
    gpu_id = catalog_gpu_id(name)
    if gpu_id is None:
        return 0
    count = _facts(gpu_id)[0]
    return int(count) if count else 0


def amd_gfx_target(name: str) -> str | None:
    """The LLVM target (``gfx906``, ``gfx942``...) of the AMD GPU called ``name``, read from its catalog row's chip
    (AMD ROCm "GPU hardware specifications", as db/gpus.csv cites it); None when not an AMD GPU known here."""
    gpu_id = catalog_gpu_id(name)
    chip = _facts(gpu_id)[1] if gpu_id is not None else None
    m = _GFX.search(chip or "")
    return m.group(0).lower() if m else None
