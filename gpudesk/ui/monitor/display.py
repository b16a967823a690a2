"""How monitor metrics are shown: labels with units, conversion from the code's units, N/A text.

Code units are bytes, bytes/s, watts, hertz, percent, degrees C (see ``gpudesk.telemetry.model``). Memory is
shown in GiB (binary, as the allocators count), PCIe throughput in GB/s (decimal, as datasheets count) or as a
share of the link per direction, clocks in MHz.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from gpudesk.telemetry import model as m

GIB = 1024**3
GB = 1e9


def tr(text: str) -> str:
    return QCoreApplication.translate("Monitor", text)


@dataclass(frozen=True)
class Shown:
    """A metric as displayed: ``value * scale`` in ``unit``, printed with ``decimals``."""

    metric: str
    label: str
    unit: str
    scale: float
    decimals: int


def shown(metric: str) -> Shown:
    """Display description of a metric (label through Qt translation, unit for the axis)."""
    table = {
        m.GPU_UTIL: (tr("GPU utilization"), "%", 1.0, 0),
        m.MEM_UTIL: (tr("Memory-controller utilization"), "%", 1.0, 0),
        m.MEM_USED: (tr("Memory used"), "GiB", 1 / GIB, 2),
        m.MEM_TOTAL: (tr("Memory total"), "GiB", 1 / GIB, 1),
        m.PCIE_RX: (tr("PCIe RX"), "GB/s", 1 / GB, 2),
        m.PCIE_TX: (tr("PCIe TX"), "GB/s", 1 / GB, 2),
        m.POWER: (tr("Power draw"), "W", 1.0, 0),
        m.POWER_LIMIT: (tr("Power limit"), "W", 1.0, 0),
        m.GPU_TEMP: (tr("GPU temperature"), "°C", 1.0, 0),
        m.MEM_TEMP: (tr("Memory temperature"), "°C", 1.0, 0),
        m.SM_CLOCK: (tr("SM clock"), "MHz", 1e-6, 0),
        m.MEM_CLOCK: (tr("Memory clock"), "MHz", 1e-6, 0),
        m.ENC_UTIL: (tr("Encoder utilization"), "%", 1.0, 0),
        m.DEC_UTIL: (tr("Decoder utilization"), "%", 1.0, 0),
    }
    if metric in table:
        label, unit, scale, decimals = table[metric]
        return Shown(metric, label, unit, scale, decimals)
    info = m.METRICS.get(metric)
    return Shown(metric, info.label if info else metric, info.unit if info else "", 1.0, 2)


def fmt(metric: str, value: float | None, *, with_unit: bool = True) -> str:
    """``value`` (code units) as display text, or "N/A" when it is None or not finite."""
    if value is None or not math.isfinite(value):
        return tr("N/A")
    s = shown(metric)
    text = f"{value * s.scale:.{s.decimals}f}"
    return f"{text} {s.unit}" if with_unit and s.unit else text


def fmt_share(share: float | None) -> str:
    """A PCIe share of the link (0..1) as percent, or N/A."""
    if share is None or not math.isfinite(share):
        return tr("N/A")
    return f"{share * 100:.0f} %"


def link_text(gen: int | None, width: int | None, source: str | None) -> str:
    """"Gen4 x16 (from NVML)" / "Gen4 x16 (assumed: catalog a100-80gb-pcie)" / "link unknown"."""
    if gen is None or width is None:
        return tr("link unknown")
    base = f"Gen{gen} x{width}"
    if source and source.startswith("catalog:"):
        return tr("{link}, assumed from {model}").format(link=base, model=source.split(":", 1)[1])
    if source == "nvml":
        return tr("{link}, max of this GPU and slot (NVML)").format(link=base)
    return base


def fmt_duration(seconds: float) -> str:
    """Compact duration: 45 s, 12 min, 3.5 h, 2.1 d."""
    if seconds < 120:
        return tr("{n} s").format(n=f"{seconds:.0f}")
    if seconds < 7200:
        return tr("{n} min").format(n=f"{seconds / 60:.0f}")
    if seconds < 172800:
        return tr("{n} h").format(n=f"{seconds / 3600:.1f}")
    return tr("{n} d").format(n=f"{seconds / 86400:.1f}")


GPU_COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd",
)


def gpu_color(index: int) -> str:
    return GPU_COLORS[index % len(GPU_COLORS)]
