"""Recheck a saved plan against this gpudesk (gpudesk.planner.recheck): a real saved plan of the article case,
its document altered in one figure at a time, against the plan this gpudesk makes from the same saved profile."""

from __future__ import annotations

import copy

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.planner import dumps_profile, load_profile
from gpudesk.planner.mixed import plan_document
from gpudesk.planner.recheck import RecheckError, recheck_saved_plan
from gpudesk.store import open_store
from gpudesk.store.plans import get_plan, save_plan

GIB = 1024**3


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


@pytest.fixture(scope="module")
def article(catalog):
    req = load_profile(paths.examples_dir() / "article-13b-finetune.toml", catalog)
    return dumps_profile(req), plan_document(req, catalog).to_dict()


def _saved(article, alter=None):
    """A plan saved in the user store (the row the Plan tab writes), its document altered by ``alter``."""
    text, document = article
    data = copy.deepcopy(document)
    if alter is not None:
        alter(data)
    db = open_store()
    plan_id = save_plan(db, "Article case", text, data, profile_format="toml")
    return get_plan(db, plan_id)


def _recheck(saved, catalog):
    return recheck_saved_plan(saved.profile_text, saved.profile_format, saved.plan, catalog, None, saved.name)


def test_unchanged_saved_plan_matches(article, catalog):
    result = _recheck(_saved(article), catalog)
    assert result.status == "same" and not result.differs
    assert result.changes == [] and result.summary() == "" and result.recommended_now is None


def test_one_altered_figure_is_exactly_what_is_reported(article, catalog):
    def lower_peak(d):
        d["candidates"][0]["per_gpu_memory_bytes"] -= 3 * GIB

    result = _recheck(_saved(article, lower_peak), catalog)
    assert result.status == "changed"
    assert [c.key for c in result.changes] == ["per_gpu_memory"]
    change = result.changes[0]
    now = article[1]["candidates"][0]["per_gpu_memory_bytes"]
    assert change.unit == "bytes" and change.recomputed == now and change.saved == now - 3 * GIB
    assert change.text() == f"per-GPU peak {now / GIB:.2f} GiB (saved {(now - 3 * GIB) / GIB:.2f} GiB)"
    assert result.summary() == change.text()


def test_a_difference_below_display_rounding_is_not_reported(article, catalog):
    def nudge(d):
        d["candidates"][0]["per_gpu_memory_bytes"] += 1000  # far below 0.01 GiB
        d["candidates"][0]["tco_3y_usd"] += 0.1  # below a whole dollar

    assert _recheck(_saved(article, nudge), catalog).status == "same"


def test_step_time_and_cost_are_reported_with_the_sheets_text(article, catalog):
    def alter(d):
        d["candidates"][0]["step_time_s"] *= 0.5
        d["candidates"][0]["tco_3y_usd"] -= 10_000

    result = _recheck(_saved(article, alter), catalog)
    assert [c.key for c in result.changes] == ["step_time", "tco_3y"]
    step, tco = result.changes
    assert step.unit == "s" and step.saved_text.endswith("ms") and tco.unit == "USD"
    assert tco.saved_text.startswith("$") and tco.recomputed_text.startswith("$")


def test_option_no_longer_among_the_options(article, catalog):
    def other_server(d):
        d["candidates"][0]["server_id"] = "a-server-no-catalog-has"

    result = _recheck(_saved(article, other_server), catalog)
    assert result.status == "gone" and result.match is None and result.differs
    assert "is no longer among the options" in result.summary()
    assert result.recommended_now is not None  # the recomputed plan's own recommendation is named
    assert result.to_dict()["option_in_recomputed_plan"] is False


def test_option_now_rejected_says_it_no_longer_fits_with_the_reasons(article, catalog):
    rejected = next(r for r in article[1]["rejected"] if r["count"] > 0 and r["server_id"])

    def saved_as_rejected(d):
        top = d["candidates"][0]
        top.update(gpu_id=rejected["gpu_id"], gpu_name=rejected["gpu_name"], count=rejected["count"],
                   server_id=rejected["server_id"], interconnect=rejected["interconnect"])

    result = _recheck(_saved(article, saved_as_rejected), catalog)
    assert result.status == "no-longer-fits"
    assert result.rejected_reasons == rejected["reasons"]
    assert "no longer fits" in result.summary()


def test_a_corrupt_saved_document_is_a_clear_error_and_nothing_is_lost(article, catalog):
    def too_new(d):
        d["version"] = 999

    saved = _saved(article, too_new)
    with pytest.raises(RecheckError, match="cannot be read, so it cannot be rechecked") as caught:
        _recheck(saved, catalog)
    assert "unchanged" in caught.value.user_text()
    again = get_plan(open_store(), saved.id)
    assert again.plan == saved.plan and again.profile_text == saved.profile_text


def test_a_damaged_saved_profile_is_a_recheck_error(article, catalog):
    saved = _saved(article)
    with pytest.raises(RecheckError, match="not valid TOML"):
        recheck_saved_plan("[model\nname = ", "toml", saved.plan, catalog)
