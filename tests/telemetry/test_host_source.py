"""Host CPU load added to a local source's samples; a psutil failure leaves N/A with its reason."""

from __future__ import annotations

import psutil

from gpudesk.telemetry.core.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.sources.host_source import WithHostCpu
from gpudesk.telemetry.core.model import DeviceInfo, Sample, SampleBatch, History


class ListSource:
    kind = "test"
    interval_s = 1.0

    def __init__(self, batches: list[SampleBatch]) -> None:
        self.batches = batches
        self.closed = False

    def devices(self) -> list[DeviceInfo]:
        return [DeviceInfo(0), DeviceInfo(1)]

    def poll(self) -> list[SampleBatch]:
        out, self.batches = self.batches[:1], self.batches[1:]
        return out

    @property
    def finished(self) -> bool:
        return not self.batches

    def describe(self) -> str:
        return "list"

    def close(self) -> None:
        self.closed = True


def batch(t: float) -> SampleBatch:
    return SampleBatch(t, [Sample(t, g, None, {"gpu_util_pct": 50.0}) for g in (0, 1)])


def test_each_sample_gets_the_host_load_and_a_frame_carries_it():
    loads = iter([0.0, 97.5, 12.0])
    src = WithHostCpu(ListSource([batch(1.0), batch(2.0)]), cpu_percent=lambda: next(loads))
    got = src.poll() + src.poll()
    assert [s.values[HOST_CPU_UTIL] for b in got for s in b.samples] == [97.5, 97.5, 12.0, 12.0]
    frame = History.from_batches(got)
    assert frame.columns[HOST_CPU_UTIL].tolist() == [[97.5, 97.5], [12.0, 12.0]]  # two rounds of two GPUs
    assert src.finished and "host CPU" in src.describe()
    src.close()
    assert src.inner.closed


def test_psutil_failure_is_na_with_reason():
    calls = {"n": 0}

    def broken() -> float:
        calls["n"] += 1
        if calls["n"] > 1:
            raise psutil.AccessDenied()
        return 0.0

    (got,) = WithHostCpu(ListSource([batch(1.0)]), cpu_percent=broken).poll()
    sample = got.samples[0]
    assert sample.values[HOST_CPU_UTIL] is None and sample.reasons[HOST_CPU_UTIL].startswith("psutil")
