"""The GPU process table: PID, user, name, command, GPU memory, type, one row per (process, GPU).

Filled from ``gpudesk.nvml.nvml_processes.ProcessListing`` (listed on the sampler's thread). Names and
command lines come from other programs and are shown as plain text only. GPU memory that NVML cannot report
(WDDM / WSL2, MIG without privileges) shows N/A with the reason, and PIDs that do not exist here (a container
without --pid=host) say so instead of showing empty cells.
"""

from __future__ import annotations

import time

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QMessageBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gpudesk.telemetry.core.process_history import ProcessHistory
from gpudesk.units import GIB, format_gib
from gpudesk.ui.tooltips import plain_tooltip

HEADERS = (
    QT_TRANSLATE_NOOP("ProcessModel", "GPU"),
    QT_TRANSLATE_NOOP("ProcessModel", "PID"),
    QT_TRANSLATE_NOOP("ProcessModel", "User"),
    QT_TRANSLATE_NOOP("ProcessModel", "Name"),
    QT_TRANSLATE_NOOP("ProcessModel", "Command"),
    QT_TRANSLATE_NOOP("ProcessModel", "GPU memory (GiB)"),
    QT_TRANSLATE_NOOP("ProcessModel", "Type"),
    QT_TRANSLATE_NOOP("ProcessModel", "SM share (%)"),
    QT_TRANSLATE_NOOP("ProcessModel", "Memory bandwidth share (%)"),
    QT_TRANSLATE_NOOP("ProcessModel", "Container"),
    QT_TRANSLATE_NOOP("ProcessModel", "Memory trend (GiB/min)"),
)
SHARE_COLUMNS = (7, 8)


class ProcessModel(QAbstractTableModel):
    """Rows of ``GpuProcess``; ``gpu_names`` maps a GPU index to its label."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list = []
        self.history = ProcessHistory()  # per-process memory over time, from the successive listings

    def set_processes(self, processes: list, t: float | None = None) -> None:
        self.beginResetModel()
        self.rows = list(processes)
        self.history.add(time.time() if t is None else t, self.rows)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt override
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.tr(HEADERS[section])
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        p = self.rows[index.row()]
        col = index.column()
        sm, bw = getattr(p, "sm_util_pct", None), getattr(p, "mem_util_pct", None)
        container = getattr(p, "container", None)
        mem_hist = self.history.get(p.gpu_index, p.pid)
        rate = mem_hist.rate_bytes_per_s() if mem_hist is not None else None
        if role == Qt.ItemDataRole.UserRole:  # sort key
            return [p.gpu_index, p.pid, p.user or "", p.name or "", p.cmdline or "",
                    -1 if p.used_memory_bytes is None else p.used_memory_bytes, p.type,
                    -1 if sm is None else sm, -1 if bw is None else bw, container or "",
                    float("-inf") if rate is None else rate][col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 1, 5, 7, 8, 10):
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        if role == Qt.ItemDataRole.DisplayRole:
            host_na = QCoreApplication.translate("Monitor", "N/A")
            values = (
                str(p.gpu_index), str(p.pid), p.user or host_na, p.name or host_na, p.cmdline or host_na,
                QCoreApplication.translate("Monitor", "N/A") if p.used_memory_bytes is None
                else f"{p.used_memory_bytes / GIB:.2f}", p.type,
                QCoreApplication.translate("Monitor", "N/A") if sm is None else f"{sm:.0f}",
                QCoreApplication.translate("Monitor", "N/A") if bw is None else f"{bw:.0f}",
                container or "",
                QCoreApplication.translate("Monitor", "N/A") if rate is None else f"{rate * 60 / GIB:+.2f}",
            )
            return values[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col in SHARE_COLUMNS and getattr(p, "share_reason", None):
                return plain_tooltip(p.share_reason)
            if col == 9 and container:
                return plain_tooltip(container)
            if (col == 10 or (col == 5 and p.used_memory_bytes is not None)) and mem_hist is not None \
                    and mem_hist.peak_bytes is not None:
                return QCoreApplication.translate(
                    "Monitor", "Peak {peak} over {n} readings since {since}.").format(
                    peak=format_gib(mem_hist.peak_bytes), n=len(mem_hist.points),
                    since=time.strftime("%H:%M:%S", time.localtime(mem_hist.first_t or 0)))
            if col == 5 and p.used_memory_bytes is None:
                return QCoreApplication.translate("Monitor", "N/A: {r}").format(
                    r=p.memory_reason or QCoreApplication.translate("Monitor", "NVML did not report it"))
            if col in (2, 3, 4) and not getattr(p, ["user", "name", "cmdline"][col - 2]):
                return QCoreApplication.translate("Monitor", "N/A: {r}").format(
                    r=p.host_reason or QCoreApplication.translate("Monitor", "the process could not be looked up"))
            if col == 4 and p.cmdline:
                return plain_tooltip(p.cmdline)  # any process's command line: never rendered as markup
            if col == 1 and not p.visible:
                return QCoreApplication.translate(
                    "Monitor", "This PID does not exist here (host PID seen from a container?). Run the container "
                    "with --pid=host to see the process.")
        return None


class ProcessTable(QWidget):
    """Sortable process table with a line for warnings and per-GPU listing errors."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = ProcessModel(self)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.model)
        proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.view = QTableView(self)
        self.view.setModel(proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(5, Qt.SortOrder.DescendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setWordWrap(False)
        self.view.verticalHeader().setVisible(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self._proxy = proxy
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.notes = QLabel(self)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.setText(self.tr("Processes appear here while NVML monitoring runs (dmon logs and recordings "
                                   "carry no process list)."))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.notes)

    # --- stopping one's own process (gpudesk.telemetry.core.process_control) ------------------------------------
    def process_at(self, proxy_row: int):
        source = self._proxy.mapToSource(self._proxy.index(proxy_row, 0))
        return self.model.rows[source.row()] if source.isValid() else None

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        p = self.process_at(index.row()) if index.isValid() else None
        if p is None:
            return
        menu = QMenu(self)
        for force, text in ((False, self.tr("Terminate process {pid}…")), (True, self.tr("Kill process {pid}…"))):
            action = menu.addAction(text.format(pid=p.pid))
            why = self.stop_refusal(p.pid)
            action.setEnabled(why is None)
            if why is not None:
                action.setToolTip(why)
            action.triggered.connect(lambda _=False, proc=p, f=force: self.request_stop(proc, f))
        menu.setToolTipsVisible(True)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    @staticmethod
    def stop_refusal(pid: int) -> str | None:
        """None when this user may stop ``pid``, else why not (another user's, gone, gpudesk itself)."""
        from gpudesk.telemetry.core.process_control import ProcessControlError, check_stoppable

        try:
            check_stoppable(pid)
        except ProcessControlError as exc:
            return exc.user_text()
        return None

    def request_stop(self, p, force: bool, ask=None) -> bool:
        """Ask for confirmation (``ask(text) -> bool``; a message box by default), then stop the process on the
        thread pool (its wait must not block the window). Returns whether it was asked to stop."""
        from gpudesk.telemetry.core.process_control import stop_process
        from gpudesk.ui.workers import failure_text, run_task

        command = (p.cmdline or p.name or "")[:200]
        text = (self.tr("Kill process {pid} ({command})? It gets no chance to save its work.") if force
                else self.tr("Terminate process {pid} ({command})? It is asked to stop and may save its work."))
        text = text.format(pid=p.pid, command=command)
        if ask is None:
            def ask(question: str) -> bool:
                box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Stop a GPU process"), question,
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
                box.setTextFormat(Qt.TextFormat.PlainText)
                box.setDefaultButton(QMessageBox.StandardButton.Cancel)
                return box.exec() == QMessageBox.StandardButton.Yes
        if not ask(text):
            return False

        def done(result) -> None:
            if result.exited:
                self.notes.setText(self.tr("Process {pid} ended ({signal}).").format(pid=result.pid,
                                                                                     signal=result.signal_name))
            else:
                self.notes.setText(self.tr("Sent {signal} to process {pid}; it is still running.").format(
                    signal=result.signal_name, pid=result.pid))

        run_task(stop_process, p.pid, force=force, on_result=done,
                 on_error=lambda exc: self.notes.setText(failure_text(exc)))
        return True

    def set_listing(self, listing) -> None:
        """Show a ``ProcessListing`` (processes, warnings, errors by GPU)."""
        self.model.set_processes(list(listing))
        lines = list(getattr(listing, "warnings", []))
        for gpu, why in sorted(getattr(listing, "errors", {}).items()):
            lines.append(self.tr("GPU {g}: processes could not be listed: {w}").format(g=gpu, w=why))
        if not lines:
            lines.append(self.tr("{n} GPU processes.").format(n=len(self.model.rows)))
        self.notes.setText("\n".join(lines))

    def clear(self, reason: str) -> None:
        self.model.set_processes([])
        self.notes.setText(reason)
