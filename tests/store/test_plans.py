"""Saved plans: save, reopen, duplicate, edit, delete with undo, and the stored JSON round-trip."""

import json

import pytest

from gpudesk.store import open_store
from gpudesk.store.plans import (
    PlanNotFoundError,
    PlanStoreError,
    delete_plan,
    duplicate_plan,
    get_plan,
    list_plans,
    purge_deleted,
    restore_plan,
    save_plan,
    update_plan,
)

PROFILE = 'name = "13B fine-tune"\n[model]\nparams = 13000000000\n'
PLAN = {
    "workload_kind": "large_training",
    "memory": {"total_bytes": 66571993088, "breakdown_bytes": {"weights": 26000000000}},
    "candidates": [{"gpu_id": "h100-sxm5-80gb", "count": 8, "fits": True, "warnings": ["ünïcode ok"]}],
}


@pytest.fixture
def db(tmp_path):
    return open_store(tmp_path / "s.db")


def test_migration_creates_plans_table(db):
    assert "plans" in db.table_names()
    applied = {(r["migration_set"], r["name"]) for r in db["_sqlite_migrations"].rows}
    assert ("gpudesk-plans", "m001_plans") in applied


def test_save_and_reopen_round_trips(db, tmp_path):
    plan_id = save_plan(db, "  Article case ", PROFILE, PLAN, notes="first try")
    db.close()
    db2 = open_store(tmp_path / "s.db")
    saved = get_plan(db2, plan_id)
    assert saved.name == "Article case"
    assert saved.profile_text == PROFILE
    assert saved.profile_format == "toml"
    assert saved.plan == PLAN
    assert saved.notes == "first try"
    assert saved.created_at == saved.updated_at
    assert saved.deleted_at is None
    assert saved.format_version == 1


def test_duplicate_edit_and_list_order(db):
    first = save_plan(db, "A", PROFILE, PLAN)
    copy = duplicate_plan(db, first)
    assert copy != first
    assert get_plan(db, copy).name == "A (copy)"
    assert get_plan(db, copy).plan == PLAN
    changed = dict(PLAN, workload_kind="inference")
    updated = update_plan(db, first, name="A edited", plan=changed, profile_text='name = "x"\n')
    assert updated.name == "A edited"
    assert updated.plan["workload_kind"] == "inference"
    assert get_plan(db, copy).plan["workload_kind"] == "large_training"
    names = [p.name for p in list_plans(db)]
    assert set(names) == {"A edited", "A (copy)"}
    assert names[0] == "A edited" or get_plan(db, first).updated_at == get_plan(db, copy).updated_at


def test_delete_then_undo_then_purge(db):
    keep = save_plan(db, "keep", PROFILE, PLAN)
    gone = save_plan(db, "gone", PROFILE, PLAN)
    delete_plan(db, gone)
    assert [p.id for p in list_plans(db)] == [keep]
    assert {p.id for p in list_plans(db, include_deleted=True)} == {keep, gone}
    restore_plan(db, gone)
    assert {p.id for p in list_plans(db)} == {keep, gone}
    delete_plan(db, gone)
    assert purge_deleted(db) == 1
    with pytest.raises(PlanNotFoundError, match="No saved plan with id"):
        get_plan(db, gone)
    assert get_plan(db, keep).name == "keep"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "   "}, "name must not be empty"),
        ({"name": "x" * 201}, "keep it under 200"),
        ({"profile_format": "yaml"}, "Profile format must be one of toml, json"),
        ({"plan": ["not", "a", "dict"]}, "must be a dictionary"),
        ({"plan": {"bad": float("nan")}}, "cannot be saved as JSON"),
    ],
)
def test_bad_input_is_refused_with_named_field(db, kwargs, message):
    args = {"name": "ok", "profile_text": PROFILE, "plan": PLAN} | kwargs
    with pytest.raises(PlanStoreError, match=message):
        save_plan(db, args.pop("name"), args.pop("profile_text"), args.pop("plan"), **args)
    assert list_plans(db, include_deleted=True) == []


def test_corrupt_plan_json_is_reported_with_the_plan_name(db):
    good = save_plan(db, "good", PROFILE, PLAN)
    plan_id = save_plan(db, "broken", PROFILE, PLAN)
    db["plans"].update(plan_id, {"plan_json": "{not json"})
    with pytest.raises(PlanStoreError, match="“broken”.*unreadable plan JSON"):
        get_plan(db, plan_id)
    listed = {p.id: p for p in list_plans(db)}
    assert listed[good].problem is None and listed[good].plan == PLAN
    assert listed[plan_id].plan == {} and "unreadable plan JSON" in listed[plan_id].problem
    assert listed[plan_id].profile_text == PROFILE  # the answers survive


def test_unknown_id(db):
    with pytest.raises(PlanNotFoundError):
        update_plan(db, 999, name="x")
    with pytest.raises(PlanNotFoundError):
        delete_plan(db, 999)


def test_stored_json_is_plain_json_text(db):
    plan_id = save_plan(db, "p", PROFILE, PLAN, profile_format="json")
    raw = db.execute("select plan_json from plans where id = ?", [plan_id]).fetchone()[0]
    assert json.loads(raw) == PLAN
