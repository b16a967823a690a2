"""The serving speed model against the second fresh batch (tests/fixtures/speed/fresh2_serve_runs.jsonl): published
runs in none of the other files, mapped and committed before any prediction was computed on them, scored once after
the model was frozen again. The bars record the level the first score reached (58 rows: 36 % within 20 %, 60 %
within 50 %, median 30.8 %; the AMD MI300X vLLM rows 48 % / 100 % / 20.2 %); they are not a goal, and no row is ever
edited. The misses are described in the serving report (all-at-once loads of 1000 chat requests through the engines'
HTTP front end, DeepSeek-R1 decode, TTFT at concurrency 4)."""

from __future__ import annotations

import statistics

import pytest

from helpers.serve_fresh import SPEED_FIXTURES, abs_errors, assert_new_published_runs, serve_ratios, source_urls

ROWS = SPEED_FIXTURES / "fresh2_serve_runs.jsonl"
OTHER_SETS = ("serve_runs.jsonl", "later_runs.jsonl", "fresh_serve_runs.jsonl", "train_runs.jsonl")


@pytest.fixture(scope="module")
def ratios():
    return serve_ratios(ROWS)


def test_second_fresh_rows_are_new_published_runs(ratios):
    assert_new_published_runs(ratios, source_urls(ROWS.with_name(n) for n in OTHER_SETS), 15)


def test_second_fresh_score_holds_at_the_level_first_reached(ratios):
    errors = abs_errors(ratios)
    assert sum(e <= 0.2 for e in errors) / len(errors) >= 0.36
    assert sum(e <= 0.5 for e in errors) / len(errors) >= 0.60
    assert statistics.median(errors) <= 0.309
    amd = [abs(ratio - 1) for row, ratio in ratios.values() if row["gpu"].startswith("mi")]
    assert amd and max(amd) <= 0.5
