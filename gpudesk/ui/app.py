"""Start the Qt application and show the main window."""

from __future__ import annotations

import os
import sys
from typing import cast

from PySide6.QtCore import QLibraryInfo, QLocale, QSettings, QTranslator
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from gpudesk import APP_NAME, __version__, i18n, paths
from gpudesk.ui.cjk_font import startup_font_warning
from gpudesk.ui.language_menu import saved_language
from gpudesk.ui.settings_file import open_settings


def choose_language(explicit: str | None, settings: QSettings) -> str | None:
    """The window's language: ``--lang``, else the Language menu's choice, else ``GPUDESK_LANG``, else None
    (the system locale)."""
    for candidate in (explicit, saved_language(settings), os.environ.get("GPUDESK_LANG")):
        if candidate in i18n.LANGUAGES:
            return candidate
    return None


def install_translators(app: QApplication, language: str | None = None) -> list[QTranslator]:
    """Load Qt's own and gpudesk's translations for ``language`` (None: the system locale), where they exist."""
    translators = []
    locale = QLocale.system() if language is None else QLocale(language)
    qt_tr = QTranslator(app)
    if qt_tr.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_tr)
        translators.append(qt_tr)
    own = QTranslator(app)
    if own.load(locale, "gpudesk", "_", str(paths.resources_dir() / "translations")):
        app.installTranslator(own)
        translators.append(own)
    return translators


def apply_language(app: QApplication, language: str | None) -> tuple[str, list[QTranslator]]:
    """Install the Qt translations for ``language`` (None: the system locale) and switch the core's messages
    (planner, OOM doctor, monitor findings shown in the window) to the same language; returns its name."""
    translators = install_translators(app, language)
    name = language or QLocale.system().name()
    if language is not None:
        QLocale.setDefault(QLocale(language))
    i18n.set_language(name)
    return name, translators


def run_app(argv: list[str] | None = None, language: str | None = None) -> int:
    """Open the main window and run the event loop; returns the exit status. ``language`` (``--lang``) wins
    over the Language menu's saved choice for this run."""
    app = cast(QApplication, QApplication.instance() or QApplication(argv if argv is not None else sys.argv))
    app.setApplicationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName(APP_NAME)
    icon = paths.resources_dir() / "icons" / "gpudesk.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    settings, data_dir_error = open_settings()
    name, _translators = apply_language(app, choose_language(language, settings))
    from gpudesk.ui.main_window import MainWindow

    window = MainWindow(settings=settings)

    def report_exceptions() -> None:
        # Installed as the first start-up step after the first paint: the hook's queued connection builds the
        # Qt namespace's enums (~20-30 ms), which the first paint does not need (issue 15). Until then an
        # exception goes to stderr only.
        from gpudesk.ui.error_report import install_excepthook

        install_excepthook(window.message_bar.show_message)

    window.startup.add_step("exceptions", (), report_exceptions, before="catalog")
    if data_dir_error is not None:  # the window works; only saving settings, plans and recordings fails
        window.message_bar.show_message(data_dir_error.user_text(), "error")
    font_warning = startup_font_warning(name)
    if font_warning is not None:
        window.message_bar.show_message(font_warning, "warning")
    window.show()
    from gpudesk.ui.first_paint import exit_after_first_paint_requested, quit_after_first_paint

    if exit_after_first_paint_requested():  # GPUDESK_EXIT_AFTER_PAINT=1: start-up timing, see first_paint.py
        quit_after_first_paint(app, window)
    return app.exec()
