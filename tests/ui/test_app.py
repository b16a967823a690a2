"""``run_app``: the window opens even when the user data folder is unusable, and says so."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from gpudesk import paths
from gpudesk.ui import app as app_module
from gpudesk.ui.main_window import MainWindow
from gpudesk.ui.settings_file import open_settings


def test_open_settings_falls_back_and_returns_the_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file.md"
    blocker.write_text("# notes\n", encoding="utf-8")
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(blocker / "data"))
    settings, error = open_settings()
    assert isinstance(error, paths.DataDirError)
    assert settings.fileName() == str(blocker / "data" / "settings.ini")
    assert settings.value("main/tab") is None


def test_the_window_opens_with_an_unusable_data_folder_and_says_why(qtbot, tmp_path, monkeypatch):
    blocker = tmp_path / "file.md"
    blocker.write_text("# notes\n", encoding="utf-8")
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(blocker / "data"))
    monkeypatch.setattr(QApplication, "exec", lambda self: 0)
    assert app_module.run_app([]) == 0
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    assert windows
    window = windows[-1]
    qtbot.addWidget(window)
    text = window.message_bar._label.text()
    assert "cannot be created" in text and "GPUDESK_DATA_DIR" in text
    assert window.message_bar.isVisible()
    window.grab().save(str(tmp_path / "data-dir-error.png"))
