"""vLLM's custom all-reduce on AMD Instinct meshes takes its measured time per message size
(gpudesk/sizing/serve_rocm_allreduce.py: MI355X TP 8, vllm-project/vllm PR 39080; MI300 TP 2, ROCm/aiter PR 801;
MI300 TP 4, vllm-project/vllm PR 19744)."""

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
    ("vllm", "amd-if-mi355x", 4, 8),    # MI355X was measured at TP 8 only
    ("vllm", "amd-if-mi300x", 6, 8),    # MI300X at TP 2, 4 and 8 only
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


def test_mi300x_tp2_and_tp4_curves_are_the_published_points(catalog):
    """ROCm/aiter PR 801 ('vllm cr', tp2) and vLLM PR 19744 ('baseline', TP=4) on MI300-series GPUs."""
    link = catalog.link("amd-if-mi300x")
    tp2 = rocm_allreduce_curve("vllm", link, 2, 8)
    tp4 = rocm_allreduce_curve("vllm", link, 4, 8)
    assert curve_allreduce_s(tp2, 2 * 1024 * KIB) == pytest.approx(49.67e-6)
    assert curve_allreduce_s(tp2, 8 * 1024 * KIB) == pytest.approx(181.43e-6)
    assert curve_allreduce_s(tp4, 2 * 1024 * KIB) == pytest.approx(36.64e-6)
    assert curve_allreduce_s(tp4, 512 * KIB) == pytest.approx(14.65e-6)
    # Four GPUs reach three peer links, two GPUs one: TP 4 is the faster of the two from 512 KiB on.
    for size in (512 * KIB, 1024 * KIB, 4096 * KIB, 8192 * KIB):
        assert curve_allreduce_s(tp4, size) < curve_allreduce_s(tp2, size)


def test_mi300x_at_tp8_takes_the_cdna_tp8_kernel_time_and_agrees_with_its_own_tp2_tp4_curves(catalog):
    """The MI355X TP 8 measurement is taken for the MI300X at TP 8 (kernel-bound two-stage kernel); the per-size fit
    a + b x bytes-per-link of the MI300X's own TP 2 and TP 4 curves, carried to TP 8, lands within 10 % of it at
    1 and 2 MiB (module docstring)."""
    link = catalog.link("amd-if-mi300x")
    tp8 = rocm_allreduce_curve("vllm", link, 8, 8)
    assert tp8 == rocm_allreduce_curve("vllm", catalog.link("amd-if-mi355x"), 8, 8)
    tp2 = rocm_allreduce_curve("vllm", link, 2, 8)
    tp4 = rocm_allreduce_curve("vllm", link, 4, 8)
    for size in (1024 * KIB, 2048 * KIB):
        per_link = {n: 2 * size / n / 64e9 for n in (2, 4, 8)}
        slope = (curve_allreduce_s(tp2, size) - curve_allreduce_s(tp4, size)) / (per_link[2] - per_link[4])
        fixed = curve_allreduce_s(tp2, size) - slope * per_link[2]
        assert fixed + slope * per_link[8] == pytest.approx(curve_allreduce_s(tp8, size), rel=0.1)


def test_a_decode_step_of_128_requests_of_llama_70b_on_8_mi300x_pays_the_measured_time(catalog):
    """Llama 3.1 70B at 128 tokens all-reduces 2 MiB: 29.7 us on the curve (24.2 us at 1.5 MiB + 8.2 us per
    768 KiB), against 6.3 us + the ring's 3.5 MiB at 336 GB/s = 17.2 us of the alpha-beta model, 160 per step."""
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    load = ServeLoad(engine="vllm", input_tokens=10, output_tokens=10, batch=128, tp=8, weight_format="fp8",
                     gpus_per_node=8).validated()
    steps = step_model(spec, catalog.gpu("mi300x"), load, catalog.link("amd-if-mi300x"), "fp8")
    assert steps.allreduce_s(128) == pytest.approx(160 * (24.2e-6 + 8.2e-6 * 512 / 768))
    sglang = step_model(spec, catalog.gpu("mi300x"), ServeLoad(
        engine="sglang", input_tokens=10, output_tokens=10, batch=128, tp=8, weight_format="fp8",
        gpus_per_node=8).validated(), catalog.link("amd-if-mi300x"), "fp8")
    assert sglang.allreduce_s(128) == pytest.approx(160 * 17.2e-6, rel=0.01)


def test_a_tp4_group_on_the_mi300x_mesh_reaches_three_of_its_seven_links(catalog):
    """Alpha-beta model (an engine without a measured curve): 4 GPUs of the switchless MI300X mesh talk over 3 of
    each GPU's 7 Infinity Fabric links (one per peer, AMD data sheet), 3 x 64 x 0.75 = 144 GB/s, not 336; on
    NVSwitch every group gets the whole NVLink bandwidth."""
    from gpudesk.sizing.serve_rates import mesh_peer_share

    link = catalog.link("amd-if-mi300x")
    assert mesh_peer_share(link, 3) == pytest.approx(3 / 7)
    assert mesh_peer_share(link, 7) == 1.0
    assert mesh_peer_share(catalog.link("nvlink4"), 3) == 1.0
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    load = ServeLoad(engine="sglang", input_tokens=10, output_tokens=10, batch=64, tp=4, weight_format="fp8",
                     gpus_per_node=8).validated()
    steps = step_model(spec, catalog.gpu("mi300x"), load, link, "fp8")
    message = 64 * 8192 * 2  # 1 MiB: above the 512 KiB one-shot limit at TP 4, the ring's 2 (n-1)/n of it
    assert steps.link_bytes_per_s == pytest.approx(3 * 64e9 * 0.75)
    assert steps.allreduce_s(64) == pytest.approx(160 * (6.3e-6 + 1.5 * message / (144e9)))
    tp_note = next(a for a in steps.assumptions if a.name == "tp_allreduce")
    assert "192" in tp_note.value and "data sheet" in tp_note.source
