"""The serving speed model against the sixth fresh batch (tests/fixtures/speed/fresh6_serve_runs.jsonl): 30 published
runs in none of the other files, mapped and committed (b6d90b0) before any prediction was computed on them, scored once
with the serving model frozen at 020429c (round 6). The bars record the level the first score reached (60 % within
20 %, 87 % within 50 %, median 9.8 %); they are not a goal, and no row is ever edited. The misses are described in
tests/fixtures/speed/fresh6_serve_notes.md; the on-demand KV admission built afterwards from the first miss (round 6b,
80 % / 90 % / 7.7 % here) was judged on the earlier sets, this set being seen."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from gpudesk.sizing.speed_serve_cases import predict_serve_case

ROWS = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh6_serve_runs.jsonl"


@pytest.fixture(scope="module")
def ratios():
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["id"]: (r, predict_serve_case(r)[0] / r["measured"]["value"]) for r in rows}


def test_sixth_fresh_rows_are_new_published_runs(ratios):
    other: set[str] = set()
    for path in ROWS.parent.glob("*.jsonl"):
        if path.name != ROWS.name:
            other |= {json.loads(line).get("source_url") for line in path.read_text(encoding="utf-8").splitlines()
                      if line.strip()}
    assert len(ratios) >= 10
    for row, _ratio in ratios.values():
        assert row["source_url"].startswith("https://") and row["source_url"] not in other, row["id"]
        assert row["notes"] and sum(k in row for k in ("concurrency", "request_rate", "batch")) == 1
    assert {row["measured"]["metric"] for row, _ in ratios.values()} == {"output_tokens_per_s", "ttft_s", "tpot_s"}


def test_sixth_fresh_score_holds_at_the_level_first_reached(ratios):
    errors = [abs(ratio - 1) for _row, ratio in ratios.values()]
    assert sum(e <= 0.2 for e in errors) / len(errors) >= 0.599
    assert sum(e <= 0.5 for e in errors) / len(errors) >= 0.866
    assert statistics.median(errors) <= 0.098
    # With the KV pool holding every request whole (utilization 0.5) the throughput and TPOT sweep stays within 12 %.
    roomy = [ratio for row, ratio in ratios.values() if row["gpu_memory_utilization"] == 0.5
             and row["measured"]["metric"] in ("output_tokens_per_s", "tpot_s")]
    assert len(roomy) == 12 and all(abs(r - 1) <= 0.12 for r in roomy)
