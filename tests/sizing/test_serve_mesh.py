"""The HGX H100 4-GPU board's direct NVLink mesh (gpudesk.sizing.serve_mesh): a TP2 pair reaches one peer over 6 of
its GPUs' 18 NVLink 4 links, TP4 all three peers. Published configuration: MLPerf Inference v4.1, Fujitsu GX2560M7
(4 x H100 SXM, system description '6x 4th Gen NVLINK, 900GB/s'), llama2-70b-99 Offline, TensorRT-LLM FP8, TP2 x 2
engines: 10,130 output tokens/s (mlcommons/inference_results_v4.1 closed/Fujitsu/results/
GX2560M7_H100_SXM_80GBx4_TRT/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt)."""

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_mesh import group_link
from gpudesk.sizing.speed_serve_cases import intra_link, predict_serve_case
from gpudesk.sizing.speed_validation import speed_cases_dir

FUJITSU_OFFLINE = "mlperf-i41-fujitsu-gx2560m7-h100x4-llama2-70b-offline-output-tokens-per-s"


def _row(case_id):
    with (speed_cases_dir() / "fresh23_serve_runs.jsonl").open(encoding="utf-8") as handle:
        return next(r for r in map(json.loads, handle) if r["id"] == case_id)


def test_a_pair_on_the_four_gpu_board_gets_a_third_of_the_nvlink_rate():
    catalog = open_catalog()
    mesh, switched = catalog.link("nvlink4-hgx4"), catalog.link("nvlink4")
    assert mesh.bandwidth_gbps_per_direction == switched.bandwidth_gbps_per_direction == 450
    assert group_link(mesh, tp=2).bandwidth_gbps_per_direction == pytest.approx(150)
    assert group_link(mesh, tp=4).bandwidth_gbps_per_direction == pytest.approx(450)
    assert group_link(mesh, tp=1, pp=2).bandwidth_gbps_per_direction == pytest.approx(150)  # one peer per send
    assert group_link(switched, tp=2) == switched  # NVSwitch: every group gets the full rate
    h100 = catalog.gpu("h100-sxm5")
    assert intra_link(h100, "nvlink4-hgx4", 2).bandwidth_gbps_per_direction == pytest.approx(150)
    assert intra_link(h100, "nvlink", 2).bandwidth_gbps_per_direction == 450


def test_the_fujitsu_tp2_offline_run_is_slower_on_the_mesh_than_on_a_switched_board():
    row = _row(FUJITSU_OFFLINE)
    measured = row["measured"]["value"]
    switched = predict_serve_case(dict(row, interconnect="nvlink4"))[0]
    mesh = predict_serve_case(dict(row, interconnect="nvlink4-hgx4"))[0]
    # TP2's two all-reduces per layer over 150 GB/s instead of 450 GB/s: the 4096-token steps slow down.
    assert mesh < 0.9 * switched
    assert abs(mesh / measured - 1) <= 0.2 < abs(switched / measured - 1)
