"""The eager-decode assumptions of a serving step are written once (qafix4 item 3): serve_step builds them through
:func:`eager_decode_assumptions`, with the same labels and zh_CN texts as before."""

from __future__ import annotations


import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_step import eager_decode_assumptions, step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad

EAGER = ("eager_decode_above", "eager_long_decode")


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _steps(catalog, model: str, engine: str, version: str, gpu: str = "h100-sxm5", **load: object):
    spec = spec_from_catalog(catalog.model(model))
    device = catalog.gpu(gpu)
    serve = ServeLoad(engine=engine, engine_version=version, **load).validated()  # type: ignore[arg-type]
    link = catalog.link("nvlink4") if serve.tp > 1 else None
    return step_model(spec, device, serve, link, engine_budget(spec, device, serve).kv_dtype)


# Real configurations of tests/sizing/test_serve_eager_prefill.py: SGLang 0.5.8 (cuda_graph_max_bs 256 on an H100),
# vLLM 0.6.3 at a 30k-token prompt (max_seq_len_to_capture 8192), vLLM 0.5.5 (decode graphs up to 256 requests).
CASES = {
    "sglang": ("qwen3-30b-a3b-fp8", "sglang", "0.5.8", dict(input_tokens=302, output_tokens=196,
                                                           request_rate_per_s=float("inf"), num_prompts=1000, tp=1,
                                                           weight_format="fp8")),
    "vllm-v0-long": ("qwen2.5-7b", "vllm", "0.6.3", dict(input_tokens=30720, output_tokens=2048, concurrency=1, tp=1,
                                                         weight_format="bf16")),
    "vllm-v0-batch": ("llama-3.1-70b", "vllm", "0.5.5", dict(input_tokens=128, output_tokens=128, concurrency=512,
                                                            max_num_seqs=512, tp=8, weight_format="fp8")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_step_model_states_the_shared_eager_decode_assumptions(catalog, case: str) -> None:
    model, engine, version, load = CASES[case]
    steps = _steps(catalog, model, engine, version, **load)
    got = [a for a in steps.assumptions if a.name in EAGER]
    assert got, case
    eager_s = steps.layers * steps.prefill_launch_layer_s
    kernels = dict(got[0].quantities)["kernels_per_step"]
    v0_batch = steps.eager_decode_above_requests if engine == "vllm" else 0
    sglang_batch = steps.eager_decode_above_requests if engine == "sglang" else 0
    assert got == eager_decode_assumptions(eager_s, int(kernels), v0_batch, sglang_batch,
                                           steps.eager_decode_above_context_tokens)


def test_labels_and_zh_cn_texts_are_unchanged(zh_cn: None) -> None:
    out = eager_decode_assumptions(0.0441, 100, 0, 256, 8192)
    assert [a.label for a in out] == ["超出 CUDA 图上限的解码批（CPU）", "上下文超出 CUDA 图上限的解码步（CPU）"]
    assert out[0].value == ("超过 256 个请求的解码批次不使用 CUDA Graph（SGLang 按该 GPU 显存与 TP 设定的默认 "
                            "cuda_graph_max_bs）：每步至少持续 44.1 毫秒")


def test_the_v0_batch_cap_takes_precedence() -> None:
    out = eager_decode_assumptions(0.042, 100, 256, 160, 0)
    assert [a.name for a in out] == ["eager_decode_above"]
    assert "vLLM V0 before 0.6" in out[0].value and "42 ms" in out[0].value
