"""The message bar floats over the window's bottom edge: showing or dismissing a message moves nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt

from gpudesk.ui.main_window import MainWindow


def test_showing_and_hiding_a_message_does_not_move_the_tabs(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1000, 700)
    window.show()
    qtbot.waitExposed(window)
    before = window.tabs.geometry()
    window.message_bar.show_message("Fleet refresh failed: Prometheus at http://127.0.0.1:9 did not answer. "
                                    * 3, "error")
    qtbot.wait(20)
    assert window.message_bar.isVisible() and window.tabs.geometry() == before
    bar = window.message_bar.geometry()
    central = window.centralWidget().rect()
    assert bar.bottom() == central.bottom() and bar.width() == central.width() and bar.height() >= 30
    window.grab().save(str(tmp_path / "bar.png"))
    window.resize(800, 600)
    qtbot.wait(20)
    assert window.message_bar.geometry().bottom() == window.centralWidget().rect().bottom()
    assert window.message_bar.width() == window.centralWidget().width()
    window.message_bar.setFocus()
    qtbot.keyClick(window.message_bar, Qt.Key.Key_Escape)
    assert not window.message_bar.isVisible() and window.tabs.geometry().height() == window.centralWidget().height()
