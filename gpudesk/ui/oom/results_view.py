"""The diagnosis: what was read, per-GPU memory bars, and the ranked causes with evidence and fix.

Shows a ``gpudesk.oom.Diagnosis``: a header (framework, message shape, era, source), what the input lacks
(partial results say which clauses are missing), the bars (:mod:`gpudesk.ui.oom.memory_bars`), then one card
per cause, best first: title and confidence, explanation, the evidence numbers (named by
``Cause.evidence_items()`` labels, the JSON key in each row's tooltip; units from the key suffix),
the fix (selectable, with a Copy button), further fixes, checks and sizing effects. All outside text is
plain text. "Copy report" puts the whole diagnosis on the clipboard as text; "Copy JSON" as the CLI's JSON.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk import i18n
from gpudesk.oom.labels import id_value_name, label_for
from gpudesk.ui.oom.accuracy_view import OomAccuracyLink
from gpudesk.oom.labels import runtime_name
from gpudesk.ui.oom.account_view import AccountView
from gpudesk.ui.oom.memory_bars import MemoryBarsPanel, bars_from_report, process_tool
from gpudesk.ui.oom.plain import plain_label, plain_tooltip
from gpudesk.units import format_bytes, format_duration, format_percent


def format_value(key: str, value: Any) -> str:
    """Display text for an evidence or parsed value; the key's suffix gives the unit (``_bytes``...)."""
    named = id_value_name(key, value)  # a cause / check id (gpudesk.oom.labels): its name, never the raw id
    if named is not None:
        return named
    if value is None:
        return QCoreApplication.translate("OomResults", "N/A")
    if isinstance(value, bool):
        return QCoreApplication.translate("OomResults", "yes") if value else QCoreApplication.translate("OomResults", "no")
    if isinstance(value, (list, tuple)):
        if key.endswith("_shape"):
            return "[" + ", ".join(str(item) for item in value) + "]"
        return ", ".join(format_value(key, item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {format_value(str(k), v)}" for k, v in value.items())
    if isinstance(value, (int, float)):
        if key.endswith("_bytes"):
            # Translators: %1 is a size such as "550.00 MiB", %2 the same size as a count of bytes ("576,716,800").
            return (QCoreApplication.translate("OomResults", "%1 (%2 bytes)")
                    .replace("%1", format_bytes(value)).replace("%2", f"{int(value):,}"))
        if key.endswith(("_ratio", "_fraction", "_share")):
            return format_percent(float(value), digits=1)
        if key.endswith("_s"):
            return format_duration(float(value))
        if key.endswith("_tokens"):
            return QCoreApplication.translate("OomResults", "%1 tokens").replace("%1", str(value))
        if isinstance(value, float):
            return f"{value:.4g}"
        return str(value)
    return str(value)


def diagnosis_as_text(diagnosis) -> str:
    """The diagnosis as plain text (what "Copy report" puts on the clipboard)."""
    report = diagnosis.report
    lines = [
        QCoreApplication.translate("OomResults", "OOM diagnosis: framework %1, message shape %2")
        .replace("%1", runtime_name(report.framework))
        .replace("%2", report.kind)
    ]
    if report.era:
        lines.append(QCoreApplication.translate("OomResults", "PyTorch message era: %1").replace("%1", report.era))
    if report.missing:
        lines.append(
            QCoreApplication.translate("OomResults", "Missing from the input: %1").replace("%1", ", ".join(i18n._(m) for m in report.missing))
        )
    for note in report.notes:
        lines.append(f"- {note}")
    if report.parsed:
        lines.append(QCoreApplication.translate("OomResults", "Parsed values:"))
        lines += [
            f"  {label_for(key, report.framework)}: {format_value(key, value)}" for key, value in report.parsed.items()
        ]
    for rank, cause in enumerate(diagnosis.causes, 1):
        lines.append("")
        lines.append(cause_as_text(cause, rank))
    return "\n".join(lines)


def cause_as_text(cause, rank: int | None = None) -> str:
    """One cause as plain text: title, confidence, explanation, evidence, fix, more fixes, checks."""
    head = f"{rank}. " if rank is not None else ""
    confidence = QCoreApplication.translate("OomResults", "confidence")
    lines = [f"{head}{cause.title} [{cause.id}] — {confidence} {format_percent(cause.confidence)}"]
    if cause.explanation:
        lines.append(cause.explanation)
    if cause.evidence:
        lines.append(QCoreApplication.translate("OomResults", "Evidence:"))
        lines += [f"  {label}: {format_value(key, value)}" for key, label, value in cause.evidence_items()]
    if cause.fix:
        lines.append(QCoreApplication.translate("OomResults", "Fix: %1").replace("%1", cause.fix))
    for fix in cause.more_fixes:
        lines.append(f"  + {fix}")
    for check in cause.checks:
        lines.append(QCoreApplication.translate("OomResults", "Check: %1").replace("%1", check))
    for effect in cause.sizing:
        saved = format_bytes(effect.saved_bytes) if effect.saved_bytes is not None else effect.note
        lines.append(f"  {effect.fix}: {saved}")
    return "\n".join(lines)


class ValuesGrid(QFrame):
    """A read-only two-column list (quantity, value) of wrapping, selectable plain-text labels.

    ``items`` are ``(key, label, value)``: the label is shown, the machine key (the JSON name) is the row's
    tooltip, the value is formatted by :func:`format_value` from the key's unit suffix. Labels wrap, so the
    grid fits narrow panes (784x600 windows) instead of forcing a horizontal scroll.
    """

    def __init__(self, items: list[tuple[str, str, Any]], parent: QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 4)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(3)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        self.keys: list[str] = []
        self.name_labels: list[QLabel] = []
        self.value_labels: list[QLabel] = []
        for row, (key, label, value) in enumerate(items):
            name = plain_label(label, self, wrap=True, selectable=True)
            text = plain_label(format_value(str(key), value), self, wrap=True, selectable=True)
            tip = QCoreApplication.translate("OomResults", "Key in the JSON report: %1").replace("%1", str(key))
            for widget in (name, text):
                widget.setToolTip(plain_tooltip(tip))
                widget.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            grid.addWidget(name, row, 0)
            grid.addWidget(text, row, 1)
            self.keys.append(str(key))
            self.name_labels.append(name)
            self.value_labels.append(text)

    def rowCount(self) -> int:  # noqa: N802 - reads like the table it replaced
        return len(self.keys)

    def row_texts(self, row: int) -> tuple[str, str]:
        """(shown name, shown value) of ``row``."""
        return self.name_labels[row].text(), self.value_labels[row].text()


class CauseCard(QFrame):
    """One ranked cause. ``copy_button`` copies the fix; ``copy_all_button`` the whole cause as text."""

    def __init__(self, cause, rank: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.cause = cause
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName(f"cause-{cause.id}")
        layout = QVBoxLayout(self)
        title = plain_label(f"{rank}. {cause.title}", self, wrap=True, selectable=True)
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        title.setFont(font)
        title.setToolTip(self.tr("Cause id: %1").replace("%1", cause.id))
        self.title_label = title
        layout.addWidget(title)
        # The percentage is a label beside the bar, not the bar's own text: drawn over the filled part (the
        # highlight colour) the bar's text is unreadable in some styles.
        percent = int(round(max(0.0, min(1.0, float(cause.confidence))) * 100))
        confidence = QProgressBar(self)
        confidence.setRange(0, 100)
        confidence.setValue(percent)
        confidence.setTextVisible(False)
        confidence.setMinimumWidth(120)
        confidence.setMaximumWidth(220)
        confidence.setToolTip(self.tr("How strongly the evidence supports this cause"))
        self.confidence_bar = confidence
        self.confidence_label = plain_label(self.tr("confidence %1 %").replace("%1", str(percent)), self)
        self.confidence_label.setToolTip(confidence.toolTip())
        confidence.setAccessibleName(self.confidence_label.text())
        confidence_row = QHBoxLayout()
        confidence_row.addWidget(self.confidence_label)
        confidence_row.addWidget(confidence)
        confidence_row.addStretch(1)
        layout.addLayout(confidence_row)
        if cause.explanation:
            layout.addWidget(plain_label(cause.explanation, self, wrap=True, selectable=True))
        if cause.evidence:
            layout.addWidget(self._heading(self.tr("Evidence")))
            self.evidence_table = ValuesGrid(cause.evidence_items(), self)
            layout.addWidget(self.evidence_table)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        if cause.fix:
            fix_label = plain_label(self.tr("Fix: %1").replace("%1", cause.fix), self, wrap=True, selectable=True)
            fix_font = QFont("monospace")
            fix_font.setStyleHint(QFont.StyleHint.TypeWriter)
            fix_label.setFont(fix_font)
            # A fix is often one long token (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) that cannot wrap:
            # it must not widen the card past a narrow window (784 px) and force a horizontal scroll; the whole
            # text is in the tooltip and on the "Copy fix" button.
            fix_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            fix_label.setToolTip(cause.fix)
            self.fix_label = fix_label
            layout.addWidget(fix_label)
            self.copy_button = QPushButton(self.tr("Copy fix"), self)
            self.copy_button.setToolTip(self.tr("Copy the fix to the clipboard"))
            self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(cause.fix))
            buttons.addWidget(self.copy_button)
        if cause.more_fixes:
            layout.addWidget(self._heading(self.tr("Further fixes")))
        for fix in cause.more_fixes:
            layout.addWidget(plain_label(f"• {fix}", self, wrap=True, selectable=True))
        if cause.checks:
            layout.addWidget(self._heading(self.tr("Also check")))
        for check in cause.checks:
            layout.addWidget(plain_label(f"• {check}", self, wrap=True, selectable=True))
        if cause.sizing:
            layout.addWidget(self._heading(self.tr("Effect of sizing fixes")))
        for effect in cause.sizing:
            saved = (
                self.tr("saves %1").replace("%1", format_bytes(effect.saved_bytes))
                if effect.saved_bytes is not None
                else effect.note
            )
            # One translated line: the colon is the language's own (zh_CN: "：").
            line = self.tr("• %1: %2").replace("%2", saved).replace("%1", effect.fix)
            layout.addWidget(plain_label(line, self, wrap=True, selectable=True))
        self.copy_all_button = QPushButton(self.tr("Copy cause"), self)
        self.copy_all_button.setToolTip(self.tr("Copy this cause with its evidence and fix as text"))
        self.copy_all_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(cause_as_text(cause, rank)))
        buttons.addWidget(self.copy_all_button)
        layout.addLayout(buttons)


    def _heading(self, text: str):
        label = plain_label(text, self)
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        return label


class ResultsView(QWidget):
    """Header, memory bars and ranked causes of one diagnosis; :meth:`show_diagnosis` replaces them."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.diagnosis = None
        self._header_text = ""
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 0, 0)
        self.header = plain_label(self.tr("No diagnosis yet."), self, wrap=True, selectable=True)
        font = self.header.font()
        font.setBold(True)
        self.header.setFont(font)
        outer.addWidget(self.header)
        self.partial = plain_label("", self, wrap=True, selectable=True)
        self.partial.setStyleSheet("color:#7a4b00;")
        self.partial.hide()
        outer.addWidget(self.partial)
        buttons = QHBoxLayout()
        self.copy_report_button = QPushButton(self.tr("Copy report"), self)
        self.copy_report_button.setToolTip(self.tr("Copy the whole diagnosis as text"))
        self.copy_report_button.clicked.connect(self.copy_report)
        self.copy_json_button = QPushButton(self.tr("Copy JSON"), self)
        self.copy_json_button.setToolTip(self.tr("Copy the diagnosis as JSON (the same as gpudesk oom diagnose --json)"))
        self.copy_json_button.clicked.connect(self.copy_json)
        for button in (self.copy_report_button, self.copy_json_button):
            button.setEnabled(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.accuracy = OomAccuracyLink(self)
        buttons.addWidget(self.accuracy)
        outer.addLayout(buttons)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        # Cards wrap to the pane's width; a fix with a long unbreakable setting may still be wider than a
        # narrow pane, so the pane scrolls sideways then instead of clipping it.
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.body = QWidget(self.scroll_area)
        self.body_layout = QVBoxLayout(self.body)
        # Narrow side margins: with the memory account the body usually scrolls, and the vertical scroll bar
        # must not push the cards past a 784-px window's pane.
        self.body_layout.setContentsMargins(4, 6, 4, 6)
        self.bars = MemoryBarsPanel(self.body)
        self.body_layout.addWidget(self.bars)
        self.account = AccountView(self.body)
        self.body_layout.addWidget(self.account)
        self.causes_box = QWidget(self.body)
        self.causes_layout = QVBoxLayout(self.causes_box)
        self.causes_layout.setContentsMargins(0, 0, 0, 0)
        self.body_layout.addWidget(self.causes_box)
        self.parsed_title = plain_label(self.tr("Values read from the input"), self.body)
        self.parsed_title.hide()
        self.body_layout.addWidget(self.parsed_title)
        self.parsed_box = QWidget(self.body)
        self.parsed_layout = QVBoxLayout(self.parsed_box)
        self.parsed_layout.setContentsMargins(0, 0, 0, 0)
        self.body_layout.addWidget(self.parsed_box)
        self.body_layout.addStretch(1)
        self.scroll_area.setWidget(self.body)
        outer.addWidget(self.scroll_area, 1)
        self.cards: list[CauseCard] = []

    def clear(self) -> None:
        self.diagnosis = None
        self._header_text = self.tr("No diagnosis yet.")
        self.header.setText(self._header_text)
        self.partial.hide()
        self.bars.set_bars([])
        self.account.clear()
        self._clear_layout(self.causes_layout)
        self._clear_layout(self.parsed_layout)
        self.parsed_title.hide()
        self.cards = []
        self.copy_report_button.setEnabled(False)
        self.copy_json_button.setEnabled(False)

    def show_unparseable(self, message: str) -> None:
        """The input could not be used at all (empty, binary): say so and what is missing."""
        self.clear()
        self._header_text = self.tr("Unparseable input: nothing could be diagnosed.")
        self.header.setText(self._header_text)
        self.partial.setText(message)
        self.partial.show()

    def show_busy(self, text: str) -> None:
        """Say what is being collected while a probe or launch runs (the old result stays below)."""
        self.header.setText(text)

    def restore_header(self) -> None:
        """After a cancelled or failed job: the header describes the result shown below again."""
        self.header.setText(self._header_text)

    def show_diagnosis(self, diagnosis, source: str = "") -> None:
        """Show ``diagnosis`` (a ``gpudesk.oom.Diagnosis``); ``source`` names where the input came from."""
        self.clear()
        self.diagnosis = diagnosis
        report = diagnosis.report
        parts = []
        if getattr(report, "engine", None):
            # The engine's name, as the "Recognised:" line below and the CLI give it ("TensorRT-LLM", not "trtllm").
            parts.append(self.tr("Engine: %1").replace("%1", runtime_name(report.engine)))
        if report.framework and report.framework != "unknown":
            parts.append(self.tr("Framework: %1").replace("%1", runtime_name(report.framework)))
        if report.kind and report.kind != "unknown":
            parts.append(self.tr("message shape: %1").replace("%1", report.kind))
        if report.era:
            # The era names PyTorch's message format; "NVML" in it is the CUDA build's source of the figures.
            parts.append(self.tr("PyTorch era: %1").replace("%1", report.era.replace("NVML", process_tool(report.platform))))
        if report.torch_version:
            parts.append(self.tr("torch %1").replace("%1", report.torch_version))
        if report.python_version:
            parts.append(self.tr("Python %1").replace("%1", report.python_version))
        if source:
            parts.append(self.tr("from %1").replace("%1", source))
        head = " · ".join(parts) or self.tr("Diagnosis")
        self.header.setText(head)
        self._header_text = head
        partial_lines = []
        if report.status:
            partial_lines.append(report.status)
        if report.missing:
            partial_lines.append(
                self.tr("Partial result, the input lacks: %1").replace("%1", ", ".join(i18n._(m) for m in report.missing))
            )
        partial_lines += [f"• {note}" for note in report.notes]
        if partial_lines:
            self.partial.setText("\n".join(partial_lines))
            self.partial.show()
        self.bars.set_bars(bars_from_report(report))
        self.account.set_diagnosis(diagnosis)
        for rank, cause in enumerate(diagnosis.causes, 1):
            card = CauseCard(cause, rank, self.causes_box)
            self.causes_layout.addWidget(card)
            self.cards.append(card)
        if report.workers:
            self.parsed_layout.addWidget(self._workers_table(report.workers))
        if report.parsed:
            self.parsed_title.show()
            items = [(key, label_for(key, report.framework), value) for key, value in report.parsed.items()]
            self.parsed_table = ValuesGrid(items, self.parsed_box)
            self.parsed_layout.addWidget(self.parsed_table)
        self.copy_report_button.setEnabled(True)
        self.copy_json_button.setEnabled(True)
        self.scroll_area.verticalScrollBar().setValue(0)

    def _workers_table(self, workers) -> QWidget:
        """Child processes of the target (DataLoader workers ...): PID, psutil status, name, host RSS."""
        box = QWidget(self.parsed_box)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(plain_label(self.tr("Child processes of the target (psutil)"), box))
        table = QTableWidget(len(workers), 4, box)
        table.setHorizontalHeaderLabels([self.tr("PID"), self.tr("Status"), self.tr("Name"), self.tr("Host RSS")])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setStretchLastSection(True)
        for row, worker in enumerate(workers):
            for column, text in enumerate(
                (str(worker.pid), worker.status, worker.name or self.tr("N/A"), format_bytes(worker.rss_bytes))
            ):
                table.setItem(row, column, QTableWidgetItem(text))
        table.setFixedHeight(table.horizontalHeader().height() + sum(table.rowHeight(r) for r in range(len(workers))) + 4)
        layout.addWidget(table)
        self.workers_table = table
        return box

    def cause_ids(self) -> list[str]:
        return [card.cause.id for card in self.cards]

    def copy_report(self) -> None:
        if self.diagnosis is not None:
            QGuiApplication.clipboard().setText(diagnosis_as_text(self.diagnosis))

    def copy_json(self) -> None:
        if self.diagnosis is not None:
            QGuiApplication.clipboard().setText(json.dumps(self.diagnosis.to_dict(), indent=2, default=str))

    @staticmethod
    def _clear_layout(layout) -> None:
        while layout.count():
            item = layout.takeAt(0)
            widget = item.widget()
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()
