"""Host CPU load on every GPU sample of a local source, so the starvation rules can tell a saturated host CPU.

:class:`WithHostCpu` wraps any :class:`~gpudesk.telemetry.core.source.SampleSource` that samples *this* machine (NVML)
and adds ``host_cpu_util_pct`` (psutil.cpu_percent over all cores since the previous poll, non-blocking:
https://psutil.readthedocs.io/en/latest/#psutil.cpu_percent) to every sample of each batch it returns. A remote
source (a dmon stream over ssh, a fleet scrape) must not be wrapped: the local CPU says nothing about that host.
"""

from __future__ import annotations

from collections.abc import Callable

import psutil

from gpudesk.i18n import _
from gpudesk.telemetry.core.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch
from gpudesk.telemetry.core.source import SampleSource


def _cpu_percent() -> float:
    return float(psutil.cpu_percent(interval=None))


class WithHostCpu:
    """A local source plus the host CPU load (percent of all cores) on each sample."""

    def __init__(self, inner: SampleSource, cpu_percent: Callable[[], float] = _cpu_percent) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.interval_s = inner.interval_s
        self._cpu_percent = cpu_percent
        self._cpu_percent()  # the first call only sets psutil's reference point

    def devices(self) -> list[DeviceInfo]:
        return self.inner.devices()

    def poll(self) -> list[SampleBatch]:
        batches = self.inner.poll()
        if not batches:
            return batches
        try:
            load: float | None = self._cpu_percent()
            why = ""
        except (OSError, RuntimeError, psutil.Error) as exc:  # psutil failing must not stop GPU sampling
            load, why = None, f"psutil: {exc}"
        for batch in batches:
            for sample in batch.samples:
                sample.values[HOST_CPU_UTIL] = load
                if load is None:
                    sample.reasons[HOST_CPU_UTIL] = why
        return batches

    @property
    def finished(self) -> bool:
        return self.inner.finished

    def describe(self) -> str:
        return _("{source} + host CPU (psutil)").format(source=self.inner.describe())

    def close(self) -> None:
        self.inner.close()
