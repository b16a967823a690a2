"""The interface every sample source implements (NVML, dmon file, dmon stream, replay).

A source is driven by its owner's timer (the UI's sampler worker, or the CLI loop) on one thread:

* ``interval_s``: how often the owner should call :meth:`poll` (seconds).
* ``devices()``: :class:`~gpudesk.telemetry.core.model.DeviceInfo` per GPU known so far.
* ``poll()``: never blocks for long; returns the :class:`SampleBatch` es that became available since the last
  call (an NVML source reads one tick; a stream returns the lines that arrived; a replay returns what is due).
* ``finished``: True once no more batches will come (end of a replay or file, or the stream command exited).
* ``close()``: release NVML, kill the subprocess; safe to call twice.
* ``kind`` (a :class:`SourceKind`) and ``describe()`` name the source for the session record ("nvml", ...).
"""

from __future__ import annotations

from enum import Enum
from typing import Protocol, runtime_checkable

from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch


class SourceKind(str, Enum):
    """What the Monitor tab (and a session record) shows: the closed set of sources. A ``str`` enum, so a value
    stored as text in a session ("nvml") compares equal to its member."""

    NONE = ""
    """Nothing shown yet."""
    NVML = "nvml"
    """Live NVML sampling of this machine's GPUs."""
    AMDSMI = "amdsmi"
    """Live AMD SMI sampling."""
    DMON_STREAM = "dmon-stream"
    """A running command that prints ``nvidia-smi dmon`` output (e.g. over ssh)."""
    DCGMI_STREAM = "dcgmi-stream"
    """A running command that prints ``dcgmi dmon`` output."""
    DMON_FILE = "dmon-file"
    """A saved dmon / dcgmi / nvidia-smi CSV log, opened for viewing (not yet in the store)."""
    RECORDING = "recording"
    """A recording from the user's store."""
    REPLAY = "replay"
    """A recording or log played back in time."""
    DEMO = "demo"
    """The bundled demo capture."""
    FLEET = "fleet"
    """Several machines' exporters side by side."""
    FLEET_GPU = "fleet-gpu"
    """One GPU of a fleet, opened for its history."""

    @property
    def live(self) -> bool:
        """A source that samples the GPUs of this machine now (its times are this machine's clock)."""
        return self in (SourceKind.NVML, SourceKind.AMDSMI)

    @property
    def from_log_text(self) -> bool:
        """Its times are as a log printed them (node-local, no time zone), not this machine's clock."""
        return self in (SourceKind.DMON_STREAM, SourceKind.DCGMI_STREAM, SourceKind.DMON_FILE, SourceKind.DEMO)


@runtime_checkable
class SampleSource(Protocol):
    interval_s: float

    @property
    def kind(self) -> str:
        """The :class:`SourceKind` value of this source (a ``str``: sources outside the set may add their own)."""
        ...

    def devices(self) -> list[DeviceInfo]: ...

    def poll(self) -> list[SampleBatch]: ...

    @property
    def finished(self) -> bool: ...

    def describe(self) -> str: ...

    def close(self) -> None: ...
