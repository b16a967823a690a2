"""What binds when nothing meets the requirement (issue 12 item 5): the tryout's 70B training with 8.2e12 tokens
and at most 8 GPUs used to say only "misses by 4053 days"."""

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner import plan, plan_to_dict
from gpudesk.planner.binding import DEADLINE_LABEL, MAX_GPUS_LABEL

from helpers.planner_cases import training_70b


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_missed_deadline_names_the_binding_controls_and_the_gpu_count_that_meets_it(catalog):
    result = plan(training_70b(30), catalog)
    assert result.deadline_met_by_any is False
    b = result.binding
    assert b is not None and b.field == "workload.deadline_s" and b.label == DEADLINE_LABEL
    assert MAX_GPUS_LABEL in b.text and "= 8" in b.text
    by_field = {c.field: c for c in b.changes}
    gpus = by_field["operations.max_gpus"]
    assert gpus.current == 8 and 8 < gpus.value < 100_000
    # The count found does meet the deadline under the plan's own models; the deadline change is what 8 GPUs reach.
    assert f"{int(gpus.value):,}" in gpus.text and "would finish in" in gpus.text
    deadline = by_field["workload.deadline_s"]
    best = result.closest[0]
    assert deadline.value >= best.time_to_result_s > deadline.value - 3600
    samples = by_field["data.sample_count"]
    assert samples.value == pytest.approx(1e9 * 30 * 86400 / best.time_to_result_s, rel=1e-6)
    # In the warnings and the rationale, and typed in the JSON for the UI.
    assert any(MAX_GPUS_LABEL in w and "Smallest change of deadline" in w for w in result.warnings)
    assert any(d == b.text for d, _ in result.rationale)
    data = json.loads(json.dumps(plan_to_dict(result)))
    assert data["binding"]["changes"][0]["field"] == "operations.max_gpus"
    assert data["binding"]["changes"][0]["value"] == gpus.value


def test_one_hour_deadline_says_no_count_meets_it_and_gives_the_deadline_8_gpus_meet(catalog):
    # 8.2e12 tokens of 70B: 8 GB300 take ~5,200 days under the speed model, so one hour needs over 100,000 GPUs
    # (one day is met by ~41,000 GB300 now that data-parallel rings use every NIC of a node).
    result = plan(training_70b(1 / 24), catalog)
    b = result.binding
    assert b is not None
    texts = [c.text for c in b.changes]
    assert any(t.startswith("No GPU count up to 100,000") for t in texts)
    assert any("Smallest change of deadline with 8 GPUs" in t for t in texts)


def test_met_deadline_has_no_binding(catalog):
    req = training_70b(1)
    req.data.sample_count = 1_000_000  # a thousandth of the data: 8 x GB300 in about 4 days
    req.workload.deadline_s = 10 * 86400
    result = plan(req, catalog)
    assert result.deadline_met_by_any is True and result.binding is None
    assert plan_to_dict(result)["binding"] is None


def test_training_capped_below_the_tensor_parallel_degree_names_the_gpu_limit_and_the_closest(catalog):
    # The new-user test of the window: "Start from example" -> "Pre-training a 70B", "Largest GPU count to consider"
    # = 4 (TP 8). The plan said only "Pin and test the listed libraries", binding null, closest [], no H100 in the
    # rejections.
    from gpudesk.planner.profile import load_profile
    from pathlib import Path

    req = load_profile(Path(__file__).parents[2] / "resources/examples/pretraining-70b.toml", catalog)
    req.operations.max_gpus = 4
    result = plan(req, catalog)
    assert not any(c.fits for c in result.candidates)
    b = result.binding
    assert b is not None and b.field == "operations.max_gpus" and b.label == MAX_GPUS_LABEL
    change = b.changes[0]
    assert change.current == 4 and change.value > 4
    assert f'to {int(change.value):,} for an answer: {int(change.value):,} x ' in change.text
    # The closest options are the fewest GPUs that fit and meet the 90-day deadline, H100 / H200 among them.
    assert result.closest and result.closest[0].count == int(change.value)
    assert all(c.fits and c.meets_deadline for c in result.closest)
    over = {r.gpu_id: r for r in result.rejected if r.over_gpu_limit}
    assert {"h100-sxm5", "h200-sxm"} <= set(over)
    assert over["h100-sxm5"].count > 4 and over["h100-sxm5"].count % 8 == 0
    data = json.loads(json.dumps(plan_to_dict(result)))
    assert data["binding"]["field"] == "operations.max_gpus" and data["closest"]


def test_capped_training_with_an_unreachable_deadline_says_the_deadline_binds_too(catalog):
    # The same 70B pre-training with a one-hour deadline: 2 T tokens cannot be trained in an hour on any count.
    from gpudesk.planner.profile import load_profile
    from pathlib import Path

    req = load_profile(Path(__file__).parents[2] / "resources/examples/pretraining-70b.toml", catalog)
    req.operations.max_gpus = 4
    req.workload.deadline_s = 3600.0
    result = plan(req, catalog)
    b = result.binding
    assert b is not None and b.field == "operations.max_gpus"
    by_field = {c.field: c for c in b.changes}
    assert by_field["operations.max_gpus"].value > 4
    deadline = by_field["workload.deadline_s"]
    assert deadline.text.startswith("The deadline binds as well: no GPU count up to 100,000 meets it")
    assert deadline.value >= result.closest[0].time_to_result_s > 3600
