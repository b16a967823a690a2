"""TensorRT-LLM's PyTorch flow launches a step with prompt tokens without CUDA graphs
(gpudesk.sizing.serve_rates.prefill_steps_run_eager; tensorrt_llm/_torch/pyexecutor/scheduler.py
ScheduledRequests.can_run_cuda_graph gating model_engine.py _maybe_get_cuda_graph, v0.21)."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_rates import SMALL_KERNEL_EAGER_S, prefill_steps_run_eager
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import intra_link


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _issue5929(backend: str) -> ServeLoad:
    """NVIDIA/TensorRT-LLM issue 5929's H200 run: DeepSeek-R1 FP8, TP 8, one request of 1600 / 600 tokens."""
    return ServeLoad(engine="trtllm", engine_version="0.21.0rc2", backend=backend, tp=8, gpus_per_node=8,
                     weight_format="fp8", kv_dtype="bf16", input_tokens=1600, output_tokens=600,
                     concurrency=1).validated()


def test_trtllm_pytorch_flow_runs_prompt_steps_eager():
    assert prefill_steps_run_eager("trtllm", (0, 21), "pytorch")
    assert not prefill_steps_run_eager("trtllm", (0, 21), "tensorrt")
    assert not prefill_steps_run_eager("trtllm", (1, 0), None)


def test_deepseek_r1_prompt_step_on_h200_pays_eager_launches_on_the_pytorch_flow_only(catalog):
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    link = intra_link(gpu, "nvlink", 8)
    steps = {}
    for backend in ("pytorch", "tensorrt"):
        load = _issue5929(backend)
        steps[backend] = step_model(spec, gpu, load, link, engine_budget(spec, gpu, load).kv_dtype)
    eager = steps["pytorch"]
    # every kernel of a prompt step at the eager launch floor: MLA + routed-MoE layers launch dozens each
    assert eager.prefill_layer_latency_s * eager.layers > 100 * SMALL_KERNEL_EAGER_S
    assert any(a.name == "prefill_kernel_floor_s" for a in serve_speed(spec, gpu, _issue5929("pytorch"), link).assumptions)
    assert steps["tensorrt"].prefill_layer_latency_s == 0.0
