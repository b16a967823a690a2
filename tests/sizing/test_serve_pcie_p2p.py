"""Tensor parallelism on GeForce cards, which have no PCIe peer-to-peer: NCCL stages every all-reduce through host
memory (gpudesk/sizing/serve_pcie_p2p.py: nccl-tests without P2P, 2 x RTX 2080 Ti 4.00 GB/s bus bandwidth and 12 us,
8 x RTX 4090 42 us; vLLM v0.8.5 custom_all_reduce.py disables its own kernel there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_pcie_p2p import host_staged_allreduce, peer_access_over_pcie
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.time import ring_allreduce_bytes

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_geforce_cards_have_no_peer_access_and_data_center_cards_do(catalog):
    assert not peer_access_over_pcie(catalog.gpu("rtx4090"))
    assert peer_access_over_pcie(catalog.gpu("h100-pcie"))
    assert peer_access_over_pcie(catalog.gpu("rtx-6000-ada"))


def test_measured_latencies_at_2_and_8_gpus_and_the_bandwidth_plateau(catalog):
    gpu, pcie = catalog.gpu("rtx4090"), catalog.link("pcie4-x16")
    assert host_staged_allreduce(gpu, pcie, 2).latency_s == pytest.approx(12e-6)
    assert host_staged_allreduce(gpu, pcie, 8).latency_s == pytest.approx(42e-6)
    assert host_staged_allreduce(gpu, pcie, 4).latency_s == pytest.approx(22e-6)  # linear between the two
    assert host_staged_allreduce(gpu, pcie, 2).link_share == pytest.approx(4.00 / 15.75)
    # P2P, NVLink or one GPU: the engine's usual all-reduce.
    assert host_staged_allreduce(catalog.gpu("h100-pcie"), catalog.link("pcie5-x16"), 2) is None
    assert host_staged_allreduce(gpu, pcie, 1) is None


def test_the_model_reproduces_the_measured_2_gpu_curve_without_p2p(catalog):
    """2 x RTX 2080 Ti on PCIe 3.0 x16 without P2P: 1 MiB in 279.5 us, 16 MiB in 4209.7 us (nccl-tests
    all_reduce_perf, Anthony-Hoo/Anthony-Hoo.github.io posts/AutoDL_Multi-GPU_Interconnection_Test.md)."""
    staged = host_staged_allreduce(catalog.gpu("rtx4090"), catalog.link("pcie3-x16"), 2)
    for size, measured_s in ((2**20, 279.5e-6), (2**24, 4209.7e-6)):
        modelled = staged.latency_s + ring_allreduce_bytes(size, 2) / (staged.link_share * 15.75e9)
        assert modelled == pytest.approx(measured_s, rel=0.05)


def test_decode_step_of_qwen_14b_on_8_rtx_4090_pays_the_host_staged_all_reduce(catalog):
    """IOG vLLM 0.8.5, DeepSeek-R1-Distill-Qwen-14B on 8 x RTX 4090 (TP 8, PCIe): 96 all-reduces per step of at
    least 42 us each, against 8 x H100 PCIe-like P2P rings whose 14 hops cost 26 us."""
    spec = spec_from_hf_config(CONFIGS / "deepseek-r1-distill-qwen-14b.config.json")
    load = ServeLoad(engine="vllm", input_tokens=208, output_tokens=209, request_rate_per_s=1.0, num_prompts=200, tp=8,
                     weight_format="fp16", engine_version="0.8.5").validated()
    steps = step_model(spec, catalog.gpu("rtx4090"), load, catalog.link("pcie4-x16"), "fp16")
    assert steps.allreduce_s(4) >= 96 * 42e-6
    assert steps.link_bytes_per_s == pytest.approx(31.5e9 * 4.00 / 15.75)
    assert any("host memory" in a.source for a in steps.assumptions if a.name == "tp_allreduce")
