"""Saved plans in the user store: save, reopen, duplicate, edit, compare, delete with undo.

Each row keeps what is needed to reproduce and to show a plan without re-running it:

- ``profile_text`` and ``profile_format`` ("toml" or "json"): the requirement as the user entered it, in the
  same text format as the example profiles in ``resources/examples/``;
- ``plan_json``: the plan document (``gpudesk.planner.document``, docs/plan-document.md) as JSON text; a plan saved
  in an older version is migrated when it is read (``PlanDocument.from_dict``), the row keeps what was written;
- ``name``, ``notes``, ``created_at`` / ``updated_at`` (UTC ISO 8601), ``format_version`` (of the row layout).

Deleting only marks a row (``deleted_at``) so that it can be restored; :func:`purge_deleted` removes marked
rows for good when the user confirms. Migration set: ``gpudesk-plans``. Qt-free.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any

from gpudesk.store.sqlite_lib import Database, Migrations

from gpudesk.i18n import _
from gpudesk.json_limits import json_error_reason
from gpudesk.store.errors import StoreError, converts_sqlite_errors
from gpudesk.store.migrations import register

#: Version of the row layout written by this module (stored per row).
PLAN_ROW_VERSION = 1
PROFILE_FORMATS = ("toml", "json")
MAX_NAME_LENGTH = 200

migrations = register(Migrations("gpudesk-plans"))


@migrations()
def m001_plans(db: Database) -> None:
    """The ``plans`` table (one row per saved plan)."""
    db.table("plans").create(
        {
            "id": int,
            "name": str,
            "notes": str,
            "profile_text": str,
            "profile_format": str,
            "plan_json": str,
            "format_version": int,
            "created_at": str,
            "updated_at": str,
            "deleted_at": str,
        },
        pk="id",
        not_null={"name", "profile_text", "profile_format", "plan_json", "created_at", "updated_at"},
        defaults={"notes": "", "format_version": PLAN_ROW_VERSION},
    )
    db.table("plans").create_index(["updated_at"])


class PlanStoreError(StoreError):
    """A saved plan cannot be written or read as asked (bad name, bad JSON, unknown format)."""


class PlanNotFoundError(PlanStoreError):
    """No saved plan has the given id (it was purged, or never existed)."""


@dataclass(frozen=True)
class SavedPlan:
    """One saved plan.

    Attributes:
        id: row id.
        name: the user's name for it.
        notes: free text.
        profile_text: the requirement profile, TOML or JSON text.
        profile_format: "toml" or "json".
        plan: the plan dictionary (``plan_to_dict`` output), decoded from JSON.
        created_at, updated_at: UTC ISO 8601 timestamps.
        deleted_at: when it was marked deleted, or None.
        format_version: row layout version.
        problem: why the stored plan JSON could not be read (the plan is then ``{}``; the profile is intact
            and can be re-planned), or None.
    """

    id: int
    name: str
    notes: str
    profile_text: str
    profile_format: str
    plan: dict[str, Any]
    created_at: str
    updated_at: str
    deleted_at: str | None
    format_version: int
    problem: str | None = None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _clean_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise PlanStoreError(_("Plan name must not be empty; type a name for the plan."))
    stripped = name.strip()
    if len(stripped) > MAX_NAME_LENGTH:
        raise PlanStoreError(_("Plan name is {length} characters long; keep it under {limit}.").format(
            length=len(stripped), limit=MAX_NAME_LENGTH))
    return stripped


def _check_format(profile_format: str) -> str:
    if profile_format not in PROFILE_FORMATS:
        raise PlanStoreError(_("Profile format must be one of {formats}, got {format!r}.").format(
            formats=", ".join(PROFILE_FORMATS), format=profile_format))
    return profile_format


def _encode_plan(plan: dict[str, Any]) -> str:
    if not isinstance(plan, dict):
        raise PlanStoreError(_("The plan to save must be a dictionary (plan_to_dict output), got {type}.").format(
            type=type(plan).__name__))
    try:
        return json.dumps(plan, ensure_ascii=False, allow_nan=False)  # key order kept (breakdowns are ordered)
    except (TypeError, ValueError) as exc:
        raise PlanStoreError(_("The plan cannot be saved as JSON: {reason}.").format(reason=exc)) from exc


def _row_to_plan(row: dict[str, Any], *, tolerant: bool = False) -> SavedPlan:
    problem = None
    try:
        plan = json.loads(row["plan_json"])
        if not isinstance(plan, dict):
            # Translators: shown as the {reason} of "Saved plan ... holds unreadable plan JSON ({reason})".
            raise json.JSONDecodeError(_("not a JSON object"), row["plan_json"], 0)
    except json.JSONDecodeError as exc:
        # The parser's own words are English: json_error_reason words them in the user's language.
        reason = exc.msg if exc.msg == _("not a JSON object") else json_error_reason(exc)
        problem = _("Saved plan {plan_id} “{name}” holds unreadable plan JSON ({reason}); its profile is intact: edit "
                    "it and plan again.").format(plan_id=row["id"], name=row["name"], reason=reason)
        if not tolerant:
            raise PlanStoreError(problem) from exc
        plan = {}
    return SavedPlan(
        id=int(row["id"]),
        name=row["name"],
        notes=row.get("notes") or "",
        profile_text=row["profile_text"],
        profile_format=row["profile_format"],
        plan=plan,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        deleted_at=row.get("deleted_at"),
        format_version=int(row.get("format_version") or PLAN_ROW_VERSION),
        problem=problem,
    )


@converts_sqlite_errors
def save_plan(
    db: Database,
    name: str,
    profile_text: str,
    plan: dict[str, Any],
    *,
    profile_format: str = "toml",
    notes: str = "",
) -> int:
    """Save a new plan and return its id.

    Raises:
        PlanStoreError: empty or too long name, unknown profile format, plan not JSON-serialisable.
    """
    now = _now()
    row = {
        "name": _clean_name(name),
        "notes": notes or "",
        "profile_text": str(profile_text),
        "profile_format": _check_format(profile_format),
        "plan_json": _encode_plan(plan),
        "format_version": PLAN_ROW_VERSION,
        "created_at": now,
        "updated_at": now,
        "deleted_at": None,
    }
    last_pk = db.table("plans").insert(row).last_pk
    assert last_pk is not None, "sqlite assigns a rowid on every insert"
    return int(last_pk)


def _row(db: Database, plan_id: int) -> dict[str, Any]:
    rows = list(db.query("select * from plans where id = ?", [int(plan_id)]))
    if not rows:
        raise PlanNotFoundError(_("No saved plan with id {plan_id}; it may have been deleted for good.").format(
            plan_id=plan_id))
    return rows[0]


@converts_sqlite_errors
def get_plan(db: Database, plan_id: int) -> SavedPlan:
    """Reopen a saved plan (also one marked deleted, so that undo can show it).

    Raises:
        PlanNotFoundError: no such id.
        PlanStoreError: the stored plan JSON cannot be decoded.
    """
    return _row_to_plan(_row(db, plan_id))


@converts_sqlite_errors
def list_plans(db: Database, *, include_deleted: bool = False) -> list[SavedPlan]:
    """Saved plans, most recently updated first. A row whose plan JSON cannot be read is still listed, with
    ``plan == {}`` and ``problem`` saying why, so one damaged row never hides the others."""
    where = "" if include_deleted else "where deleted_at is null"
    rows = db.query(f"select * from plans {where} order by updated_at desc, id desc")
    return [_row_to_plan(r, tolerant=True) for r in rows]


@converts_sqlite_errors
def update_plan(
    db: Database,
    plan_id: int,
    *,
    name: str | None = None,
    profile_text: str | None = None,
    plan: dict[str, Any] | None = None,
    profile_format: str | None = None,
    notes: str | None = None,
) -> SavedPlan:
    """Change the given fields of a saved plan; ``updated_at`` moves to now. Returns the updated plan.

    Raises:
        PlanNotFoundError, PlanStoreError: as for :func:`save_plan`.
    """
    _row(db, plan_id)
    changes: dict[str, Any] = {"updated_at": _now()}
    if name is not None:
        changes["name"] = _clean_name(name)
    if profile_text is not None:
        changes["profile_text"] = str(profile_text)
    if profile_format is not None:
        changes["profile_format"] = _check_format(profile_format)
    if plan is not None:
        changes["plan_json"] = _encode_plan(plan)
    if notes is not None:
        changes["notes"] = notes
    db.table("plans").update(int(plan_id), changes)
    return get_plan(db, plan_id)


@converts_sqlite_errors
def duplicate_plan(db: Database, plan_id: int, name: str | None = None) -> int:
    """Copy a saved plan under a new name (default: "<name> (copy)") and return the new id."""
    source = get_plan(db, plan_id)
    new_name = name if name is not None else _copy_name(source.name)
    return save_plan(
        db,
        new_name,
        source.profile_text,
        source.plan,
        profile_format=source.profile_format,
        notes=source.notes,
    )


def _copy_name(name: str) -> str:
    suffix = " (copy)"
    return (name[: MAX_NAME_LENGTH - len(suffix)] + suffix).strip()


@converts_sqlite_errors
def delete_plan(db: Database, plan_id: int) -> SavedPlan:
    """Mark a plan deleted (hidden from :func:`list_plans`); :func:`restore_plan` undoes it."""
    _row(db, plan_id)
    db.table("plans").update(int(plan_id), {"deleted_at": _now()})
    return get_plan(db, plan_id)


@converts_sqlite_errors
def restore_plan(db: Database, plan_id: int) -> SavedPlan:
    """Undo :func:`delete_plan`."""
    _row(db, plan_id)
    db.table("plans").update(int(plan_id), {"deleted_at": None})
    return get_plan(db, plan_id)


@converts_sqlite_errors
def purge_deleted(db: Database) -> int:
    """Remove the plans marked deleted for good; returns how many rows went."""
    count = db.execute("select count(*) from plans where deleted_at is not null").fetchone()[0]
    db.execute("delete from plans where deleted_at is not null")
    db.conn.commit()
    return int(count)
