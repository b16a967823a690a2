"""The per-GPU list: one row per GPU with its latest values; the check box picks the GPUs drawn in the plots.

Stays usable from 1 to 64 GPUs (a table scrolls; the plots show only the checked GPUs). Every value that
could not be read shows "N/A" with the reason as its tooltip, never 0. PCIe columns show the share of the
link per direction, with the link (and whether it is an assumption from the catalog) in the tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QAbstractTableModel, QCoreApplication, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import DeviceInfo
from gpudesk.telemetry.rules.base import CRITICAL, WARNING, Finding
from gpudesk.ui.monitor.display import fmt, gpu_color
from gpudesk.ui.tooltips import plain_tooltip
from gpudesk.units import format_percent

COLUMNS = (  # (key, header); headers are translated in GpuTableModel.headerData
    ("gpu", QT_TRANSLATE_NOOP("GpuTableModel", "GPU")),
    (m.GPU_UTIL, QT_TRANSLATE_NOOP("GpuTableModel", "Util %")),
    # busy is not productive: SM activity and tensor-pipe activity (NVML GPM on Hopper+, DCGM SMACT/TENSO)
    (df.SM_ACTIVE, QT_TRANSLATE_NOOP("GpuTableModel", "SM active %")),
    (df.TENSOR_ACTIVE, QT_TRANSLATE_NOOP("GpuTableModel", "Tensor active %")),
    (m.MEM_USED, QT_TRANSLATE_NOOP("GpuTableModel", "Memory used / total (GiB)")),
    (m.PCIE_RX, QT_TRANSLATE_NOOP("GpuTableModel", "PCIe RX (% of link, or MB/s)")),
    (m.PCIE_TX, QT_TRANSLATE_NOOP("GpuTableModel", "PCIe TX (% of link, or MB/s)")),
    (m.POWER, QT_TRANSLATE_NOOP("GpuTableModel", "Power (W)")),
    (m.GPU_TEMP, QT_TRANSLATE_NOOP("GpuTableModel", "Temp (°C)")),
    (m.SM_CLOCK, QT_TRANSLATE_NOOP("GpuTableModel", "SM clock (MHz)")),
    ("state", QT_TRANSLATE_NOOP("GpuTableModel", "State")),
)


class GpuTableModel(QAbstractTableModel):
    """Rows: GPU columns of the history buffer. ``set_latest`` updates values; check state = shown in plots."""

    checkedChanged = Signal(list)
    """The GPUs ticked to be drawn changed: the sorted list of their rows (GPU positions in the table)."""
    firstValues = Signal()
    """The first values arrived after set_devices (the view sizes its columns then); no arguments."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.devices: list[DeviceInfo] = []
        self.links: dict[int, tuple[float | None, str]] = {}
        self.latest: dict[int, dict[str, float | None]] = {}
        self.reasons: dict[tuple[int, str], str] = {}
        self.checked: set[int] = set()
        self.flagged: dict[int, tuple[str, list[str]]] = {}  # GPU index -> (worst severity, its findings' summaries)
        self._sized = False
        self._shown: list[list[str]] = []  # the text each cell showed after the last update (change detection)

    def set_devices(self, devices: list[DeviceInfo], links: dict[int, tuple[float | None, str]]) -> None:
        self.beginResetModel()
        self.devices = list(devices)
        self.links = dict(links)
        self.checked = set(range(min(len(devices), 8)))
        self.latest = {}
        self.reasons = {}
        self.flagged = {}
        self._sized = False
        self._shown = []
        self.endResetModel()

    def update_devices(self, devices: list[DeviceInfo]) -> None:
        """Refresh device facts (e.g. a GPU was lost) without losing the check state."""
        self.devices = list(devices)
        self._changed()

    def set_findings(self, findings: list[Finding]) -> None:
        """The State column shows each GPU's worst warning or critical finding (a GPU so flagged is never "ok")."""
        flagged: dict[int, tuple[str, list[str]]] = {}
        for f in findings:
            if f.gpu is None or f.severity not in (WARNING, CRITICAL):
                continue
            worst, summaries = flagged.get(f.gpu, (WARNING, []))
            flagged[f.gpu] = (CRITICAL if CRITICAL in (worst, f.severity) else WARNING, [*summaries, f.summary])
        self.flagged = flagged
        self._changed()

    def set_latest(self, latest: dict[int, dict[str, float | None]], reasons: dict[tuple[int, str], str]) -> None:
        first = not self._sized and bool(latest)
        self.latest = latest
        self.reasons = reasons
        self._changed_texts()
        if first:
            self._sized = True
            self.firstValues.emit()

    def _texts(self) -> list[list[str]]:
        return [[self._text(row, key, device) for key, _header in COLUMNS] for row, device in enumerate(self.devices)]

    def _changed_texts(self) -> None:
        """New values: repaint only the cells whose text changed (issue 15: a tick with steady readings repaints
        nothing). Tooltips are asked for when shown, and colours change only with the devices."""
        texts = self._texts()
        if len(texts) != len(self._shown):
            self._changed()
            return
        display = [Qt.ItemDataRole.DisplayRole]
        for row, (new, old) in enumerate(zip(texts, self._shown)):
            changed = [col for col, (a, b) in enumerate(zip(new, old)) if a != b]
            if changed:  # one signal per row, over the changed columns
                self.dataChanged.emit(self.index(row, changed[0]), self.index(row, changed[-1]), display)
        self._shown = texts

    def _changed(self) -> None:
        self._shown = self._texts()
        if self.devices:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.devices) - 1, len(COLUMNS) - 1),
                                  [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
                                   Qt.ItemDataRole.ForegroundRole])

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(self.devices)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt override
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802 - Qt override
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.tr(COLUMNS[section][1])
        return None

    def flags(self, index):
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == 0:
            base |= Qt.ItemFlag.ItemIsUserCheckable
        return base

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole):  # noqa: N802 - Qt override
        if index.column() == 0 and role == Qt.ItemDataRole.CheckStateRole:
            row = index.row()
            if Qt.CheckState(value) == Qt.CheckState.Checked:
                self.checked.add(row)
            else:
                self.checked.discard(row)
            self.dataChanged.emit(index, index)
            self.checkedChanged.emit(sorted(self.checked))
            return True
        return False

    def set_checked(self, rows: list[int]) -> None:
        self.checked = set(rows)
        self._changed()
        self.checkedChanged.emit(sorted(self.checked))

    def value(self, row: int, metric: str) -> float | None:
        return self.latest.get(row, {}).get(metric)

    def reason(self, row: int, metric: str) -> str:
        device = self.devices[row]
        if device.lost_reason:
            return device.lost_reason
        return self.reasons.get((row, metric)) or QCoreApplication.translate("Monitor", "not reported by this source")

    def share(self, row: int, metric: str) -> float | None:
        value = self.value(row, metric)
        cap = self.links.get(row, (None, ""))[0]
        if value is None or not cap:
            return None
        return value / cap

    _ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.CheckStateRole,
                        Qt.ItemDataRole.DecorationRole, Qt.ItemDataRole.ForegroundRole,
                        Qt.ItemDataRole.TextAlignmentRole})

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role not in self._ROLES:
            return None
        row, col = index.row(), index.column()
        if not index.isValid() or row >= len(self.devices):
            return None
        key = COLUMNS[col][0]
        device = self.devices[row]
        if role == Qt.ItemDataRole.CheckStateRole and col == 0:
            return Qt.CheckState.Checked if row in self.checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            return QColor(gpu_color(row))
        if role == Qt.ItemDataRole.ForegroundRole and key == "state":
            if device.lost_reason or self.flagged.get(device.index, ("",))[0] == CRITICAL:
                return QBrush(QColor("#b00020"))
            if device.index in self.flagged:
                return QBrush(QColor("#b35c00"))
        if role == Qt.ItemDataRole.TextAlignmentRole and col not in (0, len(COLUMNS) - 1):
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, key, device)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(self._tooltip(row, key, device)) or None  # GPU names come from outside
        return None

    def _text(self, row: int, key: str, device: DeviceInfo) -> str:
        if key == "gpu":
            return f"{device.index}: {device.name or QCoreApplication.translate('Monitor', 'unknown model')}"
        if key == "state":
            if device.lost_reason:
                return QCoreApplication.translate("Monitor", "lost")
            severity = self.flagged.get(device.index, ("",))[0]
            if severity == CRITICAL:
                return QCoreApplication.translate("Monitor", "critical")
            if severity == WARNING:
                return QCoreApplication.translate("Monitor", "warning")
            return QCoreApplication.translate("Monitor", "ok")
        if key == m.MEM_USED:
            total = self.value(row, m.MEM_TOTAL) or device.memory_total_bytes
            used = fmt(m.MEM_USED, self.value(row, m.MEM_USED), with_unit=False)
            return f"{used} / {fmt(m.MEM_TOTAL, total, with_unit=False)}"
        if key in (m.PCIE_RX, m.PCIE_TX):
            if self.links.get(row, (None,))[0]:
                return format_percent(self.share(row, key))
            return fmt(key, self.value(row, key))  # link unknown: the throughput itself, with its unit (MB/s)
        return fmt(key, self.value(row, key), with_unit=False)

    def _tooltip(self, row: int, key: str, device: DeviceInfo) -> str | None:
        if key == "gpu":
            text = QCoreApplication.translate("Monitor", "{name}\nUUID: {uuid}\nPCI bus: {bus}").format(
                name=device.name or QCoreApplication.translate("Monitor", "unknown model"),
                uuid=device.uuid or QCoreApplication.translate("Monitor", "N/A (not reported by this source)"),
                bus=device.pci_bus_id or QCoreApplication.translate("Monitor", "N/A"))
            if device.mig_mode == "enabled":
                text += "\n" + QCoreApplication.translate(
                    "Monitor", "MIG enabled: {n} instances (utilization is not reported on MIG)").format(
                    n=len(device.mig_devices))
            elif device.mig_mode == "disabled":
                text += "\n" + QCoreApplication.translate("Monitor", "MIG capable, disabled")
            return text
        if key == "state":
            if device.lost_reason:
                return device.lost_reason
            if device.index in self.flagged:
                return QCoreApplication.translate("Monitor", "Findings of the last analysis:") + "\n" + "\n".join(
                    self.flagged[device.index][1])
            return QCoreApplication.translate("Monitor", "Readings arrive normally.")
        if key in (m.PCIE_RX, m.PCIE_TX):
            cap, text = self.links.get(row, (None, QCoreApplication.translate("Monitor", "link unknown")))
            raw = self.value(row, key)
            lines = [QCoreApplication.translate("Monitor", "Link: {t}").format(t=text),
                     QCoreApplication.translate("Monitor", "Throughput: {v}").format(v=fmt(key, raw))]
            if raw is None:
                lines.append(QCoreApplication.translate("Monitor", "N/A: {r}").format(r=self.reason(row, key)))
            elif not cap:
                lines.append(
                    QCoreApplication.translate("Monitor", "N/A share: the link's generation and width are unknown"))
            return "\n".join(lines)
        value = self.value(row, key)
        if value is None:
            return QCoreApplication.translate("Monitor", "N/A: {r}").format(r=self.reason(row, key))
        return fmt(key, value)


class GpuTable(QTableView):
    """The per-GPU list view; ``model().checkedChanged`` carries the GPUs to draw."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        model = GpuTableModel(self)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(22)
        header = self.horizontalHeader()
        # Interactive, sized once per source: ResizeToContents would measure every cell on every update.
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        model.modelReset.connect(self._fit_columns)
        model.firstValues.connect(self._fit_columns)

    def _fit_columns(self) -> None:
        self.resizeColumnsToContents()
        self.setToolTip(self.tr("Tick a GPU to draw it in the plots; hover a value to see why it is N/A."))
