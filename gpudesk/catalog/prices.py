"""The catalog's one price of each GPU: the purchase price and the cloud rate every screen shows and the
planner uses (issue 29: the Catalog tab, ``gpudesk catalog list/show`` and the Plan tab agree).

Purchase price: the GPU row's own ``price_usd`` (``db/gpus.csv``, with its date and source), else the ``prices``
table's purchase rows for the GPU, preferring a vendor list price, then a street price, a published quote, a
dated market report, the most recent of a kind. Cloud rate: the lowest sourced ``cloud-on-demand`` rate per
GPU-hour (what anyone can rent today without a commitment or the risk of eviction). Each carries its kind,
date and source; a GPU with neither stays unpriced (None), never a guess. The user's own prices override the
purchase price in the planner and the Catalog tab (``gpudesk.planner.prices``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpudesk.catalog.records import Price

#: Purchase-price kinds in the order preferred when the GPU row has no price.
PURCHASE_PREFERENCE = ("list", "street", "quote", "market-report")

#: ``price_kind`` of a price taken from the GPU row itself (``db/gpus.csv`` price_usd / price_date / price_source).
ROW_KIND = "catalog"


@dataclass(frozen=True)
class PurchasePrice:
    """A GPU's catalog purchase price per GPU: US dollars, kind (``catalog`` for the GPU row, else a ``prices``
    kind), date and source text (kind, range, provider and URL for a ``prices`` row)."""

    price_usd: float
    kind: str
    date: str | None
    source: str | None


@dataclass(frozen=True)
class CloudRate:
    """One sourced cloud rate: US dollars per GPU-hour, its kind, provider, date and source URL."""

    usd_per_gpu_hour: float
    kind: str
    provider: str | None
    date: str
    source_url: str


def sort_key_recent_first(date: str) -> tuple[int, ...]:
    """Sort key for "most recent first" on ISO-like dates ("2026-04", "2026"); undated text sorts last."""
    digits = [int(part) for part in date.replace("/", "-").split("-") if part.isdigit()]
    return tuple(-d for d in digits) if digits else (1,)


def table_purchase_price(gpu_id: str, prices: Sequence[Price]) -> PurchasePrice | None:
    """The ``prices`` table's purchase price for ``gpu_id`` (per GPU), None when the table has none."""
    rows = [p for p in prices if p.item_kind == "gpu" and p.item_id == gpu_id and p.unit == "per-gpu"
            and p.kind in PURCHASE_PREFERENCE]
    if not rows:
        return None
    best = min(rows, key=lambda p: (PURCHASE_PREFERENCE.index(p.kind), sort_key_recent_first(p.price_date)))
    span = (f", range ${best.price_low_usd:,.0f}-${best.price_high_usd:,.0f}"
            if best.price_low_usd and best.price_high_usd else "")
    who = f"{best.provider}; " if best.provider else ""
    return PurchasePrice(float(best.price_usd), best.kind, best.price_date, f"{best.kind}{span}: {who}{best.source_url}")


def purchase_price(gpu_id: str, row_price_usd: float | None, row_date: str | None, row_source: str | None,
                   prices: Sequence[Price]) -> PurchasePrice | None:
    """The catalog purchase price of one GPU: its row's price, else the ``prices`` table's; None when neither."""
    if row_price_usd is not None:
        return PurchasePrice(float(row_price_usd), ROW_KIND, row_date or None, row_source or None)
    return table_purchase_price(gpu_id, prices)


def cloud_rate(gpu_id: str, prices: Sequence[Price], kind: str = "cloud-on-demand") -> CloudRate | None:
    """The lowest sourced rate of ``kind`` for ``gpu_id`` (USD per GPU-hour), None when the catalog has none."""
    rows = [p for p in prices if p.item_kind == "gpu" and p.item_id == gpu_id and p.kind == kind]
    if not rows:
        return None
    best = min(rows, key=lambda p: (p.price_usd, sort_key_recent_first(p.price_date)))
    return CloudRate(float(best.price_usd), best.kind, best.provider, best.price_date, best.source_url)
