"""Impossible readings become N/A with a reason, in the one plausibility module (gpudesk/telemetry/core/plausibility.py).

Issue 13 tryout: fb = 1e32 MB printed "memory peaked at 1.2e29 % of capacity" (input: a real A100 dmon log with one
fb cell corrupted). Issue 14: NVML sentinels, used > total, utilization > 100 %, and a PCIe throughput stuck at 0
while the byte counters move, each None with the reason; out-of-range columns of a dmon file masked at parse time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

from gpudesk.nvml.nvml_session import NvmlSession
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.formats.dmon import parse_dmon
from gpudesk.telemetry.formats.dmon_import import devices_for_model, resolve_gpu_model
from gpudesk.telemetry.sources.nvml_source import NvmlSource
from gpudesk.telemetry.core.plausibility import MAX_GPU_MEMORY_BYTES, check_values, mask_impossible, screen

# a real A100 dmon -s um log (source URL in tests/fixtures/monitor_rules/SOURCES.md), 17 rounds of GPU 0
LOG = Path(__file__).resolve().parent.parent / "fixtures" / "monitor_rules" / "real_a100_um_healthy.txt"


def corrupted() -> str:
    lines = LOG.read_text().splitlines()
    cells = lines[5].split()
    cells[7] = "100000000000000000000000000000000"  # fb of one round: 1e32 MB
    lines[5] = "  ".join(cells)
    return "\n".join(lines) + "\n"


def test_memory_above_the_capacity_is_na_with_its_reason():
    frame = parse_dmon(corrupted()).frame
    gpu = resolve_gpu_model("a100-80-pcie")
    devs = devices_for_model(frame.gpus, gpu)
    result = analyze(frame, devs)
    assert result.stats[0][m.MEM_USED].n == 16 and result.stats[0][m.MEM_USED].p95 < 16 * 2**30
    assert not [f for f in result.findings if f.rule == "memory-safe-line" and f.judged and not f.evidence.get("checked")]
    assert any("GPU 0: 1 memory-used reading(s)" in n and "80.00 GiB capacity" in n for n in result.notes)


def test_without_a_capacity_the_physical_bound_applies():
    frame = parse_dmon(corrupted()).frame
    clean = screen(frame)
    used = clean.columns[m.MEM_USED]
    assert np.nanmax(used) <= MAX_GPU_MEMORY_BYTES
    assert "implausible" in (clean.reason(0, m.MEM_USED) or "")
    untouched = parse_dmon(LOG.read_text()).frame
    assert screen(untouched) is untouched


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
    col = np.array([10.0, 250.0, np.nan, -1.0, 100.0, np.inf], dtype=np.float32)
    out, n, why = mask_impossible(m.GPU_UTIL, col)
    assert n == 3 and np.isnan(out[[1, 3, 5]]).all() and out[4] == 100.0 and "0 to 100" in why
    same, n, why = mask_impossible(m.MEM_USED, np.array([1e9, 2e9]))
    assert n == 0 and why is None and same[1] == 2e9


def test_dmon_file_parser_masks_utilization_above_100_with_its_reason():
    # the real A100 log with one round's sm cell garbled to 250 %: N/A with the reason, a note, the rest intact
    lines = LOG.read_text().splitlines()
    cells = lines[5].split()
    cells[1] = "250"
    lines[5] = "  ".join(cells)
    log = parse_dmon("\n".join(lines) + "\n")
    util = log.frame.columns[m.GPU_UTIL]
    assert int(np.isnan(util).sum()) == 1 and np.nanmax(util) <= 100.0
    assert "0 to 100" in (log.frame.reason(0, m.GPU_UTIL) or "")
    assert any("1 gpu_util_pct value(s)" in n for n in log.notes)
    assert screen(log.frame) is log.frame  # already masked at parse time: nothing left for the frame check
    untouched = parse_dmon(LOG.read_text())
    assert not np.isnan(untouched.frame.columns[m.GPU_UTIL]).any() and untouched.frame.reason(0, m.GPU_UTIL) is None


def test_screen_masks_out_of_range_columns_of_a_recording_frame():
    # a frame read back from an older recording (before the live checks) with a 250 % utilization
    frame = m.History.from_rows(np.array([0.0, 1.0, 0.0, 1.0]), np.array([0, 0, 1, 1], dtype=np.int32),
                          {m.GPU_UTIL: np.array([50.0, 250.0, 40.0, 60.0])})
    clean = screen(frame)
    assert np.isnan(clean.columns[m.GPU_UTIL]).sum() == 1
    assert clean.reason(1, m.GPU_UTIL) is None and "0 to 100" in (clean.reason(0, m.GPU_UTIL) or "")
