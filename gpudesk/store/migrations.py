"""Schema of the user database as sqlite-utils migration sets.

Each part of the app owns one ``sqlite_utils.Migrations`` set (``gpudesk-core`` here; plans, recordings and
diagnoses register their own sets in their modules and list them in :data:`MIGRATION_SETS` through
:func:`register`). Applied migrations are recorded in ``_sqlite_migrations``. Rules: never edit or remove an
applied migration, never drop user data; add a new migration instead.
"""

from __future__ import annotations

from gpudesk.store.sqlite_lib import Database, Migrations

core = Migrations("gpudesk-core")


@core()
def m001_price_overrides(db: Database) -> None:
    """User price overrides for catalog GPUs (USD, with the date the user entered it)."""
    db.table("price_overrides").create(
        {"gpu_id": str, "price_usd": float, "note": str, "updated_at": str},
        pk="gpu_id",
        not_null={"price_usd", "updated_at"},
    )


@core()
def m002_settings(db: Database) -> None:
    """Small key/value store for preferences that belong with user data (not window geometry)."""
    db.table("settings").create({"key": str, "value": str}, pk="key")


MIGRATION_SETS: list[Migrations] = [core]


def register(migrations: Migrations) -> Migrations:
    """Add a feature's migration set to those applied when the store opens (idempotent)."""
    if all(m.name != migrations.name for m in MIGRATION_SETS):
        MIGRATION_SETS.append(migrations)
    return migrations


def known_migrations() -> set[tuple[str, str]]:
    """(set name, migration name) pairs this version of gpudesk knows how to apply."""
    return {(s.name, m.name) for s in MIGRATION_SETS for m in s._migrations}  # noqa: SLF001
