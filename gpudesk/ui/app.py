"""Start the Qt application and show the main window."""

from __future__ import annotations

import sys
from typing import cast

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from gpudesk import APP_NAME, __version__, paths


def install_translators(app: QApplication) -> list[QTranslator]:
    """Load Qt's own and gpudesk's translations for the system locale, where they exist."""
    translators = []
    locale = QLocale.system()
    qt_tr = QTranslator(app)
    if qt_tr.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_tr)
        translators.append(qt_tr)
    own = QTranslator(app)
    if own.load(locale, "gpudesk", "_", str(paths.resources_dir() / "translations")):
        app.installTranslator(own)
        translators.append(own)
    return translators


def run_app(argv: list[str] | None = None) -> int:
    """Open the main window and run the event loop; returns the exit status."""
    app = cast(QApplication, QApplication.instance() or QApplication(argv if argv is not None else sys.argv))
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName(APP_NAME)
    icon = paths.resources_dir() / "icons" / "gpudesk.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    install_translators(app)
    from gpudesk.ui.main_window import MainWindow

    window = MainWindow()

    def report_exceptions() -> None:
        # Installed as the first start-up step after the first paint: the hook's queued connection builds the
        # Qt namespace's enums (~20-30 ms), which the first paint does not need (issue 15). Until then an
        # exception goes to stderr only.
        from gpudesk.ui.error_report import install_excepthook

        install_excepthook(window.message_bar.show_message)

    window.startup.add_step("exceptions", (), report_exceptions, before="catalog")
    window.show()
    from gpudesk.ui.first_paint import exit_after_first_paint_requested, quit_after_first_paint

    if exit_after_first_paint_requested():  # GPUDESK_EXIT_AFTER_PAINT=1: start-up timing, see first_paint.py
        quit_after_first_paint(app, window)
    return app.exec()
