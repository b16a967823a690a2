"""vLLM's custom all-reduce on NVLink takes its measured time per message size at decode sizes
(gpudesk/sizing/serve_nvlink_allreduce.py: 8 x H100, sgl-project/sglang PR 2904, table 'vllm')."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_nvlink_allreduce import nvlink_allreduce_curve, rank_skew_s
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad

KIB = 1024


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _llama70b_tp8(catalog, gpu="h100-sxm5", link="nvlink4", gpus_per_node=8, engine="vllm"):
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    load = ServeLoad(engine=engine, input_tokens=10, output_tokens=10, batch=16, tp=8, weight_format="bf16",
                     gpus_per_node=gpus_per_node).validated()
    return step_model(spec, catalog.gpu(gpu), load, catalog.link(link), "bf16")


def test_a_16_token_decode_step_of_llama_70b_at_tp8_pays_the_measured_256_kib_time(catalog):
    """Llama 3.1 70B (hidden 8192, 80 layers): 16 tokens all-reduce 256 KiB per collective, 23.9 us measured
    (32 KiB 11.8 us -> 256 KiB 24.1 us), against about 15 us from the 512-byte latency and the link's rate;
    160 of them per step."""
    steps = _llama70b_tp8(catalog)
    assert steps.nvlink_curve
    measured = 11.8e-6 + (24.1e-6 - 11.8e-6) * (256 * KIB - 32 * KIB) / (262144 - 32768)
    skew = steps.allreduce_skew_s
    assert steps.allreduce_s(16) == pytest.approx(160 * (measured + skew))
    # One token (16 KiB): the measured 9.3-11.8 us, no less than the 512-byte latency.
    assert 160 * (10.1e-6 + skew) <= steps.allreduce_s(1) <= 160 * (11.8e-6 + skew)
    assert any(a.name == "tp_allreduce_measured" and "2904" in a.source for a in steps.assumptions)


def test_prompt_sized_all_reduces_keep_the_link_rate_above_the_measured_points(catalog):
    """Above 1 MiB the time grows as the alpha-beta form does, from the measured 45 us at 1 MiB."""
    steps = _llama70b_tp8(catalog)
    one_mib_tokens = 64  # 64 x 8192 x 2 bytes
    per_call = steps.allreduce_s(one_mib_tokens) / 160 - steps.allreduce_skew_s
    assert per_call == pytest.approx(45.0e-6)
    bigger = steps.allreduce_s(4 * one_mib_tokens) / 160 - steps.allreduce_skew_s
    ring = 2 * 7 / 8 * 3 * 1024 * KIB / steps.link_bytes_per_s  # three more MiB at the link's rate, two-shot
    assert bigger == pytest.approx(45.0e-6 + ring, rel=1e-6)


@pytest.mark.parametrize("tp, points", [(2, 6), (4, 6), (8, 6), (3, 6), (16, 0)])
def test_group_sizes_take_the_measured_table_of_the_next_size_up(tp, points):
    assert len(nvlink_allreduce_curve(tp)) == points


def test_groups_across_nodes_and_without_nvlink_keep_the_alpha_beta_model(catalog):
    assert not _llama70b_tp8(catalog, gpus_per_node=4).nvlink_curve
    assert not _llama70b_tp8(catalog, gpu="mi300x", link="amd-if-mi300x").nvlink_curve


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_engines_with_their_own_all_reduce_kernel_keep_the_alpha_beta_model(catalog, engine):
    """SGLang and TensorRT-LLM run their own kernels (module docstring): the vLLM table is not theirs."""
    steps = _llama70b_tp8(catalog, engine=engine)
    assert not steps.nvlink_curve
    assert steps.allreduce_s(16) < _llama70b_tp8(catalog).allreduce_s(16)


def test_each_all_reduce_of_a_step_waits_for_the_slowest_rank(catalog):
    """In-model one-shot all-reduce at TP 8 (SGLang, 8 x B200): 19.73 ms over 885 launches = 22.3 us, against 11.8 us
    in PR 2904's loop: 10.5 us of wait at 8 GPUs, smaller groups waiting as the expected maximum of fewer normal
    arrivals (0.564 / 1.029 / 1.424)."""
    assert rank_skew_s(8) == pytest.approx(19.73e-3 / 885 - 11.8e-6)
    assert rank_skew_s(2) == pytest.approx(rank_skew_s(8) * 0.5642 / 1.4236)
    assert rank_skew_s(4) == pytest.approx(rank_skew_s(8) * 1.0294 / 1.4236)
    assert rank_skew_s(1) == 0.0
    assert rank_skew_s(8) < rank_skew_s(16) < rank_skew_s(32)
    steps = _llama70b_tp8(catalog)
    assert steps.allreduce_skew_s == pytest.approx(rank_skew_s(8))
    assert any(a.name == "tp_allreduce_skew" and "AI-Infra-Auto-Driven-SKILLS" in a.source for a in steps.assumptions)
    # Every engine's step waits; groups across nodes or off NVLink keep their own latency model.
    assert _llama70b_tp8(catalog, engine="sglang").allreduce_skew_s == pytest.approx(rank_skew_s(8))
    assert _llama70b_tp8(catalog, gpus_per_node=4).allreduce_skew_s == 0.0
    assert _llama70b_tp8(catalog, gpu="mi300x", link="amd-if-mi300x").allreduce_skew_s == 0.0
