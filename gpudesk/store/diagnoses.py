"""History of OOM diagnoses in the user store (migration set ``gpudesk-diagnoses``).

One row per diagnosis: when (``created_at``, UTC ISO 8601), what was diagnosed (``source``: text / probe /
launch / agent / evidence, ``target``: a file name, "PID 1234 (python)", or the command line), the result
(``framework``, ``kind``, ``top_cause_id``, ``top_confidence``), the whole diagnosis as JSON
(``diagnosis_json``: the plain dict the OOM doctor gives, which keeps the input text), and
``format_version`` of that JSON. Rows are only ever added or deleted on request; nothing is dropped by a
migration. Plain data in and out: :mod:`gpudesk.oom.history` converts to and from OOM types. Qt-free.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any

from gpudesk.store.sqlite_lib import Database, Migrations

from gpudesk.i18n import _
from gpudesk.store.errors import DiagnosisStoreError, converts_sqlite_errors
from gpudesk.store.migrations import register

DIAGNOSIS_ROW_VERSION = 1
MAX_TARGET_LENGTH = 500

migrations = register(Migrations("gpudesk-diagnoses"))


@migrations()
def m001_diagnoses(db: Database) -> None:
    """The ``diagnoses`` table (one row per diagnosis)."""
    db.table("diagnoses").create(
        {
            "id": int,
            "created_at": str,
            "source": str,
            "target": str,
            "framework": str,
            "kind": str,
            "top_cause_id": str,
            "top_confidence": float,
            "diagnosis_json": str,
            "format_version": int,
        },
        pk="id",
        not_null={"created_at", "source", "diagnosis_json"},
        defaults={"format_version": DIAGNOSIS_ROW_VERSION, "target": ""},
    )
    db.table("diagnoses").create_index(["created_at"])


@dataclass
class DiagnosisRow:
    """A saved diagnosis without its JSON body (for history lists)."""

    id: int
    created_at: str
    source: str
    target: str
    framework: str | None
    kind: str | None
    top_cause_id: str | None
    top_confidence: float | None


@dataclass
class DiagnosisEntry:
    """A diagnosis to save: its summary columns and the whole diagnosis as a JSON-ready dict."""

    source: str
    target: str
    framework: str | None
    kind: str | None
    top_cause_id: str | None
    top_confidence: float | None
    diagnosis: dict[str, Any]


@converts_sqlite_errors
def save_diagnosis(db: Database, entry: DiagnosisEntry) -> int:
    """Store ``entry``; returns its row id. ``target`` is shortened to 500 characters."""
    row = {
        "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "source": entry.source,
        "target": (entry.target or "")[:MAX_TARGET_LENGTH],
        "framework": entry.framework,
        "kind": entry.kind,
        "top_cause_id": entry.top_cause_id,
        "top_confidence": entry.top_confidence,
        "diagnosis_json": json.dumps(entry.diagnosis),
        "format_version": DIAGNOSIS_ROW_VERSION,
    }
    last_pk = db.table("diagnoses").insert(row).last_pk
    assert last_pk is not None, "sqlite assigns a rowid on every insert"
    return int(last_pk)


@converts_sqlite_errors
def list_diagnoses(db: Database, limit: int = 200) -> list[DiagnosisRow]:
    """Most recent first."""
    rows = db.query(
        "select id, created_at, source, target, framework, kind, top_cause_id, top_confidence from diagnoses "
        "order by created_at desc, id desc limit ?",
        [int(limit)],
    )
    return [DiagnosisRow(**r) for r in rows]


@converts_sqlite_errors
def load_diagnosis_dict(db: Database, diagnosis_id: int) -> dict[str, Any]:
    """The saved diagnosis as the dict it was saved from.

    Raises:
        DiagnosisStoreError: no such row, a newer row format, or JSON that does not read back.
    """
    rows = list(db.query("select diagnosis_json, format_version from diagnoses where id = ?", [int(diagnosis_id)]))
    if not rows:
        raise DiagnosisStoreError(_("No saved diagnosis with id {diagnosis_id}.").format(diagnosis_id=diagnosis_id))
    version = rows[0]["format_version"] or 1
    if version > DIAGNOSIS_ROW_VERSION:
        raise DiagnosisStoreError(
            _("Diagnosis {diagnosis_id} was saved by a newer gpudesk (format {version}); update gpudesk to open "
              "it.").format(diagnosis_id=diagnosis_id, version=version)
        )
    try:
        body = json.loads(rows[0]["diagnosis_json"])
    except (ValueError, TypeError) as exc:
        raise DiagnosisStoreError(_("Diagnosis {diagnosis_id} cannot be read back: {reason}").format(
            diagnosis_id=diagnosis_id, reason=exc)) from exc
    if not isinstance(body, dict):
        raise DiagnosisStoreError(_("Diagnosis {diagnosis_id} cannot be read back: it is not a JSON object.").format(
            diagnosis_id=diagnosis_id))
    return body


@converts_sqlite_errors
def delete_diagnosis(db: Database, diagnosis_id: int) -> None:
    """Remove one saved diagnosis (on the user's request)."""
    db.execute("delete from diagnoses where id = ?", [int(diagnosis_id)])
    db.conn.commit()
