"""The Catalog tab's controller: your own GPU prices in the user store, with undo. No widgets.

Signals:
    overridesChanged(dict): gpu id -> override row, after every read of the store.
    priceChanged(str): the price of this GPU changed (set, cleared or undone).
    undoChanged(object): the description of the change Undo would revert, or None.
    undone(str): the last change to this GPU's price was undone (the view selects the GPU).
    sourcesChanged(str, list, object, object): a GPU's name, its sourced catalog prices, renting it (a planner
        ``RentVsBuy`` at the lowest on-demand rate, or None) and the GPU record, for the price-sources view.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from gpudesk.catalog import GPU
from gpudesk.catalog.errors import CatalogError
from gpudesk.planner.prices import cloud_rate
from gpudesk.planner.tco import TcoAssumptions, rent_vs_buy
from gpudesk.store.errors import StoreError
from gpudesk.store.prices import clear_price, price_overrides, set_price
from gpudesk.ui.context import AppContext
from gpudesk.ui.error_text import error_text


class CatalogPrices(QObject):
    """Set, clear and undo your prices for catalog GPUs (same store as the Plan tab's price strip)."""

    overridesChanged = Signal(dict)
    """The user's prices were read from the store: GPU id -> override row."""
    priceChanged = Signal(str)
    """A GPU's user price was set, cleared or undone: the GPU id."""
    undoChanged = Signal(object)
    """The undo stack changed: the description of the change Undo would revert, or None."""
    undone = Signal(str)
    """The last price change of a GPU was undone: the GPU id (the view selects it)."""
    sourcesChanged = Signal(str, list, object, object)
    """A GPU's price sources were read: its name, catalog prices, RentVsBuy or None, the GPU."""

    def __init__(self, ctx: AppContext):
        super().__init__()
        self.ctx = ctx
        self.overrides: dict[str, dict[str, Any]] = {}
        # Price changes made here, newest last: (gpu_id, the override before the change or None, description).
        self._undo: list[tuple[str, dict[str, Any] | None, str]] = []

    def load(self) -> None:
        """Read the overrides from the store (a failure is shown; the last ones read stay)."""
        if self.ctx.store is None:
            return
        try:
            self.overrides = price_overrides(self.ctx.store)
        except StoreError as exc:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "Your saved prices could not be read: {0}").format(error_text(exc)), "error")
            return
        self.overridesChanged.emit(self.overrides)

    def show_sources(self, gpu: GPU | None) -> None:
        """The sourced prices of ``gpu`` and renting one of it over the default TCO horizon (no owned cost is
        assumed here: the Plan results compare it with a configuration's TCO)."""
        catalog = self.ctx.catalog
        if gpu is None or catalog is None:
            return
        try:
            prices = catalog.prices(gpu.id)
        except CatalogError as exc:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "The prices of {0} could not be read: {1}").format(
                gpu.name, error_text(exc)), "error")
            prices = []
        rate = cloud_rate(gpu.id, prices)
        rent = None if rate is None else rent_vs_buy(rate, count=1, job_hours=None, tco_total_usd=None,
                                                     a=TcoAssumptions())
        self.sourcesChanged.emit(gpu.name, list(prices), rent, gpu)

    def _changed(self, gpu_id: str) -> None:
        self.load()
        self.priceChanged.emit(gpu_id)

    def _push_undo(self, gpu_id: str, before: dict[str, Any] | None, description: str) -> None:
        self._undo.append((gpu_id, dict(before) if before is not None else None, description))
        self.undoChanged.emit(description)

    def set_user_price(self, gpu_id: str, price_usd: float) -> bool:
        """Keep ``price_usd`` as your price for ``gpu_id``; returns success (a failure is shown)."""
        if self.ctx.store is None:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "Price overrides are unavailable because the user database is not open."), "warning")
            return False
        before = self.overrides.get(gpu_id)
        try:
            set_price(self.ctx.store, gpu_id, price_usd)
        except StoreError as exc:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "The price was not saved: {0}").format(error_text(exc)), "error")
            return False
        self._push_undo(gpu_id, before, QCoreApplication.translate("CatalogTab", "your price {0:,.0f} USD for {1}").format(price_usd, gpu_id))
        self._changed(gpu_id)
        self.ctx.notify(QCoreApplication.translate("CatalogTab", "Saved your price for {0}: {1:,.0f} USD.").format(gpu_id, price_usd), "info")
        return True

    def clear_user_price(self, gpu_id: str) -> bool:
        """Use the catalog price for ``gpu_id`` again; returns success."""
        if self.ctx.store is None:
            return False
        before = self.overrides.get(gpu_id)
        try:
            clear_price(self.ctx.store, gpu_id)
        except StoreError as exc:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "Your price was not removed: {0}").format(error_text(exc)), "error")
            return False
        if before is not None:
            self._push_undo(gpu_id, before, QCoreApplication.translate("CatalogTab", "catalog price again for {0}").format(gpu_id))
        self._changed(gpu_id)
        self.ctx.notify(QCoreApplication.translate("CatalogTab", "{0} uses the catalog price again.").format(gpu_id), "info")
        return True

    def undo_price_change(self) -> bool:
        """Put back the price the last change here replaced (your earlier price, or none); returns success."""
        if not self._undo or self.ctx.store is None:
            return False
        gpu_id, before, _description = self._undo[-1]
        try:
            if before is None:
                clear_price(self.ctx.store, gpu_id)
            else:
                set_price(self.ctx.store, gpu_id, float(before["price_usd"]), note=str(before.get("note") or ""))
        except StoreError as exc:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "The price change could not be undone: {0}").format(error_text(exc)), "error")
            return False
        self._undo.pop()
        self.undoChanged.emit(self._undo[-1][2] if self._undo else None)
        self.undone.emit(gpu_id)
        self._changed(gpu_id)
        if before is None:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "Undone: {0} uses the catalog price again.").format(gpu_id), "info")
        else:
            self.ctx.notify(QCoreApplication.translate("CatalogTab", "Undone: your price for {0} is {1:,.0f} USD again.").format(
                gpu_id, float(before["price_usd"])), "info")
        return True
