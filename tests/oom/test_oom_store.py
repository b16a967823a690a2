"""Diagnosis history in the user store."""

from __future__ import annotations

import json

import pytest
from oom_support import load_cases

from gpudesk.oom import DiagnosisStoreError, diagnose_text
from gpudesk.store import open_store
from gpudesk.oom.history import load_diagnosis, save_diagnosis
from gpudesk.store.diagnoses import delete_diagnosis, list_diagnoses

CASES = load_cases()


def test_save_list_load_delete():
    db = open_store()
    first = diagnose_text(CASES[0]["message"])
    second = diagnose_text(CASES[25]["message"])
    a = save_diagnosis(db, first, target="summary.txt")
    b = save_diagnosis(db, second, target="x" * 900)
    rows = list_diagnoses(db)
    assert [r.id for r in rows] == [b, a]
    assert rows[0].top_cause_id == "kv_cache_budget" and len(rows[0].target) == 500
    back = load_diagnosis(db, a)
    assert back.report.text == first.report.text  # the input text is kept
    assert [c.to_dict() for c in back.causes] == [c.to_dict() for c in first.causes]
    assert back.report.to_dict() == first.report.to_dict()
    delete_diagnosis(db, a)
    assert [r.id for r in list_diagnoses(db)] == [b]
    with pytest.raises(DiagnosisStoreError, match="No saved diagnosis"):
        load_diagnosis(db, a)


def test_newer_or_damaged_rows():
    db = open_store()
    i = save_diagnosis(db, diagnose_text(CASES[1]["message"]))
    db["diagnoses"].update(i, {"format_version": 99})
    with pytest.raises(DiagnosisStoreError, match="newer gpudesk"):
        load_diagnosis(db, i)
    db["diagnoses"].update(i, {"format_version": 1, "diagnosis_json": "{broken"})
    with pytest.raises(DiagnosisStoreError, match="cannot be read back"):
        load_diagnosis(db, i)
    db["diagnoses"].update(i, {"diagnosis_json": json.dumps({"report": {"devices": "nope"}})})
    with pytest.raises(DiagnosisStoreError):
        load_diagnosis(db, i)
