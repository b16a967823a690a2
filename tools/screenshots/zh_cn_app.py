"""Shared start of the zh_CN screenshot scripts run by hand (zh_cn_screenshots, i18n_screenshots,
monitor_i18n_screenshots): the application with the shipped zh_CN window translation installed, and the main
window at 1280x800 over a throw-away settings file in ``GPUDESK_DATA_DIR`` (set by the script before it imports
Qt). Lives next to the scripts, which find it as their own folder is first on ``sys.path``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, QTranslator
from PySide6.QtWidgets import QApplication, QWidget

REPO = Path(__file__).resolve().parents[2]
QM = REPO / "resources" / "translations" / "gpudesk_zh_CN.qm"
SIZE = (1280, 800)


def zh_cn_app() -> QApplication | None:
    """The application with the zh_CN .qm installed; None (after saying why on stderr) when it cannot be loaded."""
    app = QApplication.instance() or QApplication(sys.argv)
    translator = QTranslator(app)
    if not translator.load(str(QM)):
        print(f"cannot load {QM}", file=sys.stderr)
        return None
    app.installTranslator(translator)
    return app  # type: ignore[return-value]


def scratch_main_window() -> QWidget:
    """The main window over a throw-away settings file, shown at SIZE with its deferred start-up done."""
    # Imported here, after the translator is installed and the data folder chosen, as the scripts always did.
    from gpudesk.ui.main_window import MainWindow

    settings = QSettings(str(Path(os.environ["GPUDESK_DATA_DIR"]) / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(*SIZE)
    window.show()
    window.startup.finish_now()
    return window
