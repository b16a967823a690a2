"""MXFP4 weights on FP4 matrix units: a weight-only MXFP4 checkpoint (gpt-oss) runs its matmuls at the FP8 rate, a
model quantized to MXFP4 weights and activations at the FP4 rate (gpudesk/sizing/serve_step.py
mxfp4_matmul_format). The configuration is AMD's MLPerf Inference v6.0 gpt-oss-120b Server run on MI355X."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_step import mxfp4_matmul_format, step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _load(**changes):
    fields = dict(engine="vllm", input_tokens=5011, output_tokens=1372, request_rate_per_s=61.2 / 8,
                  weight_format="mxfp4", max_num_seqs=1024, max_num_batched_tokens=65536,
                  gpu_memory_utilization=0.95, kv_block_size=64, rocm_aiter=True)
    fields.update(changes)
    return ServeLoad(**fields)


def test_gpt_oss_weight_only_mxfp4_runs_its_matmuls_at_the_fp8_rate_on_fp4_units(catalog):
    gpt_oss = spec_from_catalog(catalog.model("gpt-oss-120b"))
    mi355x = catalog.gpu("mi355x")
    assert mxfp4_matmul_format(gpt_oss) == "fp8"  # the checkpoint's own weight-only MXFP4: no FP4 activations
    steps = step_model(gpt_oss, mi355x, _load(), None, "bf16")
    assert any(a.name == "matmul_efficiency" and "FP8" in a.value for a in steps.assumptions)
    # a 16-bit checkpoint quantized to MXFP4 weights and activations (AMD Quark W4A4) keeps the FP4 rate
    llama = spec_from_catalog(catalog.model("llama-2-70b"))
    assert mxfp4_matmul_format(llama) == "fp4"
    w4a4 = step_model(llama, mi355x, _load(input_tokens=2048, output_tokens=128), None, "bf16")
    assert w4a4.flops_per_s == pytest.approx(2 * steps.flops_per_s, rel=1e-6)  # MI355X: FP4 peak = 2 x FP8 peak
