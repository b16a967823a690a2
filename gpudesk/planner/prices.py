"""Which GPU price a plan uses, and where it comes from. Qt-free.

Three origins, highest priority first:

1. ``requirement`` — ``[tco] gpu_price_overrides_usd`` in the profile (part of the plan's own answers);
2. ``user`` — the user's own prices entered in the Catalog tab and kept in the user store
   (``gpudesk.store.prices.price_overrides(db)`` -> ``{gpu_id: {price_usd, note, updated_at}}``), passed to
   ``plan(req, catalog, price_overrides=...)`` explicitly;
3. ``catalog`` — the bundled catalog's ``price_usd`` with its ``price_date`` and ``price_source``, else the
   catalog ``prices`` table's purchase price for the GPU (a vendor list price first, then a street price, a
   published quote, a dated market report), with its kind, date and source URL.

Cloud rates (``prices`` rows of kind ``cloud-*``, per GPU-hour) price the rent-vs-buy comparison
(:func:`cloud_rate`, gpudesk.planner.tco.rent_vs_buy).

When none of them has a price the GPU's price is *unknown*: gpudesk never invents one. The TCO of such a
candidate is then None, it ranks after priced ones, and the planner tells the user the break-even price at
which it would rank first (see :func:`break_even_price_usd`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpudesk.catalog.prices import table_purchase_price
from gpudesk.catalog.prices import cloud_rate as catalog_cloud_rate
from gpudesk.catalog.records import GPU
from gpudesk.i18n import N_, _
from gpudesk.planner.errors import PlanInputError
from gpudesk.planner.tco import CloudRate

ORIGINS = ("requirement", "user", "catalog")

#: Shown wherever a candidate's GPU price is unknown (CLI, sheets, Plan tab).
PRICE_UNKNOWN_TEXT = N_("price unknown — enter your quote in the Catalog tab")


def price_unknown_text() -> str:
    """:data:`PRICE_UNKNOWN_TEXT` in the current language."""
    return _("price unknown — enter your quote in the Catalog tab")


@dataclass(frozen=True)
class UserPrice:
    """One of the user's own prices (USD per GPU) and when it was entered (ISO 8601 text or None)."""

    price_usd: float
    updated_at: str | None = None
    note: str = ""


@dataclass(frozen=True)
class GpuPrice:
    """The price a plan uses for one GPU.

    Attributes:
        price_usd: US dollars per GPU, None when unknown.
        origin: "requirement", "user", "catalog", or None when unknown.
        date: the catalog's price date, or the date the user entered the price (None when not known).
        source: the catalog's price source text, or the user's note.
    """

    price_usd: float | None
    origin: str | None
    date: str | None = None
    source: str | None = None

    @property
    def known(self) -> bool:
        return self.price_usd is not None

    def describe(self) -> str:
        """One line for the rationale, e.g. ``"$33,600 per GPU: catalog price (2023-05; DGX H100 ...)"``."""
        if self.price_usd is None:
            return _("GPU {price_unknown}").format(price_unknown=price_unknown_text())
        price = self.price_usd
        if self.origin == "user":
            note = f" ({self.source})" if self.source else ""
            if self.date:
                return _("GPU price ${price_usd:,.0f} per GPU: your price, entered {date}{note}").format(
                    price_usd=price, date=self.date[:10], note=note)
            return _("GPU price ${price_usd:,.0f} per GPU: your price{note}").format(price_usd=price, note=note)
        if self.origin == "requirement":
            return _("GPU price ${price_usd:,.0f} per GPU: the profile's tco.gpu_price_overrides_usd").format(price_usd=price)
        detail = "; ".join(p for p in (self.date, self.source) if p)
        if detail:
            return _("GPU price ${price_usd:,.0f} per GPU: catalog price ({detail})").format(price_usd=price, detail=detail)
        return _("GPU price ${price_usd:,.0f} per GPU: catalog price (no date or source in the catalog)").format(price_usd=price)


def normalise_user_prices(overrides: Mapping[str, Any] | None) -> dict[str, UserPrice]:
    """The store's ``{gpu_id: {price_usd, note, updated_at}}`` (or ``{gpu_id: price}``) as UserPrice records.

    Raises:
        PlanInputError: ``field`` ``price_overrides.<gpu_id>`` for a price that is not a finite positive number.
    """
    out: dict[str, UserPrice] = {}
    for gpu_id, entry in (overrides or {}).items():
        if isinstance(entry, Mapping):
            price, updated, note = entry.get("price_usd"), entry.get("updated_at"), entry.get("note") or ""
        else:
            price, updated, note = entry, None, ""
        if isinstance(price, bool) or not isinstance(price, (int, float)) or not math.isfinite(price) or price <= 0:
            raise PlanInputError(f"price_overrides.{gpu_id}",
                                 _("your price must be a positive number of US dollars, got {price!r}; fix it in the "
                                   "Catalog tab.").format(price=price))
        out[str(gpu_id)] = UserPrice(float(price), str(updated) if updated else None, str(note))
    return out


def catalog_purchase_price(gpu_id: str, prices: Sequence[Any]) -> GpuPrice | None:
    """The catalog ``prices`` table's purchase price for ``gpu_id`` (per GPU), by the catalog's one price model
    (:func:`gpudesk.catalog.prices.table_purchase_price`); None when the table has none."""
    listed = table_purchase_price(gpu_id, prices)
    return GpuPrice(listed.price_usd, "catalog", listed.date, listed.source) if listed is not None else None


def cloud_rate(gpu_id: str, prices: Sequence[Any], kind: str = "cloud-on-demand") -> CloudRate | None:
    """The lowest sourced rate of ``kind`` for ``gpu_id`` (USD per GPU-hour), None when the catalog has none
    (:func:`gpudesk.catalog.prices.cloud_rate`, the rate the Catalog tab and ``catalog show`` print)."""
    rate = catalog_cloud_rate(gpu_id, prices, kind)
    if rate is None:
        return None
    return CloudRate(rate.usd_per_gpu_hour, rate.kind, rate.provider, rate.date, rate.source_url)


def resolve_gpu_price(gpu: GPU, requirement_overrides: Mapping[str, float], user: Mapping[str, UserPrice],
                      catalog_prices: Sequence[Any] = ()) -> GpuPrice:
    """The price used for ``gpu`` (a catalog GPU): requirement override, then the user's, then the catalog's
    (the GPU row, else the ``prices`` table)."""
    if gpu.id in requirement_overrides:
        return GpuPrice(float(requirement_overrides[gpu.id]), "requirement")
    if gpu.id in user:
        mine = user[gpu.id]
        return GpuPrice(mine.price_usd, "user", mine.updated_at, mine.note or None)
    if gpu.price_usd is not None:
        return GpuPrice(float(gpu.price_usd), "catalog", getattr(gpu, "price_date", None) or None,
                        getattr(gpu, "price_source", None) or None)
    listed = catalog_purchase_price(gpu.id, catalog_prices)
    return listed if listed is not None else GpuPrice(None, None)


def break_even_price_usd(known_part_usd: float, count: int, dollar_multiplier: float, target_usd: float) -> float | None:
    """Per-GPU price at which a candidate's TCO equals ``target_usd``; None when even a free GPU costs more.

    TCO is linear in the GPU price p: TCO(p) = known_part + p x count x multiplier (multiplier = 1 + network and
    installation + support over the years - residual; see gpudesk.planner.tco.gpu_dollar_multiplier).
    """
    slope = count * dollar_multiplier
    if slope <= 0:
        return None
    price = (target_usd - known_part_usd) / slope
    return price if price > 0 else None
