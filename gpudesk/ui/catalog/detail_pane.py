"""Every spec of one GPU with units, its source links (opened in the browser) and the user's price editor."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpudesk.catalog import GPU
from gpudesk.catalog.fields import SPEC_FIELDS
from gpudesk.ui.catalog.table_model import display_value, field_label

_URL = re.compile(r"https?://[^\s;)]+")
_LINK_KEYS = {"source_url"}


def _plain_label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def source_urls(gpu: GPU) -> list[str]:
    """The spec source first, then every other URL named in the GPU's references and price source."""
    urls = [gpu.source_url]
    for text in (gpu.source_refs or "", gpu.price_source or "", gpu.matmul_efficiency_source or ""):
        urls += [u for u in _URL.findall(text) if u not in urls]
    return urls


class GpuDetailPane(QWidget):
    """Shows one GPU. Emits ``priceSet(gpu_id, usd)``, ``priceCleared(gpu_id)`` and ``undoRequested()``
    (undo the last price change) for the tab to store."""

    priceSet = Signal(str, float)
    """Save was pressed: the GPU id and the purchase price typed, in USD per GPU."""
    priceCleared = Signal(str)
    """Clear was pressed: the GPU id whose user price to remove."""
    undoRequested = Signal()
    """Undo was pressed: revert the last price change. No arguments."""
    linkOpened = Signal(str)
    """A source link was clicked (and opened in the browser): its URL."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._gpu: GPU | None = None
        self._title = QLabel(self)
        self._title.setTextFormat(Qt.TextFormat.PlainText)
        font = self._title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self._title.setFont(font)
        self._body = QWidget(self)
        self._form = QFormLayout(self._body)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._values: dict[str, QLabel] = {}
        for field in SPEC_FIELDS:
            if field.key in _LINK_KEYS or field.key == "name":
                continue
            value = _plain_label("", self._body)
            self._values[field.key] = value
            self._form.addRow(field_label(field) + ":", value)
        self._links_box = QWidget(self._body)
        self._links = QVBoxLayout(self._links_box)
        self._links.setContentsMargins(0, 0, 0, 0)
        self._form.addRow(self.tr("Sources:"), self._links_box)
        scroll = self._scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)  # wrap width accounts for it
        scroll.setWidget(self._body)

        self._price_box = QGroupBox(self.tr("Your price"), self)
        self._price = QDoubleSpinBox(self._price_box)
        self._price.setRange(0.0, 10_000_000.0)
        self._price.setDecimals(0)
        self._price.setSingleStep(100.0)
        self._price.setSuffix(" USD")
        # 0 is the minimum and means "no price yet": it shows this text instead of "0 USD" and cannot be saved.
        self._price.setSpecialValueText(self.tr("type your quote"))
        self._price.setMinimumWidth(90)
        self._price.setToolTip(self.tr("Your quote for this GPU in US dollars; plans use it instead of the catalog price."))
        self._save = QPushButton(self.tr("Save pr&ice"), self._price_box)
        self._save.setToolTip(self.tr("Keep this price in your gpudesk database"))
        self._clear = QPushButton(self.tr("Use &catalog price"), self._price_box)
        self._clear.setToolTip(self.tr("Remove your price for this GPU"))
        self._undo = QPushButton(self.tr("&Undo"), self._price_box)
        self._undo.setToolTip(self.tr("Nothing to undo yet"))
        self._undo.setEnabled(False)
        self._price_state = _plain_label("", self._price_box)
        row = QHBoxLayout()
        price_label = QLabel(self.tr("&Price:"), self._price_box)
        price_label.setBuddy(self._price)
        row.addWidget(price_label)
        row.addWidget(self._price, 1)
        row.addWidget(self._save)
        row.addWidget(self._clear)
        row.addWidget(self._undo)
        box_layout = QVBoxLayout(self._price_box)
        box_layout.addLayout(row)
        box_layout.addWidget(self._price_state)
        self._save.clicked.connect(self._on_save)
        self._price.valueChanged.connect(self._update_save_enabled)
        self._clear.clicked.connect(self._on_clear)
        self._undo.clicked.connect(self.undoRequested)

        self.serve_fit_button = QPushButton(self.tr("&Will a model fit on it?…"), self)
        self.serve_fit_button.setToolTip(self.tr("Size a model's start-up in vLLM, SGLang, TensorRT-LLM, llama.cpp "
                                                 "or Ollama on this GPU"))
        self.serve_fit_button.clicked.connect(self._open_serve_fit)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._title)
        layout.addWidget(self.serve_fit_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(scroll, 1)
        layout.addWidget(self._price_box)
        self._overrides_available = True
        self._unavailable_reason = ""
        self.show_gpu(None)

    def _open_serve_fit(self) -> None:
        from gpudesk.ui.serve_fit import open_serve_fit_dialog

        self.serve_fit_dialog = open_serve_fit_dialog(self.window(), self._gpu.id if self._gpu else None)

    def gpu(self) -> GPU | None:
        return self._gpu

    def value_text(self, key: str) -> str:
        """Text shown for a field (for tests and accessibility)."""
        return self._values[key].text()

    def link_buttons(self) -> list[QPushButton]:
        buttons = []
        for i in range(self._links.count()):
            item = self._links.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, QPushButton):
                buttons.append(widget)
        return buttons

    def focus_chain(self) -> list[QWidget]:
        """The pane's keyboard stops in layout order (for the tab's tab order)."""
        return [self._scroll, self._price, self._save, self._clear, self._undo]

    def set_undo(self, description: str | None) -> None:
        """Enable the Undo button for the price change ``description`` (None: nothing to undo)."""
        self._undo.setEnabled(description is not None and self._overrides_available)
        self._undo.setToolTip(self.tr("Undo: {0}").format(description) if description else self.tr("Nothing to undo yet"))

    def set_overrides_available(self, available: bool, reason: str = "") -> None:
        """Disable the price editor (with ``reason``) when the user database is not open."""
        self._overrides_available = available
        self._unavailable_reason = reason
        if not available:
            self._undo.setEnabled(False)
        self._update_price_box(None)

    def show_gpu(self, gpu: GPU | None, override: dict | None = None) -> None:
        """Show ``gpu`` (None shows a hint) and the user's price ``override`` if any."""
        self._gpu = gpu
        self._body.setVisible(gpu is not None)
        self.serve_fit_button.setVisible(gpu is not None)
        if gpu is None:
            self._title.setText(self.tr("Select a GPU in the table or the chart to see every spec."))
            self._update_price_box(None)
            return
        self._title.setText(gpu.name)
        for field in SPEC_FIELDS:
            label = self._values.get(field.key)
            if label is not None:
                label.setText(display_value(field, field.value(gpu), gpu=gpu))
        while self._links.count():
            item = self._links.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        for url in source_urls(gpu):
            shown = self.fontMetrics().elidedText(url, Qt.TextElideMode.ElideMiddle, 300)
            button = QPushButton(shown, self._links_box)
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setAccessibleName(url)
            button.setFlat(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setStyleSheet("text-align:left; color:palette(link); text-decoration:underline;")
            button.setToolTip(self.tr("Open {0} in your web browser").format(url))
            button.setProperty("url", url)
            button.clicked.connect(self._on_link_clicked)
            self._links.addWidget(button)
        self._update_price_box(override)

    def set_sourced_prices(self, gpu: GPU | None, prices: list) -> None:
        """Say the same thing about the price everywhere: the GPU record carries the catalog's one price (the row's,
        else the prices table's by kind; gpudesk.catalog.prices), the one the planner uses; with none anywhere, the
        price reads "no public price found" (the row's "see the prices table" would then point at nothing) and the
        source shows the catalog's note on why (catalog text), or the same sentence when it has none."""
        if gpu is None or self._gpu is None or gpu.id != self._gpu.id or gpu.price_usd is not None:
            return
        if any(not p.is_cloud and p.unit == "per-gpu" for p in prices):
            return
        price, source = self._values.get("price_usd"), self._values.get("price_source")
        none = self.tr("no public price found")
        if price is not None:
            price.setText(none)
        if source is not None:  # the catalog's own note says why (A10G: "not sold, AWS EC2 G5 instances only")
            source.setText(gpu.price_source or none)
        if not self._price_state.text().startswith(self.tr("Your price")):
            self._price_state.setText(self.tr("No public price found for this GPU; enter your quote."))

    def _update_price_box(self, override: dict | None) -> None:
        gpu = self._gpu
        enabled = gpu is not None and self._overrides_available
        for widget in (self._price, self._save, self._clear):
            widget.setEnabled(enabled)
        if not self._overrides_available:
            self._price_state.setText(
                self.tr("Price overrides are unavailable: {0}").format(
                    self._unavailable_reason or self.tr("the user database is not open.")
                )
            )
            return
        if gpu is None:
            self._price_state.setText("")
            return
        self._clear.setEnabled(override is not None)
        if override is not None:
            self._price.setValue(float(override["price_usd"]))
            self._price_state.setText(self.tr("Your price since {0}.").format(override.get("updated_at", "")))
        else:
            self._price.setValue(float(gpu.price_usd or 0.0))
            self._price_state.setText(
                self.tr("Catalog price: {0} ({1}).").format(gpu.price_usd and f"{gpu.price_usd:,.0f} USD", gpu.price_date)
                if gpu.price_usd is not None
                else self.tr("The catalog has no dated price for this GPU; enter your quote.")
            )
        self._update_save_enabled()

    def _update_save_enabled(self, *_args) -> None:
        self._save.setEnabled(self._gpu is not None and self._overrides_available and self._price.value() > 0)

    def _on_save(self) -> None:
        if self._gpu is not None:  # a 0 price is refused by the store with a message
            self.priceSet.emit(self._gpu.id, float(self._price.value()))

    def _on_clear(self) -> None:
        if self._gpu is not None:
            self.priceCleared.emit(self._gpu.id)

    def _on_link_clicked(self) -> None:
        button = self.sender()
        if button is not None:
            self._open(str(button.property("url")))

    def _open(self, url: str) -> None:
        self.linkOpened.emit(url)
        QDesktopServices.openUrl(QUrl(url))
