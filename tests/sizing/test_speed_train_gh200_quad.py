"""The HPE Cray EX254n quad GH200 node in the catalog (servers.csv cray-ex254n-gh200, links nvlink4-gh200-quad and
slingshot-11): a published GH200 training run is placed, with the quad node's NVLink and its Slingshot network."""

from __future__ import annotations

from gpudesk.catalog import open_catalog
from gpudesk.paths import catalog_path
from gpudesk.sizing.serve_mesh import group_link
from gpudesk.sizing.speed_train_cases import named_network, nvlink_domain, predict_train_case

# MLPerf Training v6.0, Krai on Isambard-AI Phase 2 (1 node x 4 GH200 96GB), llama2_70b_lora, NVIDIA NeMo v5.0 code:
# TP4 CP1 SP, GBS 8, MBS 1, FP8; median train_step_time 9.013 s (Richardyu114/training_results_v6.0 at eabf23a,
# Krai/results/Isambard-AI-Phase2-GH200-96GB_n1_v6.0/llama2_70b_lora/result_1.txt).
KRAI_N1 = {"model": "llama-2-70b", "gpu": "gh200-96", "gpus": 4, "gpus_per_node": 4,
           "interconnect": "nvlink (GH200 quad node, ASSUMED)", "framework": "nemo", "precision": "fp8",
           "fp8_recipe": "delayed", "seq_len": 8192, "global_batch": 8, "micro_batch": 1, "tp": 4,
           "sharding": "distributed-optimizer", "recompute": "none", "adapter_params": 44564480,
           "measured": {"metric": "step_time_s", "value": 9.0132}}


def test_quad_gh200_node_takes_the_96gb_gh200_with_its_nvlink_mesh():
    catalog = open_catalog(catalog_path())
    gpu = catalog.gpu("gh200-96")
    assert gpu.memory_gb == 96 and gpu.memory_type == "HBM3"
    gpus, gbps, _name = nvlink_domain(catalog, gpu)
    assert (gpus, gbps) == (4, 450)  # 18 NVLink 4 links, 25 GB/s per direction each
    # No NVSwitch: a TP2 pair reaches one of the three peers (6 links, 150 GB/s per direction).
    assert group_link(catalog.link("nvlink4-gh200-quad"), tp=2).bandwidth_gbps_per_direction == 150
    assert catalog.link("slingshot-11").bandwidth_gbps_per_direction == 25  # 200 Gb/s Cassini NIC


def test_row_names_its_network_inside_a_longer_interconnect_text():
    text = "nvlink (GH200 quad node, ASSUMED) + slingshot-11 (4x 200 Gb/s Cassini NICs per node)"
    assert named_network(text) == "slingshot-11"
    assert named_network("ib-hdr") == "ib-hdr"
    assert named_network("nvlink + infiniband") == "ib-ndr"  # none named: the DGX default


def test_published_isambard_ai_lora_run_is_placed_and_predicted():
    step_s, speed = predict_train_case(KRAI_N1)
    assert speed.step_time_s == step_s
    # Predicted ~14 % fast: Isambard-AI caps each GH200 module (Grace CPU included) at 660 W (system JSON hw_notes),
    # a clock limit the row cannot carry.
    assert 0.8 * 9.0132 < step_s < 1.2 * 9.0132
