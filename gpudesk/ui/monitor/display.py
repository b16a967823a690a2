"""How monitor metrics are shown: labels with units, conversion from the code's units, N/A text.

Code units are bytes, bytes/s, watts, hertz, percent, degrees C (see ``gpudesk.telemetry.model``). Memory is
shown in GiB (binary, as the allocators count), PCIe throughput in GB/s (decimal, as datasheets count) or as a
share of the link per direction, clocks in MHz.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from gpudesk.telemetry import model as m

GIB = 1024**3
GB = 1e9

# dmon logs print the node's local time without a zone; the telemetry layer stores those stamps as if UTC.
# While such a history is shown, times are formatted in UTC so they read exactly as the log printed them.
_times_as_printed = False


def set_times_as_printed(flag: bool) -> None:
    """Format times in UTC (True: dmon logs and streams) or in this computer's local time (False)."""
    global _times_as_printed
    _times_as_printed = bool(flag)


def times_as_printed() -> bool:
    return _times_as_printed


def when(t: float, pattern: str = "%Y-%m-%d %H:%M:%S") -> str:
    """A time stamp (s since the epoch) as text, following :func:`set_times_as_printed`."""
    if _times_as_printed:
        return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime(pattern)
    return _dt.datetime.fromtimestamp(t).strftime(pattern)


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


@functools.lru_cache(maxsize=None)
def shown(metric: str) -> Shown:
    """Display description of a metric (label through Qt translation, unit for the axis); cached, since the
    table and read-out ask for it many times a second."""
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
