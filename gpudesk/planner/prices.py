"""Which GPU price a plan uses, and where it comes from. Qt-free.

Three origins, highest priority first:

1. ``requirement`` — ``[tco] gpu_price_overrides_usd`` in the profile (part of the plan's own answers);
2. ``user`` — the user's own prices entered in the Catalog tab and kept in the user store
   (``gpudesk.store.prices.price_overrides(db)`` -> ``{gpu_id: {price_usd, note, updated_at}}``), passed to
   ``plan(req, catalog, price_overrides=...)`` explicitly;
3. ``catalog`` — the bundled catalog's ``price_usd`` with its ``price_date`` and ``price_source``.

When none of them has a price the GPU's price is *unknown*: gpudesk never invents one. The TCO of such a
candidate is then None, it ranks after priced ones, and the planner tells the user the break-even price at
which it would rank first (see :func:`break_even_price_usd`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

from gpudesk.planner.errors import PlanInputError

ORIGINS = ("requirement", "user", "catalog")

#: Shown wherever a candidate's GPU price is unknown (CLI, sheets, Plan tab).
PRICE_UNKNOWN_TEXT = "price unknown — enter your quote in the Catalog tab"


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
            return f"GPU {PRICE_UNKNOWN_TEXT}"
        amount = f"${self.price_usd:,.0f} per GPU"
        if self.origin == "user":
            entered = f", entered {self.date[:10]}" if self.date else ""
            note = f" ({self.source})" if self.source else ""
            return f"GPU price {amount}: your price{entered}{note}"
        if self.origin == "requirement":
            return f"GPU price {amount}: the profile's tco.gpu_price_overrides_usd"
        detail = "; ".join(p for p in (self.date, self.source) if p)
        return f"GPU price {amount}: catalog price" + (f" ({detail})" if detail else " (no date or source in the catalog)")


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
                                 f"your price must be a positive number of US dollars, got {price!r}; fix it in the Catalog tab.")
        out[str(gpu_id)] = UserPrice(float(price), str(updated) if updated else None, str(note))
    return out


def resolve_gpu_price(gpu, requirement_overrides: Mapping[str, float], user: Mapping[str, UserPrice]) -> GpuPrice:
    """The price used for ``gpu`` (a catalog GPU): requirement override, then the user's, then the catalog's."""
    if gpu.id in requirement_overrides:
        return GpuPrice(float(requirement_overrides[gpu.id]), "requirement")
    if gpu.id in user:
        mine = user[gpu.id]
        return GpuPrice(mine.price_usd, "user", mine.updated_at, mine.note or None)
    if gpu.price_usd is not None:
        return GpuPrice(float(gpu.price_usd), "catalog", getattr(gpu, "price_date", None) or None,
                        getattr(gpu, "price_source", None) or None)
    return GpuPrice(None, None)


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
