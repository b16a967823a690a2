"""Monitor tab over the fake pynvml: 8 GPUs live, a GPU lost mid-run, N/A display, NVML missing."""

from __future__ import annotations

import math

import pytest
from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.gpu_table import COLUMNS
from gpudesk.ui.monitor.tab import PAGE_NO_GPU, PAGE_VIEW, MonitorTab


@pytest.fixture
def messages():
    return []


def make_tab(qtbot, nvml, messages, **kw):
    ctx = AppContext(notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, nvml=nvml, **kw)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    return tab


def wait_ticks(qtbot, tab, n):
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= n, timeout=20000)


def column(key):
    return [k for k, _ in COLUMNS].index(key)


def test_live_plots_eight_gpus(qtbot, messages):
    devices = [FakeDevice(i, util_gpu=10 * i) for i in range(8)]
    devices[2].compute_processes = [FakeProcess(4321, 12 * 1024**3)]
    fake = make_fake_pynvml(devices)
    tab = make_tab(qtbot, fake, messages)
    wait_ticks(qtbot, tab, 2)
    qtbot.waitUntil(lambda: tab.processes.model.rowCount() == 1, timeout=20000)
    procs = tab.processes.model
    assert procs.data(procs.index(0, 0)) == "2" and procs.data(procs.index(0, 1)) == "4321"
    assert procs.data(procs.index(0, 5)) == "12.00"
    assert tab.stack.currentIndex() == PAGE_VIEW
    assert tab.ctl.buffer.n_gpus == 8
    util = tab.ctl.buffer.series(m.GPU_UTIL)
    assert list(util[-1]) == [10.0 * i for i in range(8)]
    tab._refresh_view()
    tab.plots.refresh()
    curve = tab.plots._curves[(m.GPU_UTIL, 7)]
    x, y = curve.getData()
    assert len(x) >= 2 and y[-1] == pytest.approx(70.0)
    # PCIe is drawn as a share of the Gen4 x16 link read from NVML: 2,000,000 KB/s = 2.048e9 B/s of 31.5 GB/s.
    x, y = tab.plots._curves[(m.PCIE_RX, 0)].getData()
    assert y[-1] == pytest.approx(2_000_000 * 1000 / 31.504e9 * 100, rel=1e-3)
    assert "Gen4 x16" in tab.plots.plots[m.PCIE_RX].titleLabel.text
    model = tab.table.model()
    assert model.rowCount() == 8
    assert model.data(model.index(3, column(m.GPU_UTIL))) == "30"
    assert model.data(model.index(0, column(m.PCIE_RX))) == "6 %"  # 2.0 GB/s of 31.5 GB/s
    tab.shutdown()


def test_gpu_lost_mid_run_keeps_the_others(qtbot, messages):
    fake = make_fake_pynvml([FakeDevice(i) for i in range(3)])
    tab = make_tab(qtbot, fake, messages)
    wait_ticks(qtbot, tab, 1)
    fake.devices[1].lose()
    start = tab.ctl.buffer.count
    wait_ticks(qtbot, tab, start + 2)
    util = tab.ctl.buffer.series(m.GPU_UTIL)
    assert math.isnan(util[-1, 1])
    assert util[-1, 0] == 75.0 and util[-1, 2] == 75.0
    tab._refresh_view()
    model = tab.table.model()
    qtbot.waitUntil(lambda: model.data(model.index(1, column("state"))) == "lost", timeout=20000)
    na = model.index(1, column(m.GPU_UTIL))
    assert model.data(na) == "N/A"
    assert "GpuIsLost" in model.data(na, role=3) or "lost" in model.data(na, role=3).lower()
    assert any("stopped answering" in text for level, text in messages if level == "warning")
    tab.shutdown()


def test_unreadable_values_show_na_with_reason_never_zero(qtbot, messages):
    fake = make_fake_pynvml([
        FakeDevice(0, faults={"nvmlDeviceGetPowerUsage": "NotSupported", "nvmlDeviceGetUtilizationRates": "NoPermission"}),
        FakeDevice(1),
    ])
    tab = make_tab(qtbot, fake, messages)
    wait_ticks(qtbot, tab, 1)
    tab._dirty = True
    tab._refresh_view()
    model = tab.table.model()
    power = model.index(0, column(m.POWER))
    util = model.index(0, column(m.GPU_UTIL))
    assert model.data(power) == "N/A" and model.data(util) == "N/A"
    assert "NotSupported" in model.data(power, role=3) or "not supported" in model.data(power, role=3).lower()
    assert "permission" in model.data(util, role=3).lower()
    assert model.data(model.index(1, column(m.POWER))) == "250"
    assert math.isnan(tab.ctl.buffer.series(m.POWER)[-1, 0])
    tab.plots.set_crosshair(tab.ctl.buffer.times[-1])
    tab._show_readout(float(tab.ctl.buffer.times[-1]))
    text = tab.readout.toPlainText()
    assert "Power draw: N/A" in text
    tab.shutdown()


@pytest.mark.parametrize("error, words", [
    ("LibraryNotFound", "No NVIDIA driver found"),
    ("DriverNotLoaded", "not loaded"),
    ("LibRmVersionMismatch", "version mismatch"),
])
def test_nvml_missing_shows_no_gpu_panel(qtbot, messages, error, words):
    fake = make_fake_pynvml([], init_error=error)
    tab = make_tab(qtbot, fake, messages)
    qtbot.waitUntil(lambda: tab.stack.currentIndex() == PAGE_NO_GPU, timeout=20000)
    assert words.lower() in tab.no_gpu.title.text().lower()
    assert tab.no_gpu.message.text() == tab.ctl.nvml_status.message
    assert f"NVMLError_{error}" in tab.no_gpu.detail.text()
    assert tab.no_gpu.import_button.isEnabled() and tab.no_gpu.open_button.isEnabled()
    assert tab.no_gpu.demo_button.isEnabled() and "generated example" in tab.no_gpu.demo_note.text()
    assert tab.ctl.worker is None
    tab.no_gpu.open_button.click()  # "open a recording" leads to the recordings list
    assert tab.stack.currentIndex() == PAGE_VIEW and tab.subtabs.currentWidget() is tab.recordings
    tab.shutdown()
