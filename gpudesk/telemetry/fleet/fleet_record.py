"""Save a fleet window as a recording in the user store, so export, replay and the report work on fleet data.

Each GPU of the window becomes one GPU of the session: its index in the session is its fleet position, its name
says host, GPU index, MIG instance and model (``node07 GPU 3 / MIG 7 (NVIDIA H100 80GB HBM3)``), its UUID is kept.
"""

from __future__ import annotations

from gpudesk.telemetry.fleet.fleet import FleetHistory
from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.telemetry.recording.recorder import Recorder


def fleet_devices(history: FleetHistory) -> list[DeviceInfo]:
    out = []
    for pos, key in enumerate(history.keys):
        name = key.label + (f" ({key.model_name})" if key.model_name else "")
        if key.job_name:
            name += f" [{key.job_name}]"
        mig = "enabled" if key.mig_instance is not None else None
        out.append(DeviceInfo(pos, uuid=key.uuid, name=name, mig_mode=mig))
    return out


def record_history(history: FleetHistory, *, source: str, name: str | None = None, notes: str = "") -> tuple[int, int]:
    """Write the window as one finished recording; returns (session id, rows written)."""
    recorder = Recorder()
    try:
        session_id = recorder.start(fleet_devices(history), source=source, interval_s=history.step_s or None,
                                    name=name, notes=notes)
        rows = recorder.write_frame(history.frame)
        recorder.stop()
    finally:
        recorder.close()
    return session_id, rows
