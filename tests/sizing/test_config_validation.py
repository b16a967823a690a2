"""HF config.json at the boundary (issue 14): every bad value gives a ConfigFileError naming the field, fast,
never a MemoryError, RecursionError or a negative parameter count."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from gpudesk.sizing.errors import ConfigFileError, ShapeError
from gpudesk.sizing.shapes import parse_param_count, spec_from_hf_config

LLAMA = Path(__file__).resolve().parents[1] / "fixtures" / "plan" / "llama-2-7b-hf.config.json"


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.json"
    p.write_text(text, encoding="utf-8")
    return p


def _llama(tmp_path: Path, **changes: object) -> Path:
    cfg = json.loads(LLAMA.read_text(encoding="utf-8"))
    cfg.update(changes)
    return _write(tmp_path, json.dumps(cfg))


@pytest.mark.parametrize(("field", "value", "words"), [
    ("num_local_experts", "8", "whole number"),
    ("num_local_experts", [8, 8], "JSON list"),
    ("num_local_experts", {"n": 8}, "JSON object"),
    ("hidden_size", math.nan, "whole number"),
    ("hidden_size", -4096, "greater than zero"),
    ("num_hidden_layers", -32, "greater than zero"),
    ("vocab_size", 32000.5, "whole number"),
    ("max_position_embeddings", "4k", "whole number"),
    ("num_attention_heads", True, "whole number"),
    ("num_local_experts", -8, "zero or more"),
    ("intermediate_size", 1e300, "implausibly large"),
    ("model_type", ["llama"], "must be text"),
])
def test_bad_field_is_named(tmp_path, field, value, words):
    t0 = time.process_time()
    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(_llama(tmp_path, **{field: value}))
    assert field in str(info.value) and words in str(info.value)
    assert info.value.field == field
    assert time.process_time() - t0 < 1.0  # the string/list expert count took 8.6 s and 2.1 GB before


def test_negative_values_never_give_a_negative_parameter_count(tmp_path):
    with pytest.raises(ConfigFileError, match="head_dim"):
        spec_from_hf_config(_llama(tmp_path, head_dim=-128))


def test_deep_nesting_is_refused_without_recursion_error(tmp_path):
    text = '{"hidden_size": 4096, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ConfigFileError, match="nests lists or objects more than 64 levels"):
        spec_from_hf_config(_write(tmp_path, text))


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    cfg = json.loads(LLAMA.read_text(encoding="utf-8"))
    cfg["_comment"] = "[" * 500 + '\\"{' * 100
    spec = spec_from_hf_config(_write(tmp_path, json.dumps(cfg)))
    assert spec.params == 6_738_415_616


def test_giant_integer_and_huge_file(tmp_path):
    with pytest.raises(ConfigFileError, match="not a usable config.json"):
        spec_from_hf_config(_write(tmp_path, '{"hidden_size": ' + "9" * 5000 + "}"))
    with pytest.raises(ConfigFileError, match="hidden_size"):
        spec_from_hf_config(_write(tmp_path, '{"hidden_size": ' + "9" * 309 + "}"))
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(17 * 1024 * 1024)
    with pytest.raises(ConfigFileError, match="the limit is 16 MiB"):
        spec_from_hf_config(big)


@pytest.mark.parametrize("value", [10**309, -(10**309), "9" * 309, "1e400", "nan", "-5B", float("inf")])
def test_parse_param_count_309_digits_and_non_finite(value):
    with pytest.raises(ShapeError) as info:
        parse_param_count(value)
    assert len(str(info.value)) < 200


_MIXTRAL = {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8,
            "num_experts_per_tok": 2}


@pytest.mark.parametrize("change, field, words", [
    ({"num_local_experts": 0}, "num_local_experts", "at least one expert"),
    ({"num_experts_per_tok": 9}, "num_experts_per_tok", "more than the 8 experts"),
    ({"num_experts_per_tok": 0}, "num_experts_per_tok", "at least one expert"),
    ({"num_key_value_heads": 64}, "num_key_value_heads", "more key/value heads than the 32"),
    ({"num_key_value_heads": 6}, "num_key_value_heads", "does not divide the 32 attention heads"),
    ({"num_attention_heads": 30, "num_key_value_heads": 10}, "num_attention_heads", "does not divide hidden_size"),
    ({"num_hidden_layers": 0}, "num_hidden_layers", "greater than zero"),
    ({"num_attention_heads": -4}, "num_attention_heads", "greater than zero"),
    ({"first_k_dense_replace": 40}, "first_k_dense_replace", "more than the 32 layers"),
])
def test_impossible_shapes_are_refused_with_the_field_named(tmp_path, change, field, words):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**_MIXTRAL, **change}), encoding="utf-8")
    with pytest.raises(ConfigFileError, match=words) as info:
        spec_from_hf_config(path)
    assert info.value.field == field


def test_plausible_moe_and_explicit_head_width_are_sized(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(_MIXTRAL), encoding="utf-8")
    assert spec_from_hf_config(path).moe_experts == 8
    # Gemma-style: the head width is given, so 4096 need not split evenly into 7 heads
    path.write_text(json.dumps({**_MIXTRAL, "num_attention_heads": 7, "num_key_value_heads": 1, "head_dim": 256}),
                    encoding="utf-8")
    assert spec_from_hf_config(path).params > 0
