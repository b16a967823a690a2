"""A 16-bit model that does not start on an FP8 GPU gets "FP8 weights quantised at load" among its changes, with
the memory figure engine_fit itself gives that launch; a GPU without FP8 tensor cores never gets it."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.engines.device import catalog_device
from gpudesk.sizing.engines.fit import engine_fit

GIB = 1024**3


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _fp8_change(result):
    return next((c for c in result.changes if c.settings.get("quantization") == "fp8"), None)


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_fp8_weights_change_on_an_fp8_gpu_carries_engine_fits_own_figure(catalog, engine) -> None:
    l40s = catalog_device(catalog.find_gpu("l40s"))
    assert l40s.fp8_tensor_cores
    qwen32 = spec_from_catalog(catalog.model("qwen3-32b"))  # BF16 checkpoint, 65 GB: no fit in 48 GB
    result = engine_fit(engine, qwen32, l40s)
    change = _fp8_change(result)
    assert not result.fits and change is not None and "--quantization fp8" in change.command
    args = [f"{k}={v}" for k, v in change.settings.items()]
    trial = engine_fit(engine, qwen32, l40s, args, weight_format="fp8")
    assert trial.fits and trial.command == change.command
    before_kv = (trial.per_gpu.total_bytes - trial.per_gpu.kv_cache_bytes) / GIB
    assert f"{before_kv:.2f} GiB" in change.text and f"{trial.per_gpu.weights_bytes / GIB:.2f} GiB" in change.text


def test_no_fp8_weights_change_without_fp8_tensor_cores(catalog) -> None:
    a100 = catalog_device(catalog.find_gpu("a100-80-pcie"))
    assert not a100.fp8_tensor_cores
    result = engine_fit("vllm", spec_from_catalog(catalog.model("qwen3-32b")), a100,
                        ["gpu_memory_utilization=0.5"])
    assert not result.fits and _fp8_change(result) is None


def test_no_fp8_weights_change_when_the_checkpoint_is_already_fp8(catalog) -> None:
    l40s = catalog_device(catalog.find_gpu("l40s"))
    result = engine_fit("sglang", spec_from_catalog(catalog.model("qwen3-235b-a22b-fp8")), l40s)
    assert not result.fits and _fp8_change(result) is None


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_fp8_weight_format_of_a_16_bit_checkpoint_launches_with_quantization_fp8(catalog, engine) -> None:
    h100 = catalog_device(catalog.find_gpu("h100-sxm5"))
    llama = spec_from_catalog(catalog.model("llama-3.1-8b"))  # BF16 checkpoint
    asked = engine_fit(engine, llama, h100, weight_format="fp8")
    flagged = engine_fit(engine, llama, h100, ["quantization=fp8"])
    assert "--quantization fp8" in asked.command and asked.command == flagged.command
    assert asked.per_gpu.weights_bytes == flagged.per_gpu.weights_bytes
    assert "--quantization" not in engine_fit(engine, llama, h100, weight_format="bf16").command


def test_fp8_weight_format_of_an_fp8_checkpoint_adds_no_flag(catalog) -> None:
    h100 = catalog_device(catalog.find_gpu("h100-sxm5"))
    fp8 = spec_from_catalog(catalog.model("qwen3-235b-a22b-fp8"))
    assert "--quantization" not in engine_fit("vllm", fp8, h100, weight_format="fp8", gpus=4).command
