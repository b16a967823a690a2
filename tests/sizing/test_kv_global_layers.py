"""KV cache of models whose global (full-attention) layers have their own KV heads and head width (Gemma 4).

Gemma 4 31B (google/gemma-4-31B-it config.json, text_config): 60 layers, 50 sliding-window (1024) layers with 16 KV
heads of head_dim 256 and 10 global layers with ``num_global_key_value_heads`` 4 of ``global_head_dim`` 512
(``attention_k_eq_v``: V comes from the K projection, but K and V are still two cached tensors: SGLang
``models/gemma4_causal.py`` caches K after ``k_norm`` + RoPE and V after ``v_norm``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.memory_inference import (
    kv_bytes_per_token,
    kv_global_layer_bytes_per_token,
    kv_layer_bytes_per_token,
    kv_sequence_bytes,
    kv_token_bytes_all_layers,
)
from gpudesk.sizing.serve_engine import sum_layers_kv_bytes
from gpudesk.sizing.shapes import spec_from_hf_config

KIB = 1024


def _gemma4():
    return spec_from_catalog(open_catalog().model("gemma-4-31b"))


def test_catalog_gives_gemma4_global_layer_geometry() -> None:
    spec = _gemma4()
    assert (spec.global_kv_heads, spec.global_head_dim) == (4, 512)
    assert (spec.local_attention_layers, spec.global_attention_layers) == (50, 10)


def test_gemma4_kv_per_token_counts_each_layer_kind_with_its_heads() -> None:
    spec = _gemma4()
    assert kv_layer_bytes_per_token(spec, "bf16") == 16 * KIB  # 2 x 16 x 256 x 2 B
    assert kv_global_layer_bytes_per_token(spec, "bf16") == 8 * KIB  # 2 x 4 x 512 x 2 B
    assert kv_token_bytes_all_layers(spec, "bf16") == 880 * KIB  # not 60 x 16 = 960 KiB
    assert kv_bytes_per_token(spec) == 880 * KIB
    assert sum_layers_kv_bytes(spec, "bf16", 1) == 880 * KIB
    assert spec.kv_cache_elements_per_token * 2 == 880 * KIB


def test_gemma4_global_heads_split_over_tensor_parallel_ranks() -> None:
    spec = _gemma4()
    # TP 8: 16 // 8 = 2 sliding heads, max(1, 4 // 8) = 1 global head (replicated) per rank
    assert kv_token_bytes_all_layers(spec, "bf16", 8) == (50 * 2 * 2 * 256 * 2 + 10 * 2 * 1 * 512 * 2)


def test_gemma4_sequence_caps_sliding_layers_and_keeps_global_width() -> None:
    spec = _gemma4()
    n = 65536
    per_seq = kv_sequence_bytes(spec, n, "bf16", block_tokens=None)
    assert per_seq == 10 * 8 * KIB * n + 50 * 16 * KIB * 1024
    assert kv_sequence_bytes(spec, n, "bf16", block_tokens=None, hybrid_kv_cache=False) == 880 * KIB * n


def test_models_without_global_geometry_are_unchanged() -> None:
    for model, kib in (("llama-3.1-8b", 128), ("gemma-3-27b", 62 * 16 // 2), ("gpt-oss-20b", 48)):
        spec = spec_from_catalog(open_catalog().model(model))
        assert spec.global_kv_heads is None and spec.global_head_dim is None
        assert kv_token_bytes_all_layers(spec, "bf16") == kib * KIB


def test_config_global_keys_give_the_global_geometry(tmp_path: Path) -> None:
    text = {"model_type": "gemma4_text", "hidden_size": 5376, "num_hidden_layers": 60, "num_attention_heads": 32,
            "num_key_value_heads": 16, "head_dim": 256, "global_head_dim": 512, "num_global_key_value_heads": 4,
            "attention_k_eq_v": True, "intermediate_size": 21504, "vocab_size": 262144, "sliding_window": 1024,
            "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 10,
            "max_position_embeddings": 262144, "tie_word_embeddings": True}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gemma4", "text_config": text}))
    spec = spec_from_hf_config(path)
    assert (spec.global_kv_heads, spec.global_head_dim) == (4, 512)
    assert kv_token_bytes_all_layers(spec, "bf16") == 880 * KIB
    # without attention_k_eq_v the global layers keep num_key_value_heads (transformers Gemma4TextAttention)
    path.write_text(json.dumps({"model_type": "gemma4", "text_config": dict(text, attention_k_eq_v=False)}))
    spec = spec_from_hf_config(path)
    assert (spec.global_kv_heads, spec.global_head_dim) == (None, 512)
    assert kv_token_bytes_all_layers(spec, "bf16") == (50 * 16 + 10 * 2 * 16 * 512 * 2 // KIB) * KIB


@pytest.mark.parametrize("bad", [0, -4, "4"])
def test_config_rejects_a_bad_global_head_count(tmp_path: Path, bad: object) -> None:
    from gpudesk.sizing.errors import SizingError

    text = {"model_type": "gemma4_text", "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
            "num_key_value_heads": 4, "head_dim": 64, "global_head_dim": 128, "num_global_key_value_heads": bad,
            "attention_k_eq_v": True, "intermediate_size": 1024, "vocab_size": 1000, "sliding_window": 16,
            "layer_types": ["sliding_attention", "full_attention"]}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gemma4", "text_config": text}))
    with pytest.raises(SizingError):
        spec_from_hf_config(path)
