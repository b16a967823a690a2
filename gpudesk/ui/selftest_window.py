"""The window part of ``gpudesk --self-test``: open the main window, wait for its first paint, close it.

Also builds a pyqtgraph plot with its context menus, because a frozen bundle that lacks pyqtgraph's
binding-specific template modules fails only when those menus are created (pyqtgraph issues #2179, #1981).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from gpudesk.errors import GpudeskError
from gpudesk.ui.first_paint import FirstPaintWatcher


class WindowCheckError(GpudeskError):
    """The main window did not open, paint or start cleanly."""


def open_and_paint(timeout_s: float) -> str:
    """Open the main window, wait up to ``timeout_s`` seconds for its first paint, close it.

    Returns a one-line summary (platform, tab titles, time to first paint). Raises WindowCheckError when the
    window reported start-up problems (catalog or store not opened) or did not paint in time.
    """
    app = QApplication.instance() or QApplication(["gpudesk", "--self-test"])
    from gpudesk.ui.main_window import MainWindow

    started = time.perf_counter()
    # Window geometry and the last tab of the check go to a throw-away file, never to the user's settings.
    scratch = tempfile.TemporaryDirectory(prefix="gpudesk-selftest-settings-")
    settings = QSettings(str(Path(scratch.name) / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    watcher = FirstPaintWatcher(window)
    window.show()
    deadline = started + timeout_s
    while watcher.painted_at is None and time.perf_counter() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    painted_s = time.perf_counter() - started
    tabs = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    broken = []
    for index in range(window.tabs.count()):  # build, show and render every tab, not only the one restored
        window.tabs.setCurrentIndex(index)
        content = window.tab(index)  # tabs are built on first show; None when the build failed
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        if content is None:
            error = getattr(window.tabs.widget(index), "error", None) or "not built"
            broken.append(f"{tabs[index]} ({error})")
        elif window.grab().isNull():
            broken.append(f"{tabs[index]} (could not be rendered)")
    problems = list(window.ctx.problems)
    plot_detail = _exercise_plot_menus()
    window.close()
    for resource in (window.ctx.store, window.ctx.catalog):  # release the files before the data folder goes
        if resource is not None:
            resource.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, 0)
    scratch.cleanup()
    if watcher.painted_at is None:
        raise WindowCheckError(f"main window not painted within {timeout_s:.0f} s on '{QGuiApplication.platformName()}'")
    if problems:
        raise WindowCheckError("; ".join(problems))
    if not tabs:
        raise WindowCheckError("main window has no tabs")
    if broken:
        raise WindowCheckError(f"broken tabs: {'; '.join(broken)}")
    return (f"main window painted on '{QGuiApplication.platformName()}' in {painted_s:.2f} s; {len(tabs)} tabs rendered "
            f"({', '.join(tabs)}); {plot_detail}")


def _exercise_plot_menus() -> str:
    import pyqtgraph as pg

    plot = pg.PlotWidget()
    item = plot.getPlotItem()
    item.plot([0.0, 1.0, 2.0], [0.0, 1.0, 0.5])
    menu = item.getViewBox().menu  # ViewBoxMenu: loads axisCtrlTemplate_<binding>
    ctrl = item.ctrlMenu  # plot options: loads plotConfigTemplate_<binding>
    if menu is None or ctrl is None:
        raise WindowCheckError("pyqtgraph plot menus were not created")
    actions = len(menu.actions())
    plot.deleteLater()
    return f"pyqtgraph {pg.__version__} plot with its menus ({actions} view actions)"
