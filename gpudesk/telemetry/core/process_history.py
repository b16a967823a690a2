"""Per-process GPU memory over time, from successive process listings (the window lists them every few seconds).

Keyed by (GPU index, PID): a PID reused by a new process after the old one ended is told apart by the command
line (a change starts a new history). Bounded: at most ``max_points`` readings per process and ``max_processes``
processes (the longest-silent are dropped first). The rate is a least-squares slope over the kept readings, so a
steady climb (a leak, a growing cache) shows as bytes per minute.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class ProcessMemory:
    command: str | None
    points: deque[tuple[float, float]] = field(default_factory=deque)

    @property
    def peak_bytes(self) -> float | None:
        return max(v for _t, v in self.points) if self.points else None

    @property
    def first_t(self) -> float | None:
        return self.points[0][0] if self.points else None

    def rate_bytes_per_s(self) -> float | None:
        """Least-squares slope of memory over the kept readings; None with fewer than 3 readings or no time span."""
        if len(self.points) < 3:
            return None
        pts = np.asarray(self.points, dtype=np.float64)
        if pts[-1, 0] - pts[0, 0] <= 0:
            return None
        return float(np.polyfit(pts[:, 0] - pts[0, 0], pts[:, 1], 1)[0])


class ProcessHistory:
    def __init__(self, max_points: int = 720, max_processes: int = 512) -> None:
        self.max_points = max_points
        self.max_processes = max_processes
        self._by_key: dict[tuple[int, int], ProcessMemory] = {}

    def add(self, t: float, processes: Iterable[Any]) -> None:
        """Add one listing's readings (objects with gpu_index, pid, cmdline, used_memory_bytes) taken at ``t``."""
        for p in processes:
            if p.used_memory_bytes is None:
                continue  # N/A is not 0: no reading is kept
            key = (int(p.gpu_index), int(p.pid))
            hist = self._by_key.get(key)
            if hist is None or (p.cmdline and hist.command and p.cmdline != hist.command):
                hist = self._by_key[key] = ProcessMemory(p.cmdline, deque(maxlen=self.max_points))
            hist.points.append((float(t), float(p.used_memory_bytes)))
        if len(self._by_key) > self.max_processes:
            oldest = sorted(self._by_key, key=lambda k: self._by_key[k].points[-1][0])
            for k in oldest[: len(self._by_key) - self.max_processes]:
                del self._by_key[k]

    def get(self, gpu_index: int, pid: int) -> ProcessMemory | None:
        return self._by_key.get((int(gpu_index), int(pid)))
