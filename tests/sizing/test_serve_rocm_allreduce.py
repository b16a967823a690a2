"""vLLM's custom all-reduce on MI355X at TP 8 takes its measured time per message size
(gpudesk/sizing/serve_rocm_allreduce.py, vllm-project/vllm PR 39080)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rocm_allreduce import curve_allreduce_s, rocm_allreduce_curve
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad

KIB = 1024


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_the_curve_returns_the_published_points_and_interpolates_between_them(catalog):
    curve = rocm_allreduce_curve("vllm", catalog.link("amd-if-mi355x"), 8)
    assert curve_allreduce_s(curve, 24 * KIB) == pytest.approx(6.3e-6)
    assert curve_allreduce_s(curve, 384 * KIB) == pytest.approx(13.1e-6)
    assert curve_allreduce_s(curve, 1536 * KIB) == pytest.approx(24.2e-6)
    assert curve_allreduce_s(curve, 576 * KIB) == pytest.approx((13.1e-6 + 16.0e-6) / 2)  # half-way 384 -> 768 KiB
    assert curve_allreduce_s(curve, 1 * KIB) == pytest.approx(6.3e-6)  # below the first point: its latency
    # Above the last point: the last segment's 8.2 us per 768 KiB.
    assert curve_allreduce_s(curve, 2304 * KIB) == pytest.approx(24.2e-6 + 8.2e-6)


@pytest.mark.parametrize("engine, link, tp, gpus_per_node", [
    ("sglang", "amd-if-mi355x", 8, 8),  # another engine's kernel
    ("vllm", "amd-if-mi300x", 8, 8),    # MI300X was not measured
    ("vllm", "amd-if-mi355x", 4, 8),    # nor another group size
    ("vllm", "amd-if-mi355x", 8, 4),    # the group spans two nodes
    ("vllm", "nvlink4", 8, 8),
])
def test_unmeasured_engines_links_and_group_sizes_keep_the_alpha_beta_model(catalog, engine, link, tp,
                                                                            gpus_per_node):
    assert rocm_allreduce_curve(engine, catalog.link(link), tp, gpus_per_node) == ()


def test_a_decode_step_of_32_requests_of_llama_70b_on_8_mi355x_pays_the_measured_two_stage_time(catalog):
    """Llama 3.1 70B (hidden 8192, 80 layers) at 32 tokens all-reduces 512 KiB per collective: 14.07 us measured
    (between 384 KiB and 768 KiB), against 6.3 us + the ring's 896 KiB at 403 GB/s = 8.6 us of the alpha-beta
    model; 160 of them per step."""
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    load = ServeLoad(engine="vllm", input_tokens=10, output_tokens=10, batch=32, tp=8, weight_format="fp8",
                     gpus_per_node=8).validated()
    steps = step_model(spec, catalog.gpu("mi355x"), load, catalog.link("amd-if-mi355x"), "bf16")
    assert steps.allreduce_curve
    measured = 13.1e-6 + (16.0e-6 - 13.1e-6) * (512 - 384) / (768 - 384)
    assert steps.allreduce_s(32) == pytest.approx(160 * measured)
    assert any(a.name == "tp_allreduce_measured" for a in steps.assumptions)
    # A prefill chunk of 8192 tokens (128 MiB) leaves the engine's kernel: no curve there.
    alpha_beta = step_model(spec, catalog.gpu("mi355x"), ServeLoad(
        engine="sglang", input_tokens=10, output_tokens=10, batch=32, tp=8, weight_format="fp8",
        gpus_per_node=8).validated(), catalog.link("amd-if-mi355x"), "bf16")
    assert steps.allreduce_s(8192) == pytest.approx(alpha_beta.allreduce_s(8192))
    assert steps.allreduce_s(32) > 1.5 * alpha_beta.allreduce_s(32)
