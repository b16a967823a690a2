"""Replay a recording (a :class:`History`) as a live source, at real speed or faster.

``poll()`` returns the batches whose recorded time has come: recorded offset <= (now - start) x speed. Changing
``speed`` keeps the current position. ``seek(t)`` jumps to a recorded time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch, History, TelemetryError
from gpudesk.telemetry.core.source import SourceKind


class ReplaySource:
    """A :class:`~gpudesk.telemetry.core.source.SampleSource` over a recorded frame.

    Args:
        frame: the recording.
        devices: DeviceInfo per GPU (from the session), or None to derive bare ones from the frame.
        speed: 1.0 = real time, 60.0 = a minute per second; must be positive.
        clock: monotonic time source in seconds (tests pass a fake).

    Raises:
        TelemetryError: empty frame or a speed that is not positive.
    """

    kind = SourceKind.REPLAY

    def __init__(self, frame: History, devices: Iterable[DeviceInfo] | None = None, *, speed: float = 1.0,
                 clock: Callable[[], float] = time.monotonic, max_batches_per_poll: int = 10_000):
        if not len(frame):
            raise TelemetryError(_("The recording has no samples to replay."))
        self.frame = frame
        self._devices = list(devices) if devices is not None else [DeviceInfo(g) for g in frame.gpus]
        self._clock = clock
        self._times = frame.times
        self._pos = 0  # next time index to emit
        self._speed = 1.0
        self.speed = speed
        self._origin_t = float(self._times[0])
        self._origin_clock = clock()
        self.max_batches_per_poll = max_batches_per_poll
        step = np.diff(self._times)
        self.interval_s = float(np.median(step)) if step.size else 1.0

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if not value or value <= 0:
            raise TelemetryError(_("Replay speed must be positive, got {value}.").format(value=value), field="speed")
        if hasattr(self, "_origin_clock"):
            self._origin_t = self.position
            self._origin_clock = self._clock()
        self._speed = float(value)

    @property
    def position(self) -> float:
        """Recorded time (epoch s) the replay has reached."""
        return self._origin_t + (self._clock() - self._origin_clock) * self._speed

    def seek(self, t: float) -> None:
        self._origin_t = float(t)
        self._origin_clock = self._clock()
        self._pos = int(np.searchsorted(self._times, t, side="left"))

    def devices(self) -> list[DeviceInfo]:
        return list(self._devices)

    @property
    def finished(self) -> bool:
        return self._pos >= self._times.size

    def describe(self) -> str:
        return f"Replay at {self._speed:g}x"

    def close(self) -> None:
        self._pos = int(self._times.size)

    def poll(self) -> list[SampleBatch]:
        if self.finished:
            return []
        end = int(np.searchsorted(self._times, self.position, side="right"))
        end = min(end, self._pos + self.max_batches_per_poll)
        if end <= self._pos:
            return []
        part = History(self._times[self._pos:end], self.frame.gpus,
                       {k: v[self._pos:end] for k, v in self.frame.columns.items()}, self.frame.reasons)
        self._pos = end
        batches = part.to_batches()
        uuids = {d.index: d.uuid for d in self._devices}
        for b in batches:
            b.source = self.kind
            for s in b.samples:
                s.gpu_uuid = uuids.get(s.gpu_index)
        return batches
