"""Help > About: version and licence, the catalog's data sources with the Epoch AI attribution (CC BY 4.0),
and third-party notices."""

from __future__ import annotations

import platform
import sys

import PySide6
from PySide6.QtCore import QLibraryInfo, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTextBrowser,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gpudesk import __version__, paths
from gpudesk.ui.context import AppContext

# Shown even when the catalog cannot be opened (the attribution the CC BY 4.0 licence asks for).
EPOCH_ATTRIBUTION = (
    "Epoch AI, 'Data on Machine Learning Hardware'. Published online at epoch.ai. Retrieved from "
    "'https://epoch.ai/data/machine-learning-hardware' [online resource]. Licensed under CC BY 4.0 "
    "(https://creativecommons.org/licenses/by/4.0/)."
)

# (component, licence, home page) for the runtime dependencies.
THIRD_PARTY: tuple[tuple[str, str, str], ...] = (
    ("Qt 6 / PySide6 (Qt for Python)", "LGPL-3.0", "https://www.qt.io/qt-for-python"),
    ("pyqtgraph", "MIT", "https://www.pyqtgraph.org/"),
    ("nvidia-ml-py (pynvml)", "BSD-3-Clause", "https://pypi.org/project/nvidia-ml-py/"),
    ("sqlite-utils", "Apache-2.0", "https://github.com/simonw/sqlite-utils"),
    ("psutil", "BSD-3-Clause", "https://github.com/giampaolo/psutil"),
    ("platformdirs", "MIT", "https://github.com/tox-dev/platformdirs"),
    ("numpy", "BSD-3-Clause", "https://numpy.org/"),
)


def _plain(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _table(headers: list[str], rows: list[list[str]], widths: list[int], parent: QWidget) -> QTableWidget:
    """Read-only table with word-wrapped cells; ``widths`` in pixels (the last column stretches)."""
    table = QTableWidget(len(rows), len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(True)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            table.setItem(r, c, item)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    for column, width in enumerate(widths):
        table.setColumnWidth(column, width)
    table.resizeRowsToContents()
    return table


class AboutDialog(QDialog):
    """Three pages: About, Data sources (from ``ctx.catalog.meta()``) and Third-party notices.

    URLs in the tables open in the browser on double-click.
    """

    def __init__(self, ctx: AppContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("About gpudesk and data sources"))
        self.resize(900, 620)
        self.ctx = ctx
        self.pages = QTabWidget(self)
        self.pages.addTab(self._about_page(), self.tr("&About"))
        self.pages.addTab(self._sources_page(), self.tr("&Data sources"))
        self.pages.addTab(self._notices_page(), self.tr("&Third-party notices"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addWidget(buttons)

    def _about_page(self) -> QWidget:
        page = QWidget(self)
        layout = QVBoxLayout(page)
        title = _plain(f"gpudesk {__version__}", page)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        title.setFont(font)
        layout.addWidget(title)
        layout.addWidget(
            _plain(self.tr("Choose, monitor and debug GPUs for machine-learning work. Works offline."), page)
        )
        layout.addWidget(
            _plain(self.tr("Licence: MIT License. Copyright (c) 2026 The gpudesk authors."), page)
        )
        versions = self.tr("Python {0} on {1}; PySide6 {2}; Qt {3}").format(
            platform.python_version(), sys.platform, PySide6.__version__, QLibraryInfo.version().toString()
        )
        layout.addWidget(_plain(versions, page))
        layout.addWidget(_plain(self.tr("User data folder: {0}").format(paths.data_dir(create=False)), page))
        layout.addStretch(1)
        return page

    def _sources_page(self) -> QWidget:
        page = QWidget(self)
        layout = QVBoxLayout(page)
        catalog = self.ctx.catalog
        if catalog is None:
            problems = "\n".join(self.ctx.problems) or self.tr("The catalog was not opened.")
            layout.addWidget(_plain(self.tr("The GPU catalog is not available: {0}").format(problems), page))
            self.sources_table = None
        else:
            meta = catalog.meta()
            counts = meta.get("counts", {})
            summary = self.tr(
                "Catalog data checked up to {0} (schema {1}): {2} GPUs, {3} servers, {4} links, {5} models. "
                "Throughput figures are dense (no sparsity) from vendor datasheets; each GPU names its source."
            ).format(
                meta.get("build_date", "?"),
                meta.get("schema_version", "?"),
                counts.get("gpus", 0),
                counts.get("servers", 0),
                counts.get("links", 0),
                counts.get("models", 0),
            )
            layout.addWidget(_plain(summary, page))
            rows = [
                [f"{s['publisher']}: {s['name']}", s["licence"], s["used_for"], s.get("url") or "", s["date_checked"]]
                for s in meta["sources"]
            ]
            headers = [self.tr("Source"), self.tr("Licence"), self.tr("Used for"), self.tr("Address"), self.tr("Checked")]
            self.sources_table = _table(headers, rows, [205, 140, 220, 190], page)
            self.sources_table.cellDoubleClicked.connect(self._open_cell)
            self.sources_table.setToolTip(self.tr("Double-click an address to open it in your browser"))
            layout.addWidget(self.sources_table, 1)
        heading = _plain(self.tr("Attribution (CC BY 4.0):"), page)
        layout.addWidget(heading)
        self.attribution = _plain(EPOCH_ATTRIBUTION, page)
        self.attribution.setIndent(12)
        layout.addWidget(self.attribution)
        return page

    def _notices_page(self) -> QWidget:
        page = QWidget(self)
        layout = QVBoxLayout(page)
        headers = [self.tr("Component"), self.tr("Licence"), self.tr("Address")]
        self.notices_table = _table(headers, [list(t) for t in THIRD_PARTY], [300, 140], page)
        self.notices_table.cellDoubleClicked.connect(self._open_cell)
        self.notices_table.setMaximumHeight(260)
        layout.addWidget(self.notices_table)
        notices = paths.resources_dir() / "THIRD_PARTY_NOTICES.md"
        text = QTextBrowser(page)  # the notices rendered (headings, lists, links), not raw Markdown
        text.setOpenExternalLinks(True)
        self.notices_text = text
        try:
            text.setMarkdown(notices.read_text(encoding="utf-8"))
        except OSError as exc:
            text.setPlainText(self.tr("The full notices file {0} could not be read: {1}").format(notices, exc.strerror or exc))
        layout.addWidget(_plain(self.tr("Full notices ({0}):").format(notices.name), page))
        layout.addWidget(text, 1)
        return page

    def _open_cell(self, row: int, column: int) -> None:
        table = self.sender()
        item = table.item(row, column) if isinstance(table, QTableWidget) else None
        if item is not None and item.text().startswith(("https://", "http://")):
            QDesktopServices.openUrl(QUrl(item.text()))
