"""Findings details, the recordings count, flat plots and export folders read for people (new-user test, item 7).

Input: the real dmon Sample A (Mozilla DeepSpeech issue 178) and the bundled demo (a generated 5-minute run).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core import timebase
from gpudesk.telemetry.core.ring_buffer import HistoryBuffer
from gpudesk.telemetry.rules.base import WARNING, Finding
from gpudesk.ui import export_folder
from gpudesk.ui.monitor.display import set_time_basis
from gpudesk.ui.monitor.findings_list import details_text, evidence_line
from gpudesk.ui.monitor.plots import MonitorPlots, LinkInfo
from gpudesk.ui.monitor.recordings_view import RecordingsView

# the evidence of the demo's stall finding, as run_rules gives it
STALL = {"gpu": None, "start_s": 1796047350.0, "end_s": 1796047384.0, "duration_s": 35.0,
         "gpu_util_median_pct": 2.0, "pcie_rx_median_bytes_per_s": 2750000.0, "host_cpu_median_pct": None,
         "at_edge": False, "offset_s": 150.0, "gpu_temp_max_c": 91.0, "mem_used_max_bytes": 32 * 2**30}


def test_evidence_reads_as_values_with_units_not_python_reprs():
    set_time_basis(timebase.PRINTED)
    text = details_text(Finding("low-utilization", None, WARNING, "All 4 GPUs idle.", STALL), "Rule", "Evidence",
                        "What to do")
    assert "None" not in text and "False" not in text and "1796047350" not in text and "_s:" not in text
    lines = text.splitlines()
    for expected in ("  GPU: N/A", "  Start: 14:02:30", "  End: 14:03:04", "  Duration: 35 s",
                     "  Median GPU utilization: 2 %", "  Median PCIe receive: 3 MB/s", "  Median host CPU use: N/A",
                     "  At the edge of the recording: no", "  from the start: t+2 min",
                     "  Highest GPU temperature: 91 °C", "  Most memory used: 32.00 GiB"):
        assert expected in lines, expected
    assert "Rule: Low utilization (warning)" in lines
    set_time_basis(timebase.RELATIVE)  # a log without a time column: offsets, never 1970
    assert evidence_line("start_s", 1796047350.0)[1].startswith("t+")
    set_time_basis(timebase.LOCAL)


def test_stall_summary_says_from_t_plus(qtbot):
    from gpudesk.telemetry.formats.dmon_import import load_demo
    from gpudesk.telemetry.rules import run_rules

    frame, devices, _log = load_demo()
    stall = next(f for f in run_rules(frame, devices) if f.rule == "low-utilization" and f.severity == WARNING)
    assert "for 35 s from t+2 min;" in stall.summary  # was "for 35 s at 2 min"


def test_one_recording_is_singular(qtbot):
    from gpudesk.store import open_store
    from gpudesk.telemetry.formats.dmon_import import import_dmon_log
    from gpudesk.ui.context import AppContext

    store = open_store()
    view = RecordingsView(AppContext(store=store))
    qtbot.addWidget(view)
    view.reload()
    assert view.status.text() == "0 recordings."
    import_dmon_log(Path(__file__).resolve().parents[2] / "fixtures" / "monitor_ui" / "sample_a_pucvmet.txt", db=store)
    view.reload()
    qtbot.waitUntil(lambda: view.status.text() == "1 recording.", timeout=5000)


def test_a_flat_series_is_drawn_mid_axis(qtbot):
    plots = MonitorPlots()
    qtbot.addWidget(plots)
    plots.resize(900, 700)
    buffer = HistoryBuffer(1, [m.PCIE_TX, m.GPU_TEMP, m.GPU_UTIL])
    for k in range(60):
        buffer.append(1_764_000_000.0 + k, {0: {m.PCIE_TX: 120e6, m.GPU_TEMP: 64.0, m.GPU_UTIL: 50.0}})
    plots.set_source(buffer, {0: "GPU 0"}, {0: LinkInfo(None, "unknown", False)})
    plots.set_window(None)
    plots.refresh()
    for metric, value in ((m.PCIE_TX, 120.0), (m.GPU_TEMP, 64.0)):
        lo, hi = plots._y_ranges[metric]
        assert lo < value < hi and abs((lo + hi) / 2 - value) < 1e-9, metric  # was [value, value + 1]


def test_export_dialogs_open_in_documents_then_the_last_folder(qtbot, tmp_path, monkeypatch):
    asked: list[str] = []
    chosen = tmp_path / "exports" / "run.csv"
    chosen.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda parent, caption, start, filters: asked.append(start) or (str(chosen), "")))
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    first = export_folder.ask_save_path(None, "Export samples as CSV", "gpudesk-monitor.csv", "CSV files (*.csv)")
    assert first == str(chosen)
    expected_start = Path(documents) if documents and Path(documents).is_dir() else Path.home()
    assert asked[0] == str(expected_start / "gpudesk-monitor.csv") and not asked[0].startswith(str(Path.cwd()) + "/g")
    export_folder.ask_save_path(None, "Export plots as PNG", "gpudesk-monitor.png", "PNG images (*.png)")
    assert asked[1] == str(chosen.parent / "gpudesk-monitor.png")  # the folder used last time


def test_evidence_and_rule_names_read_in_chinese():
    """zh_CN: the details pane names the rule and each evidence key in Chinese, never the raw key or id."""
    from gpudesk import i18n
    from gpudesk.telemetry.rules.evidence_names import EVIDENCE_NAMES, RULE_NAMES

    before = i18n.current_language()
    try:
        i18n.set_language("zh_CN")
        evidence = {"thermal_throttled_samples_pct": 58.3, "samples": 120, **STALL}
        text = details_text(Finding("thermal-throttling", 0, WARNING, "GPU 0", evidence), "规则", "证据", "建议")
        assert "温度降频样本: 58.3 %" in text and "规则: 温度降频" in text
        assert "thermal-throttling" not in text and "throttled samples" not in text
        for name in {*EVIDENCE_NAMES.values(), *RULE_NAMES.values()} - {"GPU", "GPUs"}:  # "GPU" reads "GPU"
            assert i18n._(name) != name, name  # every name has its translation
    finally:
        i18n.set_language(before)
