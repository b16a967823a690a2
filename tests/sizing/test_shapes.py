"""Model shapes from real Hugging Face config.json files, the catalog, and bare parameter counts."""

import json

import pytest
from conftest import FIXTURES

from gpudesk.sizing import (
    ConfigFileError,
    ShapeError,
    parse_param_count,
    spec_from_hf_config,
    spec_from_params,
)

PLAN = FIXTURES / "plan"
MIB = 1024**2


def test_bert_base_cased_matches_accelerate_docs():
    spec = spec_from_hf_config(PLAN / "bert-base-cased.config.json")
    assert spec.params == 108_310_272
    # accelerate counts parameters + buffers (position_ids and token_type_ids, 512 int64 each): 413.18 MB (MiB).
    assert round((spec.params * 4 + 2 * 512 * 8) / MIB, 2) == 413.18
    # Largest layer: the 28996 x 768 word embedding, 84.95 MB in fp32.
    assert round(spec.largest_layer_params * 4 / MIB, 2) == 84.95
    # "Training using Adam" in fp32: weights + grads + 2 moments = 4 x model size = 1.61 GB (GiB).
    assert round(4 * (spec.params * 4 + 2 * 512 * 8) / 1024**3, 2) == 1.61
    assert spec.kind == "encoder" and not spec.shape_is_guess


def test_t5_3b_matches_deepspeed_docs():
    spec = spec_from_hf_config(PLAN / "t5-3b.config.json")
    assert spec.params == 2_851_598_336  # "2851M total params"
    assert spec.largest_layer_params == 32_899_072  # "32M largest layer params"
    assert spec.kind == "encoder-decoder"


def test_llama_configs_count_like_the_catalog():
    l2 = spec_from_hf_config(PLAN / "llama-2-7b-hf.config.json")
    l3 = spec_from_hf_config(PLAN / "meta-llama-3-8b.config.json")
    assert l2.params == 6_738_415_616
    assert l3.params == 8_030_261_248
    assert l3.kv_heads_resolved == 8 and l3.gated


def test_guessed_shape_is_flagged_and_close():
    spec = spec_from_params("13B")
    assert spec.shape_is_guess
    assert spec.params == 13_000_000_000
    assert spec.hidden_size == 5120 and spec.layers == 40  # Llama-2-13B's published shape
    assert "guess" in spec.source


@pytest.mark.parametrize("text,value", [("13B", 13e9), ("350M", 350e6), ("6.7e9", 6.7e9), ("1_000", 1000), (7e9, 7e9)])
def test_parse_param_count(text, value):
    assert parse_param_count(text) == int(value)


@pytest.mark.parametrize("text", ["0", "-5B", "abc", "1e20", "nan", True])
def test_parse_param_count_rejects(text):
    with pytest.raises(ShapeError) as info:
        parse_param_count(text)
    assert info.value.field == "params"


def test_malformed_config_files(tmp_path):
    missing = tmp_path / "none.json"
    with pytest.raises(ConfigFileError, match="Cannot read"):
        spec_from_hf_config(missing)
    bad = tmp_path / "bad.json"
    bad.write_text('{"hidden_size": 4096,', encoding="utf-8")
    with pytest.raises(ConfigFileError, match="not valid JSON"):
        spec_from_hf_config(bad)
    arr = tmp_path / "arr.json"
    arr.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ConfigFileError, match="JSON object"):
        spec_from_hf_config(arr)
    cfg = json.loads((PLAN / "llama-2-7b-hf.config.json").read_text())
    del cfg["num_hidden_layers"]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(cfg), encoding="utf-8")
    with pytest.raises(ConfigFileError, match="layer count"):
        spec_from_hf_config(partial)
    cfg = json.loads((PLAN / "llama-2-7b-hf.config.json").read_text())
    cfg["hidden_size"] = -4096
    neg = tmp_path / "neg.json"
    neg.write_text(json.dumps(cfg), encoding="utf-8")
    with pytest.raises(ConfigFileError, match="greater than zero"):
        spec_from_hf_config(neg)


def _llama_config(tmp_path, **changes):
    cfg = json.loads((FIXTURES / "plan" / "llama-2-7b-hf.config.json").read_text(encoding="utf-8"))
    cfg.update(changes)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return path


@pytest.mark.parametrize("kv_heads", [5, 64])
def test_kv_heads_must_divide_the_attention_heads(tmp_path, kv_heads):
    # Grouped-query attention shares each KV head among num_attention_heads / num_key_value_heads query heads
    # (arXiv 2305.13245): 32 heads cannot be split into 5 groups, and there cannot be more KV heads than heads.
    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(_llama_config(tmp_path, num_key_value_heads=kv_heads))
    assert "num_key_value_heads" in str(info.value) and "32" in str(info.value)


def test_absurd_config_sizes_are_refused_not_crashing(tmp_path):
    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(_llama_config(tmp_path, hidden_size=1e300))
    assert "hidden_size" in str(info.value) and "implausibly large" in str(info.value)
    with pytest.raises(ConfigFileError):
        spec_from_hf_config(_llama_config(tmp_path, num_hidden_layers=10**9))


def test_bloom_ties_its_embeddings_by_default():
    from pathlib import Path

    cfg = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs" / "bloomz-7b1.config.json"
    spec = spec_from_hf_config(cfg)
    assert spec.tied_embeddings and round(spec.params / 1e9, 2) == 7.07  # bloomz-7b1: 7,069,016,064 parameters


def test_phi_2_has_a_two_matrix_mlp_and_phi_3_a_gated_one():
    from pathlib import Path

    configs = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"
    phi2 = spec_from_hf_config(configs / "phi-2.config.json")
    # microsoft/phi-2: 2,779,683,840 parameters (fc1/fc2 MLP, biases included); without biases 2.7789 B.
    assert not phi2.gated and round(phi2.params / 1e9, 2) == 2.78
    phi3 = spec_from_hf_config(configs / "phi-3-mini-4k.config.json")
    assert phi3.gated and round(phi3.params / 1e9, 2) == 3.82  # Phi-3-mini: 3,821,079,552


def test_gptbigcode_multi_query_has_one_kv_head():
    from pathlib import Path

    from gpudesk.sizing import kv_bytes_per_token

    cfg = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs" / "octocoder.config.json"
    spec = spec_from_hf_config(cfg)
    assert spec.kv_heads_resolved == 1
    assert round(spec.params / 1e9, 1) == 15.5  # StarCoder/octocoder: 15.5 B, not 18.5 B with 48 KV heads
    assert kv_bytes_per_token(spec) == 2 * 40 * 1 * 128 * 2


def test_deepseek_mla_latent_kv_and_moe_parameters():
    from pathlib import Path

    from gpudesk.sizing import kv_bytes_per_token

    cfg = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs" / "deepseek-v2-lite.config.json"
    spec = spec_from_hf_config(cfg)
    assert round(spec.params / 1e9, 1) == 15.7  # DeepSeek-V2-Lite model card: 15.7 B total
    assert kv_bytes_per_token(spec) == 27 * (512 + 64) * 2  # one latent + RoPE key per layer, bf16


def test_mpt_config_keys(tmp_path):
    # MPT's own config.json keys (llm-foundry MPTConfig): n_layers, n_heads, d_model, expansion_ratio, max_seq_len;
    # the input and output embeddings are one matrix. llm-foundry's README lists MPT-7B at 6.7 B parameters.
    import json

    from gpudesk.sizing.shapes import spec_from_hf_config

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
                                "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50368}), encoding="utf-8")
    spec = spec_from_hf_config(path)
    assert (spec.layers, spec.hidden_size, spec.num_attention_heads, spec.ffn_size) == (32, 4096, 32, 16384)
    assert spec.context_length == 2048 and spec.tied_embeddings
    assert 6.6e9 < spec.params < 6.75e9
