"""What the monitor tab can show and how each is opened: live NVML, a dmon log or stream (with the PCIe link
assumed from a catalog GPU model), a saved recording, the bundled demo. Functions here run on worker
threads (they may block); they return plain data for the tab.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpudesk import paths
from gpudesk.telemetry import model as m
from gpudesk.telemetry.model import DeviceInfo, SeriesFrame
from gpudesk.ui.monitor.frames import frame_to_buffer
from gpudesk.ui.monitor.ring_buffer import HistoryBuffer

# Metrics the tab keeps a full history of (plots, span statistics, heat map). Others are kept as latest only.
HISTORY_METRICS = (m.GPU_UTIL, m.MEM_UTIL, m.MEM_USED, m.PCIE_RX, m.PCIE_TX, m.POWER, m.GPU_TEMP, m.SM_CLOCK,
                   m.MEM_CLOCK)


@dataclass
class Loaded:
    """A finished history ready to show: the buffer, its devices, a title, and notes for the user."""

    buffer: HistoryBuffer
    devices: list[DeviceInfo]
    title: str
    frame: SeriesFrame
    notes: list[str] = field(default_factory=list)
    kind: str = "file"
    session_id: int | None = None


def assumed_devices(frame: SeriesFrame, gpu_name: str | None, gen: int | None, width: int | None,
                    link_source: str | None) -> list[DeviceInfo]:
    """One DeviceInfo per GPU index in a dmon frame, with the PCIe link the user picked (an assumption)."""
    return [
        DeviceInfo(index=g, name=gpu_name, pcie_gen_max=gen, pcie_width_max_lanes=width,
                   pcie_link_source=link_source if gen and width else None)
        for g in (frame.gpus or [0])
    ]


def load_dmon_file(path: str, gpu_name: str | None, gen: int | None, width: int | None,
                   link_source: str | None, interval_s: float = 1.0) -> Loaded:
    """Parse a dmon log into a buffer (background thread).

    Raises:
        DmonError: unreadable or not dmon output; also when dmon reported it cannot run on that GPU.
    """
    from gpudesk.telemetry.dmon import DmonError, read_dmon_file

    log = read_dmon_file(path, interval_s=interval_s)
    if log.unsupported:
        raise DmonError(
            f"{Path(path).name}: nvidia-smi dmon reported that it cannot run on that GPU or driver "
            f"({'; '.join(log.errors) or 'Not supported on the device(s)'}). There are no samples to show."
        )
    if log.empty:
        raise DmonError(f"{Path(path).name} holds no dmon samples. " + " ".join(log.notes))
    devices = assumed_devices(log.frame, gpu_name, gen, width, link_source)
    buffer = frame_to_buffer(log.frame, devices, HISTORY_METRICS)
    notes = list(log.notes)
    if not log.has_time:
        notes.append(f"The log has no time stamps (-o DT); rows were placed {interval_s:g} s apart.")
    return Loaded(buffer, devices, f"dmon log {Path(path).name}", log.frame, notes, "dmon-file")


def load_recording(session_id: int) -> Loaded:
    """Read a saved recording from the user store (opens its own connection in this thread)."""
    from gpudesk.store import open_store
    from gpudesk.store import recordings

    db = open_store()
    try:
        session = recordings.get_session(db, session_id)
        frame = recordings.read_frame(db, session_id)
        devices = recordings.session_devices(db, session_id)
    finally:
        db.conn.close()
    if not devices:
        devices = [DeviceInfo(index=g) for g in (frame.gpus or [0])]
    buffer = frame_to_buffer(frame, devices, HISTORY_METRICS)
    name = getattr(session, "name", None) or f"#{session_id}"
    return Loaded(buffer, devices, f"recording {name}", frame, list(frame.notes), "recording", session_id)


def demo_path() -> Path | None:
    """The bundled demo capture (``resources/demo/``), or None when this installation has none."""
    folder = paths.resources_dir() / "demo"
    if not folder.is_dir():
        return None
    for pattern in ("*.dmon", "*.log", "*.txt", "*.csv", "*.jsonl"):
        for path in sorted(folder.glob(pattern)):
            if path.name.lower() not in ("readme.txt",):
                return path
    return None


def demo_description() -> str | None:
    """Where the demo capture came from (its README), or None when there is no demo."""
    path = demo_path()
    if path is None:
        return None
    for name in ("README.md", "README.txt", "SOURCE.md"):
        readme = path.parent / name
        if readme.is_file():
            text = readme.read_text(encoding="utf-8", errors="replace").strip()
            return text[:600]
    return f"Demo capture: {path.name}"


def load_demo() -> Loaded:
    """Parse the bundled demo capture (background thread).

    Raises:
        DmonError: when the demo file cannot be read.
        FileNotFoundError: when no demo is bundled.
    """
    path = demo_path()
    if path is None:
        raise FileNotFoundError("No demo capture is bundled (resources/demo/ is missing or empty).")
    loaded = load_dmon_file(str(path), None, None, None, None)
    loaded.title = f"demo {path.name}"
    loaded.kind = "demo"
    return loaded


class AssumedLinkSource:
    """Wraps a dmon stream source so its devices carry the PCIe link the user picked (an assumption)."""

    def __init__(self, inner, gpu_name: str | None, gen: int | None, width: int | None, link_source: str | None):
        self.inner = inner
        self.kind = inner.kind
        self.interval_s = inner.interval_s
        self._name, self._gen, self._width, self._link_source = gpu_name, gen, width, link_source

    def devices(self) -> list[DeviceInfo]:
        out = []
        for d in self.inner.devices():
            if d.pcie_gen_max is None and self._gen and self._width:
                d = DeviceInfo(index=d.index, uuid=d.uuid, name=d.name or self._name, pcie_gen_max=self._gen,
                               pcie_width_max_lanes=self._width, pcie_link_source=self._link_source,
                               lost_reason=d.lost_reason, reasons=dict(d.reasons))
            out.append(d)
        return out

    def poll(self):
        return self.inner.poll()

    @property
    def finished(self) -> bool:
        return self.inner.finished

    def describe(self) -> str:
        return self.inner.describe()

    def close(self) -> None:
        self.inner.close()
