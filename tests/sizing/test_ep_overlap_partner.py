"""The expert all-to-all overlap (--overlap-moe-expert-parallel-comm) hides only the micro-batch chunks that have a
partner chunk of another micro-batch (Megatron-Core combined 1F1B), on published Megatron-Bridge rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.speed_train import unpartnered_chunk_share
from gpudesk.sizing.speed_train_cases import predict_train_case

SPEED = Path(__file__).resolve().parents[1] / "fixtures" / "speed"


def _row(file: str, case_id: str) -> dict:
    for line in (SPEED / file).read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == case_id:
            return json.loads(line)
    raise AssertionError(case_id)


def test_unpartnered_share_follows_the_megatron_schedules() -> None:
    # No pipelining: the first forward and the last backward run alone, one micro-batch of m.
    assert unpartnered_chunk_share(1, 1, 4) == pytest.approx(1 / 4)
    # Interleaved: first stage warm-up (pp - 1) x 2 + (vp - 1) x pp chunk steps of m x vp.
    assert unpartnered_chunk_share(4, 4, 64) == pytest.approx((3 * 2 + 3 * 4) / (64 * 4))
    # PP > 1 with one chunk per stage: Megatron refuses the overlap there; DualPipe pairs chunks from the start.
    assert unpartnered_chunk_share(8, 1, 256) == 0.0
    assert unpartnered_chunk_share(8, 2, 2) == 1.0


def test_interleaved_pipeline_warm_up_keeps_its_all_to_all() -> None:
    # Megatron-Bridge DGX-GB200 Qwen3-235B, 256 GPUs, PP 4 VP 6, EP 64, EP overlap (MoE model zoo recipe).
    catalog = open_catalog()
    row = _row("fresh34_train_runs.jsonl", "mmoezoo-mlm-f13818d-gb200-qwen3-235b-256gpu-pp4vpp6-ep64-mbs3-mxfp8")
    assert row["ep_overlap"] is True and row["pp"] == 4 and row["vp"] == 6
    speed = predict_train_case(row, catalog)[1]
    plain = predict_train_case({**row, "ep_overlap": False}, catalog)[1]
    share = unpartnered_chunk_share(4, 6, speed.micro_batches)
    assert 0.1 < share < 1.0
    exposed, full = speed.breakdown["expert_all_to_all_s"], plain.breakdown["expert_all_to_all_s"]
    assert share * full < exposed < full


def test_overlap_without_pipelining_still_hides_most_of_the_all_to_all() -> None:
    # Megatron-Bridge 26.06.01 GB200 gpt-oss-120b, 64 GPUs, PP 1, EP 64, EP overlap.
    catalog = open_catalog()
    row = _row("fresh18_train_runs.jsonl", "mb260601-gb200-gpt-oss-120b-64gpu-mxfp8")
    assert row["ep_overlap"] is True and row["pp"] == 1
    speed = predict_train_case(row, catalog)[1]
    plain = predict_train_case({**row, "ep_overlap": False}, catalog)[1]
    exposed = speed.breakdown["expert_all_to_all_s"]
    assert 0 < exposed < 0.5 * plain.breakdown["expert_all_to_all_s"]
