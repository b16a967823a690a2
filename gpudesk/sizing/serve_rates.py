"""The rates a serving step runs at on one GPU and link, each from the catalog or a cited measurement.

- Matmul efficiency: the catalog's ``matmul_efficiency`` (measured maximum achievable matmul FLOPS / datasheet
  peak, Stas Bekman, ML Engineering, compute/accelerator "Maximum Achievable Matmul FLOPS"); where the catalog
  has none, the vendor's lowest measured figure of that table (NVIDIA 0.75, :data:`gpudesk.sizing.time.
  DEFAULT_MATMUL_EFFICIENCY`; AMD 0.514, MI300X; Intel 0.677, Gaudi 3).
- HBM efficiency: the share of the datasheet bandwidth a memory-bound kernel streams (module constants below).
- Per-layer latency: the fixed time of one decoder layer's kernels whatever the batch.
- All-reduce latency (alpha): the fixed time of one small all-reduce on the link.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU, Link
from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.time import DEFAULT_LINK_EFFICIENCY, DEFAULT_MATMUL_EFFICIENCY

MAMF_SOURCE = ("Stas Bekman, ML Engineering, compute/accelerator, Maximum Achievable Matmul FLOPS table "
               "(https://github.com/stas00/ml-engineering/tree/master/compute/accelerator)")
# Vendor fallbacks: the lowest measured MAMF / peak of each vendor in the table above.
VENDOR_MATMUL_EFFICIENCY = {"NVIDIA": DEFAULT_MATMUL_EFFICIENCY, "AMD": 0.514, "Intel": 0.677}
HBM_EFFICIENCY = 0.80
HBM_SOURCE = "gpudesk default: decode streams about 80 % of the datasheet bandwidth (catalog.md 6)"
LAYER_LATENCY_GRAPHS_S = 15e-6
LAYER_LATENCY_EAGER_S = 50e-6
LAYER_SOURCE = "about 10 kernels per decoder layer (norm, QKV, rope, attention, O, norm, gate-up, act, down, add)"
ALLREDUCE_ALPHA_S = {"nvlink": 8e-6, "pcie": 25e-6}
ALLREDUCE_SOURCE = "NCCL small-message all-reduce latency (nccl-tests)"
_PEAK_FIELD = {"bf16": "bf16_dense_tflops", "fp8": "fp8_dense_tflops", "fp4": "fp4_dense_tflops"}


def matmul_efficiency(gpu: GPU) -> tuple[float, str]:
    """(share of the dense peak matmuls reach, source): the catalog's measured figure, else the vendor's."""
    if gpu.matmul_efficiency:
        return float(gpu.matmul_efficiency), gpu.matmul_efficiency_source or MAMF_SOURCE
    value = VENDOR_MATMUL_EFFICIENCY.get(gpu.vendor, DEFAULT_MATMUL_EFFICIENCY)
    return value, _("{vendor} default (no measured figure for this GPU): {source}").format(
        vendor=gpu.vendor, source=MAMF_SOURCE)


def compute_peak_flops(gpu: GPU, precision: str) -> tuple[float, str]:
    """(dense peak FLOP/s at ``precision`` or the nearest slower one the GPU has, note).

    Raises:
        SizingError: the catalog has no dense 16-bit rate for the GPU.
    """
    for name in (precision, "fp8", "bf16") if precision == "fp4" else (precision, "bf16"):
        value = getattr(gpu, _PEAK_FIELD[name], None) or (gpu.fp16_dense_tflops if name == "bf16" else None)
        if value:
            return float(value) * 1e12, name.upper()
    raise SizingError("gpu", _("no dense 16-bit rate for {gpu} in the catalog.").format(gpu=gpu.name))


def hbm_efficiency(gpu: GPU) -> tuple[float, str]:
    """(share of the datasheet memory bandwidth a decode step reaches, source)."""
    return HBM_EFFICIENCY, HBM_SOURCE


def per_layer_latency_s(gpu: GPU, cuda_graphs: bool) -> tuple[float, str]:
    """(fixed seconds per decoder layer per step, source)."""
    return (LAYER_LATENCY_GRAPHS_S if cuda_graphs else LAYER_LATENCY_EAGER_S), LAYER_SOURCE


def allreduce_latency_s(link: Link) -> tuple[float, str]:
    """(fixed seconds of one small all-reduce on ``link``, source)."""
    return ALLREDUCE_ALPHA_S.get(link.kind, ALLREDUCE_ALPHA_S["pcie"]), ALLREDUCE_SOURCE


def link_efficiency() -> tuple[float, str]:
    """(share of the link's per-direction bandwidth a ring all-reduce reaches, source)."""
    return DEFAULT_LINK_EFFICIENCY, "Stas Bekman, ML Engineering, network: 80-88 % measured (gpudesk.sizing.time)"
