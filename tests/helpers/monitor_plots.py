"""A MonitorPlots widget shown at 1280 x 800 over a history of two GPUs: shared by the plot layout tests."""

from __future__ import annotations

from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.ui.monitor.plots import MonitorPlots


def shown_plots(qtbot, buffer: HistoryBuffer) -> MonitorPlots:
    plots = MonitorPlots()
    qtbot.addWidget(plots)
    plots.resize(1280, 800)
    plots.show()
    qtbot.waitExposed(plots)
    plots.set_source(buffer, {gpu: f"GPU {gpu}" for gpu in range(buffer.n_gpus)}, {})
    return plots
