"""vLLM's kernel choice for AWQ checkpoints and the plain AWQ kernels' cost (gpudesk.sizing.serve_awq_gemm)."""

from __future__ import annotations

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_awq_gemm import (
    AWQ_DEQUANT_ABOVE_TOKENS,
    AWQ_GEMM_ADA_STREAM_SHARE,
    plain_awq_dequantizes,
    plain_awq_kernel,
    plain_awq_stream_share,
)
from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.speed_serve_cases import load_of_case


@pytest.mark.parametrize(("version", "capability", "quantization", "plain"), [
    ("0.7.1", "9.0", "awq", True),  # --quantization awq forces the plain kernels
    ("0.7.1", "9.0", "AWQ", True),
    ("0.7.1", "9.0", None, False),  # unset: awq_marlin takes over
    ("0.7.1", "9.0", "awq_marlin", False),
    ("0.5.2", "8.0", None, True),  # before awq_marlin (PR 6612, v0.5.3)
    ("0.5.3", "8.0", None, False),
    ("0.9.2", "7.5", None, True),  # Marlin needs compute capability 8.0
    (None, "8.9", None, False),
])
def test_kernel_choice(version: str | None, capability: str, quantization: str | None, plain: bool) -> None:
    assert plain_awq_kernel("vllm", version, "NVIDIA", "int4-awq", capability, quantization) is plain


def test_other_engines_formats_and_vendors_never_plain() -> None:
    assert not plain_awq_kernel("sglang", "0.2.0", "NVIDIA", "int4-awq", "8.0", None)
    assert not plain_awq_kernel("vllm", "0.4.0", "AMD", "int4-awq", "9.4", None)
    assert not plain_awq_kernel("vllm", "0.4.0", "NVIDIA", "int4-gptq", "8.0", "awq")


def test_dequantize_switch_came_in_0_3_0() -> None:
    assert not plain_awq_dequantizes("0.2.7")
    assert plain_awq_dequantizes("0.3.0")
    assert plain_awq_dequantizes(None)
    assert AWQ_DEQUANT_ABOVE_TOKENS == 255


def test_ada_stream_share_from_autoawq_table() -> None:
    assert abs(AWQ_GEMM_ADA_STREAM_SHARE - 0.78) < 0.01
    assert plain_awq_stream_share("8.9") == AWQ_GEMM_ADA_STREAM_SHARE
    assert plain_awq_stream_share("8.0") == 0.0
    assert plain_awq_stream_share("9.0") == 0.0


def test_load_field_is_vllm_only_and_checked() -> None:
    ServeLoad(engine="vllm", concurrency=1, quantization="awq").validated()
    with pytest.raises(SizingError):
        ServeLoad(engine="sglang", concurrency=1, quantization="awq").validated()
    with pytest.raises(SizingError):
        ServeLoad(engine="vllm", concurrency=1, quantization="gguf").validated()


def test_row_field_reaches_the_load() -> None:
    row = {"engine": "vllm", "input_tokens": 128, "output_tokens": 128, "concurrency": 1, "quantization": "awq"}
    assert load_of_case(row).quantization == "awq"
    assert load_of_case({k: v for k, v in row.items() if k != "quantization"}).quantization is None


def _step(gpu_id: str, quantization: str | None, version: str | None = None):
    from gpudesk.catalog import open_catalog
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.shapes import spec_from_catalog
    from gpudesk.sizing.speed_serve_cases import intra_link

    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    gpu = catalog.gpu(gpu_id)
    load = ServeLoad(engine="vllm", tp=2, concurrency=1, weight_format="int4-awq", quantization=quantization,
                     engine_version=version)
    return step_model(spec, gpu, load, intra_link(gpu, "nvlink"), "bf16")


def test_forced_awq_dequantizes_prompt_steps_and_drops_the_marlin_rate() -> None:
    """Llama 3.1 70B AWQ at TP 2 on H100, vLLM --quantization awq: steps of 256 tokens or more write and read back
    the 16-bit linear weights (4 bytes per weight per GPU); the Marlin math rate is not charged."""
    marlin, plain = _step("h100-sxm5", None), _step("h100-sxm5", "awq")
    assert marlin.linear_kernel_flops_per_s and not marlin.reconstruct_bytes
    assert not plain.linear_kernel_flops_per_s
    assert plain.reconstruct_above_tokens == AWQ_DEQUANT_ABOVE_TOKENS
    from gpudesk.catalog import open_catalog
    from gpudesk.sizing.shapes import spec_from_catalog

    spec = spec_from_catalog(open_catalog().model("llama-3.1-70b"))
    assert plain.reconstruct_bytes == pytest.approx(4.0 * (spec.active_params - spec.embedding_params) / 2, rel=1e-6)
    assert any(a.name == "plain_awq_kernel" for a in plain.assumptions)
    assert plain.gpu_s(0, 0, 255, 255 * 128) < plain.gpu_s(0, 0, 256, 256 * 128) - 0.02
    # one-token decode on Hopper: the 4-bit stream at the modelled HBM rate either way (no Hopper figure)
    assert plain.gpu_s(1, 1024, 0, 0) == pytest.approx(marlin.gpu_s(1, 1024, 0, 0), rel=0.01)


def test_plain_awq_on_ada_streams_at_the_measured_share() -> None:
    marlin, plain = _step("rtx-6000-ada", None), _step("rtx-6000-ada", "awq")
    assert plain.dense_stream_extra_s > marlin.dense_stream_extra_s
    assert plain.gpu_s(1, 1024, 0, 0) > 1.05 * marlin.gpu_s(1, 1024, 0, 0)
