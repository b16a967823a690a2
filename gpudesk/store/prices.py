"""User price overrides for catalog GPUs (USD), kept in the user store."""

from __future__ import annotations

import datetime as _dt
import math
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpudesk import paths
from gpudesk.i18n import _
from gpudesk.store.errors import (
    StoreError,
    StoreUnwritableError,
    converts_sqlite_errors,
    translate_sqlite_error,
)

if TYPE_CHECKING:  # `gpudesk plan` reads prices without importing sqlite-utils (start-up time)
    from gpudesk.store.sqlite_lib import Database


@converts_sqlite_errors
def set_price(db: Database, gpu_id: str, price_usd: float, note: str = "") -> None:
    """Record the user's own price for ``gpu_id`` in US dollars.

    Raises:
        StoreError: the price is not a finite positive number.
    """
    if not isinstance(price_usd, (int, float)) or not math.isfinite(price_usd) or price_usd <= 0:
        raise StoreError(_("Price for {gpu_id} must be a positive number of US dollars, got {price_usd!r}.").format(
            gpu_id=gpu_id, price_usd=price_usd))
    db.table("price_overrides").upsert(
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
def price_overrides(db: Database) -> dict[str, dict[str, Any]]:
    """All overrides: gpu_id -> {price_usd, note, updated_at}."""
    return {row["gpu_id"]: row for row in db["price_overrides"].rows}


def read_price_overrides(path: Path | str | None = None) -> dict[str, dict[str, Any]]:
    """The overrides read straight from the database file, read-only, without opening the store (no migrations,
    no sqlite-utils): ``{}`` when there is no database or no override yet. For start-up-sensitive readers such as
    ``gpudesk plan``.

    Raises:
        StoreError: the file exists but cannot be read.
    """
    target = Path(path) if path is not None else paths.data_dir(create=False) / "gpudesk.db"
    if not target.exists():
        folder = next((p for p in target.parents if p.exists()), None)
        if folder is not None and not folder.is_dir():
            raise StoreUnwritableError(
                _("The data folder {folder} cannot exist: {file} is a file.").format(folder=target.parent, file=folder),
                field=str(target.parent), remedy=_("Set GPUDESK_DATA_DIR to a writable folder."))
        return {}
    try:
        conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
        try:
            conn.row_factory = sqlite3.Row
            known = conn.execute("select 1 from sqlite_master where type = 'table' and name = 'price_overrides'")
            if known.fetchone() is None:
                return {}
            rows = conn.execute("select gpu_id, price_usd, note, updated_at from price_overrides").fetchall()
            return {row["gpu_id"]: dict(row) for row in rows}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise translate_sqlite_error(exc, target) from exc
