"""Pick what to diagnose: a process using a GPU, a command to launch, or pasted / dropped text.

The process page lists, per GPU (NVML), the processes using it with PID, user, GPU memory and command line
(``gpudesk.nvml.nvml_processes.list_gpu_processes``, read on a worker thread; psutil supplies user and
command line). Selecting a visible process hands it to the method choice below the list. Process names and
command lines are outside text: they are shown as plain-text items, never as rich text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.ui.oom.launch_panel import LaunchPanel
from gpudesk.ui.oom.method_choice import MethodChoice
from gpudesk.ui.oom.plain import plain_label, plain_tooltip
from gpudesk.ui.oom.text_input import TextInput
from gpudesk.units import format_bytes
from gpudesk.ui.workers import run_task
from gpudesk.ui.error_text import error_text

PID_ROLE = Qt.ItemDataRole.UserRole


@dataclass
class GpuProcessTable:
    """What the process page shows: the GPUs (``DeviceInfo``) and the ``ProcessListing`` over them."""

    devices: list = field(default_factory=list)
    processes: list = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: dict[int, str] = field(default_factory=dict)
    total_bytes: dict[int, int | None] = field(default_factory=dict)


def load_gpu_processes(nvml: ModuleType | None = None) -> GpuProcessTable:
    """Read the GPUs and their processes from NVML (worker thread).

    Raises:
        gpudesk.nvml.nvml_session.NvmlUnavailableError: NVML cannot be used here (its status says why).
    """
    from gpudesk.nvml.nvml_processes import list_gpu_processes
    from gpudesk.nvml.nvml_session import shared_session

    session = shared_session(nvml)
    listing = list_gpu_processes(session)
    totals: dict[int, int | None] = {}
    for dev in session.devices():
        total = dev.memory_total_bytes
        handle = session.handle(dev.index) if total is None else None
        if handle is not None and session.nvml is not None:  # a handle comes from a loaded NVML
            memory, _why = session.call(session.nvml.nvmlDeviceGetMemoryInfo, handle)
            total = int(memory.total) if memory is not None and int(memory.total) > 0 else None
        totals[dev.index] = total
    return GpuProcessTable(session.devices(), list(listing), list(listing.warnings), dict(listing.errors), totals)


class TargetPicker(QWidget):
    """Three pages: "GPU processes" (list + method choice), "Launch a command", "Paste or drop text".

    Signals:
        failed(str): the process list could not be read (the message says why, e.g. no NVIDIA driver).
        textSubmitted(object, str, object), textFailed(str): from the text page. probeRequested(ProbeRequest),
        evidenceRequested(int), cancelRequested(): from the method choice. launchRequested(list, str, float),
        stopRequested(): from the launch page. snapshotRequested(str): a memory snapshot chosen or dropped on
        the text page. The tab connects to these, never to the pages inside.

    ``nvml`` (a module with pynvml's API) is passed to the telemetry layer; None uses the real pynvml.
    """

    failed = Signal(str)
    """The GPU process list could not be read: the sentence saying why (e.g. no NVIDIA driver)."""
    textSubmitted = Signal(object, str, object)
    """The text page asks for a diagnosis: the text (str or bytes), its source and the user's UserContext."""
    textFailed = Signal(str)
    """The text page could not read a file: the sentence saying why."""
    probeRequested = Signal(object)
    """The method choice confirmed a probe: the ProbeRequest."""
    evidenceRequested = Signal(int)
    """The method choice asks for non-invasive evidence: the PID."""
    cancelRequested = Signal()
    """The method choice's Cancel was pressed. No arguments."""
    launchRequested = Signal(list, str, float)
    """The launch page's Launch was pressed: argv, working folder ("" = current), interval (s)."""
    stopRequested = Signal()
    """The launch page's Stop was pressed. No arguments."""
    snapshotRequested = Signal(str)
    """A memory snapshot was chosen or dropped on the text page: its path."""

    COLUMNS = ("PID", "User", "GPU memory", "Type", "Command line")

    def __init__(self, parent: QWidget | None = None, *, nvml: ModuleType | None = None):
        super().__init__(parent)
        self.nvml = nvml
        self.table = GpuProcessTable()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.pages = QTabWidget(self)
        layout.addWidget(self.pages)

        process_page = QWidget(self.pages)
        process_layout = QVBoxLayout(process_page)
        top = QHBoxLayout()
        self.refresh_button = QPushButton(self.tr("Rel&oad"), process_page)
        self.refresh_button.setToolTip(self.tr("Read the processes using each GPU again (NVML)"))
        self.refresh_button.clicked.connect(self.refresh)
        self.summary = plain_label(self.tr("Processes not read yet."), process_page, wrap=True)
        top.addWidget(self.refresh_button)
        top.addWidget(self.summary, 1)
        process_layout.addLayout(top)
        splitter = QSplitter(Qt.Orientation.Vertical, process_page)
        self.tree = QTreeWidget(splitter)
        self.tree.setColumnCount(len(self.COLUMNS))
        self.tree.setHeaderLabels(
            [self.tr("PID"), self.tr("User"), self.tr("GPU memory"), self.tr("Type"), self.tr("Command line")]
        )
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.tree.setToolTip(self.tr("Processes using each GPU, from NVML; select one to look inside it"))
        self.tree.currentItemChanged.connect(self._selected)
        self.methods = MethodChoice(splitter)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.methods)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([180, 420])
        process_layout.addWidget(splitter, 1)
        self.warnings = plain_label("", process_page, wrap=True, selectable=True)
        self.warnings.setStyleSheet("color:#5c4300;")
        self.warnings.hide()
        process_layout.addWidget(self.warnings)

        self.launch_panel = LaunchPanel(self.pages)
        self.text_input = TextInput(self.pages)
        self.pages.addTab(process_page, self.tr("GPU &processes"))
        self.pages.addTab(self.launch_panel, self.tr("Launch a &command"))
        self.pages.addTab(self.text_input, self.tr("Paste or drop &text"))
        self.pages.setCurrentWidget(self.text_input)
        self._loading = False
        self._loaded_once = False
        self._process_page = process_page
        # NVML is read only when the process page is first shown, never at start-up.
        self.pages.currentChanged.connect(self._page_changed)
        self.text_input.submitted.connect(self.textSubmitted.emit)
        self.text_input.failed.connect(self.textFailed.emit)
        self.text_input.snapshotChosen.connect(self.snapshotRequested.emit)
        self.methods.probeRequested.connect(self.probeRequested.emit)
        self.methods.evidenceRequested.connect(self.evidenceRequested.emit)
        self.methods.cancelRequested.connect(self.cancelRequested.emit)
        self.launch_panel.launchRequested.connect(self.launchRequested.emit)
        self.launch_panel.stopRequested.connect(self.stopRequested.emit)

    def set_probe_busy(self, busy: bool) -> None:
        """A probe or evidence job runs (the method buttons wait) or ended."""
        self.methods.set_busy(busy)

    def set_launch_running(self, running: bool) -> None:
        """A launched job runs (Stop enabled) or ended."""
        self.launch_panel.set_running(running)

    def append_output(self, line: str) -> None:
        """A line of the launched job's output."""
        self.launch_panel.append_output(line)

    def diagnose_file(self, path: str) -> None:
        """Show the text page, load ``path`` and diagnose it."""
        self.show_text_page()
        self.text_input.load_file(path)

    def diagnose_pasted(self, text: str) -> None:
        """Show the text page with ``text`` and diagnose it."""
        self.show_text_page()
        self.text_input.set_text(text)
        self.text_input.submit()

    def _page_changed(self, index: int) -> None:
        if self.pages.widget(index) is self._process_page and not self._loaded_once:
            self.refresh()

    def show_text_page(self) -> None:
        self.pages.setCurrentWidget(self.text_input)

    def refresh(self) -> None:
        """Read the GPU processes in the background; the list is replaced when they arrive."""
        if self._loading:
            return
        self._loading = True
        self._loaded_once = True
        self.refresh_button.setEnabled(False)
        self.summary.setText(self.tr("Reading GPU processes …"))
        run_task(
            load_gpu_processes,
            self.nvml,
            on_result=self.set_table,
            on_error=self._load_failed,
            on_finished=self._load_finished,
        )

    def set_table(self, table: GpuProcessTable) -> None:
        """Show ``table``: one top-level row per GPU, its processes under it."""
        self.table = table
        selected = self.selected_pid()
        self.tree.clear()
        by_gpu: dict[int, list] = {}
        for proc in table.processes:
            by_gpu.setdefault(proc.gpu_index, []).append(proc)
        known = {dev.index for dev in table.devices}
        devices = list(table.devices) + [_Unknown(index) for index in sorted(set(by_gpu) - known)]
        reselect = None
        for dev in devices:
            procs = by_gpu.get(dev.index, [])
            gpu_item = QTreeWidgetItem(self.tree)
            gpu_item.setText(0, self._gpu_title(dev, procs))
            gpu_item.setFirstColumnSpanned(True)
            gpu_item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            reason = table.errors.get(dev.index) or dev.lost_reason
            if reason:
                note = QTreeWidgetItem(gpu_item)
                note.setText(0, self.tr("processes not readable: %1").replace("%1", reason))
                note.setFirstColumnSpanned(True)
                note.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for proc in sorted(procs, key=lambda p: -(p.used_memory_bytes or 0)):
                item = self._process_item(gpu_item, proc)
                if proc.pid == selected:
                    reselect = item
            gpu_item.setExpanded(True)
        count = len(table.processes)
        self.summary.setText(
            self.tr("%1 GPU(s), %2 process(es).").replace("%1", str(len(table.devices))).replace("%2", str(count))
        )
        self.warnings.setText("\n".join(table.warnings))
        self.warnings.setVisible(bool(table.warnings))
        if reselect is not None:
            self.tree.setCurrentItem(reselect)

    def selected_pid(self) -> int | None:
        item = self.tree.currentItem()
        value = item.data(0, PID_ROLE) if item is not None else None
        return int(value) if value is not None else None

    def process_items(self) -> list[QTreeWidgetItem]:
        """All process rows (for tests and keyboard navigation)."""
        rows: list[QTreeWidgetItem] = []
        for g in range(self.tree.topLevelItemCount()):
            gpu_item = self.tree.topLevelItem(g)
            if gpu_item is None:
                continue
            for c in range(gpu_item.childCount()):
                child = gpu_item.child(c)
                if child is not None and child.data(0, PID_ROLE) is not None:
                    rows.append(child)
        return rows

    def _gpu_title(self, dev, procs: list) -> str:
        name = dev.name or self.tr("name N/A")
        total = format_bytes(self.table.total_bytes.get(dev.index, getattr(dev, "memory_total_bytes", None)))
        known = [p.used_memory_bytes for p in procs if p.used_memory_bytes is not None]
        used = format_bytes(sum(known)) if known else format_bytes(None)
        return (
            self.tr("GPU %1 · %2 · %3 total · %4 used by %5 process(es)")
            .replace("%1", str(dev.index))
            .replace("%2", name)
            .replace("%3", total)
            .replace("%4", used)
            .replace("%5", str(len(procs)))
        )

    def _process_item(self, parent: QTreeWidgetItem, proc) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent)
        item.setText(0, str(proc.pid))
        item.setText(1, proc.user or self.tr("N/A"))
        item.setText(2, format_bytes(proc.used_memory_bytes))
        item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setText(3, proc.type)
        command = proc.cmdline or proc.name or self.tr("N/A")
        item.setText(4, command)
        tips = [command]
        if proc.memory_reason:
            tips.append(self.tr("GPU memory: %1").replace("%1", proc.memory_reason))
        if proc.host_reason:
            tips.append(proc.host_reason)
        # Item tooltips are guessed as rich text too: plain_tooltip escapes them.
        for column in range(len(self.COLUMNS)):
            item.setToolTip(column, plain_tooltip("\n".join(tips)))
        item.setData(0, PID_ROLE, proc.pid)
        if not proc.visible:
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setForeground(4, self.palette().placeholderText())
        return item

    def _selected(self, current: QTreeWidgetItem | None, previous: QTreeWidgetItem | None) -> None:
        pid = current.data(0, PID_ROLE) if current is not None else None
        if pid is None:
            self.methods.set_target(None)
            return
        proc = next((p for p in self.table.processes if p.pid == pid), None)
        description = ""
        if proc is not None:
            description = f"({proc.name or proc.cmdline or ''}, {proc.user or self.tr('user N/A')})"
        self.methods.set_target(int(pid), description)

    def _load_failed(self, exc: BaseException) -> None:
        status = getattr(exc, "status", None)
        message = getattr(status, "message", None) or error_text(exc)
        self.summary.setText(self.tr("Cannot list GPU processes: %1").replace("%1", message))
        self.failed.emit(self.tr("Cannot list GPU processes: %1").replace("%1", message))

    def _load_finished(self) -> None:
        self._loading = False
        self.refresh_button.setEnabled(True)


@dataclass
class _Unknown:
    """A GPU index that appears in the process list but not in the device list."""

    index: int
    name: str | None = None
    memory_total_bytes: int | None = None
    lost_reason: str | None = None
