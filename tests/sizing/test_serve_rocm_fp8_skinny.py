"""vLLM's one-token FP8 skinny GEMM on CDNA only from 0.8.2 (gpudesk/sizing/serve_rocm_fp8_skinny.py: ROCm/vllm tags
v0.7.3+rocm pad the activations to 17 rows, v0.8.2+rocm stops padding on ROCm)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rates import HIPBLASLT_EXTRA_GEMM_S, library_gemm_extra_s
from gpudesk.sizing.serve_rocm_fp8_skinny import FP8_SKINNY_SINCE, fp8_skinny_available
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_the_skinny_kernel_takes_one_token_fp8_steps_from_0_8_2():
    assert FP8_SKINNY_SINCE == (0, 8, 2)
    assert fp8_skinny_available(None)  # no version: the current dispatch
    assert fp8_skinny_available((0, 8, 2)) and fp8_skinny_available((0, 10, 1))
    assert not fp8_skinny_available((0, 7, 3)) and not fp8_skinny_available((0, 6, 6))


def test_older_releases_send_one_token_fp8_gemms_to_hipblaslt_and_leave_bf16_alone(catalog):
    mi300x = catalog.gpu("mi300x")
    assert library_gemm_extra_s("vllm", mi300x, "fp8", "0.7.3") == (HIPBLASLT_EXTRA_GEMM_S, 0)
    assert library_gemm_extra_s("vllm", mi300x, "fp8", "0.6.6 (rocm6.2)") == (HIPBLASLT_EXTRA_GEMM_S, 0)
    assert library_gemm_extra_s("vllm", mi300x, "fp8", "0.8.3") == (HIPBLASLT_EXTRA_GEMM_S, 1)
    assert library_gemm_extra_s("vllm", mi300x, "fp8") == (HIPBLASLT_EXTRA_GEMM_S, 1)
    assert library_gemm_extra_s("vllm", mi300x, "bf16", "0.7.3") == (HIPBLASLT_EXTRA_GEMM_S, 4)


def test_a_one_token_step_of_an_old_release_costs_what_a_larger_step_costs_in_gemm_calls(catalog):
    """Llama 3.1 70B FP8 at TP 8 on MI300X: with vLLM 0.7.3 the one-token step pays the hipBLASLt excess of its
    321 dense GEMMs, with 0.8.3 it does not."""
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    link = catalog.link("amd-if-mi300x")

    def model(version):
        load = ServeLoad(engine="vllm", engine_version=version, input_tokens=10, output_tokens=10, batch=1, tp=8,
                         weight_format="fp8").validated()
        return step_model(spec, catalog.gpu("mi300x"), load, link, "bf16")

    old, new = model("0.7.3"), model("0.8.3")
    assert old.skinny_max_tokens == 0 and new.skinny_max_tokens == 1
    assert old.step_s(1, 100) - new.step_s(1, 100) > 321 * HIPBLASLT_EXTRA_GEMM_S * 0.99
    # the second token no longer moves every GEMM to hipBLASLt: it adds little to an old release's step
    assert old.step_s(2, 200) - old.step_s(1, 100) < 0.5 * (new.step_s(2, 200) - new.step_s(1, 100))
