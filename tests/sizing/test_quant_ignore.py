"""A quantised checkpoint's ignore list: the Linear layers it keeps 16-bit are sized at 16 bits."""

from __future__ import annotations

import json

from gpudesk.sizing.engines.validation import evaluate_case, fixtures_dir, load_cases
from gpudesk.sizing.memory_inference import weight_bytes
from gpudesk.sizing.quant_ignore import decoder_linear_modules, ignore_list, unquantized_linear_params
from gpudesk.sizing.shapes import spec_from_hf_config

GIB = 1024**3
CONFIGS = fixtures_dir() / "configs"


def test_prefix_exact_and_regex_entries_cover_their_modules() -> None:
    modules = decoder_linear_modules(2, 8, 2, 1, 4, 16, gated=True)
    attn = 8 * 8 + 8 * 4 + 8 * 4 + 8 * 8  # q, k, v, o of one layer (hidden 8, heads 2 x 4, one KV head)
    mlp = 3 * 8 * 16
    assert unquantized_linear_params({"modules_to_not_convert": ["model.layers.0"]}, modules) == attn + mlp
    assert unquantized_linear_params({"ignore": ["re:.*self_attn.*", "lm_head"]}, modules) == 2 * attn
    assert unquantized_linear_params({"ignored_layers": ["model.layers.1.mlp.down_proj"]}, modules) == 8 * 16
    # "model.layers.1" must not cover "model.layers.10..." (dotted-name prefix, not a string prefix)
    assert unquantized_linear_params({"modules_to_not_convert": ["model.layers.1"]},
                                     decoder_linear_modules(11, 8, 2, 1, 4, 16, gated=True)) == attn + mlp
    assert unquantized_linear_params({"quant_method": "fp8"}, modules) == 0
    assert ignore_list({"ignore": ["re:(", 3]}) == ["re:("]
    assert unquantized_linear_params({"ignore": ["re:("]}, modules) == 0  # a bad pattern covers nothing


def test_llama31_405b_fp8_keeps_attention_and_the_end_layers_16_bit() -> None:
    """vllm-project/vllm#6746: Llama-3.1-405B-Instruct-FP8 at TP 8 on H100 logs 57.75 GiB of weights per rank."""
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-405b-instruct-fp8.json")
    cfg = json.loads((CONFIGS / "llama-3.1-405b-instruct-fp8.json").read_text())
    assert spec.checkpoint_weight_format == "fp8"
    attn_per_layer = 16384 * 16384 * 2 + 16384 * 1024 * 2
    mlp_per_layer = 3 * 16384 * 53248
    assert spec.unquantized_linear_params == 126 * attn_per_layer + 2 * mlp_per_layer
    per_rank_gib = weight_bytes(spec, "fp8") / 8 / GIB
    assert abs(per_rank_gib / 57.75 - 1) < 0.03
    # the same shape without the ignore list (every Linear fp8) is 17 % short of the printed figure
    del cfg["quantization_config"]["modules_to_not_convert"]
    assert unquantized_linear_params(cfg["quantization_config"], []) == 0
    cases, base = load_cases()
    case = next(c for c in cases if c["id"] == "vllm-6746-llama31-405b-fp8-8xh100")
    assert all(f.within for f in evaluate_case(case, base).figures if f.category == "weights")


def test_another_format_than_the_checkpoints_quantises_every_linear() -> None:
    spec = spec_from_hf_config(CONFIGS / "llama-3.1-405b-instruct-fp8.json")
    keep = spec.embedding_params
    assert weight_bytes(spec, "int4") == (spec.params - keep) * 4 / 8 + keep * 2
