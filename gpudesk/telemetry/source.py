"""The interface every sample source implements (NVML, dmon file, dmon stream, replay).

A source is driven by its owner's timer (the UI's sampler worker, or the CLI loop) on one thread:

* ``interval_s``: how often the owner should call :meth:`poll` (seconds).
* ``devices()``: :class:`~gpudesk.telemetry.model.DeviceInfo` per GPU known so far.
* ``poll()``: never blocks for long; returns the :class:`SampleBatch` es that became available since the last
  call (an NVML source reads one tick; a stream returns the lines that arrived; a replay returns what is due).
* ``finished``: True once no more batches will come (end of a replay or file, or the stream command exited).
* ``close()``: release NVML, kill the subprocess; safe to call twice.
* ``kind`` and ``describe()`` name the source for the session record ("nvml", "dmon-file", ...).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gpudesk.telemetry.model import DeviceInfo, SampleBatch


@runtime_checkable
class SampleSource(Protocol):
    kind: str
    interval_s: float

    def devices(self) -> list[DeviceInfo]: ...

    def poll(self) -> list[SampleBatch]: ...

    @property
    def finished(self) -> bool: ...

    def describe(self) -> str: ...

    def close(self) -> None: ...
