"""The fleet view: choose a metric and a grouping, see the nodes x GPUs heat map, the GPUs the rules flag, and
open a GPU's plots (``gpuActivated`` carries the GPU's fleet position; the tab maps it to its plots).

Fed with core objects only (:class:`~gpudesk.telemetry.fleet.fleet.FleetHistory` and its findings); no network here.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk import i18n
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.fleet import (
    GROUP_BY_HOST,
    GROUP_BY_JOB,
    FleetFinding,
    FleetHistory,
    group_keys,
)
from gpudesk.telemetry.rules.evidence_names import severity_name
from gpudesk.ui.monitor.fleet_grid import FleetGrid, GridCell
from gpudesk.units import format_gib

GRID_METRICS = (m.GPU_UTIL, df.GR_ENGINE_ACTIVE, df.SM_ACTIVE, df.TENSOR_ACTIVE, df.DRAM_ACTIVE, m.MEM_USED,
                m.POWER, m.GPU_TEMP)
_FIXED_RANGES = {"%": (0.0, 100.0)}


def _fmt(value: float | None, unit: str) -> str:
    if value is None or math.isnan(value):
        return "N/A"
    if unit == "bytes":
        return format_gib(value)
    return f"{value:.0f} {unit}".strip()


class FleetView(QWidget):
    """Metric and grouping pickers, the grid, and the findings table."""

    gpuActivated = Signal(int)
    """A GPU was opened from the grid or a finding's row: its position in the fleet history's keys."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._history: FleetHistory | None = None
        self._findings: list[FleetFinding] = []
        self.metric_box = QComboBox()
        for name in GRID_METRICS:
            unit = df.metric_unit(name)
            shown_unit = "GiB" if unit == "bytes" else unit
            # metric_label is a core msgid (N_ in gpudesk.telemetry.core.model / dcgm_fields): the core catalog has it.
            self.metric_box.addItem(self.tr("{label} ({unit})").replace("{label}", i18n._(df.metric_label(name)))
                                .replace("{unit}", shown_unit), name)
        self.group_box = QComboBox()
        self.group_box.addItem(self.tr("By host"), GROUP_BY_HOST)
        self.group_box.addItem(self.tr("By job (pod / Slurm)"), GROUP_BY_JOB)
        metric_label = QLabel(self.tr("&Metric:"))
        metric_label.setBuddy(self.metric_box)
        group_label = QLabel(self.tr("&Group:"))
        group_label.setBuddy(self.group_box)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        top = QHBoxLayout()
        for w in (metric_label, self.metric_box, group_label, self.group_box):
            top.addWidget(w)
        top.addStretch(1)
        self.grid = FleetGrid()
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels([self.tr("Severity"), self.tr("GPU"), self.tr("UUID"), self.tr("Job"),
                                              self.tr("Finding")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.grid)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.metric_box.currentIndexChanged.connect(self._redraw)
        self.group_box.currentIndexChanged.connect(self._redraw)
        self.grid.gpuActivated.connect(self.gpuActivated)
        self.table.cellActivated.connect(self._finding_activated)

    def set_history(self, history: FleetHistory, findings: list[FleetFinding]) -> None:
        self._history = history
        self._findings = findings
        self.grid.set_empty_text("")
        self._redraw()
        self._fill_findings()

    def show_connecting(self, title: str) -> None:
        """A new fleet connection: forget the last fleet's grid and say what is happening until data comes."""
        self._history, self._findings = None, []
        self.grid.set_cells([], 0.0, 1.0, "")
        self.grid.set_empty_text(self.tr("Connecting to {fleet}…").replace("{fleet}", title))
        self.summary.setText(self.grid.empty_text())
        self._fill_findings()

    def show_failure(self, message: str) -> None:
        """A refresh failed: without data the grid says why; with data the last picture stays, marked old."""
        if self._history is None:
            self.grid.set_empty_text(self.tr("No data: {reason}").replace("{reason}", message))
            self.summary.setText(self.grid.empty_text())
        else:
            self.summary.setText(self.tr("The last refresh failed ({reason}); the grid shows the previous one.")
                                 .replace("{reason}", message))

    def _redraw(self) -> None:
        hist = self._history
        if hist is None:
            return
        metric = str(self.metric_box.currentData())
        unit = df.metric_unit(metric)
        values = hist.values(metric)
        finite = values[~np.isnan(values)]
        lo, hi = _FIXED_RANGES.get(unit, (float(finite.min()) if finite.size else 0.0,
                                          float(finite.max()) if finite.size else 1.0))
        by = str(self.group_box.currentData())
        groups = []
        for name, positions in group_keys(hist.keys, by).items():
            cells = []
            for pos in positions:
                key = hist.keys[pos]
                v = float(values[pos])
                value = None if math.isnan(v) else v
                why = hist.frame.reason(pos, metric) if value is None else None
                text = str(key.gpu_index) if key.gpu_index is not None else "?"
                if key.mig_instance is not None:
                    text += f"/{key.mig_instance}"
                na = self.tr("N/A")
                tip = [key.label, self.tr("UUID: %1").replace("%1", key.uuid or na),
                       self.tr("Model: %1").replace("%1", key.model_name or na),
                       self.tr("Job: %1").replace("%1", key.job_name or self.tr("none")),
                       self.tr("%1 (mean): %2").replace("%2", _fmt(value, unit))
                       .replace("%1", i18n._(df.metric_label(metric))) + (f" ({why})" if why else "")]
                cells.append(GridCell(pos, text, value, "\n".join(tip)))
            groups.append((name, cells))
        self.grid.set_cells(groups, lo, hi, unit)
        span = (hist.frame.span or (0.0, 0.0))
        # a window-means frame (one row per GPU) spans one step: the whole window
        hours = (span[1] - span[0]) / 3600 if span[1] > span[0] else hist.step_s / 3600
        self.summary.setText(self.tr("{n} GPUs, {hours} h, step {step} s; colour = window mean, {lo} (dark) to "
                                     "{hi} (bright), grey = N/A")
                             .replace("{n}", str(len(hist.keys))).replace("{hours}", f"{hours:.1f}")
                             .replace("{step}", f"{hist.step_s:g}").replace("{lo}", _fmt(lo, unit))
                             .replace("{hi}", _fmt(hi, unit)))

    def _fill_findings(self) -> None:
        self.table.setRowCount(len(self._findings))
        for row, f in enumerate(self._findings):
            key = f.key
            cells = [severity_name(f.finding.severity), key.label if key else f.group, (key.uuid or "") if key else "",
                     (key.job_name or "") if key else f.group, f.finding.summary]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)  # plain text, never rich text
                item.setData(Qt.ItemDataRole.UserRole, f.finding.gpu)
                self.table.setItem(row, col, item)

    def _finding_activated(self, row: int, _col: int) -> None:
        item = self.table.item(row, 0)
        pos = item.data(Qt.ItemDataRole.UserRole) if item else None
        if isinstance(pos, int):
            self.gpuActivated.emit(pos)
