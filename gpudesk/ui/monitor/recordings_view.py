"""Saved recordings: list, open, rename, notes, delete, export as CSV, export the plots as PNG.

Listing, renaming and notes are small queries on the GUI thread's store connection (``ctx.store``);
deleting (many samples), CSV export and PNG rendering run on the thread pool with their own connection.
Names and notes are user text and are shown as plain text.
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.ui.translate_marks import QT_TRANSLATE_NOOP
from gpudesk.units import format_duration
from gpudesk.ui.workers import run_task
from gpudesk.ui.export_folder import ask_save_path
from gpudesk.ui.tooltips import plain_tooltip

HEADERS = (
    QT_TRANSLATE_NOOP("RecordingsView", "#"),
    QT_TRANSLATE_NOOP("RecordingsView", "Name"),
    QT_TRANSLATE_NOOP("RecordingsView", "Started"),
    QT_TRANSLATE_NOOP("RecordingsView", "Duration"),
    QT_TRANSLATE_NOOP("RecordingsView", "GPUs"),
    QT_TRANSLATE_NOOP("RecordingsView", "Source"),
    QT_TRANSLATE_NOOP("RecordingsView", "Samples"),
)


def _when(t: float | None, as_printed: bool = False) -> str:
    """Local time, or UTC for dmon imports (their stamps are the node's local time stored as printed)."""
    if t is None:
        return QCoreApplication.translate("Monitor", "N/A")
    zone = _dt.timezone.utc if as_printed else None
    return _dt.datetime.fromtimestamp(t, zone).strftime("%Y-%m-%d %H:%M")


def session_row(session) -> list[str]:
    """Display texts for one ``gpudesk.store.recordings.RecordingSession``. A dmon log without dates has no start
    time of its own (its stamps are seconds from its first row or a time of day): the time it was imported is
    shown instead, marked so, never 1970-01-01."""
    from gpudesk.telemetry.core.timebase import undated

    first = session.first_t if session.first_t is not None else session.started_at
    if undated(first):
        started = QCoreApplication.translate("Monitor", "{t} (imported; the log has no dates)").format(
            t=_when(session.started_at))
    if session.first_t is not None and session.last_t is not None:
        duration = format_duration(session.last_t - session.first_t)
    else:
        duration = QCoreApplication.translate("Monitor", "N/A (no samples)")
    if session.interrupted:
        duration += QCoreApplication.translate("Monitor", " (interrupted)")
    model = f" × {session.gpu_model}" if session.gpu_model else ""
    if not undated(first):
        started = _when(first, (session.source or "").startswith("dmon"))
    return [str(session.id), session.name or "", started, duration, f"{session.gpu_count}{model}",
            session.source or "", str(session.sample_rows)]


def delete_recording(session_id: int) -> int:
    """Delete a recording with its samples (thread pool; own store connection)."""
    from gpudesk.store import open_store, recordings

    db = open_store()
    try:
        recordings.delete_session(db, session_id)
    finally:
        db.close()
    return session_id


def export_recording_csv(session_id: int, path: str) -> str:
    """Write a recording's samples as CSV (thread pool; own store connection)."""
    from gpudesk.store import open_store
    from gpudesk.telemetry.recording.export import export_csv
    from gpudesk.telemetry.recording.recorder import load_frame, session_devices

    db = open_store()
    try:
        frame = load_frame(db, session_id)
        devices = session_devices(db, session_id)
    finally:
        db.close()
    with open(path, "w", encoding="utf-8", newline="") as out:
        export_csv(frame, out, devices=devices)
    return path


class RecordingsView(QWidget):
    """The list of recordings and what can be done with one. ``openRequested(id)`` shows it in the plots."""

    openRequested = Signal(int)
    """Open was asked for the selected recording: its session id."""
    replayRequested = Signal(int, float)
    """Replay was asked for the selected recording: its session id and the speed factor (x real time)."""

    def __init__(self, ctx, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.sessions: list = []
        self._tasks: list = []
        self.table = QTableWidget(0, len(HEADERS), self)
        self.table.setHorizontalHeaderLabels([self.tr(h) for h in HEADERS])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.itemDoubleClicked.connect(lambda _item: self._open())
        self.notes = QPlainTextEdit(self)
        self.notes.setPlaceholderText(self.tr("Notes for the selected recording"))
        self.buttons = {}
        row = QHBoxLayout()
        for key, text, slot, tip in (
            ("open", self.tr("&Open"), self._open, self.tr("Show the recording in the plots, statistics and findings")),
            ("replay", self.tr("Re&play"), self._replay, self.tr("Play the recording back through the live views")),
            ("rename", self.tr("Re&name…"), self._rename, ""),
            ("notes", self.tr("Save &notes"), self._save_notes, ""),
            ("csv", self.tr("Export &CSV…"), self._export_csv, self.tr("All samples of the recording")),
            ("png", self.tr("Export plots as P&NG…"), self._export_png, self.tr("Opens the recording and saves its plots")),
            ("delete", self.tr("&Delete…"), self._delete, self.tr("Delete the recording and its samples")),
        ):
            button = QPushButton(text, self)
            button.clicked.connect(slot)
            if tip:
                button.setToolTip(tip)
            row.addWidget(button)
            self.buttons[key] = button
        self.speed = QComboBox(self)
        for speed in (1.0, 10.0, 60.0, 600.0, 3600.0):
            self.speed.addItem(self.tr("{s:g}× speed").format(s=speed), speed)
        self.speed.setCurrentIndex(2)
        self.speed.setToolTip(self.tr("Replay speed: 60× plays a minute of recording per second"))
        row.insertWidget(row.indexOf(self.buttons["replay"]) + 1, self.speed)
        row.addStretch(1)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.notes)
        split.setSizes([400, 120])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self.pending_png: tuple[int, str] | None = None
        self._selection_changed()

    def reload(self) -> None:
        """Re-read the list from the store."""
        if self.ctx.store is None:
            self.status.setText(self.tr("Your gpudesk database could not be opened; no recordings to list."))
            return
        from gpudesk.store import recordings

        selected = self.selected_id()
        self.sessions = recordings.list_sessions(self.ctx.store)
        self.table.setRowCount(len(self.sessions))
        for r, session in enumerate(self.sessions):
            for c, text in enumerate(session_row(session)):
                item = QTableWidgetItem(text)
                if c == 1:
                    item.setToolTip(plain_tooltip(text))  # the recording's name, typed by anyone
                self.table.setItem(r, c, item)
            if session.id == selected:
                self.table.selectRow(r)
        count = len(self.sessions)
        self.status.setText(self.tr("1 recording.") if count == 1 else self.tr("{n} recordings.").format(n=count))

    def selected_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.sessions):
            return None
        return int(self.sessions[rows[0].row()].id)

    def _selected(self):
        sid = self.selected_id()
        return next((s for s in self.sessions if s.id == sid), None)

    def _selection_changed(self) -> None:
        session = self._selected()
        for button in self.buttons.values():
            button.setEnabled(session is not None)
        self.notes.setPlainText(getattr(session, "notes", "") or "" if session else "")

    def _open(self) -> None:
        sid = self.selected_id()
        if sid is not None:
            self.openRequested.emit(sid)

    def _replay(self) -> None:
        sid = self.selected_id()
        if sid is not None:
            self.replayRequested.emit(sid, float(self.speed.currentData()))

    def _rename(self) -> None:
        session = self._selected()
        if session is None:
            return
        name, ok = QInputDialog.getText(self, self.tr("Rename recording"), self.tr("New name:"), text=session.name or "")
        if ok and name.strip():
            self.rename(session.id, name.strip())

    def rename(self, session_id: int, name: str) -> None:
        from gpudesk.store import recordings

        recordings.rename_session(self.ctx.store, session_id, name)
        self.reload()

    def _save_notes(self) -> None:
        sid = self.selected_id()
        if sid is None:
            return
        from gpudesk.store import recordings

        recordings.set_notes(self.ctx.store, sid, self.notes.toPlainText())
        self.status.setText(self.tr("Notes saved."))
        self.reload()

    def _delete(self) -> None:
        session = self._selected()
        if session is None:
            return
        answer = QMessageBox.question(self, self.tr("Delete recording"), self.tr(
            "Delete recording #{n} '{name}' and all its samples? This cannot be undone.").format(
            n=session.id, name=session.name or ""))
        if answer == QMessageBox.StandardButton.Yes:
            self.delete(session.id)

    def delete(self, session_id: int) -> None:
        self.status.setText(self.tr("Deleting recording #{n}…").format(n=session_id))
        self._start(delete_recording, session_id, done=lambda _sid: self.reload(), what=self.tr("Deleting"))

    def _export_csv(self) -> None:
        sid = self.selected_id()
        if sid is None:
            return
        path = ask_save_path(self, self.tr("Export recording as CSV"), f"recording-{sid}.csv",
                             self.tr("CSV files (*.csv)"))
        if path:
            self.export_csv(sid, path)

    def export_csv(self, session_id: int, path: str) -> None:
        self.status.setText(self.tr("Exporting recording #{n}…").format(n=session_id))
        self._start(export_recording_csv, session_id, path, what=self.tr("CSV export"),
                    done=lambda p: self.status.setText(self.tr("Exported {p}.").format(p=p)))

    def _export_png(self) -> None:
        sid = self.selected_id()
        if sid is None:
            return
        path = ask_save_path(self, self.tr("Export plots as PNG"), f"recording-{sid}.png",
                             self.tr("PNG images (*.png)"))
        if path:
            self.pending_png = (sid, path)
            self.openRequested.emit(sid)

    def _start(self, fn, *args, done, what: str) -> None:
        def failed(exc: BaseException) -> None:
            self.status.setText(self.tr("{w} failed: {e}").format(w=what, e=exc))
            self.ctx.notify(self.tr("{w} failed: {e}").format(w=what, e=exc), "error")

        task = run_task(fn, *args, on_result=done, on_error=failed)
        self._tasks.append(task)
        task.signals.finished.connect(lambda: self._tasks.remove(task) if task in self._tasks else None)
