"""Tensor-parallel overlap of Megatron-LM launched without --tp-comm-overlap (speed_train FRAMEWORKS["megatron-lm"]).

Megatron-LM's ``--tp-comm-overlap`` is off unless passed (megatron/training/arguments.py, action='store_true');
without it only the column-parallel linears' backward reduce-scatter runs under the weight-gradient GEMM
(megatron/core/tensor_parallel/layers.py), 2 of the 8 collectives a layer issues with sequence parallelism. Checked
on FlagPerf's FlagScale Llama2-70B run (training/nvidia/llama2_70B-megatron/README.md at github.com/FlagOpen/FlagPerf
commit 1b5a030: 32 H800 in 4 nodes, TP8 PP4, MBS 1, GBS 44, seq 4096; its launch script passes --sequence-parallel
and no --tp-comm-overlap).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_train import FRAMEWORKS, TrainSetup, train_speed
from gpudesk.sizing.speed_train_cases import FRAMEWORK_PROFILES, case_setup, gpu_rates


@pytest.fixture(scope="module")
def flagscale_run():
    catalog = open_catalog()
    gpu = catalog.find_gpu("h800-sxm5")
    spec = spec_from_catalog(catalog.find_model("llama-2-70b"))
    setup = TrainSetup(gpus=32, seq_len=4096, global_batch=44, micro_batch=1, tp=8, pp=4, framework="megatron-lm",
                       gpus_per_node=8, intra_gbps=200.0, inter_gbps=25.0)
    return spec, gpu_rates(gpu, catalog.gpus()), setup


def test_without_tp_comm_overlap_three_quarters_stay_exposed(flagscale_run):
    spec, rates, setup = flagscale_run
    plain = train_speed(spec, rates, setup).breakdown["tensor_parallel_exposed_s"]
    overlapped = train_speed(spec, rates, replace(setup, framework="megatron")).breakdown["tensor_parallel_exposed_s"]
    assert FRAMEWORKS["megatron-lm"].tp_overlap == pytest.approx(2 / 8)
    # Same collectives, exposed share (1 - 2/8) against the userbuffers overlap's (1 - 0.6).
    assert plain / overlapped == pytest.approx((1 - 2 / 8) / (1 - FRAMEWORKS["megatron"].tp_overlap))
    assert plain > 1.0  # 80 layers x 44 micro-batches of 8-way collectives over the H800's 200 GB/s NVLink


def test_the_same_run_is_slower_than_with_the_overlap(flagscale_run):
    spec, rates, setup = flagscale_run
    plain = train_speed(spec, rates, setup).step_time_s
    assert plain > train_speed(spec, rates, replace(setup, framework="megatron")).step_time_s


def test_published_megatron_lm_and_flagscale_runs_take_the_profile():
    catalog = open_catalog()
    gpu = catalog.find_gpu("h800-sxm5")
    assert FRAMEWORK_PROFILES["megatron-lm"] == FRAMEWORK_PROFILES["flagscale"] == "megatron-lm"
    # NeMo / Megatron-Bridge performance recipes switch tp_comm_overlap on: they keep the overlapped profile.
    assert FRAMEWORK_PROFILES["nemo"] == FRAMEWORK_PROFILES["megatron-bridge"] == "nemo"
    row = {"gpus": 32, "seq_len": 4096, "global_batch": 44, "tp": 8, "pp": 4, "framework": "flagscale",
           "interconnect": "ib-hdr", "gpus_per_node": 8}
    assert case_setup(row, catalog, gpu).framework == "megatron-lm"
