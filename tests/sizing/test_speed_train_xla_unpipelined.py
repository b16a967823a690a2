"""FSDP collectives of a scanned XLA layer loop without XLA's collective pipeliner (speed_train ``xla-unpipelined``).

MaxText runs the decoder layers as one scanned loop; each iteration all-gathers its layer's weights and reduce-scatters
its gradients. Only XLA's collective pipeliner (--xla_gpu_enable_pipelined_all_gather / _reduce_scatter, passed by
MaxText's configs/a3 launch scripts) moves them under a neighbouring layer's compute; AMD's JAX training images leave
it off (AMD-AGI/Primus Dockerfile.jax-v26.4). Checked on the published layout of the ROCm blog's MaxText DeepSeek-V3
671B run (64 MI355X, 8 per node, FSDP 8 x EP 8, per-device batch 7, seq 4096, full remat; fresh28 row
rocmblog-maxtext-mi355x64-dsv3-671b-densecf125-pdbs7), where the gathers fit under the step's compute when hidden.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.speed_train import FRAMEWORKS, train_speed
from gpudesk.sizing.speed_train_cases import MAXTEXT_AMD_PROFILE, case_model, case_setup, gpu_rates
from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir


ROW_ID = "rocmblog-maxtext-mi355x64-dsv3-671b-densecf125-pdbs7"


@pytest.fixture(scope="module")
def dsv3_run():
    catalog = open_catalog()
    row = next(r for r in read_rows(speed_cases_dir() / "fresh28_train_runs.jsonl") if r["id"] == ROW_ID)
    gpu = catalog.find_gpu(row["gpu"])
    setup = case_setup(row, catalog, gpu)
    assert setup.framework == MAXTEXT_AMD_PROFILE
    return case_model(row, catalog), gpu_rates(gpu, catalog.gpus()), replace(setup, framework="megatron")


def test_unpipelined_loop_adds_the_whole_fsdp_traffic(dsv3_run):
    spec, rates, setup = dsv3_run
    hidden = train_speed(spec, rates, setup).breakdown
    exposed = train_speed(spec, rates, replace(setup, framework="xla-unpipelined")).breakdown
    compute = hidden["gemm_s"] + hidden["attention_s"] + hidden["other_kernels_s"]
    # Prefetched gathers hide under this step's compute; the unpipelined loop pays them all, more than the compute
    # would have covered.
    assert hidden["data_parallel_exposed_s"] < 0.1 * exposed["data_parallel_exposed_s"]
    assert exposed["data_parallel_exposed_s"] > 0.5 * compute
    # Everything else is the same kernels.
    for key in ("gemm_s", "attention_s", "other_kernels_s", "expert_all_to_all_s"):
        assert exposed[key] == pytest.approx(hidden[key], rel=1e-9)


def test_unsharded_runs_do_not_change(dsv3_run):
    spec, rates, setup = dsv3_run
    ddp = replace(setup, sharding="distributed-optimizer")
    a = train_speed(spec, rates, ddp)
    b = train_speed(spec, rates, replace(ddp, framework="xla-unpipelined"))
    assert b.breakdown["data_parallel_exposed_s"] == pytest.approx(a.breakdown["data_parallel_exposed_s"], rel=1e-9)


def test_maxtext_on_amd_maps_to_the_unpipelined_profile():
    catalog = open_catalog()
    case = {"gpus": 64, "gpus_per_node": 8, "seq_len": 4096, "global_batch": 448, "micro_batch": 7, "ep": 8,
            "sharding": "fsdp", "recompute": "full", "framework": "maxtext", "interconnect": "ib-400g"}
    assert case_setup(case, catalog, catalog.find_gpu("mi355x")).framework == MAXTEXT_AMD_PROFILE
    assert case_setup(case, catalog, catalog.find_gpu("h100-sxm5")).framework != MAXTEXT_AMD_PROFILE
    assert not FRAMEWORKS[MAXTEXT_AMD_PROFILE].hides_sharded_gathers
