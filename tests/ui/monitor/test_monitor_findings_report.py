"""The Findings list (grouped by rule, worst first, click to zoom, spans on the timeline) and the burn-in
report view (tables, verdicts, background export to PDF/HTML/Markdown)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt

from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.recording.burnin import build_report
from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_file, resolve_gpu_model
from gpudesk.telemetry.rules.heatmap import heatmap
from gpudesk.ui.monitor.burnin_view import BurnInReportView
from gpudesk.ui.monitor.findings_list import FindingsListView

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "monitor_rules"
PLAN = {"candidates": [{"count": 4, "gpu_name": "NVIDIA A100 80GB PCIe", "per_gpu_memory_bytes": 55e9,
                        "safe_line_bytes": 64e9, "step_time_s": 0.42}]}


@pytest.fixture(scope="module")
def stall():
    return frame_and_devices_from_file(FIX / "issue13_4gpu_h2d_stall.txt", resolve_gpu_model("a100-80-pcie"))


def test_findings_grouped_worst_first_and_zoom_on_activation(qtbot, stall):
    frame, devs, _log = stall
    result = analyze(frame, devs)
    view = FindingsListView()
    qtbot.addWidget(view)
    view.set_findings(result.findings, result.summary, frame.span, heatmap(frame, bins=120))
    assert view.summary.text().startswith("GPUs busy 94 % of the run; 1 stall of 35 s")
    first = view.tree.topLevelItem(0)
    assert first.text(0) == "Input starvation (1)" and first.isExpanded()  # the rule's name, not its id
    assert view.tree.topLevelItem(1).text(0) == "Low utilization (1)"
    last = view.tree.topLevelItem(view.tree.topLevelItemCount() - 1)
    assert last.text(3) == "not judged" and not last.isExpanded()  # the severity in words (id: not-judged)
    child = first.child(0)
    with qtbot.waitSignal(view.zoomRequested) as sig:
        view.tree.setCurrentItem(child)
        qtbot.keyClick(view.tree, Qt.Key.Key_Return)
    t0 = frame.times[0]
    assert (sig.args[0] - t0, sig.args[1] - t0) == (300.0, 334.0)
    assert view.chart.selected == (sig.args[0], sig.args[1])


def test_clicking_a_span_on_the_timeline_selects_its_finding(qtbot, stall):
    frame, devs, _log = stall
    result = analyze(frame, devs)
    view = FindingsListView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.set_findings(result.findings, result.summary, frame.span, heatmap(frame, bins=120))
    view.show()
    chart = view.chart
    x = chart._x(frame.times[0] + 317, chart.width())
    with qtbot.waitSignal(view.zoomRequested) as sig:
        qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=QPointF(x, 5).toPoint())
    assert sig.args[0] - frame.times[0] == 300.0
    assert view.tree.currentItem().text(0).startswith(("Input starvation", "All 4 GPUs"))


def test_burnin_view_shows_verdicts_and_exports_in_the_background(qtbot, stall, tmp_path):
    frame, devs, _log = stall
    report = build_report(frame, devs, source="issue13_4gpu_h2d_stall.txt", plan=PLAN, plan_name="13B fine-tune",
                          generated_at="2026-12-01T18:00:00+00:00")
    view = BurnInReportView()
    qtbot.addWidget(view)
    view.set_report(report)
    assert view.gpus.rowCount() == 4 and view.gpus.item(0, 4).text() == "59.6 GiB"
    verdicts = [view.comparisons.item(i, 3).text() for i in range(view.comparisons.rowCount())]
    assert verdicts == ["pass", "pass", "pass", "pass", "not judged"]  # in words (id: not-judged)
    assert view.checks.item(0, 2).text() == "fail"
    for suffix in ("pdf", "html", "md"):
        out = tmp_path / f"r.{suffix}"
        with qtbot.waitSignal(view.exported, timeout=20000):
            view.export_to(out)
        assert out.stat().st_size > 500
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    with qtbot.waitSignal(view.exportFailed, timeout=20000) as failed:
        view.export_to(tmp_path / "missing-dir" / "r.md")
    assert "Could not write the report" in failed.args[0]
