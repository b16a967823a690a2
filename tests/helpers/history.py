"""A HistoryBuffer filled with random utilization (seeded), GPU 1 N/A for samples 100-399: shared by the ring
buffer tests and the Monitor view tests."""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer


def filled(n: int, gpus: int = 2, seed: int = 0) -> tuple[HistoryBuffer, np.ndarray]:
    rng = np.random.default_rng(seed)
    buf = HistoryBuffer(gpus, [m.GPU_UTIL], capacity=n)
    values = (rng.random((n, gpus)) * 100).astype(np.float32)
    values[100:400, 1] = np.nan
    buf.load(1.7e9 + np.arange(n, dtype=float), {m.GPU_UTIL: values})
    return buf, values
