"""llama.cpp's GPU backend (gpudesk.sizing.llamacpp_backends): a row or user may name it (cuda, vulkan, hip/rocm,
metal, sycl); every one is priced as CUDA and the result says so; any other name is refused."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.llamacpp_backends import llamacpp_backend
from gpudesk.sizing.speed_serve_cases import load_of_case, predict_serve_case

ROWS = Path(__file__).resolve().parents[1] / "fixtures" / "speed" / "fresh122_serve_runs.jsonl"


def _row(case_id: str) -> dict:
    for line in ROWS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == case_id:
            return row
    raise AssertionError(case_id)


VULKAN_ROW = "ikllama-disc562-rtx4080-vulkan-llama-3-1-8b-q4-0-sweep-tg256-at-kv0"


def test_a_vulkan_row_is_answered_as_its_cuda_twin():
    vulkan = _row(VULKAN_ROW)
    assert vulkan["backend"] == "vulkan"
    predicted_vulkan, seen_vulkan = predict_serve_case(vulkan)
    predicted_cuda, seen_cuda = predict_serve_case({**vulkan, "backend": "cuda"})
    assert predicted_vulkan == pytest.approx(predicted_cuda, rel=1e-12)
    # measured 91.16 tokens/s with Vulkan: answered, not refused
    assert 0.5 < predicted_vulkan / vulkan["measured"]["value"] < 2.0
    stated = {a.name: a.value for a in seen_vulkan}
    assert stated["llamacpp_backend"] == ("llama.cpp's vulkan backend is priced as its CUDA backend (no published "
                                          "figure separates them)")
    assert "cuda backend" in {a.name: a.value for a in seen_cuda}["llamacpp_backend"]


def test_backend_names_and_refusals():
    assert llamacpp_backend(None) == "cuda"
    assert llamacpp_backend("ROCm") == "hip"
    assert llamacpp_backend("Vulkan") == "vulkan"
    load = load_of_case(_row(VULKAN_ROW))
    for name in ("metal", "sycl", "hip", "rocm"):
        replace(load, backend=name).validated()
    for name in ("opencl", "cpu", "turbomind"):
        with pytest.raises(SizingError) as refused:
            replace(load, backend=name).validated()
        assert refused.value.field == "backend"
        assert "not a llama.cpp GPU backend" in str(refused.value)
    with pytest.raises(SizingError, match="only TensorRT-LLM, LMDeploy and llama.cpp"):
        replace(load, engine="vllm", backend="vulkan", engine_version=None).validated()
