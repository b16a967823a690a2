"""Per-tensor FP8 linears through cuBLASLt at steps of a few tokens (gpudesk.sizing.serve_fp8_small_m)."""

from __future__ import annotations

import pytest

from gpudesk.sizing.serve_fp8_small_m import SMALL_M_MAX_TOKENS, fp8_small_m_applies
from gpudesk.sizing.serve_load import ServeLoad


@pytest.mark.parametrize(("engine", "version", "backend", "capability", "linear", "applies"), [
    ("trtllm", None, "pytorch", "9.0", "fp8", True),  # H100, PyTorch flow: cublas_scaled_mm at every size
    ("trtllm", "1.0.0", None, "9.0", "fp8", True),  # PyTorch flow by default from 1.0
    ("trtllm", "0.17.0", None, "9.0", "fp8", False),  # TensorRT-engine flow by default before 1.0
    ("trtllm", None, "tensorrt", "9.0", "fp8", False),
    ("trtllm", None, "pytorch", "8.9", "fp8", False),  # Ada: the CUDA-core FP8 GEMM for <= 8 rows
    ("trtllm", None, "pytorch", "12.0", "fp8", False),  # RTX Blackwell: the same
    ("trtllm", None, "pytorch", "10.0", "fp8", False),  # B200: no batch-1 figure read
    ("trtllm", None, "pytorch", "9.0", "bf16", False),
    ("trtllm", None, "pytorch", "9.0", None, False),  # block FP8 / other formats: own kernels
    ("vllm", None, None, "9.0", "fp8", False),  # CUTLASS FP8 tuned for M <= 16
    ("sglang", None, None, "9.0", "fp8", False),
])
def test_dispatch(engine: str, version: str | None, backend: str | None, capability: str, linear: str | None,
                  applies: bool) -> None:
    assert fp8_small_m_applies(engine, version, backend, "NVIDIA", capability, linear) is applies


def test_amd_never() -> None:
    assert not fp8_small_m_applies("trtllm", None, "pytorch", "AMD", "9.4", "fp8")


def _step(weight_format: str, engine: str = "trtllm"):
    # the TensorRT-LLM PR 4407 / PR 5066 setup (tests/fixtures/speed/fresh116_serve_runs.jsonl): Llama-3.1-8B shape
    # on one H100 SXM5, PyTorch flow, concurrency 1
    from gpudesk.catalog import open_catalog
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.shapes import spec_from_catalog

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.1-8b"))
    gpu = catalog.gpu("h100-sxm5")
    load = ServeLoad(engine=engine, tp=1, concurrency=1, weight_format=weight_format, backend="pytorch"
                     if engine == "trtllm" else None)
    return step_model(spec, gpu, load, None, "bf16")


def test_batch_one_fp8_decode_costs_about_the_bf16_weight_read() -> None:
    fp8, bf16 = _step("fp8"), _step("bf16")
    assert "fp8_small_m_gemm" in {a.name for a in fp8.assumptions}
    assert "fp8_small_m_gemm" not in {a.name for a in bf16.assumptions}
    one_fp8, one_bf16 = fp8.gpu_s(1, 1000.0), bf16.gpu_s(1, 1000.0)
    # PR 5066 (FP8) vs PR 4407 (BF16), 1000/1000 at concurrency 1: 6.047 s vs 6.024 s per request
    assert one_fp8 == pytest.approx(one_bf16, rel=0.1)


def test_above_four_tokens_fp8_reads_half_the_bytes() -> None:
    fp8, bf16 = _step("fp8"), _step("bf16")
    tokens = SMALL_M_MAX_TOKENS + 4
    assert fp8.gpu_s(tokens, 1000.0 * tokens) < 0.75 * bf16.gpu_s(tokens, 1000.0 * tokens)
    # the step of 4 tokens still pays the 16-bit read time, the step of 5 does not
    assert fp8.gpu_s(SMALL_M_MAX_TOKENS, 4000.0) > 1.3 * fp8.gpu_s(SMALL_M_MAX_TOKENS + 1, 5000.0)


def test_vllm_fp8_keeps_the_fp8_read() -> None:
    fp8 = _step("fp8", engine="vllm")
    assert "fp8_small_m_gemm" not in {a.name for a in fp8.assumptions}
    assert fp8.gpu_s(1, 1000.0) < 0.75 * _step("bf16", engine="vllm").gpu_s(1, 1000.0)
