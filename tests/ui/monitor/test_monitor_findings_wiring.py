"""The Monitor tab's Findings page as a user drives it: findings grouped by rule with a summary and a span
timeline, activating one zooms the plots; Rule thresholds… edits and re-runs the rules; Burn-in report… for a
saved recording; live NVML samples carry the host CPU load."""

from __future__ import annotations

import re
from pathlib import Path

from helpers.fake_pynvml import FakeDevice, make_fake_pynvml
from helpers.monitor_findings import finding_items
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_file
from gpudesk.store import open_store
from gpudesk.store.plans import save_plan
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.recording.burnin import BurnInError
from gpudesk.telemetry.core.host_metrics import HOST_CPU_UTIL
from gpudesk.telemetry.rules import run_rules
from gpudesk.telemetry.rules.thresholds import load_thresholds
from gpudesk.ui.context import AppContext
from gpudesk.ui.monitor import actions
from gpudesk.ui.monitor.burnin_window import BurnInDialog, BurnInWindow
from gpudesk.ui.monitor.import_dialog import ImportChoice
from gpudesk.ui.monitor.tab import MonitorTab
from gpudesk.ui.monitor.thresholds_editor import ThresholdsDialog

SAMPLE_A = Path(__file__).resolve().parents[2] / "fixtures" / "monitor_ui" / "sample_a_pucvmet.txt"


def make_tab(qtbot, messages, nvml=None, autostart=False):  # type: ignore[no-untyped-def]
    ctx = AppContext(store=open_store(), notify=lambda text, level="info": messages.append((level, text)))
    tab = MonitorTab(ctx, nvml=nvml, autostart=autostart)
    qtbot.addWidget(tab, before_close_func=lambda widget: widget.shutdown())
    tab.resize(1280, 800)
    tab.show()
    return tab


def wait_findings(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: bool(tab.findings.findings) and tab.findings.analyze_button.isEnabled(),
                    timeout=20000)


def import_sample(qtbot, tab) -> None:  # type: ignore[no-untyped-def]
    actions.import_dmon(tab, ImportChoice("file", str(SAMPLE_A), None, None, None, None, 1.0))
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None, timeout=20000)
    wait_findings(qtbot, tab)


def test_findings_grouped_with_summary_and_enter_zooms_the_plots(qtbot) -> None:  # type: ignore[no-untyped-def]
    tab = make_tab(qtbot, [])
    actions.play_demo(tab)
    wait_findings(qtbot, tab)
    tab.subtabs.setCurrentWidget(tab.findings)
    view = tab.findings.list
    assert view.summary.text() and view.summary.text() != "No findings yet."
    heads = [view.tree.topLevelItem(i).text(0) for i in range(view.tree.topLevelItemCount())]
    assert len(heads) == len({f.rule for f in tab.findings.findings}), "one heading per rule"
    item, finding = next((i, f) for i, f in finding_items(tab.findings) if f.span)
    view.tree.setFocus()
    view.tree.setCurrentItem(item)
    assert finding.summary in view.details.toPlainText()
    qtbot.keyClick(view.tree, Qt.Key.Key_Return)
    assert tab.subtabs.currentIndex() == 0 and not tab.plots.follow
    x0, x1 = tab.plots.plots[m.GPU_UTIL].getViewBox().viewRange()[0]
    assert x0 <= finding.span[0] and x1 >= finding.span[1]


def test_saved_thresholds_rerun_the_rules(qtbot) -> None:  # type: ignore[no-untyped-def]
    tab = make_tab(qtbot, [])
    import_sample(qtbot, tab)
    before = tab.findings.findings
    tab.findings.thresholds_button.click()
    dialog = tab.findChild(ThresholdsDialog)
    assert dialog is not None and dialog.isVisible()
    field = dialog.editor.fields["low_util_pct"]
    assert field.suffix().strip() == "%", "the unit is beside the field"
    field.setValue(95.0)
    qtbot.keyClick(dialog.editor.save_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: tab.findings.findings is not before and tab.findings.analyze_button.isEnabled(),
                    timeout=20000)
    assert load_thresholds().low_util_pct == 95.0 and tab.ctl.rule_thresholds().low_util_pct == 95.0
    span = tab.ctl.loaded.buffer.span()
    frame, _devices, _log = frame_and_devices_from_file(SAMPLE_A)  # the core's own read of the same file (the CLI's)
    expected = run_rules(frame.select(*span), tab.ctl.devices, thresholds=load_thresholds())
    assert sorted((f.rule, f.severity, f.gpu) for f in tab.findings.findings) == \
        sorted((f.rule, f.severity, f.gpu) for f in expected)


def test_burnin_report_of_the_open_recording(qtbot) -> None:  # type: ignore[no-untyped-def]
    messages: list[tuple[str, str]] = []
    tab = make_tab(qtbot, messages)
    tab.findings.burnin_button.click()  # nothing saved is open yet: it says what to do
    assert any("Open a saved recording first" in text for _level, text in messages)
    import_sample(qtbot, tab)
    tab.toolbar.save_button.click()
    qtbot.waitUntil(lambda: any("Saved as recording" in text for _l, text in messages), timeout=20000)
    session_id = int(re.search(r"#(\d+)", next(t for _l, t in messages if "Saved as recording" in t)).group(1))
    actions.open_recording(tab, session_id)
    qtbot.waitUntil(lambda: tab.ctl.loaded is not None and tab.ctl.loaded.session_id == session_id, timeout=20000)

    def accept_choice() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, BurnInDialog)
        assert dialog.plans.currentData() is None, "no plan saved: the report judges the recording alone"
        dialog.accept()

    QTimer.singleShot(100, accept_choice)
    tab.findings.burnin_button.click()
    qtbot.waitUntil(lambda: tab.findChild(BurnInWindow) is not None, timeout=20000)
    window = tab.findChild(BurnInWindow)
    report = window.view.report
    assert report is not None and f"recording {session_id}" in report.source
    assert window.view.gpus.rowCount() == len(tab.ctl.devices)
    assert "Utilization (median, %)" in [window.view.gpus.horizontalHeaderItem(j).text()
                                         for j in range(window.view.gpus.columnCount())]
    window.close()


def test_live_samples_carry_the_host_cpu_load(qtbot) -> None:  # type: ignore[no-untyped-def]
    tab = make_tab(qtbot, [], nvml=make_fake_pynvml([FakeDevice(0), FakeDevice(1)]), autostart=True)
    qtbot.waitUntil(lambda: tab.ctl.buffer is not None and tab.ctl.buffer.count >= 3, timeout=20000)
    cpu = tab.ctl.buffer.series(HOST_CPU_UTIL)
    assert cpu.shape[1] == 2
    latest = cpu[-1]
    assert all(0.0 <= v <= 100.0 for v in latest), "psutil's load, percent of all cores, on every GPU's sample"
    assert tab.ctl.nvml_status is not None and "Live NVML" in tab.toolbar.source_label.text()
    tab.shutdown()


def test_a_just_saved_log_gets_its_burnin_report_and_plans_without_candidates_are_not_offered(
        qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    messages: list[tuple[str, str]] = []
    tab = make_tab(qtbot, messages)
    save_plan(tab.ctx.store, "nothing fitted", "", {"candidates": []})
    fits = save_plan(tab.ctx.store, "fits", "", {"candidates": [{"count": 1, "gpu_name": "Tesla P100"}]})
    import_sample(qtbot, tab)
    title = tab.ctl.loaded.title
    tab.toolbar.save_button.click()
    qtbot.waitUntil(lambda: any("Saved as recording" in text for _l, text in messages), timeout=20000)
    assert tab.ctl.loaded is not None and tab.ctl.loaded.session_id is not None  # the saved one is the open one
    offered: list[tuple[str, bool]] = []

    def pick_no_plan() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, BurnInDialog)
        model = dialog.plans.model()
        offered.extend((dialog.plans.itemText(i), model.item(i).isEnabled()) for i in range(dialog.plans.count()))
        dialog.accept()

    QTimer.singleShot(100, pick_no_plan)
    tab.findings.burnin_button.click()
    assert not any("Open a saved recording first" in text for _level, text in messages)
    qtbot.waitUntil(lambda: tab.findChild(BurnInWindow) is not None, timeout=20000)
    window = tab.findChild(BurnInWindow)
    assert window.windowTitle() == f"Burn-in report: {title}"
    window.close()
    enabled = {text: on for text, on in offered}
    assert enabled[f"Plan #{fits}: fits"] is True
    assert [on for text, on in offered if "nothing fitted" in text] == [False]
    assert any("no configuration fitted" in text for text, _on in offered)
    # a report that fails ends the busy state with the reason
    monkeypatch.setattr(actions, "report_from_store",
                        lambda *a, **k: (_ for _ in ()).throw(BurnInError("The recording has no samples.")))
    QTimer.singleShot(100, lambda: QApplication.activeModalWidget().accept())
    tab.findings.burnin_button.click()
    qtbot.waitUntil(lambda: any("has no samples" in text for level, text in messages if level == "error"),
                    timeout=20000)
    assert "Making the burn-in report" not in tab.toolbar.source_label.text()
    assert tab.toolbar.source_label.text() == tab.ctl.title
