"""The GPM panels of the Monitor tab live over fake pynvml (faked at the pynvml boundary with the bindings' real
GPM structures): SM active, SM occupancy, tensor and DRAM active drawn in percent, never above 100 %; a GPU without
GPM shows no panel and says it is not supported."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

from gpudesk.nvml import gpm
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor.gpm_plots import GPM_PLOTTED, GpmPlots
from gpudesk.ui.monitor.tab import MonitorTab


def make_tab(qtbot, nvml):
    tab = MonitorTab(AppContext(notify=lambda text, level="info": None), nvml=nvml)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 900)
    tab.show()
    return tab


def test_gpm_panels_drawn_in_percent_on_a_hopper_gpu(qtbot):
    dev = FakeDevice(0, name="NVIDIA H100 80GB HBM3", util_gpu=100,
                     gpm={gpm.SM_UTIL: 23.0, gpm.SM_OCCUPANCY: 11.5, gpm.ANY_TENSOR_UTIL: 7.0, gpm.DRAM_BW_UTIL: 41.0})
    tab = make_tab(qtbot, make_fake_pynvml([dev]))
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 3, timeout=20000)
    tab.plots.refresh()
    assert tab.gpm_plots.shown_metrics() == list(GPM_PLOTTED)
    assert tab.gpm_plots.note.isHidden()
    expected = {df.SM_ACTIVE: 23.0, df.SM_OCCUPANCY: 11.5, df.TENSOR_ACTIVE: 7.0, df.DRAM_ACTIVE: 41.0}
    for metric, value in expected.items():
        _x, y = tab.gpm_plots.column(metric, 0)
        assert y[np.isfinite(y)][-1] == pytest.approx(value)
    assert "SM active" in tab.gpm_plots.panels[df.SM_ACTIVE].plot.titleLabel.text


def test_no_gpm_panel_and_not_supported_said(qtbot):
    dev = FakeDevice(0, name="NVIDIA A100-SXM4-80GB", util_gpu=100, gpm=None)
    tab = make_tab(qtbot, make_fake_pynvml([dev]))
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 2, timeout=20000)
    tab.plots.refresh()
    assert tab.gpm_plots.shown_metrics() == []
    assert not tab.gpm_plots.note.isHidden()
    assert "not supported on this GPU" in tab.gpm_plots.note.text()


def test_a_ratio_over_one_is_never_drawn_above_100_percent(qtbot):
    # dcgmi SMACT 1.294 (a DCGM rounding/aggregation artefact) is stored x 100 = 129.4: drawn at 100 %, not 129 %
    buffer = HistoryBuffer(1, GPM_PLOTTED)
    for i, v in enumerate((50.0, 129.4, 80.0)):
        buffer.append(1000.0 + i, {0: {df.SM_ACTIVE: v}})
    plots = GpmPlots()
    qtbot.addWidget(plots)
    plots.show()
    plots.refresh(buffer, [0], 999.0, 1003.0, 400)
    _x, y = plots.column(df.SM_ACTIVE, 0)
    assert list(y) == [50.0, 100.0, 80.0]
    assert plots.shown_metrics() == [df.SM_ACTIVE]
    assert plots.panels[df.SM_ACTIVE].plot.getViewBox().viewRange()[1][1] <= 105.0 + 1e-6
