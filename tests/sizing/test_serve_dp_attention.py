"""Data-parallel attention inside a tensor-parallel replica (gpudesk.sizing.serve_dp_attention): weights, KV
capacity, per-step reads and the case / CLI mapping, on catalog models and GPUs."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_dp_attention import attention_params_per_layer
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed
from gpudesk.sizing.speed_serve_cases import intra_link, load_of_case


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_attention_params_match_the_published_projection_shapes(catalog):
    # DeepSeek-V3 config.json: hidden 7168, 128 heads, q_lora 1536, kv_lora 512, rope 64, nope 128, v 128:
    # q_a 7168x1536 + q_b 1536x(128x192) + kv_a 7168x576 + kv_b 512x(128x256) + o (128x128)x7168.
    mla = attention_params_per_layer(spec_from_catalog(catalog.model("deepseek-v3")))
    assert mla == 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168
    # Llama 3.1 70B: 64 query heads, 8 KV heads of 128.
    gqa = attention_params_per_layer(spec_from_catalog(catalog.model("llama-3.1-70b")))
    assert gqa == 8192 * 8192 * 2 + 2 * 8192 * 8 * 128


def test_dp_attention_multiplies_the_mla_kv_capacity_and_divides_the_kv_read(catalog):
    """MLA caches its latent whole on every TP rank: one GPU per attention group caches only 1/8 of the
    requests, so the replica holds nearly 8x the tokens (a little less: each GPU now holds all attention weights)
    and each GPU reads 1/8 of the KV per step."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    plain = ServeLoad(engine="sglang", tp=8, concurrency=64, input_tokens=1024, output_tokens=1024)
    dp = dataclasses.replace(plain, attention_dp=8)
    tp_budget, dp_budget = engine_budget(spec, gpu, plain), engine_budget(spec, gpu, dp)
    assert 6 * tp_budget.kv_capacity_tokens < dp_budget.kv_capacity_tokens < 8 * tp_budget.kv_capacity_tokens
    assert dp_budget.weights_bytes > tp_budget.weights_bytes + 1e9
    link = intra_link(gpu, "nvlink")
    tp_step, dp_step = step_model(spec, gpu, plain, link, "bf16"), step_model(spec, gpu, dp, link, "bf16")
    assert dp_step.kv_bytes_per_token == pytest.approx(tp_step.kv_bytes_per_token / 8)
    assert dp_step.allreduces_per_layer == 1 and tp_step.allreduces_per_layer == 2
    # One request: the extra attention weights make the step slower; 256 long requests: the KV read is 1/8.
    assert dp_step.step_s(1, 2048) > tp_step.step_s(1, 2048)
    assert dp_step.step_s(256, 256 * 8192) < tp_step.step_s(256, 256 * 8192)


def test_dp_attention_serves_more_requests_at_high_concurrency(catalog):
    """1024 clients on 8 x H200: plain TP8 runs out of replicated MLA KV cache, DP attention does not."""
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    load = ServeLoad(engine="trtllm", tp=8, concurrency=1024, input_tokens=1024, output_tokens=2048,
                     num_prompts=2048, max_num_seqs=128)
    link = intra_link(gpu, "nvlink")
    plain = serve_speed(spec, gpu, load, link)
    dp = serve_speed(spec, gpu, dataclasses.replace(load, attention_dp=8), link)
    # TensorRT-LLM's max_batch_size is per rank: 8 x 128 requests may run.
    assert dp.batch > 4 * plain.batch
    assert dp.output_tokens_per_s > 2 * plain.output_tokens_per_s


def test_sglang_max_running_requests_is_shared_by_the_ranks(catalog):
    spec = spec_from_catalog(catalog.model("deepseek-r1"))
    gpu = catalog.gpu("h200-sxm")
    load = ServeLoad(engine="sglang", tp=8, concurrency=64, attention_dp=8, max_num_seqs=128)
    assert engine_budget(spec, gpu, load).max_running == 128
    assert engine_budget(spec, gpu, dataclasses.replace(load, engine="trtllm")).max_running == 8 * 128


def test_attention_groups_must_divide_the_tensor_parallel_gpus():
    with pytest.raises(SizingError) as err:
        ServeLoad(tp=8, attention_dp=3, batch=1).validated()
    assert err.value.field == "attention_dp"
    with pytest.raises(SizingError):
        ServeLoad(tp=8, attention_dp=0, batch=1).validated()
    assert ServeLoad(tp=8, attention_dp=4, batch=1).validated().attention_dp == 4


def test_case_rows_map_the_dp_attention_switch():
    row = {"engine": "sglang", "input_tokens": 1024, "output_tokens": 1024, "concurrency": 8, "tp": 8, "gpus": 8}
    assert load_of_case(row).attention_dp == 1
    on = load_of_case(dict(row, enable_dp_attention=True, dp=8))
    assert (on.attention_dp, on.replicas) == (8, 1)  # SGLang's --dp with DP attention is not replicas
    assert load_of_case(dict(row, enable_dp_attention=True)).attention_dp == 8
    assert load_of_case(dict(row, enable_dp_attention=True, dp=2)).attention_dp == 2
    assert load_of_case(dict(row, dp=2)).replicas == 2


def test_mla_down_projections_are_read_whole_on_every_tp_rank(catalog):
    """DeepSeek-V3: the fused q_a / kv_a projection, 7168 x (1536 + 512 + 64) per layer, is a ReplicatedLinear in
    SGLang and vLLM: at TP8 every GPU reads all of it each step, 7/8 of it more than an even split; at TP1 (or one
    GPU per attention group) nothing changes."""
    from gpudesk.sizing.serve_dp_attention import replicated_attention_params_per_layer

    spec = spec_from_catalog(catalog.model("deepseek-v3"))
    assert replicated_attention_params_per_layer(spec) == 7168 * 2112
    assert replicated_attention_params_per_layer(spec_from_catalog(catalog.model("llama-3.1-70b"))) == 0
    gpu, link = catalog.gpu("h200-sxm"), catalog.link("nvlink4")
    load = ServeLoad(tp=8, batch=1, weight_format="fp8", engine="sglang", engine_version="0.5.7")
    model = step_model(spec, gpu, load, link, "bf16")
    replicated = next(a for a in model.assumptions if a.name == "replicated_mla_projections")
    # 61 layers x 15.1 MB of FP8 weights (0.92 GB) and their block scales, per GPU
    assert replicated.value.startswith("0.93 GB")
    dp = step_model(spec, gpu, dataclasses.replace(load, attention_dp=8), link, "bf16")
    assert "replicated_mla_projections" not in {a.name for a in dp.assumptions}
