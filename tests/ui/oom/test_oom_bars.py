"""Memory bars and the live curve of the OOM doctor tab (widgets alone, no core needed)."""

from __future__ import annotations

import math

from gpudesk.ui.oom.live_curve import LiveMemoryCurve
from gpudesk.ui.oom.memory_bars import GpuBarData, MemoryBarsPanel, bar_segments
from gpudesk.units import format_bytes

GiB = 1024**3
MiB = 1024**2


def test_format_bytes_binary_units_and_na():
    assert format_bytes(int(13.39 * GiB)) == "13.39 GiB"
    assert format_bytes(46 * MiB) == "46.00 MiB"
    assert format_bytes(0) == "0 B"
    assert format_bytes(None) == "N/A"


def test_segments_follow_nvml_reconciliation():
    # "GPU 0 has a total capacity of 23.64 GiB of which 319.38 MiB is free. Including non-PyTorch memory,
    # this process has 22.88 GiB memory in use." (VGen#104) with illustrative allocated/reserved.
    data = GpuBarData(
        0,
        total_bytes=int(23.64 * GiB),
        allocated_bytes=20 * GiB,
        reserved_bytes=21 * GiB,
        process_used_bytes=int(22.88 * GiB),
        free_bytes=int(319.38 * MiB),
    )
    segments = dict(bar_segments(data))
    assert segments["allocated"] == 20 * GiB
    assert segments["reserved_unallocated"] == 1 * GiB
    assert segments["non_pytorch"] == int(22.88 * GiB) - 21 * GiB
    assert segments["free"] == int(319.38 * MiB)
    # total - free - process = display/driver remainder
    assert math.isclose(sum(segments.values()), data.total_bytes, rel_tol=1e-9)


def test_unknown_values_are_left_out_not_zero():
    data = GpuBarData(0, total_bytes=4 * GiB, allocated_bytes=None, reserved_bytes=3 * GiB, process_used_bytes=None)
    keys = [key for key, _ in bar_segments(data)]
    assert keys == ["reserved_unallocated"]
    # a per-process figure above the total (WSL2 garbage) is unknown, not drawn
    bogus = GpuBarData(0, total_bytes=4 * GiB, process_used_bytes=900 * GiB)
    assert bar_segments(bogus) == []


def test_panel_draws_one_bar_per_gpu(qtbot):
    panel = MemoryBarsPanel()
    qtbot.addWidget(panel)
    panel.set_bars(
        [
            GpuBarData(0, "Tesla T4", int(14.75 * GiB), int(13.39 * GiB), int(13.44 * GiB), free_bytes=int(46.81 * MiB)),
            GpuBarData(1, None, 24 * GiB, None, None, notes={"allocated": "not in the input"}),
        ]
    )
    panel.resize(800, 300)
    panel.show()
    qtbot.waitExposed(panel)
    assert len(panel.bars) == 2
    assert "13.39 GiB" in panel.captions[0].text()
    assert "N/A" in panel.captions[1].text()
    assert "not in the input" in panel.bars[1].toolTip()
    image = panel.bars[0].grab().toImage()
    # the left part of the first bar is painted in the "allocated" colour
    color = image.pixelColor(image.width() // 4, image.height() // 2)
    assert color.name() == "#1f5fa8"


def test_live_curve_gaps_for_unknown_values(qtbot):
    curve = LiveMemoryCurve()
    qtbot.addWidget(curve)
    for i in range(5):
        curve.add_sample(i * 0.5, 0, i * GiB, None if i == 2 else (i + 1) * GiB)
    assert curve.point_count() == 10
    assert curve.curve_keys() == [(0, "allocated"), (0, "reserved")]
    _, reserved = curve.series_data(0, "reserved")
    assert math.isnan(reserved[2]) and reserved[3] == 4.0
    curve.clear()
    assert curve.point_count() == 0


def test_process_without_allocator_figures_is_not_called_non_pytorch():
    # Evidence only (NVML, no probe): the process's 71.4 GiB cannot be split into cache and non-PyTorch memory.
    data = GpuBarData(0, total_bytes=80 * GiB, process_used_bytes=int(71.4 * GiB), other_processes_bytes=int(1.19 * GiB))
    segments = dict(bar_segments(data))
    assert "non_pytorch" not in segments
    assert segments["process_unsplit"] == int(71.4 * GiB)
    assert segments["other_processes"] == int(1.19 * GiB)


def test_legend_lists_only_drawn_parts(qtbot):
    panel = MemoryBarsPanel()
    qtbot.addWidget(panel)
    panel.set_bars([GpuBarData(0, total_bytes=16 * GiB, allocated_bytes=10 * GiB, reserved_bytes=12 * GiB, free_bytes=GiB)])
    assert panel.legend_keys() == ["allocated", "reserved_unallocated", "unattributed", "free"]
    panel.set_bars([])
    assert panel.legend_keys() == []


def test_results_list_child_processes(qtbot):
    from gpudesk.oom import diagnose
    from gpudesk.oom.report import MemoryReport, WorkerState
    from gpudesk.ui.oom.results_view import ResultsView

    report = MemoryReport(source="evidence", pid=4242, workers=[
        WorkerState(4243, "zombie", "pt_data_worker", None), WorkerState(4244, "sleeping", "pt_data_worker", 2 * GiB),
    ])
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_diagnosis(diagnose(report), "process 4242 (evidence)")
    assert view.workers_table.rowCount() == 2
    assert view.workers_table.item(0, 1).text() == "zombie"
    assert view.workers_table.item(0, 3).text() == "N/A"
    assert view.workers_table.item(1, 3).text() == "2.00 GiB"
    assert "zombie_workers" in view.cause_ids()


def test_legend_names_memory_outside_the_allocator_for_the_framework(qtbot):
    """A TensorFlow report's bar does not call the process's other memory "Non-PyTorch"; a PyTorch one does."""
    panel = MemoryBarsPanel()
    qtbot.addWidget(panel)
    figures = dict(total_bytes=24 * GiB, allocated_bytes=20 * GiB, reserved_bytes=21 * GiB,
                   process_used_bytes=22 * GiB, free_bytes=1 * GiB)
    panel.set_bars([GpuBarData(0, framework="tensorflow", **figures)])
    legend = panel._legend_labels["non_pytorch"].text()
    assert "PyTorch" not in legend and "PyTorch" not in panel.bars[0].toolTip()
    panel.set_bars([GpuBarData(0, framework="pytorch", **figures)])
    assert panel._legend_labels["non_pytorch"].text().startswith("Non-PyTorch")
