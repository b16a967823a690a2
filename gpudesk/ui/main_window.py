"""The main window: a message bar over one tab per part of the app. It only composes tabs.

Start-up (issues 2 and 15): the window paints its frame (menus, message bar, tab bar) first; then, in the
start-up steps after that first paint (:mod:`gpudesk.ui.startup`), the catalog opens, the open tab is built
(its module imported on the thread pool), and the chart library and the user store load. A tab built earlier
(the user switches tabs, or code asks for :meth:`MainWindow.tab`) gets the catalog at once. A tab class that
can be shown before the store is open says so with ``opens_before_store = True`` and gets ``store_opened()``
called once it is; any other tab is built only after the store step has run (at once, if the start-up has not
reached it yet).
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, QSettings, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabWidget, QVBoxLayout, QWidget

from gpudesk.settings_upgrade import TAB_KEY
from gpudesk.ui.context import AppContext
from gpudesk.ui.first_paint import FirstPaintWatcher
from gpudesk.ui.language_menu import LanguageMenu
from gpudesk.ui.lazy_tab import LazyTab
from gpudesk.ui.message_bar import MessageBar
from gpudesk.ui.settings_file import open_settings
from gpudesk.ui.settings_file import upgrade as upgrade_settings_file
from gpudesk.ui.startup import STORE_MODULES, Startup
from gpudesk.ui.tabs import TAB_CLASSES, tab_name
from gpudesk.ui.error_text import error_text

#: Start the deferred start-up this long after the window is shown even when no first paint was seen (ms).
STARTUP_FALLBACK_MS = 1500
#: Imported on the thread pool before the catalog opens (after the first paint).
CATALOG_MODULES: tuple[str, ...] = ("gpudesk.catalog",)


def open_context(store: bool = True) -> AppContext:
    """Open the catalog and (unless ``store`` is False) the user store; failures become messages, the window
    still opens."""
    ctx = AppContext()
    open_catalog_into(ctx)
    if store:
        open_store_into(ctx)
    return ctx


def open_catalog_into(ctx: AppContext) -> bool:
    """Open the GPU catalog into ``ctx.catalog``; a failure is added to ``ctx.problems``. Returns success."""
    try:
        from gpudesk.catalog import open_catalog  # imported after the first paint (start-up speed)

        ctx.catalog = open_catalog()
    except Exception as exc:  # noqa: BLE001 - any catalog failure is reported, the app keeps going
        ctx.problems.append(error_text(exc))
        return False
    return True


def open_store_into(ctx: AppContext) -> bool:
    """Open the user store into ``ctx.store``; a failure is added to ``ctx.problems``. Returns success."""
    try:
        from gpudesk.store import open_store

        ctx.store = open_store()
    except Exception as exc:  # noqa: BLE001 - any store failure is reported, the app keeps going
        ctx.problems.append(error_text(exc))
        return False
    return True


class MainWindow(QMainWindow):
    """Tabs listed in :data:`gpudesk.ui.tabs.TAB_CLASSES`; geometry and last tab are remembered."""

    def __init__(self, ctx: AppContext | None = None, settings: QSettings | None = None):
        super().__init__()
        self.setWindowTitle(self.tr("gpudesk"))
        self.ctx = ctx if ctx is not None else AppContext()
        self.startup = Startup(lambda text: self.message_bar.show_message(text, "error"), self)
        if ctx is None:  # a given context comes with its catalog and store (or without them) already decided
            self.startup.add_step("catalog", CATALOG_MODULES, self._open_catalog, before="charts")
            self.startup.add_step("store", STORE_MODULES, self._open_store)
        self.startup.activate()
        if settings is None:
            settings = open_settings()[0]
        else:
            upgrade_settings_file(settings)  # open_settings upgrades the files it opens
        self.settings = settings
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        self.message_bar = MessageBar(central)
        self.ctx.notify = self.message_bar.show_message
        self.ctx.retract = self.message_bar.retract
        self._watching_tasks = False
        if "gpudesk.ui.workers" in sys.modules:  # background tasks may already run: report their failures now
            self._watch_tasks()
        self.tabs = QTabWidget(central)
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs, 1)  # the message bar floats over the bottom edge: showing it moves nothing
        self.setCentralWidget(central)
        for module_name, class_name, title in TAB_CLASSES:
            page = LazyTab(self.ctx, module_name, class_name, self.tabs, prepare=self._prepare_tab)
            self.tabs.addTab(page, QCoreApplication.translate("MainWindow", title))
        self._build_menu()
        self._restore()
        self.tabs.currentChanged.connect(self._build_tab)
        # The open tab is built right after the first paint (its module imported on the thread pool first).
        current = self.tabs.widget(self.tabs.currentIndex())
        modules = (current.module_name,) if isinstance(current, LazyTab) else ()
        self.startup.add_step("tab", modules, self._build_current_tab, before="charts")
        if self.ctx.problems:
            self.message_bar.show_message("\n".join(self.ctx.problems), "error")
        self._paint_watcher = FirstPaintWatcher(self)
        self._paint_watcher.painted.connect(lambda _when: self.begin_startup())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self.startup.started:
            # Normally the first paint starts the deferred start-up; a window that gets no paint (shown
            # minimised or on another workspace) must still get its charts and user store.
            QTimer.singleShot(STARTUP_FALLBACK_MS, self, self.begin_startup)

    def begin_startup(self) -> None:
        """Start the deferred start-up (after the first paint): watch background tasks, then run the steps."""
        self._watch_tasks()
        self.shell.finish_startup()
        self.startup.begin()
        if self.tray_action.isChecked():
            self.start_alert_tray()

    # --- alerts in the tray (gpudesk.ui.alert_tray) ---------------------------------------------------------
    _alert_tray = None
    _quitting = False

    def start_alert_tray(self, make_monitor=None) -> None:
        """Watch the GPUs for alerts in a background thread; closing the window then hides it to the tray."""
        if self._alert_tray is not None:
            return
        from gpudesk.telemetry.sources.alert_monitor import open_alert_monitor
        from gpudesk.ui.alert_tray import AlertTray

        from gpudesk.nvml.nvml_session import host_name
        from gpudesk.ui.alert_settings_dialog import saved_delivery

        delivery = saved_delivery(self.settings, host_name())
        tray = AlertTray(make_monitor or (lambda on_alert: open_alert_monitor(on_alert, delivery=delivery)),
                         parent=self)
        tray.showWindow.connect(self._show_from_tray)
        tray.quitRequested.connect(self.quit)
        tray.failed.connect(lambda text: self.message_bar.show_message(text, "error"))
        self._alert_tray = tray
        tray.start()

    @property
    def alert_tray(self):  # -> AlertTray | None (imported only when the tray starts)
        """The tray's alert watcher while it runs (File > Keep watching for alerts in the tray), else None."""
        return self._alert_tray

    def stop_alert_tray(self) -> None:
        if self._alert_tray is not None:
            self._alert_tray.stop()
            self._alert_tray = None

    def _alerts_toggled(self, on: bool) -> None:
        self.settings.setValue("alerts/tray", "true" if on else "false")
        if on:
            self.start_alert_tray()
        else:
            self.stop_alert_tray()

    def _alert_delivery(self) -> None:
        from gpudesk.ui.alert_settings_dialog import AlertDeliveryDialog

        if AlertDeliveryDialog(self.settings, self).exec() and self._alert_tray is not None:
            self.stop_alert_tray()  # restart the alerts with the new delivery
            self.start_alert_tray()

    def _show_from_tray(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def quit(self) -> None:
        """Quit for real (File > Quit, the tray's Quit): stop the alerts, then close."""
        self._quitting = True
        self.stop_alert_tray()
        self.close()

    def _watch_tasks(self) -> None:
        """Show the failures of background tasks that nobody handled (from the first task on)."""
        if self._watching_tasks:
            return
        self._watching_tasks = True
        # Imported here: gpudesk.ui.workers builds the Qt namespace's enums (~20-30 ms), after the first paint.
        from gpudesk.ui.workers import tracker

        tracker().unhandled.connect(self._task_failed)

    def _task_failed(self, exc: BaseException) -> None:
        """A background task failed and nobody handled it: say so in the message bar."""
        from gpudesk.ui.workers import failure_text  # imported by _watch_tasks already

        self.message_bar.show_message(self.tr("A background task failed: {0}").format(failure_text(exc)), "error")

    def _open_catalog(self) -> None:
        """The start-up's catalog step (after the first paint): open it, report a failure."""
        if not open_catalog_into(self.ctx):
            self.message_bar.show_message("\n".join(self.ctx.problems), "error")

    def _build_current_tab(self) -> None:
        self._build_tab(self.tabs.currentIndex())

    def _prepare_tab(self, tab_class: type) -> None:
        """Called by a LazyTab before it builds ``tab_class``: every tab gets the catalog first, and a tab that
        needs the store gets it too."""
        self._watch_tasks()
        self.startup.run_now("catalog")
        if not getattr(tab_class, "opens_before_store", False):
            self.startup.run_now("store")

    def _open_store(self) -> None:
        """The start-up's store step (after the first paint): open it, report a failure, tell the tabs."""
        if not open_store_into(self.ctx):
            self.message_bar.show_message("\n".join(self.ctx.problems), "error")
            return
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            opened = getattr(page.content, "store_opened", None) if isinstance(page, LazyTab) else None
            if callable(opened):
                opened()

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        quit_action = QAction(self.tr("&Quit"), self)
        # setShortcuts, not setShortcut: the latter's overloads build the Qt namespace's enums before the first
        # paint (~25 ms, issue 15); setShortcuts(StandardKey) also sets every binding the platform has.
        quit_action.setShortcuts(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.quit)
        self.tray_action = QAction(self.tr("Keep watching for &alerts in the tray"), self)
        self.tray_action.setCheckable(True)
        self.tray_action.setChecked(str(self.settings.value("alerts/tray", "false")).lower() == "true")
        self.tray_action.toggled.connect(self._alerts_toggled)
        delivery_action = QAction(self.tr("Alert &delivery…"), self)
        delivery_action.triggered.connect(self._alert_delivery)
        self.language_menu = LanguageMenu(self.settings, self.message_bar.show_message, self)
        self.menuBar().addMenu(self.language_menu)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        from gpudesk.ui.shell_menus import ShellMenus

        self.shell = ShellMenus(self, file_menu, help_menu)
        file_menu.addSeparator()
        file_menu.addAction(self.tray_action)  # the alert actions below the plan's, above Quit
        file_menu.addAction(delivery_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        about = QAction(self.tr("&About gpudesk and data sources…"), self)
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)
        for index in range(min(self.tabs.count(), 9)):
            action = QAction(self)
            action.setShortcuts([QKeySequence(f"Alt+{index + 1}")])
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            self.addAction(action)

    def _build_tab(self, index: int) -> None:
        page = self.tabs.widget(index)
        if isinstance(page, LazyTab):
            page.ensure_built()

    def tab(self, index: int):
        """The real widget of tab ``index``, built now if it was not yet (None if it failed to build)."""
        page = self.tabs.widget(index)
        return page.ensure_built() if isinstance(page, LazyTab) else page

    def show_about(self) -> None:
        from gpudesk.ui.about import AboutDialog

        AboutDialog(self.ctx, self).exec()

    def _restore(self) -> None:
        geometry = self.settings.value("main/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 820)
        last = str(self.settings.value(TAB_KEY, ""))  # the tab's name (settings version 1)
        names = [tab_name(module_name) for module_name, _class_name, _title in TAB_CLASSES]
        self.tabs.setCurrentIndex(names.index(last) if last in names else 0)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._alert_tray is not None and not self._quitting:
            self.hide()  # closed to the tray: the alerts keep watching
            event.ignore()
            self.message_bar.show_message(self.tr("gpudesk keeps watching for alerts in the tray; quit it from "
                                                  "the tray menu or File > Quit."), "info")
            return
        self.startup.stop()
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            if isinstance(page, LazyTab):
                page.shutdown()
        self.settings.setValue("main/geometry", self.saveGeometry())
        index = self.tabs.currentIndex()
        if 0 <= index < len(TAB_CLASSES):
            self.settings.setValue(TAB_KEY, tab_name(TAB_CLASSES[index][0]))
        self.settings.sync()
        super().closeEvent(event)
