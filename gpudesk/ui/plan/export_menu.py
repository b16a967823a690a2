"""Export button: the configuration sheet as Markdown, PDF, JSON or a CSV bill of materials.

Markdown, JSON and CSV are small text writes; the PDF (text layout and pagination) runs through
``run_task`` so the window never freezes. Success and failure are reported through ``ctx.notify``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QToolButton, QWidget

from gpudesk.planner.document import PlanDocument
from gpudesk.planner.sheet import SheetError
from gpudesk.planner.sheet_csv import write_csv
from gpudesk.planner.sheet_json import write_json
from gpudesk.planner.sheet_markdown import plan_to_markdown, write_markdown
from gpudesk.ui.workers import Task, run_task
from gpudesk.ui.error_text import error_text

FORMATS = ("md", "pdf", "json", "csv")


def _pdf_job(markdown_text: str, path: str, title: str, plan: PlanDocument | None = None, index: int = 0) -> str:
    from gpudesk.ui.plan.sheet_charts import sheet_chart_images
    from gpudesk.ui.plan.sheet_pdf import markdown_to_pdf

    charts = sheet_chart_images(plan, index) if plan is not None else []
    return str(markdown_to_pdf(markdown_text, path, title, charts=charts))


def safe_file_stem(name: str) -> str:
    """A file name from a plan name: letters, digits, dot, dash and underscore; at most 80 characters."""
    stem = re.sub(r"[^\w.-]+", "-", name, flags=re.UNICODE).strip("-.")
    return (stem or "gpudesk-plan")[:80]


class ExportButton(QToolButton):
    """A button with a menu of the four formats. :meth:`set_source` gives it the plan to export.

    Signals:
        exported(str, str): format and path written.
        failed(str): the error message (also shown through ``ctx.notify``).
    """

    exported = Signal(str, str)
    """A plan was exported: the format and the path written."""
    failed = Signal(str)
    """An export failed: the sentence saying why (also shown through ctx.notify)."""

    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self._plan: PlanDocument | None = None
        self._profile: dict[str, Any] | None = None
        self._name = ""
        self._candidate_index = 0
        self.setText(self.tr("E&xport sheet"))
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        labels = {
            "md": self.tr("Markdown (.md)…"),
            "pdf": self.tr("PDF (.pdf)…"),
            "json": self.tr("JSON (.json)…"),
            "csv": self.tr("CSV bill of materials (.csv)…"),
        }
        self.actions_by_format: dict[str, QAction] = {}
        for fmt in FORMATS:
            action = QAction(labels[fmt], self)
            action.triggered.connect(lambda _checked=False, f=fmt: self.choose_and_export(f))
            menu.addAction(action)
            self.actions_by_format[fmt] = action
        self.setMenu(menu)
        self.setEnabled(False)
        self.pending: Task | None = None

    def set_source(self, plan: PlanDocument | None, name: str = "", profile: dict[str, Any] | None = None,
                   candidate_index: int = 0) -> None:
        """The plan document, its name, its requirement profile and the chosen candidate."""
        self._plan = plan
        self._name = name
        self._profile = profile
        self._candidate_index = candidate_index
        self._restore()

    def choose_and_export(self, fmt: str) -> None:
        if self._plan is None:
            return
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
        suggested = str(Path(folder) / f"{safe_file_stem(self._name or 'gpudesk-plan')}.{fmt}")
        filters = {"md": self.tr("Markdown (*.md)"), "pdf": self.tr("PDF (*.pdf)"), "json": self.tr("JSON (*.json)"),
                   "csv": self.tr("CSV (*.csv)")}
        path, _selected = QFileDialog.getSaveFileName(self, self.tr("Export configuration sheet"), suggested, filters[fmt])
        if path:
            self.export_to(fmt, path)

    def export_to(self, fmt: str, path: str | Path) -> None:
        """Write the sheet in ``fmt`` to ``path`` (PDF in the background); result via signals and notify."""
        if self._plan is None:
            return
        target = str(path)
        if not target.lower().endswith("." + fmt):
            target += "." + fmt
        kwargs = {"candidate_index": self._candidate_index, "title": self._name or None, "profile": self._profile,
                  "catalog": self.ctx.catalog}
        try:
            if fmt == "md":
                write_markdown(self._plan, target, **kwargs)
            elif fmt == "json":
                write_json(self._plan, target, **kwargs)
            elif fmt == "csv":
                write_csv(self._plan, target, **kwargs)
            elif fmt == "pdf":
                text = plan_to_markdown(self._plan, **kwargs)
                self.setEnabled(False)
                self.pending = run_task(
                    _pdf_job, text, target, self._name, self._plan, self._candidate_index,
                    on_result=lambda written: self._done("pdf", written),
                    on_error=self._error,
                    on_finished=self._finished,
                )
                return
            else:
                raise SheetError(f"Unknown export format {fmt!r}; use one of {', '.join(FORMATS)}.")
        except SheetError as exc:
            self._error(exc)
            return
        self._done(fmt, target)

    def _restore(self) -> None:
        """Enable the button when there is a plan to export (also after a PDF export, success or failure). A plan
        with no candidate still exports as Markdown or PDF (why nothing fits: the binding constraint and the
        rejections); the JSON sheet and the bill of materials need a configuration."""
        has_candidates = self._plan is not None and bool(self._plan.candidates)
        self.setEnabled(self._plan is not None)
        for fmt in ("json", "csv"):
            self.actions_by_format[fmt].setEnabled(has_candidates)

    def _finished(self) -> None:
        # Drop the task only here: its signals object dies with it, and "finished" comes after "result".
        self.pending = None
        self._restore()

    def _done(self, fmt: str, path: str) -> None:
        self._restore()
        self.ctx.notify(self.tr("Configuration sheet written to {0}").format(path), "info")
        self.exported.emit(fmt, path)

    def _error(self, exc: BaseException) -> None:
        self._restore()
        message = self.tr("Export failed: {0}").format(error_text(exc))
        self.ctx.notify(message, "error")
        self.failed.emit(message)
