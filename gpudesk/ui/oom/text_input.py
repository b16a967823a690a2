"""Paste or drop text: an OOM message, a ``memory_summary()`` table or a log file, for text diagnosis.

Dropped or opened files are read on a worker thread (:func:`read_log_file`); only the last
:data:`MAX_FILE_BYTES` of a large log are kept, since the OOM is usually near the end. The text is shown
in a plain-text editor (never rich text) and submitted with the Diagnose button or Ctrl+Return.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMimeData, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpudesk.file_limits import open_input
from gpudesk.ui.oom.context_inputs import ContextInputs
from gpudesk.ui.oom.controller import is_snapshot_file
from gpudesk.oom.errors import OomInputError
from gpudesk.oom.parsers.detect import decode_text
from gpudesk.ui.oom.plain import plain_label
from gpudesk.units import format_bytes
from gpudesk.ui.workers import run_task
from gpudesk.ui.error_text import error_text

MAX_FILE_BYTES = 1024 * 1024  # the tail of a log: about 15,000 lines, enough for any OOM report


@dataclass(frozen=True)
class LoadedText:
    """A file read for diagnosis: the raw bytes kept (the tail when the file was larger), its size."""

    path: str
    data: bytes
    file_size_bytes: int

    @property
    def truncated(self) -> bool:
        return self.file_size_bytes > len(self.data)

    def text(self) -> str:
        """The bytes decoded as UTF-8; undecodable bytes become U+FFFD and NULs are shown as U+2400."""
        return self.data.decode("utf-8", errors="replace").replace("\x00", "\u2400")


def read_log_file(path: str | Path, limit_bytes: int = MAX_FILE_BYTES) -> LoadedText:
    """Read ``path`` for diagnosis, keeping its last ``limit_bytes`` bytes.

    Raises:
        InputFileError: the file cannot be opened, or is not a regular file (a folder, a FIFO, a device); the
            message names the file. OSError: it cannot be read.
    """
    target = Path(path)
    # a regular file only: a FIFO or /dev/zero is refused (InputFileError) instead of read without end
    with open_input(target, limit_bytes, QCoreApplication.translate("OomTextInput", "the log"),
                    check_size=False) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit_bytes:
            handle.seek(size - limit_bytes)
        data = handle.read(limit_bytes)
    return LoadedText(str(target), data, size)


def local_files(mime: QMimeData) -> list[str]:
    """Local file paths in a drag's MIME data (URLs that are not local files are ignored)."""
    if not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and url.toLocalFile()]


class _DropEdit(QPlainTextEdit):
    """A plain-text editor that hands dropped files to its owner instead of inserting their path."""

    filesDropped = Signal(list)
    """Local files were dropped on the editor: their paths."""

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        files = local_files(event.mimeData())
        if files:
            event.acceptProposedAction()
            self.filesDropped.emit(files)
        else:
            super().dropEvent(event)


class TextInput(QWidget):
    """Editor + what the user knows beside the text (operating system, other processes' memory) + Diagnose /
    Open file… / Clear.

    Signals:
        submitted(text, source, context): the user asked for a diagnosis of ``text`` (str, or the file's raw bytes
            while a loaded file is unedited, so binary input is recognised as such); ``source`` is a file
            path or "pasted text"; ``context`` the :class:`gpudesk.oom.user_context.UserContext` (or None).
        failed(message): a file could not be read (the text already in the editor is kept).
        snapshotChosen(path): the file chosen or dropped is a memory snapshot (opened by the snapshot view).
    """

    submitted = Signal(object, str, object)
    """Diagnose was pressed or a file loaded: the text (str or raw bytes), its source and the UserContext."""
    failed = Signal(str)
    """A file could not be read (the editor keeps its text): the sentence saying why."""
    snapshotChosen = Signal(str)
    """The file chosen or dropped is a memory snapshot: its path."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._source = ""
        self._raw: bytes | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.editor = _DropEdit(self)
        self.editor.setPlaceholderText(
            self.tr(
                "Paste an out-of-memory message, a torch.cuda.memory_summary() table, a TensorFlow, JAX or "
                "vLLM error here, or drop a log file onto this tab."
            )
        )
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setTabChangesFocus(True)
        self.editor.filesDropped.connect(self._on_files)
        self.editor.textChanged.connect(self._on_edited)
        layout.addWidget(self.editor, 1)
        self.context_inputs = ContextInputs(self)
        layout.addWidget(self.context_inputs)
        self.info = plain_label("", self, wrap=True)
        layout.addWidget(self.info)
        buttons = QHBoxLayout()
        self.diagnose_button = QPushButton(self.tr("&Diagnose"), self)
        self.diagnose_button.setToolTip(self.tr("Parse the text and rank the likely causes (Ctrl+Return)"))
        self.diagnose_button.setDefault(True)
        self.diagnose_button.clicked.connect(self.submit)
        self.open_button = QPushButton(self.tr("&Open file…"), self)
        self.open_button.setToolTip(
            self.tr("Read a log file (its last %1 are used)").replace("%1", format_bytes(MAX_FILE_BYTES, digits=0))
        )
        self.open_button.clicked.connect(self._choose_file)
        self.clear_button = QPushButton(self.tr("Clear te&xt"), self)
        self.clear_button.clicked.connect(self.clear)
        buttons.addWidget(self.diagnose_button)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        for sequence in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut = QShortcut(QKeySequence(sequence), self.editor)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(self.submit)

    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str, source: str = "", raw: bytes | None = None) -> None:
        """Put ``text`` into the editor (plain text) and remember where it came from (and its raw bytes)."""
        self.editor.blockSignals(True)
        self.editor.setPlainText(text)
        self.editor.blockSignals(False)
        self._source = source
        self._raw = raw

    def clear(self) -> None:
        self.set_text("")
        self.info.setText("")
        self.editor.setFocus()

    def submit(self) -> None:
        payload = self._raw if self._raw is not None else self.text()
        self.submitted.emit(payload, self._source or self.tr("pasted text"), self.context_inputs.context())

    def load_file(self, path: str, *, diagnose: bool = True) -> None:
        """Read ``path`` in the background, show it and (by default) submit it for diagnosis."""
        self.info.setText(self.tr("Reading %1 …").replace("%1", path))
        self.open_button.setEnabled(False)
        run_task(
            read_log_file,
            path,
            on_result=lambda loaded: self._loaded(loaded, diagnose),
            on_error=self._load_failed,
            on_finished=lambda: self.open_button.setEnabled(True),
        )

    def _loaded(self, loaded: LoadedText, diagnose: bool) -> None:
        try:
            decode_text(loaded.data)
        except OomInputError as exc:
            # Binary or empty: never load mojibake into the editor (the text already there is kept); the
            # diagnosis shows the error alone.
            self.info.setText(self.tr("%1 is not a text log: %2").replace("%1", loaded.path).replace("%2", error_text(exc)))
            if diagnose:
                self.submitted.emit(loaded.data, loaded.path, self.context_inputs.context())
            return
        self.set_text(loaded.text(), loaded.path, loaded.data)
        if loaded.truncated:
            self.info.setText(
                self.tr("%1: %2, only the last %3 are shown and diagnosed.")
                .replace("%1", loaded.path)
                .replace("%2", format_bytes(loaded.file_size_bytes))
                .replace("%3", format_bytes(len(loaded.data)))
            )
        else:
            self.info.setText(
                self.tr("%1 (%2)").replace("%1", loaded.path).replace("%2", format_bytes(loaded.file_size_bytes))
            )
        if diagnose:
            self.submit()

    def _load_failed(self, exc: BaseException) -> None:
        message = self.tr("Cannot read the file: %1").replace("%1", error_text(exc))
        self.info.setText(message)
        self.failed.emit(message)

    def _on_files(self, files: list[str]) -> None:
        self.open_path(files[0])

    def open_path(self, path: str) -> None:
        """A memory snapshot goes to ``snapshotChosen``; any other file is read and diagnosed."""
        if is_snapshot_file(path):
            self.snapshotChosen.emit(path)
        else:
            self.load_file(path)

    def _on_edited(self) -> None:
        self._source = ""
        self._raw = None

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a log, an error file or a memory snapshot"), "",
            self.tr("Logs and text (*.log *.txt *.out *.err);;Memory snapshots (*.pickle *.pkl *.json *.gz);;"
                    "All files (*)"),
        )
        if path:
            self.open_path(path)
