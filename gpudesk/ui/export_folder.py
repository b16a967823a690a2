"""Where Save dialogs for exports open: the folder the user exported to last, else Documents, else home.

A bare file name handed to ``QFileDialog`` opens in the process's working directory, which for a desktop app is
wherever it was started from (``/``, the install folder); exports belong with the user's files.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from gpudesk.ui.settings_file import open_settings

SETTINGS_KEY = "export/last_folder"


def start_folder() -> Path:
    """The last folder an export went to (when it still exists), else Documents (when it exists), else home."""
    last = open_settings()[0].value(SETTINGS_KEY, "")
    if last and Path(str(last)).is_dir():
        return Path(str(last))
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if documents and Path(documents).is_dir():
        return Path(documents)
    return Path.home()


def remember(path: str | Path) -> None:
    """Keep the folder of ``path`` (a file just chosen) for the next export."""
    settings = open_settings()[0]
    settings.setValue(SETTINGS_KEY, str(Path(path).parent))
    settings.sync()


def ask_save_path(parent: QWidget | None, caption: str, file_name: str, filters: str) -> str:
    """The Save dialog for an export, opened in :func:`start_folder` with ``file_name`` suggested; the chosen
    path ("" when cancelled). The chosen folder is remembered."""
    path, _selected = QFileDialog.getSaveFileName(parent, caption, str(start_folder() / file_name), filters)
    if path:
        remember(path)
    return path
