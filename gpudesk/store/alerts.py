"""History of alerts in the user store (migration set ``gpudesk-alerts``).

One row per alert raised: when (``created_at``, UTC ISO 8601, and ``t`` seconds since the epoch of the sample that
raised it), ``kind`` (job-finished, idle-while-allocated, memory-running-out, throttling, xid, ecc), ``severity``,
``gpu_index`` and ``gpu_uuid`` (None for the machine), ``host``, the ``message`` shown to the user, the evidence as
JSON, and how it was delivered (``delivered``: "desktop", "command", "webhook" joined by commas, with
``delivery_error`` when one failed). Rows are only ever added or deleted on request. Plain data in and out. Qt-free.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any

from gpudesk.store.sqlite_lib import Database, Migrations

from gpudesk.store.errors import converts_sqlite_errors
from gpudesk.store.migrations import register

MAX_TEXT = 2000

migrations = register(Migrations("gpudesk-alerts"))


@migrations()
def m001_alerts(db: Database) -> None:
    """The ``alerts`` table (one row per alert raised)."""
    db.table("alerts").create(
        {"id": int, "created_at": str, "t": float, "kind": str, "severity": str, "gpu_index": int, "gpu_uuid": str,
         "host": str, "message": str, "evidence_json": str, "delivered": str, "delivery_error": str},
        pk="id",
        not_null={"created_at", "t", "kind", "severity", "message"},
        defaults={"host": "", "delivered": "", "delivery_error": "", "evidence_json": "{}"},
    )
    db.table("alerts").create_index(["t"])


@dataclass
class AlertRow:
    id: int
    created_at: str
    t: float
    kind: str
    severity: str
    gpu_index: int | None
    gpu_uuid: str | None
    host: str
    message: str
    evidence: dict[str, Any]
    delivered: str
    delivery_error: str


@converts_sqlite_errors
def save_alert(db: Database, *, t: float, kind: str, severity: str, gpu_index: int | None, gpu_uuid: str | None,
               host: str, message: str, evidence: dict[str, Any], delivered: str = "",
               delivery_error: str = "") -> int:
    """Store one alert; returns its row id."""
    row = {"created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "t": float(t),
           "kind": kind, "severity": severity, "gpu_index": gpu_index, "gpu_uuid": gpu_uuid, "host": host or "",
           "message": message[:MAX_TEXT], "evidence_json": json.dumps(evidence, default=str),
           "delivered": delivered, "delivery_error": delivery_error[:MAX_TEXT]}
    last_pk = db.table("alerts").insert(row).last_pk
    assert last_pk is not None, "sqlite assigns a rowid on every insert"
    return int(last_pk)


@converts_sqlite_errors
def list_alerts(db: Database, limit: int = 200) -> list[AlertRow]:
    """Most recent first."""
    rows = db.query("select * from alerts order by t desc, id desc limit ?", [int(limit)])
    out = []
    for r in rows:
        evidence = json.loads(r.pop("evidence_json") or "{}")
        out.append(AlertRow(evidence=evidence, **r))
    return out
