"""SGLang on AMD GPUs casts MLA's FP8 up-projection weights to BF16 every step (gpudesk/sizing/serve_rocm_mla.py)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_rocm_mla import rocm_mla_dequant_per_step
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_deepseek_v3_fp8_on_amd_under_sglang_pays_four_kernels_and_8_bytes_per_weight_element_each_layer(catalog):
    """DeepSeek-V3: 61 layers, 128 heads, kv_lora_rank 512, nope / value widths 128. At TP8 a GPU holds 16 heads:
    w_kc + w_vc = 16 x 512 x 256 elements per layer, 8 bytes each moved, 4 kernels per layer."""
    spec = spec_from_catalog(catalog.model("deepseek-v3"))
    kernels, moved = rocm_mla_dequant_per_step(spec, "sglang", "AMD", "fp8", 8)
    assert kernels == 4 * 61
    assert moved == pytest.approx(8 * 16 * 512 * 256 * 61)
    # Data-parallel attention with one GPU per group: the GPU holds all 128 heads' weights, 8x the bytes.
    assert rocm_mla_dequant_per_step(spec, "sglang", "AMD", "fp8", 1)[1] == pytest.approx(8 * moved)


@pytest.mark.parametrize("engine, vendor, weight_format, model", [
    ("vllm", "AMD", "fp8", "deepseek-v3"),       # another engine's MLA path
    ("sglang", "NVIDIA", "fp8", "deepseek-v3"),  # CUDA runs bmm_fp8 / DeepGEMM, no cast
    ("sglang", "AMD", "bf16", "deepseek-v3"),    # 16-bit weights need no cast
    ("sglang", "AMD", "fp8", "llama-3.1-70b"),   # no latent attention
])
def test_other_engines_vendors_formats_and_attention_kinds_are_not_charged(catalog, engine, vendor, weight_format,
                                                                            model):
    spec = spec_from_catalog(catalog.model(model))
    assert rocm_mla_dequant_per_step(spec, engine, vendor, weight_format, 8) == (0, 0.0)


def test_the_cast_lengthens_an_sglang_decode_step_on_mi300x_by_its_kernels_and_bytes(catalog, monkeypatch):
    """One decode step of DeepSeek-V3 FP8 at TP8 on MI300X under SGLang is longer than the same step without the cast
    by its kernels at the 3.4 us graph floor plus its bytes at the HBM rate (about 1 ms); an H100 step has no such
    term."""
    import gpudesk.sizing.serve_step as serve_step

    spec = spec_from_catalog(catalog.model("deepseek-v3"))
    mi300x, link = catalog.gpu("mi300x"), catalog.link("amd-if-mi300x")
    load = ServeLoad(tp=8, batch=1, weight_format="fp8", engine="sglang", engine_version="0.5.7")
    with_cast = step_model(spec, mi300x, load, link, "bf16")
    kernels, moved = rocm_mla_dequant_per_step(spec, "sglang", "AMD", "fp8", 8)
    monkeypatch.setattr(serve_step, "rocm_mla_dequant_per_step", lambda *args: (0, 0.0))
    without = step_model(spec, mi300x, load, link, "bf16")
    added = with_cast.gpu_s(1, 1000) - without.gpu_s(1, 1000)
    assert added == pytest.approx(kernels * 3.4e-6 + moved / with_cast.bytes_per_s)
    assert 0.8e-3 < added < 1.5e-3
    assert "rocm_mla_weight_dequant" in {a.name for a in with_cast.assumptions}
    assert "rocm_mla_weight_dequant" not in {a.name for a in without.assumptions}
    monkeypatch.undo()
    h100 = step_model(spec, catalog.gpu("h100-sxm5"), load, catalog.link("nvlink4"), "bf16")
    assert "rocm_mla_weight_dequant" not in {a.name for a in h100.assumptions}


def test_cdna4_runs_aiters_batched_fp8_gemm_and_is_not_charged(catalog):
    """SGLang's ROCm images set SGLANG_USE_AITER=1; on gfx95x (MI355X) the _use_aiter_gfx95 branch multiplies the
    FP8 w_kc / w_vc directly, on gfx942 (MI300X) the weights are still cast every step."""
    spec = spec_from_catalog(catalog.model("deepseek-v3"))
    assert rocm_mla_dequant_per_step(spec, "sglang", "AMD", "fp8", 8, catalog.gpu("mi355x").architecture) == (0, 0.0)
    assert rocm_mla_dequant_per_step(spec, "sglang", "AMD", "fp8", 8, catalog.gpu("mi300x").architecture)[0] == 244
