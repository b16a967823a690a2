"""Monitor tab defects a new user found (usertest issue 4); each test failed before its fix.

Inputs: the real dmon Sample A (Mozilla DeepSpeech issue 178, the bundled demo until it became a generated
5-minute run) and logs built from its rows.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from helpers.monitor_findings import finding_items
from PySide6.QtTest import QTest

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core import timebase
from gpudesk.telemetry.formats.dmon import read_dmon_file
from gpudesk.telemetry.rules import run_rules
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.display import when
from gpudesk.ui.monitor.gpu_table import COLUMNS
from gpudesk.ui.monitor.import_dialog import ImportChoice, ImportDialog
from gpudesk.ui.monitor.no_gpu_panel import NoGpuPanel
from gpudesk.ui.monitor.recordings_view import session_row
from gpudesk.ui.monitor.sources import HISTORY_METRICS, demo_description, load_dmon_file
from gpudesk.ui.monitor.tab import MonitorTab

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "monitor_ui"
SAMPLE_A = FIXTURES / "sample_a_pucvmet.txt"


def make_tab(qtbot, messages):
    ctx = AppContext(notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, autostart=False)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    return tab


def wait_analysis(qtbot, tab):
    qtbot.waitUntil(lambda: bool(tab.stats.stats) and tab.findings.tree.topLevelItemCount() > 0
                    and tab.findings.analyze_button.isEnabled(), timeout=20000)


def import_file(qtbot, tab, path, gpu=None):
    actions.import_dmon(tab, ImportChoice("file", str(path), None, gpu, None, None, 1.0))
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None, timeout=20000)
    wait_analysis(qtbot, tab)


def verdicts(findings):
    return {(f.rule, f.gpu, f.severity) for f in findings}


def test_imported_log_judges_throttling_like_the_cli(qtbot):
    """Defect 2: the UI said "not judged: neither ... pviol/tviol were recorded" although Sample A has them."""
    tab = make_tab(qtbot, [])
    import_file(qtbot, tab, SAMPLE_A)
    cli = run_rules(read_dmon_file(SAMPLE_A).frame)  # what 'gpudesk monitor analyze' runs
    assert verdicts(tab.findings.findings) == verdicts(cli)
    throttling = [f for f in tab.findings.findings if "throttling" in f.rule]
    assert len(throttling) == 8 and all(f.severity == "info" for f in throttling)


def test_replayed_history_keeps_the_violation_columns(qtbot):
    """Defect 2, replay path: the live history now keeps pviol/tviol and NVML clock-event reasons."""
    assert {m.POWER_VIOLATION, m.THERMAL_VIOLATION, m.CLOCK_EVENTS} <= set(HISTORY_METRICS)
    messages = []
    tab = make_tab(qtbot, messages)
    loaded = load_dmon_file(str(SAMPLE_A), None, None, None)
    actions.start_replay(tab, loaded, 1000.0)
    qtbot.waitUntil(lambda: any("ended" in t for _, t in messages), timeout=20000)
    actions.analyze(tab)
    qtbot.waitUntil(lambda: tab.findings.tree.topLevelItemCount() > 0, timeout=20000)
    assert not [f for f in tab.findings.findings if f.rule == "throttling"]
    assert len([f for f in tab.findings.findings if "throttling" in f.rule and f.judged]) == 8


def test_import_dialog_typed_model_is_matched_or_refused(qtbot):
    """Defect 3: typing "a100 80gb sxm" was rewritten by inline completion and then imported as unknown."""
    from gpudesk.catalog import open_catalog

    dialog = ImportDialog(open_catalog())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.path_edit.setText(str(SAMPLE_A))
    edit = dialog.model_combo.lineEdit()
    edit.selectAll()
    QTest.keyClicks(edit, "a100 80gb sxm")
    assert dialog.model_combo.currentText() == "a100 80gb sxm"  # nothing appended to what was typed
    dialog.accept()
    assert dialog.result() == ImportDialog.DialogCode.Accepted and not dialog.error.text()
    choice = dialog.choice()
    assert choice.gpu.id == "a100-80-sxm4" and (choice.pcie_gen, choice.pcie_width) == (4, 16)

    wrong = ImportDialog(open_catalog())
    qtbot.addWidget(wrong)
    wrong.show()
    wrong.path_edit.setText(str(SAMPLE_A))
    wrong.model_combo.lineEdit().selectAll()
    QTest.keyClicks(wrong.model_combo.lineEdit(), "a1000 80gb")
    wrong.accept()
    assert wrong.result() != ImportDialog.DialogCode.Accepted and wrong.isVisible()
    assert "a1000 80gb" in wrong.error.text() and "Did you mean" in wrong.error.text()


def test_one_sampling_round_is_readable(qtbot):
    """Defect 10: one sampling round (the real Sample A, the demo then) used to give empty plots, 288 bins of
    0 s, 1970 dates, an empty Advice."""
    tab = make_tab(qtbot, [])
    import_file(qtbot, tab, SAMPLE_A)
    assert tab.ctl.time_basis == timebase.RELATIVE
    assert tab.ctl.buffer.series(m.GPU_UTIL)[0].tolist() == [25.0, 18.0, 24.0, 18.0]  # the real capture's sm%
    # statistics and findings: time reads "t+0 s", never 1970; no zero-length "(0 s)" span; no empty advice
    assert "1970" not in tab.stats.label.text() and "t+0 s" in tab.stats.label.text()
    assert "(0 s)" not in tab.stats.label.text()
    for item, finding in finding_items(tab.findings):
        tab.findings.tree.setCurrentItem(item)
        details = tab.findings.details.toPlainText()
        assert "1970" not in details and "(0 s)" not in details
        assert ("What to do:" in details) == bool(finding.advice)
    judged = [f for f in tab.findings.findings if f.judged and f.rule.endswith("-throttling")]
    assert len(judged) == 8  # power and thermal throttling on 4 GPUs, from the log's pviol/tviol
    # plots: a dot per sample (a line needs two points), the sample inside the view, "t+" on the time axis
    dot_x, dot_y = tab.plots.dot_points(m.GPU_UTIL, 0)
    assert dot_y.tolist() == [25.0] and dot_x.size == 1
    x0, x1 = tab.plots.plots[m.GPU_UTIL].getViewBox().viewRange()[0]
    assert x0 < 0.0 < x1
    axis = tab.plots.plots[m.PCIE_TX].getAxis("bottom")
    assert axis.tickStrings([0.0, 1.0], 1.0, 1.0) == ["t+0 s", "t+1 s"]
    tab._show_readout(0.0)
    assert tab.readout.toPlainText().startswith("t+0 s\n")
    # heat map: one column for the one round, every cell readable
    tab.subtabs.setCurrentWidget(tab.heatmap)
    tab.heatmap.refresh()
    assert tab.heatmap.values.shape == (4, 1) and not np.isnan(tab.heatmap.values).any()
    assert "1 sampling round" in tab.heatmap.info.text() and "0 s" not in tab.heatmap.info.text()
    assert tab.heatmap.edges[-1] - tab.heatmap.edges[0] == 1.0
    from PySide6.QtCore import QPointF

    view = tab.heatmap.plot.getViewBox()
    tab.heatmap._mouse_moved((view.mapViewToScene(QPointF(0.1, 0.5)),))
    assert tab.heatmap.hover.text() == "GPU 0, t+0 s: 25 %"  # was "1970-01-01 00:00 – 00:00"


def test_time_only_log_shows_time_of_day_not_1970(qtbot, tmp_path):
    """Defect 10: dmon -o T (no date) shows the log's time of day."""
    rows = SAMPLE_A.read_text().splitlines()
    lines = ["#Time      " + rows[0].lstrip("#"), "#HH:MM:SS  " + rows[1].lstrip("#")]
    for stamp in "23:59:58", "23:59:59", "00:00:00":
        lines += [f"{stamp}  {row}" for row in rows[2:]]
    path = tmp_path / "time-only.log"
    path.write_text("\n".join(lines) + "\n")
    tab = make_tab(qtbot, [])
    import_file(qtbot, tab, path)
    assert tab.ctl.time_basis == timebase.TIME_OF_DAY
    t0, t1 = tab.ctl.buffer.span()
    assert when(t0) == "23:59:58" and when(t1) == "00:00:00 (+1 d)"
    assert "1970" not in tab.stats.label.text() and "23:59:58" in tab.stats.label.text()


def test_no_gpu_panel_says_in_one_sentence_what_the_demo_is(qtbot):
    """Defect 11: the panel showed SOURCE.md's developer notes, cut mid-sentence."""
    panel = NoGpuPanel()
    qtbot.addWidget(panel)
    panel.set_demo(demo_description())
    text = panel.demo_note.text()
    assert "generated example, not a real capture" in text and "5 minutes of a 4-GPU training run" in text
    for dev in ("SOURCE.md", "monitor.md", "\\#", "load_demo", "Search for", "LICENSE"):
        assert dev not in text
    assert text.endswith(".") and len(text) < 300


def test_import_status_says_the_time_assumption_once(qtbot):
    """Defect 12: "no time column ... 1 s apart" was said twice in the status line."""
    tab = make_tab(qtbot, [])
    import_file(qtbot, tab, SAMPLE_A)
    assert tab.toolbar.source_label.text().count("1 s apart") == 1
    assert sum("1 s apart" in n for n in tab.ctl.loaded.notes) == 1


def test_pcie_reads_as_the_log_printed_it(qtbot):
    """Defect 13: rxpci 41 (MB/s) showed as 0.04 GB/s; now 41 MB/s in the table, plots and statistics."""
    tab = make_tab(qtbot, [])
    import_file(qtbot, tab, SAMPLE_A)
    model = tab.table.model()
    rx = [k for k, _ in COLUMNS].index(m.PCIE_RX)
    assert model.data(model.index(0, rx)) == "41 MB/s" and model.data(model.index(3, rx)) == "62 MB/s"
    assert "shown in MB/s" in tab.plots.plots[m.PCIE_RX].titleLabel.text
    col = 3  # STATS_METRICS: util, mem util, memory, PCIe RX, ...
    assert tab.stats.table.horizontalHeaderItem(col).text() == "PCIe RX (MB/s)"
    assert tab.stats.table.item(0, col).text() == "41 (41 – 41)"
    assert tab.ctl.buffer.series(m.PCIE_RX)[0, 0] == 41e6


def test_recordings_list_never_shows_1970_for_an_undated_import():
    class Session:
        id, name, gpu_model, gpu_count, source, sample_rows, interrupted = 3, "log", None, 4, "dmon-file:x", 4, False
        first_t, last_t, started_at = 0.0, 0.0, 1_767_000_000.0

    row = session_row(Session())
    assert "1970" not in row[2] and "no dates" in row[2] and not math.isnan(Session.started_at)


def test_demo_is_a_multi_minute_run_with_a_stall_and_findings(qtbot):
    """The demo was one 1-second sample (dots for plots, no findings); it is now a generated 5-minute, 4-GPU run
    (tools/make_demo_recording.py) whose plots draw lines and whose findings name the stall."""
    tab = make_tab(qtbot, [])
    actions.play_demo(tab)
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None, timeout=20000)
    wait_analysis(qtbot, tab)
    assert tab.ctl.source_kind == "demo" and tab.ctl.buffer.count == 300 and len(tab.ctl.devices) == 4
    assert "generated example" in tab.toolbar.source_label.text()
    assert tab.plots.dot_points(m.GPU_UTIL, 0)[0].size == 0  # lines, not a dot per sample
    warned = {(f.rule, f.severity) for f in tab.findings.findings}
    assert ("low-utilization", "warning") in warned and ("thermal-throttling", "critical") in warned
    assert "1 stall of 35 s" in tab.findings.list.summary.text()


def test_rule_only_columns_are_kept_without_a_drawing_pyramid():
    """The throttling columns added to the live history (defect 2) cost memory only for their raw values."""
    import pytest

    from gpudesk.telemetry.core.ring_buffer import UNDRAWN_METRICS, HistoryBuffer, HistoryError

    drawn = [n for n in HISTORY_METRICS if n not in UNDRAWN_METRICS]
    full, plain = HistoryBuffer(8, HISTORY_METRICS, capacity=4096), HistoryBuffer(8, drawn, capacity=4096)
    raw = full.capacity * 8 * 4  # one float32 column of 8 GPUs
    assert full.nbytes - plain.nbytes == len(UNDRAWN_METRICS) * raw
    full.append(1.0, {0: {m.POWER_VIOLATION: 12.0}})
    assert full.series(m.POWER_VIOLATION)[0, 0] == 12.0
    with pytest.raises(HistoryError):
        full.decimated_columns(m.POWER_VIOLATION, [0], 0.0, 2.0, 100)


def test_demo_note_is_left_out_of_the_notes_in_chinese_too(monkeypatch):
    """qa17: under zh_CN the demo banner said what the demo is twice: the core's note, translated, no longer began
    with the English "Demo:" that the window filtered on."""
    from gpudesk import i18n
    from gpudesk.ui.monitor.sources import load_demo

    try:
        i18n.set_language("zh_CN")
        loaded = load_demo()
        assert not any("生成的示例" in n for n in loaded.notes), loaded.notes
    finally:
        i18n.set_language(None)
