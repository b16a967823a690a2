"""vLLM's custom all-reduce runs on AMD only on the MI300 series and later (serve_rates.engine_custom_allreduce)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_rates import (
    AMD_CUSTOM_ALLREDUCE_S,
    RING_HOP_S,
    allreduce_latency_s,
    engine_custom_allreduce,
    one_shot_max_bytes,
)
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_vllm_rocm_custom_allreduce_only_on_mi300_series(catalog):
    """vllm/platforms/rocm.py RocmPlatform.use_custom_allreduce enables the kernel for gfx94x / gfx95x only: on the
    MI250X (gfx90a, its Infinity Fabric mesh) vLLM's all-reduces go through RCCL's ring, on the MI300X through the
    one-shot kernel; SGLang's copy of the kernel has no architecture check."""
    mi250x, mi300x = catalog.gpu("mi250x"), catalog.gpu("mi300x")
    assert not engine_custom_allreduce("vllm", mi250x)
    assert engine_custom_allreduce("vllm", mi300x) and engine_custom_allreduce("sglang", mi250x)
    link = catalog.link("amd-if-mi250x")
    alpha, source = allreduce_latency_s(link, mi250x, 4, 8, "vllm")
    assert alpha == pytest.approx(6 * RING_HOP_S["amd"])
    assert "use_custom_allreduce" in source
    assert one_shot_max_bytes(link, mi250x, 4, 8, "vllm") == 0.0
    assert allreduce_latency_s(link, mi250x, 4, 8, "sglang")[0] == AMD_CUSTOM_ALLREDUCE_S
    mi300_link = catalog.link("amd-if-mi300x")
    assert allreduce_latency_s(mi300_link, mi300x, 8, 8, "vllm")[0] == AMD_CUSTOM_ALLREDUCE_S
    assert one_shot_max_bytes(mi300_link, mi300x, 8, 8, "vllm") == 256 * 1024


def test_vllm_decode_step_on_mi250x_pays_the_rccl_ring(catalog):
    """Llama 3.1 70B BF16 at TP 4 on MI250X: vLLM's decode step carries 160 all-reduces at RCCL's ring latency,
    SGLang's at its one-shot kernel's, so vLLM's one-token step is the difference longer."""
    spec = spec_from_catalog(catalog.model("llama-3.1-70b"))
    gpu, link = catalog.gpu("mi250x"), catalog.link("amd-if-mi250x")
    steps = {}
    for engine in ("vllm", "sglang"):
        load = ServeLoad(engine=engine, input_tokens=128, output_tokens=128, concurrency=1, tp=4,
                         weight_format="bf16", gpus_per_node=8).validated()
        steps[engine] = step_model(spec, gpu, load, link, engine_budget(spec, gpu, load).kv_dtype)
    extra = 2 * spec.layers * (6 * RING_HOP_S["amd"] - AMD_CUSTOM_ALLREDUCE_S)
    assert steps["vllm"].allreduce_s(1) - steps["sglang"].allreduce_s(1) == pytest.approx(extra, rel=0.05)
