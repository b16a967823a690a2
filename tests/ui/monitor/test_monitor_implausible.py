"""Issue 14's "impossible values shown as facts", checked in the window over the fake pynvml: NVML's 2^64-1 "not
available" memory, used above total, utilization 250 % and a PCIe throughput stuck at 0 while the byte counters move
are shown as N/A with the reason (in the GPU table's tooltip), never plotted, never as "17179869184.00 GiB"."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.gpu_table import COLUMNS
from gpudesk.ui.monitor.tab import MonitorTab

NVML_NOT_AVAILABLE = 2**64 - 1  # NVML_VALUE_NOT_AVAILABLE for unsigned long long fields
GiB = 2**30


@pytest.fixture
def messages():
    return []


def live_tab(qtbot, devices, messages, ticks=3):
    ctx = AppContext(notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, nvml=make_fake_pynvml(devices))
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= ticks, timeout=20000)
    tab._dirty = True
    tab._refresh_view()
    return tab


def cell(tab, row, key, role=0):
    model = tab.table.model()
    return model.data(model.index(row, [k for k, _ in COLUMNS].index(key)), role)


def test_nvml_memory_sentinel_is_na_in_the_gpu_table(qtbot, messages):
    tab = live_tab(qtbot, [FakeDevice(0, memory_total=NVML_NOT_AVAILABLE, memory_used=NVML_NOT_AVAILABLE,
                                      memory_reserved=0), FakeDevice(1)], messages)
    shown = cell(tab, 0, m.MEM_USED)
    assert "N/A" in shown and "17179869184" not in shown
    assert cell(tab, 0, m.MEM_USED, role=3)  # the reason is in the tooltip
    assert np.isnan(tab.ctl.buffer.series(m.MEM_USED)[:tab.ctl.buffer.count, 0]).all()
    assert cell(tab, 1, m.MEM_USED).startswith("10.00")  # the healthy GPU beside it is unaffected
    tab.shutdown()


def test_used_above_total_is_na_with_the_contradiction(qtbot, messages):
    tab = live_tab(qtbot, [FakeDevice(0, memory_total=80 * GiB, memory_used=90 * GiB, memory_reserved=0)], messages)
    assert "N/A" in cell(tab, 0, m.MEM_USED)
    assert "contradict" in cell(tab, 0, m.MEM_USED, role=3)
    tab.shutdown()


def test_utilization_250_is_not_plotted_and_the_axis_stays_0_to_100(qtbot, messages):
    tab = live_tab(qtbot, [FakeDevice(0, util_gpu=250), FakeDevice(1, util_gpu=40)], messages)
    util = tab.ctl.buffer.series(m.GPU_UTIL)[:tab.ctl.buffer.count]
    assert np.isnan(util[:, 0]).all() and (util[:, 1] == 40.0).all()
    assert cell(tab, 0, m.GPU_UTIL) == "N/A" and "250" in cell(tab, 0, m.GPU_UTIL, role=3)
    y0, y1 = tab.plots.plots[m.GPU_UTIL].getViewBox().viewRange()[1]
    assert y1 <= 110  # not stretched to 262 by the impossible reading
    tab.shutdown()


def test_pcie_stuck_at_zero_while_counters_move_is_flagged_in_the_view(qtbot, messages):
    dev = FakeDevice(0, pcie_counters=True, pcie_tx_kb=500_000, pcie_rx_kb=0,
                     faults={"nvmlDeviceGetPcieThroughput": lambda d, counter: 0})
    tab = live_tab(qtbot, [dev], messages)
    assert cell(tab, 0, m.PCIE_TX) == "N/A"  # never "0 %"
    assert "byte counters moved" in cell(tab, 0, m.PCIE_TX, role=3)
    assert cell(tab, 0, m.PCIE_RX) == "0 %"  # the RX counter did not move: a real 0
    assert math.isnan(tab.ctl.buffer.series(m.PCIE_TX)[tab.ctl.buffer.count - 1, 0])
    tab.shutdown()
