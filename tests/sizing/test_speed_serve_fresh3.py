"""The serving speed model against the third fresh batch (tests/fixtures/speed/fresh3_serve_runs.jsonl): 25 published
runs in none of the other files, mapped and committed (1b73012) before any prediction was computed on them, scored once
after the model was frozen a third time. The bars record the level the first score reached (40 % within 20 %, 56 %
within 50 %, median 35.0 %; the AMD MI300X rows 4 of 4 within 30 %); they are not a goal, and no row is ever edited.
The misses are described in tests/fixtures/speed/fresh3_serve_notes.md."""

from __future__ import annotations

import statistics

import pytest

from helpers.serve_fresh import SPEED_FIXTURES, abs_errors, assert_new_published_runs, serve_ratios, source_urls

ROWS = SPEED_FIXTURES / "fresh3_serve_runs.jsonl"
OTHER_SETS = ("serve_runs.jsonl", "later_runs.jsonl", "fresh_serve_runs.jsonl", "fresh2_serve_runs.jsonl",
              "train_runs.jsonl", "fresh_train_runs.jsonl")


@pytest.fixture(scope="module")
def ratios():
    return serve_ratios(ROWS)


def test_third_fresh_rows_are_new_published_runs(ratios):
    assert_new_published_runs(ratios, source_urls(ROWS.with_name(n) for n in OTHER_SETS), 20)


def test_third_fresh_score_holds_at_the_level_first_reached(ratios):
    errors = abs_errors(ratios)
    assert sum(e <= 0.2 for e in errors) / len(errors) >= 0.40
    assert sum(e <= 0.5 for e in errors) / len(errors) >= 0.56
    assert statistics.median(errors) <= 0.351
    amd = [abs(ratio - 1) for row, ratio in ratios.values() if row["gpu"].startswith("mi")]
    assert len(amd) == 4 and max(amd) <= 0.3
