"""What the monitor tab can show and how each is opened: live NVML, a dmon log or stream (with the PCIe link
assumed from a catalog GPU model), a saved recording, the bundled demo. Functions here run on worker
threads (they may block); they return plain data for the tab.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.core.model import DeviceInfo, History
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.telemetry.core.source import SourceKind

# Metrics the tab keeps a full history of (plots, span statistics, heat map, and the rules over a live or
# replayed span: the throttling rule reads NVML clock-event reasons or dmon pviol/tviol). Others are kept as
# latest only. A loaded file or recording keeps every metric it has in its buffer (HistoryBuffer.of) and is analysed
# from it, every metric included.
HISTORY_METRICS = (m.GPU_UTIL, m.MEM_UTIL, m.MEM_USED, m.PCIE_RX, m.PCIE_TX, m.POWER, m.GPU_TEMP, m.SM_CLOCK,
                   m.MEM_CLOCK, m.CLOCK_EVENTS, m.POWER_VIOLATION, m.THERMAL_VIOLATION, HOST_CPU_UTIL)
# The GPM panels' metrics (NVML GPM or DCGM profiling fields): kept only for a source that has them, so a source
# without them keeps the 72 h of 8 GPUs within the history's byte budget (ring_buffer.capacity_for).
GPM_HISTORY_METRICS = (df.SM_ACTIVE, df.SM_OCCUPANCY, df.TENSOR_ACTIVE, df.DRAM_ACTIVE)


def history_metrics(present: Iterable[str] = ()) -> tuple[str, ...]:
    """The metrics to keep a history of: :data:`HISTORY_METRICS`, plus the GPM ones among ``present``."""
    have = set(present)
    return HISTORY_METRICS + tuple(name for name in GPM_HISTORY_METRICS if name in have)


def frame_history_metrics(frame: History) -> tuple[str, ...]:
    """:func:`history_metrics` for a loaded frame: the GPM metrics it holds a readable value of."""
    return history_metrics(name for name in GPM_HISTORY_METRICS
                           if (col := frame.columns.get(name)) is not None and bool(np.isfinite(col).any()))


@dataclass
class Loaded:
    """A finished history ready to show: the buffer (the one copy of its samples, every metric the source had),
    its devices, a title, and notes for the user."""

    buffer: HistoryBuffer
    devices: list[DeviceInfo]
    title: str
    notes: list[str] = field(default_factory=list)
    kind: SourceKind = SourceKind.DMON_FILE
    session_id: int | None = None
    gpu: Any = None  # the catalog GPU assumed for a dmon log
    basis: str | None = None  # how its times read (gpudesk.telemetry.core.timebase); None = from the stamps


def load_dmon_file(path: str, gpu, gen: int | None, width: int | None, interval_s: float = 1.0) -> Loaded:
    """Open a log of any format gpudesk reads (dmon, dcgmi dmon, nvidia-smi CSV, a recording's CSV export) through
    the core's one path, :func:`gpudesk.telemetry.formats.dmon_import.frame_and_devices_from_file` (the CLI's too), and put
    it into a buffer (background thread). ``gen`` and ``width`` are the PCIe link the user confirmed.

    Raises:
        DmonError: no samples, or dmon reported it cannot run on that GPU (with the remedy).
        LogFormatError: unreadable, or of a known format that cannot be parsed.
    """
    from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_file, log_basis

    frame, devices, log = frame_and_devices_from_file(path, gpu, interval_s, pcie_gen=gen, pcie_width=width)
    buffer = HistoryBuffer.of(frame, frame_history_metrics(frame), gpus=[d.index for d in devices])
    # log.notes already say how rows without time stamps were placed (once)
    return Loaded(buffer, devices, f"{log.format.value} log {Path(path).name}", list(log.notes), SourceKind.DMON_FILE,
                  gpu=gpu, basis=log_basis(log))


def load_recording(session_id: int) -> Loaded:
    """Read a saved recording from the user store (opens its own connection in this thread)."""
    from gpudesk.store import open_store, recordings
    from gpudesk.telemetry.recording.recorder import load_frame, session_devices

    db = open_store()
    try:
        session = recordings.get_session(db, session_id)
        frame = load_frame(db, session_id)
        devices = session_devices(db, session_id)
    finally:
        db.close()
    if not devices:
        devices = [DeviceInfo(index=g) for g in (frame.gpus or [0])]
    buffer = HistoryBuffer.of(frame, frame_history_metrics(frame), gpus=[d.index for d in devices])
    name = getattr(session, "name", None) or f"#{session_id}"
    return Loaded(buffer, devices, f"recording {name}", list(frame.notes), SourceKind.RECORDING, session_id)


def demo_path() -> Path | None:
    """The bundled demo capture, or None when this installation has none."""
    from gpudesk.telemetry.formats.dmon_import import demo_path as core_demo_path

    path = core_demo_path()
    return path if path.is_file() else None


def demo_description() -> str | None:
    """One sentence for users: what the bundled demo is and where it comes from; None when there is no demo.
    (Developer notes about it stay in resources/demo/SOURCE.md.)"""
    from gpudesk.telemetry.formats.dmon_import import DEMO_GPUS, DEMO_ROUNDS

    if demo_path() is None:
        return None
    text = QCoreApplication.translate(
        "Monitor", "The demo is a generated example, not a real capture: {minutes} minutes of a {gpus}-GPU training "
        "run in nvidia-smi dmon format, with an input stall and one GPU that overheats.")
    return text.format(gpus=DEMO_GPUS, minutes=f"{DEMO_ROUNDS / 60:g}")


def load_demo() -> Loaded:
    """Parse the bundled demo capture (background thread).

    Raises:
        DmonError: the demo is missing or unreadable.
    """
    from gpudesk.telemetry.formats.dmon_import import load_demo as core_load_demo

    from gpudesk.telemetry.formats.dmon_import import demo_note, log_basis

    frame, devices, log = core_load_demo()
    buffer = HistoryBuffer.of(frame, frame_history_metrics(frame), gpus=[d.index for d in devices])
    # The title says what the demo is; the core's note is left out in any language (a test of its English "Demo:"
    # prefix let the translated note through: the zh_CN banner said it twice).
    note = demo_note(len(frame), len(frame.gpus))
    notes = [n for n in log.notes if n != note]
    return Loaded(buffer, devices, demo_description() or QCoreApplication.translate("Monitor", "Demo"), notes,
                  SourceKind.DEMO, basis=log_basis(log))


class AssumedLinkSource:
    """Wraps a dmon stream source so its devices carry the PCIe link the user picked (an assumption)."""

    def __init__(self, inner, gpu, gen: int | None, width: int | None):
        self.inner = inner
        self.kind = inner.kind
        self.interval_s = inner.interval_s
        self._gpu, self._gen, self._width = gpu, gen, width

    def devices(self) -> list[DeviceInfo]:
        found = self.inner.devices()
        if not found:
            return []
        from gpudesk.telemetry.formats.dmon_import import devices_for_model

        return devices_for_model([d.index for d in found], self._gpu, self._gen, self._width)

    def poll(self):
        return self.inner.poll()

    @property
    def finished(self) -> bool:
        return self.inner.finished

    def describe(self) -> str:
        return self.inner.describe()

    def end_problem(self) -> str | None:
        return self.inner.end_problem()

    def close(self) -> None:
        self.inner.close()
