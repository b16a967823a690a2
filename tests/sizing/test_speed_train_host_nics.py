"""A row whose interconnect counts its host's NICs (fewer than its GPUs) gets each GPU's share of them as its network.

The speed model takes the scale-out network as one NIC per GPU; InternLM's A100 cluster published "inter-machine
bandwidth 4 * 100Gb RoCE" for 8-GPU hosts (github.com/InternLM/InternLM doc/en/train_performance.md at 20fe5ac).
"""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import catalog_path
from gpudesk.sizing.speed_train_cases import case_setup, host_nic_gbps_per_gpu, predict_train_case

# InternLM-7B, 1024 A100, TP1, one micro-batch of 2 x 2048 tokens per step (fresh35 row
# internlm-7b-a100x1024-tp1-zero18-pack-mbs2-mn1-noac, measured 2346 tokens/s/GPU).
INTERNLM_1024 = {"model": "tests/fixtures/speed/configs/internlm-7b.config.json", "gpu": "a100-80-sxm4", "gpus": 1024,
                 "gpus_per_node": 8, "interconnect": "roce-4x100g", "framework": "internlm", "precision": "bf16",
                 "seq_len": 2048, "global_batch": 2048, "micro_batch": 2, "tp": 1, "pp": 1, "sharding": "zero1",
                 "recompute": "none", "measured": {"metric": "tokens_per_s_per_gpu", "value": 2346}}


@pytest.mark.parametrize(("text", "host_gpus", "share"), [
    ("roce-4x100g", 8, 6.25),  # 4 x 100 Gb/s = 50 GB/s for 8 GPUs
    ("ethernet-2x200g (RoCE, rail-optimized)", 8, 6.25),
    ("nvlink + gpudirect-tcpxo (A3 Mega: 8x 200G per VM)", 8, 25.0),
    ("nvlink + ib-hdr (8 x 200 Gb/s HDR InfiniBand per node)", 8, 25.0),  # one HDR port per GPU, as ib-hdr
    ("nvlink (GH200 quad node) + slingshot-11 (4x 200 Gb/s Cassini NICs per node)", 4, 25.0),
    ("nvlink + omni-path (4 OPA links per node)", 4, 12.5),  # Omni-Path 100 Gb/s per port
])
def test_counted_host_nics_are_shared_by_the_hosts_gpus(text: str, host_gpus: int, share: float):
    assert host_nic_gbps_per_gpu(text, host_gpus) == pytest.approx(share)


@pytest.mark.parametrize("text", ["ib-ndr", "nvlink + infiniband", "gaudi-roce (24x 100GbE per card)",
                                  "nvl72 (NVLink Gen5 1800 GB/s + NVSwitch) + ib-400g (4x ConnectX-7 NDR per tray)"])
def test_no_count_and_rate_or_an_accelerators_own_ports_leave_the_named_link(text: str):
    assert host_nic_gbps_per_gpu(text, 8) is None


def test_internlm_cluster_syncs_its_gradients_over_four_nics_per_host():
    catalog = open_catalog(catalog_path())
    gpu = catalog.gpu("a100-80-sxm4")
    setup = case_setup(INTERNLM_1024, catalog, gpu)
    assert setup.inter_gbps == pytest.approx(6.25)
    _tps, slow = predict_train_case(INTERNLM_1024, catalog)
    _tps, fast = predict_train_case(dict(INTERNLM_1024, interconnect="ib-ndr"), catalog)
    # The same 14 GB gradient sync over an eighth of the bandwidth: more of it outlasts the backward it hides under.
    assert slow.breakdown["data_parallel_exposed_s"] > 2 * fast.breakdown["data_parallel_exposed_s"]
    assert slow.step_time_s > fast.step_time_s
