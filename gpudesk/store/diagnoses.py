"""History of OOM diagnoses in the user store (migration set ``gpudesk-diagnoses``).

One row per diagnosis: when (``created_at``, UTC ISO 8601), what was diagnosed (``source``: text / probe /
launch / agent / evidence, ``target``: a file name, "PID 1234 (python)", or the command line), the result
(``framework``, ``kind``, ``top_cause_id``, ``top_confidence``), the whole diagnosis as JSON
(``diagnosis_json``: :meth:`gpudesk.oom.Diagnosis.to_dict`, which keeps the input text), and
``format_version`` of that JSON. Rows are only ever added or deleted on request; nothing is dropped by a
migration. Qt-free.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass

from sqlite_utils import Database, Migrations

from gpudesk.oom.cause import Diagnosis
from gpudesk.oom.errors import DiagnosisStoreError
from gpudesk.store.migrations import register

DIAGNOSIS_ROW_VERSION = 1
MAX_TARGET_LENGTH = 500

migrations = register(Migrations("gpudesk-diagnoses"))


@migrations()
def m001_diagnoses(db: Database) -> None:
    """The ``diagnoses`` table (one row per diagnosis)."""
    db["diagnoses"].create(
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
    db["diagnoses"].create_index(["created_at"])


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


def save_diagnosis(db: Database, diagnosis: Diagnosis, *, target: str = "") -> int:
    """Store ``diagnosis``; returns its row id. ``target`` is shortened to 500 characters."""
    top = diagnosis.top
    row = {
        "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "source": diagnosis.report.source,
        "target": (target or "")[:MAX_TARGET_LENGTH],
        "framework": diagnosis.report.framework,
        "kind": diagnosis.report.kind,
        "top_cause_id": top.id if top else None,
        "top_confidence": top.confidence if top else None,
        "diagnosis_json": json.dumps(diagnosis.to_dict()),
        "format_version": DIAGNOSIS_ROW_VERSION,
    }
    return int(db["diagnoses"].insert(row).last_pk)


def list_diagnoses(db: Database, limit: int = 200) -> list[DiagnosisRow]:
    """Most recent first."""
    rows = db.query(
        "select id, created_at, source, target, framework, kind, top_cause_id, top_confidence from diagnoses "
        "order by created_at desc, id desc limit ?",
        [int(limit)],
    )
    return [DiagnosisRow(**r) for r in rows]


def load_diagnosis(db: Database, diagnosis_id: int) -> Diagnosis:
    """The saved :class:`Diagnosis`.

    Raises:
        DiagnosisStoreError: no such row, a newer row format, or JSON that does not read back.
    """
    rows = list(db.query("select diagnosis_json, format_version from diagnoses where id = ?", [int(diagnosis_id)]))
    if not rows:
        raise DiagnosisStoreError(f"No saved diagnosis with id {diagnosis_id}.")
    version = rows[0]["format_version"] or 1
    if version > DIAGNOSIS_ROW_VERSION:
        raise DiagnosisStoreError(
            f"Diagnosis {diagnosis_id} was saved by a newer gpudesk (format {version}); update gpudesk to open it."
        )
    try:
        return Diagnosis.from_dict(json.loads(rows[0]["diagnosis_json"]))
    except (ValueError, TypeError, KeyError) as exc:
        raise DiagnosisStoreError(f"Diagnosis {diagnosis_id} cannot be read back: {exc}") from exc


def delete_diagnosis(db: Database, diagnosis_id: int) -> None:
    """Remove one saved diagnosis (on the user's request)."""
    db.execute("delete from diagnoses where id = ?", [int(diagnosis_id)])
    db.conn.commit()
