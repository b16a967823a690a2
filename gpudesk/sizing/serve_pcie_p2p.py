"""Tensor-parallel all-reduce between GPUs that cannot reach each other's memory over PCIe (no peer-to-peer).

NVIDIA's driver reports no PCIe peer-to-peer (GPUDirect P2P) between GeForce cards: ``nvidia-smi topo -p2p``
prints ``NS`` (not supported) and ``p2pBandwidthLatencyTest`` "Device=0 CANNOT Access Peer Device=1" on GeForce RTX
2080 Ti, and the RTX 4090 needs a patched kernel module to get it (blog.chlc.cc "RTX4090 GPUDirect P2P Unlocked";
tinygrad/open-gpu-kernel-modules). Data-center and professional cards (H100 PCIe, RTX 6000 Ada ...) have it. The
catalog's ``consumer`` flag marks the GeForce cards.

What it changes in a tensor-parallel engine (vLLM v0.8.5, ``vllm/distributed/device_communicators/
custom_all_reduce.py``): the custom all-reduce kernel is disabled on more than two PCIe-only GPUs ("Custom allreduce
is disabled because it's not supported on more than two PCIe-only GPUs") and on two GPUs without P2P (``_can_p2p``
-> "your platform lacks GPU P2P capability"), so every all-reduce goes through NCCL, whose peer transport needs P2P:
without it NCCL stages each transfer through pinned host memory (the SHM transport), one PCIe crossing into host
memory and one out of it, through the CPU's root complex. Both its fixed cost and its bandwidth are worse than the
P2P ring's:

- bandwidth: nccl-tests ``all_reduce_perf`` on 2 x GeForce RTX 2080 Ti without P2P (PCIe 3.0 x16 behind one
  switch, CUDA 12.4, driver 550) levels off at a bus bandwidth of 4.00 GB/s from 16 MiB on, 0.254 of the link's
  15.75 GB/s per direction (Anthony-Hoo/Anthony-Hoo.github.io ``posts/AutoDL_Multi-GPU_Interconnection_Test.md``,
  2025-06-05; the same machine's ``p2pBandwidthLatencyTest`` copies 5.7 GB/s one way). The share is taken for any
  PCIe generation: the staging is the same, only the link is faster.
- latency: a small all-reduce (8 bytes) takes 12 us on those 2 GPUs and 42 us on 8 x GeForce RTX 4090 without
  P2P (NVIDIA/nccl issue 1530, 2024-12, ``all_reduce_perf -g 8``); between the two measured group sizes linearly
  in the GPU count, beyond 8 as 8.

The all-reduce of a message of ``m`` bytes over ``n`` GPUs then takes latency + ``2 (n - 1) / n x m`` / (share x
link bandwidth) (:class:`gpudesk.sizing.serve_step.StepModel`), which reproduces the measured 2-GPU curve within
a few microseconds from 1 MiB up (280 us measured at 1 MiB, 274 us modelled).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.catalog.records import GPU, Link

# nccl-tests all_reduce_perf without P2P: bus bandwidth plateau / link bandwidth per direction (module docstring).
NO_P2P_BUSBW_SHARE = 4.00 / 15.75
# Small (8-byte) all-reduce time without P2P by GPU count (module docstring).
NO_P2P_ALLREDUCE_S = {2: 12.0e-6, 8: 42.0e-6}
NO_P2P_SOURCE = ("no PCIe peer-to-peer on GeForce cards: vLLM custom all-reduce off "
                 "(vllm/distributed/device_communicators/custom_all_reduce.py, v0.8.5), NCCL through host memory; "
                 "nccl-tests all_reduce_perf without P2P: 2 x RTX 2080 Ti 4.00 GB/s bus bandwidth on PCIe 3.0 x16, "
                 "12 us small (Anthony-Hoo/Anthony-Hoo.github.io posts/AutoDL_Multi-GPU_Interconnection_Test.md); "
                 "8 x RTX 4090 42 us small (NVIDIA/nccl issue 1530)")


@dataclass(frozen=True)
class HostStagedAllreduce:
    """The all-reduce of a tensor-parallel group without P2P: fixed seconds and the share of the link's bandwidth."""

    latency_s: float
    link_share: float
    source: str = NO_P2P_SOURCE


def peer_access_over_pcie(gpu: GPU) -> bool:
    """Whether the driver lets two of these GPUs read and write each other's memory over PCIe (False on GeForce)."""
    return not (gpu.vendor == "NVIDIA" and gpu.consumer)


def host_staged_allreduce(gpu: GPU, link: Link | None, tp: int) -> HostStagedAllreduce | None:
    """The host-staged all-reduce of ``tp`` GPUs joined by ``link`` (module docstring); None where the GPUs reach
    each other directly (P2P, NVLink, one GPU) and the engine's usual all-reduce applies."""
    if tp <= 1 or link is None or link.kind != "pcie" or peer_access_over_pcie(gpu):
        return None
    low, high = min(NO_P2P_ALLREDUCE_S), max(NO_P2P_ALLREDUCE_S)
    n = min(max(tp, low), high)
    latency = NO_P2P_ALLREDUCE_S[low] + (NO_P2P_ALLREDUCE_S[high] - NO_P2P_ALLREDUCE_S[low]) * (n - low) / (high - low)
    return HostStagedAllreduce(latency_s=latency, link_share=NO_P2P_BUSBW_SHARE)
