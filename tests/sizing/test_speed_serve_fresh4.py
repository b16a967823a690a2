"""The serving speed model against the fourth fresh batch (tests/fixtures/speed/fresh4_serve_runs.jsonl): 31 published
runs in none of the other files, mapped and committed (5761c59) before any prediction was computed on them, scored once
with the serving model frozen at cbe8f76. The bars record the level the first score reached (19 % within 20 %, 65 %
within 50 %, median 45.5 %; the vLLM rows 77 % within 50 %); they are not a goal, and no row is ever edited. The misses
are described in tests/fixtures/speed/fresh4_serve_notes.md."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from gpudesk.sizing.speed_serve_cases import predict_serve_case

ROWS = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh4_serve_runs.jsonl"
OTHER_SETS = ("serve_runs.jsonl", "later_runs.jsonl", "fresh_serve_runs.jsonl", "fresh2_serve_runs.jsonl",
              "fresh3_serve_runs.jsonl", "train_runs.jsonl", "fresh_train_runs.jsonl", "fresh2_train_runs.jsonl",
              "fresh3_train_runs.jsonl")


@pytest.fixture(scope="module")
def ratios():
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["id"]: (r, predict_serve_case(r)[0] / r["measured"]["value"]) for r in rows}


def test_fourth_fresh_rows_are_new_published_runs(ratios):
    other: set[str] = set()
    for name in OTHER_SETS:
        path = ROWS.with_name(name)
        if path.exists():
            other |= {json.loads(line).get("source_url") for line in path.read_text(encoding="utf-8").splitlines()
                      if line.strip()}
    assert len(ratios) >= 20
    for row, _ratio in ratios.values():
        assert row["source_url"].startswith("https://") and row["source_url"] not in other, row["id"]
        assert row["notes"] and sum(k in row for k in ("concurrency", "request_rate", "batch")) == 1


def test_fourth_fresh_score_holds_at_the_level_first_reached(ratios):
    errors = [abs(ratio - 1) for _row, ratio in ratios.values()]
    assert sum(e <= 0.2 for e in errors) / len(errors) >= 0.19
    assert sum(e <= 0.5 for e in errors) / len(errors) >= 0.645
    assert statistics.median(errors) <= 0.456
    vllm = [abs(ratio - 1) for row, ratio in ratios.values() if row["engine"] == "vllm"]
    assert len(vllm) == 26 and sum(e <= 0.5 for e in vllm) / len(vllm) >= 0.76
