"""GPU-GPU bandwidth a tensor- or pipeline-parallel group gets on a board whose GPUs are wired directly to each other.

On a switched board (HGX H100/H200 8-GPU: four NVSwitch chips) every GPU reaches any peer with all its 18 NVLink 4
links, so a group of any size moves data at the GPU's full NVLink rate. The HGX H100/H200 4-GPU board has no
NVSwitch: its four GPUs are fully connected point to point, each GPU's 18 links split 6 to each of its 3 peers
(NVIDIA HGX platform page: "HGX H100 4-GPU ... fully connected with NVLink"; the MLPerf Inference v4.1 Fujitsu
GX2560M7 4 x H100 SXM system description, closed/Fujitsu/systems/GX2560M7_H100_SXM_80GBx4_TRT.json in
mlcommons/inference_results_v4.1: accelerator interconnect "6x 4th Gen NVLINK, 900GB/s"). A group of ``g`` GPUs on
such a mesh reaches its ``g - 1`` peers over their own links only: a TP2 pair moves its all-reduce over 6 links,
a third of the 900 GB/s (NCCL builds its rings and trees over the NVLinks that join the group's GPUs,
NCCL ``topo`` search), TP4 over all 18. A pipeline stage sends its activations to one peer: one pair's links.

The catalog link of such a board gives the per-GPU rate over all peers (``bandwidth_gbps_per_direction``); the
group's share is ``min(g - 1, peers) / peers`` of it.
"""

from __future__ import annotations

import dataclasses

from gpudesk.catalog.records import Link

# catalog link id -> peers each GPU is wired to directly (the board's GPUs - 1)
MESH_PEERS = {"nvlink4-hgx4": 3, "nvlink4-gh200-quad": 3}
SOURCE = ("NVIDIA HGX H100 4-GPU (https://www.nvidia.com/en-us/data-center/hgx/): fully connected NVLink 4, "
          "6 of 18 links per GPU pair; mlcommons/inference_results_v4.1 closed/Fujitsu/systems/"
          "GX2560M7_H100_SXM_80GBx4_TRT.json ('6x 4th Gen NVLINK, 900GB/s'); the HPE Cray EX254n quad GH200 node "
          "wires its four GPUs the same way (Isambard-AI, arXiv 2410.11199)")


def group_link(link: Link, tp: int, pp: int = 1) -> Link:
    """``link`` as one replica of ``tp`` x ``pp`` GPUs sees it: on a direct mesh board (:data:`MESH_PEERS`) the
    share of the per-GPU rate that joins a GPU to its ``tp - 1`` tensor-parallel peers (one peer for a pipeline
    stage's send when ``tp`` is 1); any other link unchanged."""
    peers = MESH_PEERS.get(link.id)
    if peers is None:
        return link
    reached = min(max(1, tp - 1), peers)
    return dataclasses.replace(link, bandwidth_gbps_per_direction=link.bandwidth_gbps_per_direction * reached / peers)
