"""SGLang's untuned Triton int4 fused MoE on CDNA 4 (gpudesk.sizing.serve_rocm_int4_moe): the measured times per
MoE layer, where they apply, and the Kimi-K2.5 INT4 prefill on 4 x MI350X (SGLang Cookbook, Kimi-K2.5.md: mean TTFT
563.5 ms for 610-token prompts at one request)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rocm_int4_moe import rocm_int4_moe_applies, triton_int4_moe_layer_s
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import _spec, intra_link

KIMI = "tests/fixtures/sizing/configs/kimi-k2-thinking.config.json"


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_layer_times_follow_the_published_points():
    assert triton_int4_moe_layer_s(1) == pytest.approx(0.212e-3)
    assert triton_int4_moe_layer_s(8) == pytest.approx(0.415e-3)
    assert triton_int4_moe_layer_s(3) == pytest.approx((0.241e-3 + 0.298e-3) / 2)
    # flat from 128 to 2048 tokens (PR 34460), proportional beyond
    assert triton_int4_moe_layer_s(128) == triton_int4_moe_layer_s(2048) == pytest.approx(9.4e-3)
    assert triton_int4_moe_layer_s(4096) == pytest.approx(2 * 9.4e-3)
    assert 0.415e-3 < triton_int4_moe_layer_s(16) < 9.4e-3
    assert triton_int4_moe_layer_s(0) == 0.0


def test_applies_to_the_measured_shape_on_cdna4_under_sglang(catalog):
    mi350x = catalog.gpu("mi350x")
    assert rocm_int4_moe_applies("sglang", mi350x, "int4-g32", 7168, 2048, 384)
    assert not rocm_int4_moe_applies("vllm", mi350x, "int4-g32", 7168, 2048, 384)
    assert not rocm_int4_moe_applies("sglang", catalog.gpu("mi300x"), "int4-g32", 7168, 2048, 384)  # CDNA 3
    assert not rocm_int4_moe_applies("sglang", mi350x, "fp8", 7168, 2048, 256)
    assert not rocm_int4_moe_applies("sglang", mi350x, "int4-awq", 2048, 768, 128)  # another shape: not measured
    assert not rocm_int4_moe_applies("sglang", catalog.gpu("h200-sxm"), "int4-g32", 7168, 2048, 384)


def test_kimi_k25_prefill_on_mi350x_is_set_by_the_fused_moe(catalog):
    """A 610-token prefill: 60 MoE layers x 9.4 ms, close to the cookbook's 563.5 ms mean TTFT; without the kernel's
    time the experts' weight stream would make it about ten times shorter."""
    spec = _spec(KIMI)
    gpu = catalog.gpu("mi350x")
    load = ServeLoad(engine="sglang", tp=4, concurrency=1, weight_format="int4-g32", engine_version="0.5.9")
    model = step_model(spec, gpu, load, intra_link(gpu, "infinity-fabric"), "bf16")
    assert model.rocm_int4_moe
    prefill = model.step_s(0, 0.0, 610, 610 * 610 / 2)
    assert prefill == pytest.approx(0.5635, rel=0.2)
    assert model.rocm_int4_moe_extra_s(610) > 0.9 * 60 * 9.4e-3 - 0.1
    assert any(a.name == "rocm_int4_moe_layer_s" for a in model.assumptions)
