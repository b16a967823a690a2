"""The results page's price strip: which GPU price the selected candidate used, and an editor for your own.

Many catalog GPUs have no dated price, so their 3-year TCO is unknown and they rank after priced options. The
strip says so ("price unknown — enter your quote in the Catalog tab"), shows the break-even quote the planner
computed (below it the candidate would rank higher), and lets the user type a quote in place. The quote goes
to the same store as the Catalog tab's price field (gpudesk.store.prices, written by the Plan tab) and the
plan is made again. gpudesk never fills in a price itself.
"""

from __future__ import annotations


from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from gpudesk.planner.document import PlanOption

MAX_PRICE_USD = 10_000_000.0


class PriceEditor(QWidget):
    """Signals: priceEntered(gpu_id, usd): the user asks to keep ``usd`` as their price and plan again."""

    priceEntered = Signal(str, float)
    """A valid price was typed: the GPU id and the price (USD per GPU) to keep and plan with."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.gpu_id: str | None = None
        self.gpu_name = ""
        self.state = QLabel(self)
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.state.setWordWrap(True)
        self.price = QLineEdit(self)
        self.price.setValidator(QRegularExpressionValidator(QRegularExpression(r"[0-9][0-9,]{0,11}(\.[0-9]{0,2})?"), self.price))
        self.price.setPlaceholderText(self.tr("your quote, e.g. 17,000"))
        self.price.setClearButtonEnabled(True)
        self.price.setMinimumWidth(150)
        self.price.setToolTip(self.tr("Your quote per GPU in US dollars. It is kept with your other prices (the Catalog "
                                      "tab's price field) and used by every plan until you remove it there."))
        self.label = QLabel(self.tr("Your &price per GPU (USD):"), self)
        self.label.setBuddy(self.price)
        self.apply_button = QPushButton(self.tr("Use it and &re-plan"), self)
        self.apply_button.setToolTip(self.tr("Save this price as yours and plan again with it"))
        self.apply_button.clicked.connect(self.apply)
        self.price.textChanged.connect(self._update_button)
        self.price.returnPressed.connect(self.apply)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.price)
        row.addWidget(self.apply_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.state)
        layout.addLayout(row)
        self.store_available = True
        self.show_candidate(None)

    def set_store_available(self, available: bool) -> None:
        """Without a user database there is nowhere to keep a price: the editor is disabled, with the reason."""
        self.store_available = available
        self._update_button()

    def show_candidate(self, candidate: PlanOption | None) -> None:
        """Show the price used by ``candidate`` (an option of the plan document) and prepare the editor for its GPU."""
        if not candidate:
            self.gpu_id = None
            self.state.setText(self.tr("Select a candidate to see the GPU price it used."))
            self.price.clear()
            self._update_button()
            return
        self.gpu_id = candidate.gpu_id or None
        self.gpu_name = candidate.name
        if candidate.gpu_price_unknown:
            text = self.tr("{0}: price unknown — enter your quote in the Catalog tab or here. Its 3-year TCO cannot be "
                           "computed, so it ranks after the priced options of its tier.").format(self.gpu_name)
            breakeven = candidate.break_even_price_usd
            if breakeven is not None:
                text += " " + self.tr("With a quote below {0} per GPU it would rank higher.").format(f"${breakeven:,.0f}")
            self.price.clear()
        else:
            text = candidate.price.text or self.tr("GPU price: N/A (plan saved by an older gpudesk)")
            mine = candidate.price.usd_per_gpu if candidate.price.origin == "user" else None
            self.price.setText(f"{mine:,.0f}" if mine is not None else "")
        self.state.setText(text)
        self.state.setToolTip(text)
        self._update_button()

    def value(self) -> float | None:
        """The typed price in USD (thousands separators allowed), or None when empty, zero or above the limit."""
        text = self.price.text().replace(",", "").strip()
        try:
            number = float(text)
        except ValueError:
            return None
        return number if 0 < number <= MAX_PRICE_USD else None

    def _update_button(self, *_args) -> None:
        editable = self.store_available and self.gpu_id is not None
        self.price.setEnabled(editable)
        self.apply_button.setEnabled(editable and self.value() is not None)
        if not self.store_available:
            self.apply_button.setToolTip(self.tr("Unavailable: the user database is not open, so a price cannot be kept."))
        elif self.price.text().strip() and self.value() is None:
            self.apply_button.setToolTip(self.tr("Type a price above 0 and at most {0} USD.").format(f"{MAX_PRICE_USD:,.0f}"))
        else:
            self.apply_button.setToolTip(self.tr("Save this price as yours and plan again with it"))

    def apply(self) -> None:
        """Emit ``priceEntered`` for the shown GPU when a valid price is typed."""
        price = self.value()
        if self.apply_button.isEnabled() and self.gpu_id and price is not None:
            self.priceEntered.emit(self.gpu_id, price)
