"""Issue 32: the non-NVIDIA parts (Huawei Ascend, Cambricon, AMD Instinct and Radeon PRO) and their stacks."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog

NEW = ("ascend-910b", "ascend-910c", "mlu370-x8", "mi250x", "mi210", "radeon-pro-w7900")
PRECISIONS = {"fp16", "bf16", "tf32", "fp8", "int8", "int4", "fp4"}


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_new_parts_have_sources_and_dense_figures(catalog):
    for gpu_id in NEW:
        gpu = catalog.gpu(gpu_id)
        assert gpu.source_url.startswith(("https://", "http://")) and gpu.date_checked == "2026-12-04"
        assert gpu.bf16_dense_tflops and gpu.datasheet_headline_is_sparse.startswith("no")
        # No price without a dated source: either both or a "no public price" statement.
        assert (gpu.price_usd and gpu.price_date) or "no public price" in gpu.price_source
    assert catalog.gpu("mi250x").bf16_dense_tflops == 383 and catalog.gpu("mi210").memory_bandwidth_gbps == 1638.4
    assert catalog.gpu("mlu370-x8").int8_dense_tops == 256 and catalog.gpu("mlu370-x8").memory_type == "LPDDR5"
    assert catalog.gpu("ascend-910c").fp16_dense_tflops == 800 and catalog.gpu("ascend-910b").fp8_dense_tflops is None


def test_every_non_cuda_architecture_has_a_stack_and_all_precisions(catalog):
    stacks = {s.architecture: s for s in catalog.software_stacks()}
    rows = {(p.architecture, p.precision) for p in catalog.precision_support()}
    for gpu in catalog.gpus():
        if gpu.vendor == "NVIDIA":
            continue
        assert gpu.architecture in stacks, gpu.id
        assert "pytorch" in stacks[gpu.architecture].frameworks
        assert {p for a, p in rows if a == gpu.architecture} == PRECISIONS, gpu.architecture
    assert "torch_npu" in stacks["Da Vinci A2"].pytorch_backend and "mindspore" in stacks["Da Vinci A2"].frameworks
    assert "vLLM-Ascend" in stacks["Da Vinci A2"].serving_engines


def test_scale_up_links_are_in_the_servers(catalog):
    assert catalog.server("atlas-800t-a2").interconnect == "hccs-910b"
    assert catalog.link("hccs-910b").bandwidth_gbps_per_direction == 196
    assert catalog.server("mi250x-oam-4").interconnect == "amd-if-mi250x"


def test_gaudi_2_with_its_board_link_and_list_price(catalog):
    """Intel's figures (Gaudi 2 vs Gaudi 3, Vision 2024) and Computex 2024 list price (8 cards + baseboard USD 65,000)."""
    gpu = catalog.gpu("gaudi2")
    assert (gpu.memory_gb, gpu.memory_bandwidth_gbps, gpu.bf16_dense_tflops, gpu.fp8_dense_tflops) == (96, 2450, 432, 865)
    assert gpu.price_usd == 8125 and gpu.price_date == "2024-06" and gpu.tdp_w == 600
    assert catalog.server("gaudi2-oam-8").interconnect == "gaudi2-roce"
    assert catalog.link("gaudi2-roce").bandwidth_gbps_per_direction == 300
    stacks = {s.architecture: s for s in catalog.software_stacks()}
    assert stacks["Gaudi 2"].pytorch_backend.startswith("habana_frameworks.torch")
