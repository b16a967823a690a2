"""Screenshots of the Findings list and the burn-in report view (run by hand, offscreen):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/screenshots/monitor_findings_screenshots.py

- monitor-findings-h2d-stall.png: issue 13's 4-GPU log (35 s at 8-20 % SM with PCIe RX ~20 GB/s), A100 80GB PCIe.
- monitor-findings-15min-stall.png: issue 13's 30-minute log with 15 minutes of stall.
- monitor-findings-periodic.png: the synthetic checkpoint log (6 dips every 10 min), spans grouped.
- monitor-burnin-report.png: the burn-in report of the first log against a 4 x A100 plan.
- monitor-thresholds-editor.png: the rule thresholds settings page (defaults).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
os.environ.setdefault("GPUDESK_DATA_DIR", tempfile.mkdtemp(prefix="gpudesk-shots-"))

from helpers import stall_logs
from PySide6.QtWidgets import QApplication

from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.recording.burnin import build_report
from gpudesk.telemetry.formats.dmon_import import (
    frame_and_devices_from_file,
    frame_and_devices_from_text,
    resolve_gpu_model,
)
from gpudesk.telemetry.rules.heatmap import heatmap
from gpudesk.ui.monitor.burnin_view import BurnInReportView
from gpudesk.ui.monitor.findings_list import FindingsListView
from gpudesk.ui.monitor.thresholds_editor import ThresholdsEditor

OUT = REPO / "docs" / "screenshots"
FIX = REPO / "tests" / "fixtures" / "monitor_rules"


def shoot_findings(frame, devs, name: str) -> None:
    result = analyze(frame, devs)
    view = FindingsListView()
    view.resize(1100, 620)
    view.set_findings(result.findings, result.summary, frame.span, heatmap(frame, bins=240))
    view.show()
    QApplication.processEvents()
    view.grab().save(str(OUT / name))


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    a100 = resolve_gpu_model("a100-80-pcie")
    frame, devs, _log = frame_and_devices_from_file(FIX / "issue13_4gpu_h2d_stall.txt", a100)
    shoot_findings(frame, devs, "monitor-findings-h2d-stall.png")
    f2, d2, _ = frame_and_devices_from_file(FIX / "issue13_30min_15min_stall.txt", a100)
    shoot_findings(f2, d2, "monitor-findings-15min-stall.png")
    f3, d3, _ = frame_and_devices_from_text(stall_logs.periodic_checkpoint(), a100)
    shoot_findings(f3, d3, "monitor-findings-periodic.png")
    plan = {"candidates": [{"count": 4, "gpu_name": "NVIDIA A100 80GB PCIe", "interconnect_name": "PCIe 4.0 x16",
                            "per_gpu_memory_bytes": 55e9, "safe_line_bytes": 64e9, "step_time_s": 0.42,
                            "gpu_power_w": 300.0}]}
    report = build_report(frame, devs, source="issue13_4gpu_h2d_stall.txt", plan=plan, plan_name="13B fine-tune")
    view = BurnInReportView()
    view.resize(1200, 1400)
    view.set_report(report)
    view.show()
    app.processEvents()
    view.grab().save(str(OUT / "monitor-burnin-report.png"))
    editor = ThresholdsEditor(Path(tempfile.mkdtemp()) / "rule-thresholds.json")
    editor.resize(640, 900)
    editor.show()
    app.processEvents()
    editor.grab().save(str(OUT / "monitor-thresholds-editor.png"))


if __name__ == "__main__":
    main()
