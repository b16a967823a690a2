"""Monitor views on their own: ring buffer, plots decimation, heat map, process table, 1-64 GPU layouts,
and the sampler worker's thread."""

from __future__ import annotations


import numpy as np
import pytest
from helpers.fake_pynvml import FakeDevice, FakeProcess, make_fake_pynvml
from helpers.history import filled
from PySide6.QtCore import QThread

from gpudesk.telemetry.core import model as m
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.heatmap_view import NA_RGBA, HeatmapView
from gpudesk.ui.monitor.plots import MonitorPlots
from gpudesk.ui.monitor.process_table import ProcessTable
from gpudesk.ui.monitor.sampler_worker import SamplerWorker, start_sampler
from gpudesk.ui.monitor.tab import MonitorTab
from gpudesk.ui.workers import stop_worker


def test_heatmap_draws_na_grey(qtbot):
    buf, _ = filled(3600, gpus=4)
    view = HeatmapView()
    qtbot.addWidget(view)
    view.set_source(buf, {i: f"GPU {i}" for i in range(4)})
    assert view.values.shape == (4, 288)
    rgba = view.to_rgba(view.values, 0, 100)
    na = np.isnan(view.values)
    assert na.any() and (rgba[na] == NA_RGBA).all()
    assert "N/A (grey)" in view.info.text()


def test_plots_show_only_checked_gpus(qtbot):
    buf, _ = filled(500, gpus=4)
    plots = MonitorPlots()
    qtbot.addWidget(plots)
    plots.set_source(buf, {i: str(i) for i in range(4)}, {})
    plots.set_visible_gpus([2])
    assert plots._curves[(m.GPU_UTIL, 2)].isVisible() and not plots._curves[(m.GPU_UTIL, 0)].isVisible()
    assert "link unknown" in plots.plots[m.PCIE_RX].titleLabel.text


@pytest.mark.parametrize("count", [1, 16, 64])
def test_layout_from_1_to_64_gpus(qtbot, count):
    fake = make_fake_pynvml([FakeDevice(i) for i in range(count)])
    tab = MonitorTab(AppContext(), nvml=fake)
    qtbot.addWidget(tab, before_close_func=lambda w: w.shutdown())
    tab.resize(1280, 800)
    tab.show()
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 1, timeout=20000)
    assert tab.table.model().rowCount() == count
    assert tab.plots.visible_gpus == list(range(min(count, 8)))  # the plots start with up to 8 GPUs
    tab.table.model().set_checked([count - 1])
    assert tab.plots.visible_gpus == [count - 1]
    assert tab.ctl.buffer.nbytes < 200e6


def test_process_table_plain_text_and_na(qtbot):
    from gpudesk.nvml.nvml_processes import list_gpu_processes

    fake = make_fake_pynvml([FakeDevice(0, compute_processes=[
        FakeProcess(0, 1 << 30), FakeProcess(4294967295, 1 << 30), FakeProcess(999_999, None),
    ], graphics_processes=[FakeProcess(999_999, None)])])
    listing = list_gpu_processes(nvml=fake)
    table = ProcessTable()
    qtbot.addWidget(table)
    table.set_listing(listing)
    model = table.model
    pids = [model.data(model.index(r, 1)) for r in range(model.rowCount())]
    assert pids == ["999999"]  # PIDs 0 and 2^32-1 dropped, the C+G duplicate merged
    assert model.data(model.index(0, 5)) == "N/A"
    assert "N/A" in model.data(model.index(0, 5), role=3)
    assert model.data(model.index(0, 6)) == "compute+graphics"
    assert listing.warnings and listing.warnings[0] in table.notes.text()


def test_sampler_worker_runs_in_its_own_thread(qtbot):
    fake = make_fake_pynvml([FakeDevice(0)])
    where = []

    def factory():
        from gpudesk.telemetry.sources.nvml_source import NvmlSource

        where.append(QThread.currentThread())
        return NvmlSource(nvml=fake)

    worker = SamplerWorker(factory)
    batches = []
    # Not qtbot.waitSignal: its time-out timer would be stopped from the worker thread that emits (a Qt warning).
    worker.batches.connect(batches.append)
    start_sampler(worker)
    qtbot.waitUntil(lambda: bool(batches), timeout=20000)
    assert where and where[0] is not QThread.currentThread()
    assert worker._timer.thread() is where[0]
    assert stop_worker(worker)
    assert worker.source is None
