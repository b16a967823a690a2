"""vLLM's weight-only FP8 Marlin MoE on GPUs without FP8 matrix units (gpudesk.sizing.serve_marlin_moe_rate, issue 24):
from v0.9 vLLM runs FP8 routed experts on Ampere (compute capability < 8.9) through the Marlin MoE kernel at 16-bit
math, with no activation quantization; GPUs with FP8 units, earlier releases and SGLang keep their own paths."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_marlin_moe_rate import MARLIN_MOE_PEAK_SHARE, fp8_marlin_moe, marlin_moe_peak_share
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_fp8_marlin_moe_applies_to_vllm_from_0_9_without_fp8_units():
    assert fp8_marlin_moe("vllm", "0.11.0", "NVIDIA", "fp8", fp8_units=False)
    assert fp8_marlin_moe("vllm", None, "NVIDIA", "fp8", fp8_units=False)  # unpublished: a current release
    assert not fp8_marlin_moe("vllm", "0.8.5", "NVIDIA", "fp8", fp8_units=False)  # before PRs 16850 / 18026
    assert not fp8_marlin_moe("vllm", "0.11.0", "NVIDIA", "fp8", fp8_units=True)  # Hopper / Ada: FP8 kernels
    assert not fp8_marlin_moe("sglang", "0.5.5", "NVIDIA", "fp8", fp8_units=False)  # SGLang PR 9754 unmerged
    assert not fp8_marlin_moe("vllm", "0.11.0", "AMD", "fp8", fp8_units=False)
    assert not fp8_marlin_moe("vllm", "0.11.0", "NVIDIA", "bf16", fp8_units=False)
    assert marlin_moe_peak_share("vllm", "NVIDIA", "fp8", "0.11.0", fp8_units=False) == MARLIN_MOE_PEAK_SHARE
    assert marlin_moe_peak_share("vllm", "NVIDIA", "fp8", "0.11.0") == 0.0  # the caller's GPU has FP8 units


def _step(catalog, gpu_name: str, version: str):
    spec = spec_from_catalog(catalog.model("qwen3-235b-a22b"))
    gpu = catalog.gpu(gpu_name)
    load = ServeLoad(engine="vllm", engine_version=version, tp=4, concurrency=1, weight_format="fp8")
    return step_model(spec, gpu, load, intra_link(gpu, "nvlink"), "bf16")


def test_a100_fp8_moe_prompt_step_pays_the_marlin_rate(catalog):
    """Qwen3-235B-A22B FP8 at TP 4 on A100 under vLLM 0.11: the routed experts run at the Marlin MoE share of the BF16
    peak, a 2048-token prompt step is slower than at the dense rate, a one-token decode step within 1 %, and no FP8
    activation-quantization kernels are counted in the fused MoE."""
    model = _step(catalog, "a100-80-sxm4", "0.11.0")
    gpu = catalog.gpu("a100-80-sxm4")
    assert model.moe_kernel_flops_per_s == pytest.approx(MARLIN_MOE_PEAK_SHARE * gpu.bf16_dense_tflops * 1e12)
    rate = [a for a in model.assumptions if a.name == "marlin_moe_rate"]
    assert rate and "FP8" in rate[0].value
    assert not any(a.name == "expert_quant_kernels" for a in model.assumptions)
    dense_only = dataclasses.replace(model, moe_kernel_flops_per_token=0.0)
    assert model.gpu_s(0, 0, 2048, 2048 * 1024) > dense_only.gpu_s(0, 0, 2048, 2048 * 1024) * 1.1
    assert model.gpu_s(1, 1000) == pytest.approx(dense_only.gpu_s(1, 1000), rel=0.01)


def test_earlier_vllm_and_fp8_gpus_keep_their_paths(catalog):
    earlier = _step(catalog, "a100-80-sxm4", "0.8.5")
    assert earlier.moe_kernel_flops_per_s == 0.0
    assert any(a.name == "expert_quant_kernels" for a in earlier.assumptions)
    h100 = _step(catalog, "h100-sxm5", "0.11.0")
    assert not any(a.name == "marlin_moe_rate" for a in h100.assumptions)
