"""Saved diagnoses as OOM types: the bridge between :class:`Diagnosis` and the store's plain rows.

The store (``gpudesk.store.diagnoses``) keeps plain dicts; this module turns a :class:`Diagnosis` into a
:class:`DiagnosisEntry` and reads one back, so the store never imports the OOM doctor.
"""

from __future__ import annotations

from gpudesk.store.sqlite_lib import Database

from gpudesk.oom.cause import Diagnosis
from gpudesk.store.diagnoses import DiagnosisEntry, load_diagnosis_dict
from gpudesk.store.diagnoses import save_diagnosis as _save_entry
from gpudesk.store.errors import DiagnosisStoreError
from gpudesk.i18n import _


def save_diagnosis(db: Database, diagnosis: Diagnosis, *, target: str = "") -> int:
    """Store ``diagnosis``; returns its row id. ``target`` is shortened to 500 characters by the store."""
    top = diagnosis.top
    entry = DiagnosisEntry(
        source=diagnosis.report.source,
        target=target,
        framework=diagnosis.report.framework,
        kind=diagnosis.report.kind,
        top_cause_id=top.id if top else None,
        top_confidence=top.confidence if top else None,
        diagnosis=diagnosis.to_dict(),
    )
    return _save_entry(db, entry)


def load_diagnosis(db: Database, diagnosis_id: int) -> Diagnosis:
    """The saved :class:`Diagnosis`.

    Raises:
        DiagnosisStoreError: no such row, a newer row format, or JSON that does not read back as a diagnosis.
    """
    body = load_diagnosis_dict(db, diagnosis_id)
    try:
        return Diagnosis.from_dict(body)
    except (ValueError, TypeError, KeyError) as exc:
        raise DiagnosisStoreError(_('Diagnosis {diagnosis_id} cannot be read back: {exc}').format(diagnosis_id=diagnosis_id, exc=exc)) from exc
