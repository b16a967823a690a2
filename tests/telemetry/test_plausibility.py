"""Impossible values never shown as facts (issue 14): NVML sentinels, used > total, utilization > 100 %, and a
PCIe throughput stuck at 0 while the byte counters move, each None with the reason."""

from __future__ import annotations

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

from gpudesk.telemetry import model as m
from gpudesk.telemetry.nvml_session import NvmlSession
from gpudesk.telemetry.nvml_source import NvmlSource
from gpudesk.telemetry.plausibility import check_values

U64 = 2**64 - 1
U32 = 2**32 - 1


def _read(dev: FakeDevice, ticks: int = 1, **kw) -> list:
    src = NvmlSource(nvml=make_fake_pynvml([dev]), **kw)
    try:
        return [src.read().samples[0] for _ in range(ticks)]
    finally:
        src.close()


def test_memory_sentinel_is_none_with_reason_not_17_billion_gib():
    s = _read(FakeDevice(0, memory_total=U64, memory_used=U64, memory_reserved=0))[0]
    assert s.values[m.MEM_TOTAL] is None and s.values[m.MEM_USED] is None
    assert "not available" in s.reasons[m.MEM_TOTAL] and "0xffffffffffffffff" in s.reasons[m.MEM_TOTAL]


def test_device_info_total_sentinel_is_none():
    session = NvmlSession(make_fake_pynvml([FakeDevice(0, memory_total=U64, memory_used=0, power_limit_mw=U32)])).open()
    try:
        info = session.device_info(0)
        assert info.memory_total_bytes is None and "not available" in info.reasons["memory_total_bytes"]
        assert info.power_limit_w is None
    finally:
        session.close()


def test_scalar_sentinels_become_none():
    s = _read(FakeDevice(0, power_mw=U32, temperature_c=U32, sm_clock_mhz=U32))[0]
    for metric in (m.POWER, m.GPU_TEMP, m.SM_CLOCK):
        assert s.values[metric] is None and "not available" in s.reasons[metric], metric


def test_utilization_over_100_is_none_not_plotted():
    s = _read(FakeDevice(0, util_gpu=250, util_memory=40))[0]
    assert s.values[m.GPU_UTIL] is None and "250 %" in s.reasons[m.GPU_UTIL]
    assert s.values[m.MEM_UTIL] == 40.0


def test_used_greater_than_total_is_flagged():
    s = _read(FakeDevice(0, memory_total=80 * 2**30, memory_used=90 * 2**30, memory_reserved=0))[0]
    assert s.values[m.MEM_USED] is None and "contradict" in s.reasons[m.MEM_USED]
    assert s.values[m.MEM_TOTAL] == 80 * 2**30


def test_pcie_zero_while_counters_move_is_flagged():
    dev = FakeDevice(0, pcie_counters=True, pcie_tx_kb=500_000, pcie_rx_kb=0,
                     faults={"nvmlDeviceGetPcieThroughput": lambda d, counter: 0})
    first, second = _read(dev, ticks=2)
    assert first.values[m.PCIE_TX] == 0.0  # one reading: nothing to compare yet
    assert second.values[m.PCIE_TX] is None and "byte counters moved" in second.reasons[m.PCIE_TX]
    assert second.values[m.PCIE_RX] == 0.0  # the RX counter did not move: a real 0


def test_pcie_zero_without_counters_stays_zero():
    dev = FakeDevice(0, pcie_counters=False, faults={"nvmlDeviceGetPcieThroughput": lambda d, counter: 0})
    samples = _read(dev, ticks=3)
    assert all(s.values[m.PCIE_TX] == 0.0 for s in samples)


def test_check_values_on_dmon_style_values():
    values = {m.POWER: -3.0, m.GPU_TEMP: 61.0, m.MEM_UTIL: 101.0, m.SM_CLOCK: float("inf")}
    reasons: dict[str, str] = {}
    assert check_values(values, reasons) == 3
    assert values[m.GPU_TEMP] == 61.0 and set(reasons) == {m.POWER, m.MEM_UTIL, m.SM_CLOCK}


def test_mask_impossible_on_a_column():
    import numpy as np

    from gpudesk.telemetry.plausibility import mask_impossible

    col = np.array([10.0, 250.0, np.nan, -1.0, 100.0, np.inf], dtype=np.float32)
    out, n, why = mask_impossible(m.GPU_UTIL, col)
    assert n == 3 and np.isnan(out[[1, 3, 5]]).all() and out[4] == 100.0 and "0 to 100" in why
    same, n, why = mask_impossible(m.MEM_USED, np.array([1e9, 2e9]))
    assert n == 0 and why is None and same[1] == 2e9
