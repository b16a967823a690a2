"""The serving speed model against the sixth fresh batch (tests/fixtures/speed/fresh6_serve_runs.jsonl): 30 published
runs in none of the other files, mapped and committed (b6d90b0) before any prediction was computed on them, scored once
with the serving model frozen at 020429c (round 6). The bars record the level the first score reached (60 % within
20 %, 87 % within 50 %, median 9.8 %); they are not a goal, and no row is ever edited. The misses are described in
tests/fixtures/speed/fresh6_serve_notes.md; the on-demand KV admission built afterwards from the first miss (round 6b,
80 % / 90 % / 7.7 % here) was judged on the earlier sets, this set being seen."""

from __future__ import annotations

import statistics

import pytest

from helpers.serve_fresh import SPEED_FIXTURES, abs_errors, assert_new_published_runs, other_fixture_files, serve_ratios, source_urls

ROWS = SPEED_FIXTURES / "fresh6_serve_runs.jsonl"


@pytest.fixture(scope="module")
def ratios():
    return serve_ratios(ROWS)


def test_sixth_fresh_rows_are_new_published_runs(ratios):
    assert_new_published_runs(ratios, source_urls(other_fixture_files(ROWS)), 10)
    assert {row["measured"]["metric"] for row, _ in ratios.values()} == {"output_tokens_per_s", "ttft_s", "tpot_s"}


def test_sixth_fresh_score_holds_at_the_level_first_reached(ratios):
    errors = abs_errors(ratios)
    assert sum(e <= 0.2 for e in errors) / len(errors) >= 0.599
    assert sum(e <= 0.5 for e in errors) / len(errors) >= 0.866
    assert statistics.median(errors) <= 0.098
    # With the KV pool holding every request whole (utilization 0.5) the throughput and TPOT sweep stays within 12 %.
    roomy = [ratio for row, ratio in ratios.values() if row["gpu_memory_utilization"] == 0.5
             and row["measured"]["metric"] in ("output_tokens_per_s", "tpot_s")]
    assert len(roomy) == 12 and all(abs(r - 1) <= 0.12 for r in roomy)
