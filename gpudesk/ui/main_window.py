"""The main window: a message bar over one tab per part of the app. It only composes tabs.

Start-up (issue 2): the window opens the catalog, builds the open tab and paints; the user store and the
chart library load after that first paint (:mod:`gpudesk.ui.startup`). A tab class that can be shown before
the store is open says so with ``opens_before_store = True`` and gets ``store_opened()`` called once it is;
any other tab is built only after the store step has run (at once, if the start-up has not reached it yet).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSettings, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QTabWidget, QVBoxLayout, QWidget

from gpudesk.errors import GpudeskError
from gpudesk.ui.context import AppContext
from gpudesk.ui.first_paint import FirstPaintWatcher
from gpudesk.ui.language_menu import LanguageMenu
from gpudesk.ui.lazy_tab import LazyTab
from gpudesk.ui.message_bar import MessageBar
from gpudesk.ui.settings_file import open_settings
from gpudesk.ui.startup import STORE_MODULES, Startup
from gpudesk.ui.tabs import TAB_CLASSES
from gpudesk.ui.workers import failure_text, tracker

#: Start the deferred start-up this long after the window is shown even when no first paint was seen (ms).
STARTUP_FALLBACK_MS = 1500


def open_context(store: bool = True) -> AppContext:
    """Open the catalog and (unless ``store`` is False) the user store; failures become messages, the window
    still opens."""
    ctx = AppContext()
    try:
        from gpudesk.catalog import open_catalog

        ctx.catalog = open_catalog()
    except Exception as exc:  # noqa: BLE001 - any catalog failure is reported, the app keeps going
        ctx.problems.append(exc.user_text() if isinstance(exc, GpudeskError) else str(exc))
    if store:
        open_store_into(ctx)
    return ctx


def open_store_into(ctx: AppContext) -> bool:
    """Open the user store into ``ctx.store``; a failure is added to ``ctx.problems``. Returns success."""
    try:
        from gpudesk.store import open_store

        ctx.store = open_store()
    except Exception as exc:  # noqa: BLE001 - any store failure is reported, the app keeps going
        ctx.problems.append(exc.user_text() if isinstance(exc, GpudeskError) else str(exc))
        return False
    return True


class MainWindow(QMainWindow):
    """Tabs listed in :data:`gpudesk.ui.tabs.TAB_CLASSES`; geometry and last tab are remembered."""

    def __init__(self, ctx: AppContext | None = None, settings: QSettings | None = None):
        super().__init__()
        self.setWindowTitle(self.tr("gpudesk"))
        self.ctx = ctx if ctx is not None else open_context(store=False)
        self.startup = Startup(lambda text: self.message_bar.show_message(text, "error"), self)
        if ctx is None:  # a given context comes with its store (or without one) already decided
            self.startup.add_step("store", STORE_MODULES, self._open_store)
        self.startup.activate()
        self.settings = settings or open_settings()[0]
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        self.message_bar = MessageBar(central)
        self.ctx.notify = self.message_bar.show_message
        tracker().unhandled.connect(self._task_failed)
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
        self._build_tab(self.tabs.currentIndex())
        if self.ctx.problems:
            self.message_bar.show_message("\n".join(self.ctx.problems), "error")
        self._paint_watcher = FirstPaintWatcher(self)
        self._paint_watcher.painted.connect(lambda _when: self.startup.begin())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self.startup.started:
            # Normally the first paint starts the deferred start-up; a window that gets no paint (shown
            # minimised or on another workspace) must still get its charts and user store.
            QTimer.singleShot(STARTUP_FALLBACK_MS, self.startup, self.startup.begin)

    def _task_failed(self, exc: BaseException) -> None:
        """A background task failed and nobody handled it: say so in the message bar."""
        self.message_bar.show_message(self.tr("A background task failed: {0}").format(failure_text(exc)), "error")

    def _prepare_tab(self, tab_class: type) -> None:
        """Called by a LazyTab before it builds ``tab_class``: a tab that needs the store gets it first."""
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
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.language_menu = LanguageMenu(self.settings, self.message_bar.show_message, self)
        self.menuBar().addMenu(self.language_menu)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        about = QAction(self.tr("&About gpudesk and data sources…"), self)
        about.triggered.connect(self.show_about)
        help_menu.addAction(about)
        for index in range(min(self.tabs.count(), 9)):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Alt+{index + 1}"))
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
        last = self.settings.value("main/tab", 0)
        try:
            self.tabs.setCurrentIndex(min(int(str(last)), max(self.tabs.count() - 1, 0)))
        except (TypeError, ValueError):
            self.tabs.setCurrentIndex(0)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.startup.stop()
        for index in range(self.tabs.count()):
            page = self.tabs.widget(index)
            if isinstance(page, LazyTab):
                page.shutdown()
        self.settings.setValue("main/geometry", self.saveGeometry())
        self.settings.setValue("main/tab", self.tabs.currentIndex())
        self.settings.sync()
        super().closeEvent(event)
