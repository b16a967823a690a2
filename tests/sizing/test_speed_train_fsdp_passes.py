"""FSDP hides each pass's collectives only under that pass's compute (speed_train, the ``fsdp`` branch).

PyTorch FSDP2 prefetches one block ahead inside a pass: the forward's all-gathers run under forward compute
("implicit forward prefetching", PyTorch docs notes/fsdp.rst), the backward's all-gathers and reduce-scatters under
backward compute (FSDP2 RFC, pytorch/pytorch issue 114299). Checked on the published layout of the LambdaLabsML
torchtitan gpt-oss-120b run (64 GB300, FSDP 64 without expert parallelism, local batch 1, seq 8192, full activation
checkpointing; fresh32 row lambda-tt-gptoss120b-gb300x64-baseline-bs1-fullac-tps): all 117 B parameters are gathered
for a forward that computes the ~5 B a token routes through, so the forward's gathers outlast the forward.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.speed_train import train_speed
from gpudesk.sizing.speed_train_cases import case_model, case_setup, gpu_rates
from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir

ROW_ID = "lambda-tt-gptoss120b-gb300x64-baseline-bs1-fullac-tps"


@pytest.fixture(scope="module")
def gptoss_run():
    catalog = open_catalog()
    row = next(r for r in read_rows(speed_cases_dir() / "fresh32_train_runs.jsonl") if r["id"] == ROW_ID)
    gpu = catalog.find_gpu(row["gpu"])
    return case_model(row, catalog), gpu_rates(gpu, catalog.gpus()), case_setup(row, catalog, gpu)


def _compute(breakdown: dict[str, float]) -> float:
    return breakdown["gemm_s"] + breakdown["attention_s"] + breakdown["other_kernels_s"]


def test_forward_gathers_outlasting_the_forward_are_exposed(gptoss_run):
    spec, rates, setup = gptoss_run
    assert setup.sharding == "fsdp" and setup.ep == 1
    fsdp = train_speed(spec, rates, setup).breakdown
    # The step's whole FSDP traffic: what a framework that hides none of it pays (its kernels aside).
    traffic = train_speed(spec, rates, replace(setup, framework="xla-unpipelined")).breakdown["data_parallel_exposed_s"]
    compute = _compute(fsdp)
    # Under full recompute the forward is 2 of the 8 FLOPs per parameter, while the forward's gathers are 1 of the
    # 3 traffic units: the gathers outlast it although the whole traffic (~1.1x the compute) nearly fits under the
    # whole step. Hiding it under all the step's compute would leave only the excess.
    aggregate = max(0.0, traffic - compute)
    assert fsdp["data_parallel_exposed_s"] > 1.05 * aggregate
    assert fsdp["data_parallel_exposed_s"] < traffic
    # Without recompute both passes outlast their compute (the backward's 2 units of traffic against 4 of the 6
    # FLOPs per parameter): then each pass exposes its excess and the sum is the step's excess.
    none = train_speed(spec, rates, replace(setup, recompute="none")).breakdown
    assert none["data_parallel_exposed_s"] == pytest.approx(traffic - _compute(none), rel=1e-6)


def test_a_long_enough_pass_still_hides_its_traffic(gptoss_run):
    spec, rates, setup = gptoss_run
    # 32 sequences per GPU: each pass's compute now outlasts its own gathers and reduce-scatters.
    big = replace(setup, micro_batch=32, global_batch=32 * setup.gpus)
    assert train_speed(spec, rates, big).breakdown["data_parallel_exposed_s"] == 0.0
