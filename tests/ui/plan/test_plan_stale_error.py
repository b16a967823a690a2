"""qa16: a plan error in the message bar ("Cannot read the model config ...") is withdrawn when the answer that caused
it changes, or when a later plan succeeds; a newer message is left alone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.ui.context import AppContext
from gpudesk.ui.message_bar import MessageBar
from gpudesk.ui.plan.tab import PlanTab


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


def _failed_plan(qtbot, catalog, tmp_path):
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(1280, 900)
    bar = MessageBar(host)
    tab = PlanTab(AppContext(catalog=catalog, store=None, notify=bar.show_message, retract=bar.retract))
    qtbot.addWidget(tab)
    host.show()
    tab.load_example(paths.examples_dir() / "article-13b-finetune.toml")
    wizard = tab.pages.wizard
    wizard.set_field_text("model.config_path", str(tmp_path / "missing.config.json"))
    failed: list[BaseException] = []
    tab.ctl.planFailed.connect(failed.append)
    qtbot.mouseClick(wizard.plan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(failed) or not bar.isHidden(), timeout=30000)
    qtbot.waitUntil(lambda: not bar.isHidden(), timeout=5000)
    assert "missing.config.json" in bar.text(), bar.text()
    return tab, bar, host


def test_error_goes_when_its_field_changes(qtbot, catalog, tmp_path):
    tab, bar, _host = _failed_plan(qtbot, catalog, tmp_path)
    assert "missing.config.json" in tab.status.text()
    tab.pages.wizard.set_field_text("model.config_path", "")
    assert bar.isHidden()
    assert "missing.config.json" not in tab.status.text()  # the tab's status line repeated it


def test_error_goes_when_a_plan_succeeds_and_a_newer_message_stays(qtbot, catalog, tmp_path):
    tab, bar, _host = _failed_plan(qtbot, catalog, tmp_path)
    wizard = tab.pages.wizard
    # The example's catalog model back, with no change signal: only the plan's success withdraws the error here.
    for key, value in (("model.config_path", None), ("model.model", "llama-2-13b")):
        editor = wizard.editors[key]
        editor.blockSignals(True)
        editor.set_value(value)
        editor.blockSignals(False)
    assert not bar.isHidden()
    with qtbot.waitSignal(tab.planReady, timeout=60000):
        qtbot.mouseClick(wizard.plan_button, Qt.MouseButton.LeftButton)
    assert bar.isHidden()
    bar.show_message("a newer warning", "warning")
    tab._retract_error()
    assert not bar.isHidden() and bar.text() == "a newer warning"
