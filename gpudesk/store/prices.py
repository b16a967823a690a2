"""User price overrides for catalog GPUs (USD), kept in the user store."""

from __future__ import annotations

import datetime as _dt
import math

from sqlite_utils import Database

from gpudesk.i18n import _
from gpudesk.store.errors import StoreError, converts_sqlite_errors


@converts_sqlite_errors
def set_price(db: Database, gpu_id: str, price_usd: float, note: str = "") -> None:
    """Record the user's own price for ``gpu_id`` in US dollars.

    Raises:
        StoreError: the price is not a finite positive number.
    """
    if not isinstance(price_usd, (int, float)) or not math.isfinite(price_usd) or price_usd <= 0:
        raise StoreError(_("Price for {gpu_id} must be a positive number of US dollars, got {price_usd!r}.").format(
            gpu_id=gpu_id, price_usd=price_usd))
    db["price_overrides"].upsert(
        {
            "gpu_id": gpu_id,
            "price_usd": float(price_usd),
            "note": note,
            "updated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        },
        pk="gpu_id",
    )


@converts_sqlite_errors
def clear_price(db: Database, gpu_id: str) -> None:
    """Remove the user's override, going back to the catalog price."""
    db.execute("delete from price_overrides where gpu_id = ?", [gpu_id])
    db.conn.commit()


@converts_sqlite_errors
def price_overrides(db: Database) -> dict[str, dict]:
    """All overrides: gpu_id -> {price_usd, note, updated_at}."""
    return {row["gpu_id"]: row for row in db["price_overrides"].rows}
