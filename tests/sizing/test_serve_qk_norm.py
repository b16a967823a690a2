"""A layer-wide QK RMSNorm under tensor parallelism (gpudesk.sizing.serve_qk_norm): MiniMax-M2's extra all-reduce."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gpudesk.sizing.serve_load import ServeLoad
from gpudesk.sizing.serve_nvlink_allreduce import rank_skew_s
from gpudesk.sizing.serve_qk_norm import LAYER_QK_NORM_KERNELS, layer_qk_norm_per_layer
from gpudesk.sizing.serve_rates import CUSTOM_ALLREDUCE_S, SMALL_KERNEL_GRAPH_S
from gpudesk.sizing.serve_step import step_model
from gpudesk.sizing.shapes import spec_from_hf_config
from gpudesk.sizing.speed_serve_cases import _gpu, _spec, intra_link


def _minimax_load(tp: int, ep: int) -> ServeLoad:
    # sgl-cookbook MiniMax-M2.5.md (7dfb02d): sglang serve --tp 8 --ep 8 on 8 x B200, SGLang 0.5.8, random 1000/1000
    return ServeLoad(engine="sglang", input_tokens=609, output_tokens=422, concurrency=1, tp=tp,
                     engine_version="0.5.8", expert_parallel=ep, weight_format="fp8")


def test_minimax_m2_norms_q_and_k_over_every_head() -> None:
    spec = _spec("minimax-m2.7")
    assert spec.layer_qk_norm
    assert not _spec("qwen3-235b-a22b").layer_qk_norm  # Qwen3 normalises each head on its own
    assert layer_qk_norm_per_layer(spec, 8) == (LAYER_QK_NORM_KERNELS, 1)
    assert layer_qk_norm_per_layer(spec, 1) == (0, 0)  # one GPU holds every head: a local norm


def test_tp8_decode_step_pays_one_more_small_allreduce_and_two_kernels_per_layer() -> None:
    spec, gpu = _spec("minimax-m2.7"), _gpu("b200")
    link = intra_link(gpu, "nvlink", 8)
    with_norm = step_model(spec, gpu, _minimax_load(8, 8), link, "bf16")
    without = step_model(dataclasses.replace(spec, layer_qk_norm=False), gpu, _minimax_load(8, 8), link, "bf16")
    assert with_norm.norm_allreduces_per_layer == 1 and without.norm_allreduces_per_layer == 0
    extra = with_norm.gpu_s(1, 1000.0) - without.gpu_s(1, 1000.0)
    # 62 layers x (one-shot all-reduce latency of a few bytes + the wait for the slowest rank + 2 kernels at the
    # graph floor)
    expected = 62 * (CUSTOM_ALLREDUCE_S[8] + rank_skew_s(8) + LAYER_QK_NORM_KERNELS * SMALL_KERNEL_GRAPH_S)
    assert extra == pytest.approx(expected, rel=0.02)
    assert any(a.name == "layer_qk_norm_allreduce" for a in with_norm.assumptions)


def test_single_gpu_step_is_unchanged() -> None:
    spec, gpu = _spec("minimax-m2.7"), _gpu("b200")
    load = ServeLoad(engine="sglang", input_tokens=609, output_tokens=422, concurrency=1, tp=1, weight_format="fp8")
    one = step_model(spec, gpu, load, None, "bf16")
    plain = step_model(dataclasses.replace(spec, layer_qk_norm=False), gpu, load, None, "bf16")
    assert one.gpu_s(1, 1000.0) == plain.gpu_s(1, 1000.0)


def test_config_qk_norm_type_per_layer_is_read(tmp_path) -> None:
    # MiniMaxAI/MiniMax-M2 config.json keys (qk_norm_type per_layer, use_qk_norm true)
    cfg = {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072,
           "num_hidden_layers": 62, "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128,
           "intermediate_size": 1536, "vocab_size": 200064, "max_position_embeddings": 196608,
           "num_local_experts": 256, "num_experts_per_tok": 8, "qk_norm_type": "per_layer", "use_qk_norm": True}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    assert spec_from_hf_config(path).layer_qk_norm
    path.write_text(json.dumps({**cfg, "qk_norm_type": "per_head"}))
    assert not spec_from_hf_config(path).layer_qk_norm
