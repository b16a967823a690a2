"""The thresholds settings page: shows the file's values, saves only the changes, restores defaults."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from gpudesk.telemetry.rules.thresholds import Thresholds, save_thresholds
from gpudesk.ui.monitor.thresholds_editor import ThresholdsDialog, ThresholdsEditor


def test_edit_save_and_defaults(qtbot, tmp_path):
    path = tmp_path / "rule-thresholds.json"
    save_thresholds(Thresholds(min_span_s=20.0), path)
    editor = ThresholdsEditor(path)
    qtbot.addWidget(editor)
    assert editor.fields["min_span_s"].value() == 20.0
    assert editor.fields["h2d_min_bytes_per_s"].value() == 1.0 and editor.fields["h2d_min_bytes_per_s"].suffix() == " GB/s"
    editor.fields["periodic_min_dips"].setValue(6)
    with qtbot.waitSignal(editor.saved) as sig:
        editor.save_button.click()
    assert sig.args[0].periodic_min_dips == 6
    assert json.loads(path.read_text()) == {"version": 1, "min_span_s": 20.0, "periodic_min_dips": 6}
    editor.defaults_button.click()
    editor.save_button.click()
    assert json.loads(path.read_text()) == {"version": 1}


def test_a_broken_file_shows_why_and_starts_from_defaults(qtbot, tmp_path):
    path = tmp_path / "rule-thresholds.json"
    path.write_text('{"min_spam_s": 3}')
    editor = ThresholdsEditor(path)
    qtbot.addWidget(editor)
    assert "Unknown rule thresholds: min_spam_s" in editor.status.text()
    assert editor.values() == Thresholds()


def test_enter_in_a_field_saves_and_never_restores_defaults(qtbot, tmp_path):
    path = tmp_path / "rule-thresholds.json"
    save_thresholds(Thresholds(min_span_s=20.0), path)
    dialog = ThresholdsDialog(path=path)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.editor.save_button.isDefault()
    assert not dialog.editor.defaults_button.autoDefault()
    field = dialog.editor.fields["periodic_min_dips"]
    field.setFocus()
    field.setValue(7)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert field.value() == 7 and dialog.editor.fields["min_span_s"].value() == 20.0
    assert json.loads(path.read_text()) == {"version": 1, "min_span_s": 20.0, "periodic_min_dips": 7}
    assert dialog.isVisible()  # Enter saved; it did not close the window either
    dialog.editor.defaults_button.setFocus()
    dialog.editor.fields["min_span_s"].setFocus()
    qtbot.keyClick(dialog.editor.fields["min_span_s"], Qt.Key.Key_Enter)
    assert dialog.editor.fields["min_span_s"].value() == 20.0
