"""The dated, sourced prices of one GPU (purchase and cloud rates) and, for a planned option, rent vs buy.

A self-contained view over plain catalog records (``gpudesk.catalog.Price``) and the planner's
``RentVsBuy``; the tab wires it next to the GPU detail pane. Outside text (providers, notes, URLs) is shown
as plain text; Enter or a double-click on a row asks to open its source (``linkOpened``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpudesk.catalog import GPU, Price
from gpudesk.planner.tco import RentVsBuy

_URL = re.compile(r"https?://[^\s;)]+")


class _Table(QTableWidget):
    """A read-only table whose Enter key activates the current row (keyboard access to the source link)."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self.cellActivated.emit(self.currentRow(), 0)
            return
        super().keyPressEvent(event)


class PriceSourcesView(QWidget):
    """Every price the catalog has for one GPU, with its kind, date and source, and the rent-vs-buy line."""

    linkOpened = Signal(str)
    """Enter or a double-click on a price row asks to open its source: the URL."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._urls: list[str] = []
        self._title = QLabel(self)
        self._title.setTextFormat(Qt.TextFormat.PlainText)
        font = self._title.font()
        font.setBold(True)
        self._title.setFont(font)
        self.table = _Table(0, 5, self)
        self.table.setHorizontalHeaderLabels([self.tr("Kind"), self.tr("Price (USD)"), self.tr("Date"),
                                              self.tr("Provider / seller"), self.tr("Source")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.table.cellActivated.connect(self._open)
        self.table.cellDoubleClicked.connect(self._open)
        self.rent_label = QLabel(self)
        self.rent_label.setTextFormat(Qt.TextFormat.PlainText)
        self.rent_label.setWordWrap(True)
        self.rent_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self._title)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.rent_label)

    def kind_text(self, kind: str) -> str:
        """A translated label for a price kind."""
        return {
            "list": self.tr("List price"), "street": self.tr("Street price"), "quote": self.tr("Published quote"),
            "market-report": self.tr("Market report"), "cloud-on-demand": self.tr("Cloud, on demand"),
            "cloud-committed": self.tr("Cloud, committed"), "cloud-spot": self.tr("Cloud, spot"),
            "catalog": self.tr("Catalog price"),
        }.get(kind, kind)

    def price_text(self, price: Price) -> str:
        """The amount with its unit, and the source's range when it gave one."""
        if price.unit == "per-gpu-hour":
            text = self.tr("${amount} per GPU-hour").replace("{amount}", f"{price.price_usd:,.2f}")
        elif price.unit == "per-system":
            text = self.tr("${amount} per system").replace("{amount}", f"{price.price_usd:,.0f}")
        else:
            text = self.tr("${amount} per GPU").replace("{amount}", f"{price.price_usd:,.0f}")
        if price.price_low_usd and price.price_high_usd:
            text += self.tr(" (range ${low}-${high})").replace("{low}", f"{price.price_low_usd:,.0f}").replace(
                "{high}", f"{price.price_high_usd:,.0f}")
        return text

    def set_prices(self, gpu_name: str, prices: Sequence[Price], rent: RentVsBuy | None = None, count: int = 1,
                   gpu: GPU | None = None) -> None:
        """Show ``prices`` (purchase first, then cloud rates, cheapest first) and the rent-vs-buy line; ``gpu``
        adds the price on the catalog's GPU row (its dated source) on top."""
        self._title.setText(self.tr("Prices of {gpu}").replace("{gpu}", gpu_name))
        rows = sorted(prices, key=lambda p: (p.is_cloud, p.kind, p.price_usd))
        if gpu is not None and gpu.price_usd is not None:
            urls = _URL.findall(gpu.price_source or "")
            rows.insert(0, Price(id=f"{gpu.id}-catalog", item_kind="gpu", item_id=gpu.id, kind="catalog", unit="per-gpu",
                                 price_usd=float(gpu.price_usd), price_date=gpu.price_date or "",
                                 source_url=urls[0] if urls else "", notes=gpu.price_source))
        self._urls = [p.source_url for p in rows]
        self.table.setRowCount(len(rows))
        for r, price in enumerate(rows):
            cells = [self.kind_text(price.kind), self.price_text(price), price.price_date, price.provider or "",
                     price.source_url or price.notes or ""]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(price.notes or text)
                if c == 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        if not rows:
            self.rent_label.setText(self.tr("No public price or cloud rate found: enter your quote in the Catalog tab."))
        elif rent is None:
            self.rent_label.setText(self.tr("Rent vs buy: no public on-demand cloud rate for this GPU."))
        else:
            self.rent_label.setText(self.tr("Rent vs buy: {text}.").replace("{text}", rent.describe(count))
                                    + " " + self.owning_text(rows, rent))

    def owning_text(self, rows: Sequence[Price], rent: RentVsBuy) -> str:
        """What owning costs beside the rent: the cheapest sourced purchase price per GPU and how many GPU-hours
        of rent it pays for (hardware only: power, hosting and the server come on top; the Plan tab's TCO counts
        them), or that no purchase price is known."""
        if rent.owned_usd is not None:
            return ""
        buys = sorted((p for p in rows if not p.is_cloud and p.unit == "per-gpu"), key=lambda p: p.price_usd)
        if not buys:
            return self.tr("Owning: no purchase price is known for this GPU; enter your quote to compare.")
        buy, rate = buys[0], rent.rate.usd_per_gpu_hour
        return self.tr("Owning: {price} per GPU ({kind}, {date}) buys {hours} GPU-hours at this rate (the card "
                       "alone; power, hosting and the server add to owning).").replace(
            "{price}", f"${buy.price_usd:,.0f}").replace("{kind}", self.kind_text(buy.kind)).replace(
            "{date}", buy.price_date).replace("{hours}", f"{buy.price_usd / rate:,.0f}")

    def _open(self, row: int, _column: int) -> None:
        if 0 <= row < len(self._urls) and self._urls[row]:
            self.linkOpened.emit(self._urls[row])
