"""Help > Open the user data folder hands the data folder to the desktop, and says so when nothing opens it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices

from gpudesk import paths
from gpudesk.ui.main_window import MainWindow


@pytest.fixture
def window(qtbot, tmp_path):
    win = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    win.show()
    return win


def help_action(window: MainWindow, text: str):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == text)


@pytest.mark.parametrize("desktop_opens", [True, False])
def test_help_menu_opens_the_user_data_folder(window, monkeypatch, desktop_opens):
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or desktop_opens)
    help_action(window, "Open the user &data folder").trigger()
    assert [url.toLocalFile() for url in opened] == [str(paths.data_dir())]
    assert window.message_bar.isVisible() is not desktop_opens
    if not desktop_opens:
        assert str(paths.data_dir()) in window.message_bar.text()
