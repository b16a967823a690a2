"""How monitor metrics are shown: labels with units, conversion from the code's units, N/A text.

Code units are bytes, bytes/s, watts, hertz, percent, degrees C (see ``gpudesk.telemetry.core.model``). Memory is
shown in GiB (binary, as the allocators count), PCIe throughput in MB/s (decimal, the unit of dmon's rxpci/txpci
columns, so a log's 41 reads 41 MB/s) or as a share of the link per direction, clocks in MHz.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from gpudesk import i18n
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core import timebase

from gpudesk.units import GIB
from gpudesk.units import format_duration
GB = 1e9
MB = 1e6

# How times of the shown history read (gpudesk.telemetry.core.timebase): this computer's local time (live NVML), as
# printed by dmon -o DT (stored as if UTC, shown in UTC so they read exactly as the log printed them), time of
# day (dmon -o T, no date) or seconds from the first row (no time column): never "1970-01-01" for an undated log.
_basis = timebase.LOCAL


def set_time_basis(basis: str) -> None:
    """Set how :func:`when` formats times (a ``gpudesk.telemetry.core.timebase`` basis)."""
    global _basis
    _basis = basis


def time_basis() -> str:
    return _basis


def set_times_as_printed(flag: bool) -> None:
    """Format dated times in UTC (True: dmon logs and streams) or in this computer's local time (False)."""
    set_time_basis(timebase.PRINTED if flag else timebase.LOCAL)


def times_as_printed() -> bool:
    return _basis != timebase.LOCAL


def when(t: float, pattern: str = "%Y-%m-%d %H:%M:%S") -> str:
    """A time stamp (s) as text, following :func:`set_time_basis`: a date and time, a time of day, or "t+12 s"."""
    return timebase.format_time(t, _basis, pattern)


def fmt_span(t0: float, t1: float) -> str:
    """A span for labels: "2026-11-30 10:00:00 – 10:30:00 (30 min)"; one moment (one sampling round) reads
    "one sampling round at …" instead of a zero-length span."""
    if t1 - t0 <= 0:
        return QCoreApplication.translate("Monitor", "one sampling round at {t}").format(t=when(t0))
    same_day = _basis in (timebase.LOCAL, timebase.PRINTED) and when(t0, "%Y%m%d") == when(t1, "%Y%m%d")
    end = when(t1, "%H:%M:%S") if same_day else when(t1)
    return f"{when(t0)} – {end} ({format_duration(t1 - t0)})"


@dataclass(frozen=True)
class Shown:
    """A metric as displayed: ``value * scale`` in ``unit``, printed with ``decimals``."""

    metric: str
    label: str
    unit: str
    scale: float
    decimals: int


@functools.cache
def shown(metric: str) -> Shown:
    """Display description of a metric (label through Qt translation, unit for the axis); cached, since the
    table and read-out ask for it many times a second."""
    table = {
        m.GPU_UTIL: (QCoreApplication.translate("Monitor", "GPU utilization"), "%", 1.0, 0),
        m.MEM_UTIL: (QCoreApplication.translate("Monitor", "Memory-controller utilization"), "%", 1.0, 0),
        m.MEM_USED: (QCoreApplication.translate("Monitor", "Memory used"), "GiB", 1 / GIB, 2),
        m.MEM_TOTAL: (QCoreApplication.translate("Monitor", "Memory total"), "GiB", 1 / GIB, 1),
        # dmon's own rxpci/txpci unit, decimal
        m.PCIE_RX: (QCoreApplication.translate("Monitor", "PCIe RX"), "MB/s", 1 / MB, 0),
        m.PCIE_TX: (QCoreApplication.translate("Monitor", "PCIe TX"), "MB/s", 1 / MB, 0),
        m.POWER: (QCoreApplication.translate("Monitor", "Power draw"), "W", 1.0, 0),
        m.POWER_LIMIT: (QCoreApplication.translate("Monitor", "Power limit"), "W", 1.0, 0),
        m.GPU_TEMP: (QCoreApplication.translate("Monitor", "GPU temperature"), "°C", 1.0, 0),
        m.MEM_TEMP: (QCoreApplication.translate("Monitor", "Memory temperature"), "°C", 1.0, 0),
        m.SM_CLOCK: (QCoreApplication.translate("Monitor", "SM clock"), "MHz", 1e-6, 0),
        m.MEM_CLOCK: (QCoreApplication.translate("Monitor", "Memory clock"), "MHz", 1e-6, 0),
        m.ENC_UTIL: (QCoreApplication.translate("Monitor", "Encoder utilization"), "%", 1.0, 0),
        m.DEC_UTIL: (QCoreApplication.translate("Monitor", "Decoder utilization"), "%", 1.0, 0),
        # ratios (GPM, DCGM profiling) shown converted to percent, labelled as activity, not utilization
        "sm_active_pct": (QCoreApplication.translate("Monitor", "SM active"), "%", 1.0, 0),
        "tensor_active_pct": (QCoreApplication.translate("Monitor", "Tensor pipe active"), "%", 1.0, 0),
    }
    if metric in table:
        label, unit, scale, decimals = table[metric]
        return Shown(metric, label, unit, scale, decimals)
    info = m.METRICS.get(metric)
    # The model's labels are core msgids (marked N_ in gpudesk.telemetry.core.model): translated by the core catalog.
    return Shown(metric, i18n._(info.label) if info else metric, info.unit if info else "", 1.0, 2)


def fmt(metric: str, value: float | None, *, with_unit: bool = True) -> str:
    """``value`` (code units) as display text, or "N/A" when it is None or not finite."""
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("Monitor", "N/A")
    s = shown(metric)
    text = f"{value * s.scale:.{s.decimals}f}"
    return f"{text} {s.unit}" if with_unit and s.unit else text


GPU_COLORS = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd",
)


def gpu_color(index: int) -> str:
    return GPU_COLORS[index % len(GPU_COLORS)]
