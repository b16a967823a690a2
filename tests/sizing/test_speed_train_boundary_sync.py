"""DeepSpeed's gradient sync at the accumulation boundary (speed_train Framework.reduces_after_backward).

DeepSpeedEngine.allreduce_gradients (deepspeed/runtime/engine.py, github.com/microsoft/DeepSpeed): below ZeRO stage
2 the engine "communicate[s] only at gradient accumulation boundaries", after the autograd backward has returned, and
the ZeRO-1 step all-gathers the updated partitions afterwards: none of the sync hides under compute. Checked on
FlagPerf's Baichuan2-13B DeepSpeed 0.11.1 ZeRO-1 run (training/nvidia/baichuan2_13b-deepspeed/README.md at
github.com/FlagOpen/FlagPerf commit 1b5a030: 16 H800 in 2 nodes, IB 200 Gb/s, DP16, MBS 1, GAS 8, seq 2048).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import bundle_root
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.speed_parallel import LinkSpeed, data_parallel_bytes
from gpudesk.sizing.speed_train import FRAMEWORKS, SYNC_AT_BOUNDARY_SHARDINGS, TrainSetup, train_speed
from gpudesk.sizing.speed_train_cases import gpu_rates


@pytest.fixture(scope="module")
def baichuan_run():
    catalog = open_catalog()
    gpu = catalog.find_gpu("h800-sxm5")
    spec = spec_from_hf_config(bundle_root() / "tests/fixtures/sizing/configs/baichuan2-13b.config.json")
    setup = TrainSetup(gpus=16, seq_len=2048, global_batch=128, micro_batch=1, sharding="zero1", recompute="full",
                       framework="deepspeed", gpus_per_node=8, intra_gbps=200.0, inter_gbps=25.0)
    return spec, gpu_rates(gpu, catalog.gpus()), setup


def test_deepspeed_zero1_sync_is_fully_exposed(baichuan_run):
    spec, rates, setup = baichuan_run
    speed = train_speed(spec, rates, setup)
    # Reduce-scatter + all-gather of the bf16 gradients/weights over 16 ranks, rail-optimised ring across the two
    # nodes (8 NICs x 25 GB/s = 200 GB/s per GPU), at the link efficiency, plus the ring's latency steps.
    sync_bytes = data_parallel_bytes(spec.params, 16, "zero1")
    expected = LinkSpeed("ring", 200.0).seconds(sync_bytes, hops=2 * 16)
    assert speed.breakdown["data_parallel_exposed_s"] == pytest.approx(expected, rel=1e-9)
    assert expected > 0.2  # 13.9 B parameters: 52 GB a GPU moves per step


def test_megatron_overlaps_the_same_sync(baichuan_run):
    spec, rates, setup = baichuan_run
    deepspeed = train_speed(spec, rates, setup).breakdown["data_parallel_exposed_s"]
    megatron = train_speed(spec, rates, replace(setup, framework="megatron")).breakdown["data_parallel_exposed_s"]
    # Megatron-Core's bucketed reduce under the last backward and param gather under the next forward hide most of it.
    assert megatron < deepspeed / 4


def test_partitioned_gradients_keep_the_overlap(baichuan_run):
    spec, rates, setup = baichuan_run
    assert FRAMEWORKS["deepspeed"].reduces_after_backward
    assert "zero2" not in SYNC_AT_BOUNDARY_SHARDINGS and "zero3" not in SYNC_AT_BOUNDARY_SHARDINGS
    zero2 = train_speed(spec, rates, replace(setup, sharding="zero2")).breakdown["data_parallel_exposed_s"]
    zero1 = train_speed(spec, rates, setup).breakdown["data_parallel_exposed_s"]
    assert zero2 < zero1


def test_one_replica_has_nothing_to_sync(baichuan_run):
    spec, rates, setup = baichuan_run
    single = replace(setup, gpus=1, global_batch=8, gpus_per_node=1)
    assert train_speed(spec, rates, single).breakdown["data_parallel_exposed_s"] == 0.0
