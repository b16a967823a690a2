"""Pipeline stage timing: the head-holding last stage and the overlapped stage-to-stage sends (speed_pipeline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.speed_pipeline import exposed_pipeline_p2p_seconds, last_stage_extra_seconds
from gpudesk.sizing.speed_train import train_speed
from gpudesk.sizing.speed_train_cases import case_model, case_setup, gpu_rates, predict_train_case

@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


DEV_TRAIN = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "train_runs.jsonl"


def _case(case_id: str) -> dict:
    for line in DEV_TRAIN.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            if case["id"] == case_id:
                return case
    raise AssertionError(case_id)


def test_last_stage_is_balanced_when_the_head_costs_one_layer():
    assert last_stage_extra_seconds(1.0, 1.0, 8) == 0.0
    assert last_stage_extra_seconds(5.0, 1.0, 1) == 0.0  # no pipeline: nothing to pace


def test_a_head_heavier_than_a_layer_paces_the_pipeline():
    # Head = 3 layers on 4 stages: the last stage carries (1 - 1/4) x (3 - 1) layers more than the mean.
    assert last_stage_extra_seconds(3.0, 1.0, 4) == pytest.approx(1.5)
    # A head lighter than a layer: the other stages carry the extra layer unit, (layer - head) / p.
    assert last_stage_extra_seconds(0.5, 1.0, 4) == pytest.approx(0.125)


def test_interleaved_sends_hide_under_compute_only_where_the_framework_overlaps_them():
    assert exposed_pipeline_p2p_seconds(0.2, 1.0, 5, overlaps=True) == 0.0
    assert exposed_pipeline_p2p_seconds(1.5, 1.0, 5, overlaps=True) == pytest.approx(0.5)
    assert exposed_pipeline_p2p_seconds(0.2, 1.0, 1, overlaps=True) == 0.2  # plain 1F1B: no overlap
    assert exposed_pipeline_p2p_seconds(0.2, 1.0, 5, overlaps=False) == 0.2


def test_bad_times_are_refused():
    with pytest.raises(SizingError):
        last_stage_extra_seconds(-1.0, 1.0, 4)
    with pytest.raises(SizingError):
        exposed_pipeline_p2p_seconds(0.1, 1.0, 0, overlaps=True)


def test_moe_head_paces_the_pipeline_and_the_dense_head_barely(catalog):
    # Megatron-Bridge 25.11, B200, Qwen3-235B-A22B PP8 VP2 EP8 FP8-MX, measured 3269 tokens/s/GPU: the output head
    # (151936 x 4096) is ~2.8 layers of this MoE's active GEMMs, so the last stage paces the pipeline.
    moe_case = _case("mbridge2511-b200-qwen3-235b-a22b-64gpu-fp8-mx")
    _moe_value, moe = predict_train_case(moe_case, catalog)
    assert moe.breakdown["pipeline_last_stage_s"] / moe.step_time_s > 0.04
    # Llama 3 70B, H100 TP4 PP8 VP5 FP8 (measured 1602): its head is ~1.2 layers of GEMMs (16-bit against the
    # layers' FP8), the split stays nearly balanced.
    dense_case = _case("mbridge2511-h100-sxm5-llama-3-70b-64gpu-fp8-cs")
    dense_value, dense = predict_train_case(dense_case, catalog)
    dense_share = dense.breakdown["pipeline_last_stage_s"] / dense.step_time_s
    assert dense_share < 0.05
    assert dense_share < moe.breakdown["pipeline_last_stage_s"] / moe.step_time_s
    # Megatron overlaps the interleaved schedule's sends: none exposed; without interleaving they all are.
    assert dense.breakdown["pipeline_p2p_s"] == 0.0
    assert abs(dense_value / dense_case["measured"]["value"] - 1) < 0.2
    gpu = catalog.find_gpu(dense_case["gpu"])
    plain = case_setup(dict(dense_case, vp=1), catalog, gpu)
    no_vp = train_speed(case_model(dense_case, catalog), gpu_rates(gpu, catalog.gpus()), plain)
    assert no_vp.breakdown["pipeline_p2p_s"] > 0.0


def test_each_head_pass_counts_as_one_layer_of_the_split():
    # Two head passes (one multi-token-prediction depth) of 3 layers each against 2 layer units, 4 stages.
    assert last_stage_extra_seconds(6.0, 1.0, 4, head_units=2) == pytest.approx(0.75 * 4)
    assert last_stage_extra_seconds(2.0, 1.0, 4, head_units=2) == 0.0
