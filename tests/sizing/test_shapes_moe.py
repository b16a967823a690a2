"""MoE and MLA shapes (issue 12): total vs active parameters and the KV cache of latent attention, from the
public config.json files in tests/fixtures/plan (README there gives the URLs and the published sizes)."""

import json
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.planner.errors import PlanInputError
from gpudesk.planner.requirement import ModelMemory
from gpudesk.planner.workload import resolve_model
from gpudesk.sizing.errors import ConfigFileError
from gpudesk.sizing.shapes import (
    find_cached_config,
    hf_hub_cache_dirs,
    spec_from_catalog,
    spec_from_hf_config,
    spec_from_hf_repo,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plan"


def test_deepseek_v3_total_active_and_mla_kv():
    spec = spec_from_hf_config(FIXTURES / "deepseek-v3.config.json")
    assert spec.params == pytest.approx(671e9, rel=0.002)  # paper: 671 B (without the 14 B MTP module)
    assert spec.active_params == pytest.approx(37e9, rel=0.02)  # paper: 37 B activated
    assert spec.attention_kind == "mla" and spec.moe_layers == 58 and spec.moe_shared_experts == 1
    # MLA caches the 512-wide latent + the 64-wide RoPE key per layer: 61 x 576 values per token,
    # 70 KB in BF16 against 61 x 2 x 128 x 192 = 2.9 M values for multi-head attention of the same heads.
    assert spec.kv_cache_elements_per_token == 61 * 576
    # The memory formulas (2 x layers x kv_heads x head_dim) see the same cache: absorbed MLA is multi-query
    # attention over one 576-wide entry (DeepSeek-V2 paper appendix C).
    assert (spec.kv_heads_resolved, spec.head_dim_resolved) == (1, 288)
    assert 2 * spec.layers * spec.kv_heads_resolved * spec.head_dim_resolved == spec.kv_cache_elements_per_token


def test_qwen3_moe_total_and_active():
    spec = spec_from_hf_config(FIXTURES / "qwen3-30b-a3b.config.json")
    assert spec.params == pytest.approx(30.5e9, rel=0.005)
    assert spec.active_params == pytest.approx(3.3e9, rel=0.02)
    assert spec.moe_ffn_size == 768 and spec.attention_kind == "gqa"
    assert spec.kv_cache_elements_per_token == 2 * 48 * 4 * 128


def test_gpt_oss_counts_experts_in_every_layer():
    spec = spec_from_hf_config(FIXTURES / "gpt-oss-120b.config.json")
    assert spec.params == pytest.approx(116.83e9, rel=0.001)  # biases and sinks (~40 M) not counted
    # OpenAI's 5.13 B active leaves out the input embedding and the LM head (2 x 201088 x 2880 = 1.16 B; the
    # active count here keeps the LM head's 0.58 B since the formulas use it for FLOPs).
    assert spec.active_params - 201088 * 2880 == pytest.approx(5.13e9, rel=0.01)
    assert spec.sliding_window == 128 and spec.moe_experts == 128 and spec.moe_active_experts == 4


def test_catalog_moe_rows_keep_their_shape():
    catalog = open_catalog()
    for model_id, total, active in (("deepseek-v3", 671e9, 37e9), ("qwen3-235b-a22b", 235e9, 22e9),
                                    ("qwen3-30b-a3b", 30.5e9, 3.3e9), ("mixtral-8x7b", 46.7e9, 12.9e9),
                                    ("llama-4-scout", 107.8e9, 17e9),
                                    # published cards: 480 B / 35 B; MiniMax's M2 figure 230 B / 10 B (the active count
                                    # here keeps the 1.23 B embedding and LM head: 11.0 B)
                                    ("qwen3-coder-480b-a35b", 480e9, 35e9), ("minimax-m2.7", 228.7e9, 11.03e9)):
        spec = spec_from_catalog(catalog.model(model_id))
        assert spec.params == pytest.approx(total, rel=0.01), model_id
        assert spec.active_params == pytest.approx(active, rel=0.03), model_id
    v3 = spec_from_catalog(catalog.model("deepseek-v3"))
    assert (v3.kv_heads_resolved, v3.head_dim_resolved, v3.kv_cache_elements_per_token) == (1, 288, 61 * 576)
    dense = spec_from_catalog(catalog.model("qwen3-32b"))
    assert dense.active_params == dense.params


def _cache(root: Path, repo: str, revision: str = "abc123", ref: bool = True) -> Path:
    owner, name = repo.split("/")
    folder = root / f"models--{owner}--{name}"
    snap = folder / "snapshots" / revision
    snap.mkdir(parents=True)
    (snap / "config.json").write_text((FIXTURES / "qwen3-30b-a3b.config.json").read_text(encoding="utf-8"), encoding="utf-8")
    if ref:
        (folder / "refs").mkdir()
        (folder / "refs" / "main").write_text(revision, encoding="utf-8")
    return snap / "config.json"


def test_hub_cache_dirs_follow_huggingface_hub_order(tmp_path):
    assert hf_hub_cache_dirs({"HF_HUB_CACHE": str(tmp_path / "c"), "HF_HOME": str(tmp_path / "h")}) == [tmp_path / "c"]
    assert hf_hub_cache_dirs({"HF_HOME": str(tmp_path / "h")}) == [tmp_path / "h" / "hub"]
    assert hf_hub_cache_dirs({"XDG_CACHE_HOME": str(tmp_path / "x")}) == [tmp_path / "x" / "huggingface" / "hub"]


def test_repo_in_the_local_cache_is_read_offline(tmp_path):
    env = {"HF_HOME": str(tmp_path)}
    path = _cache(tmp_path / "hub", "acme/Qwen3-30B-A3B-ft")
    assert find_cached_config("acme/Qwen3-30B-A3B-ft", env) == path
    spec = spec_from_hf_repo("acme/Qwen3-30B-A3B-ft", env)
    assert spec.name == spec.hf_repo == "acme/Qwen3-30B-A3B-ft"
    assert spec.active_params == pytest.approx(3.3e9, rel=0.02)
    # Without refs/main the newest snapshot is used.
    _cache(tmp_path / "hub", "acme/other", ref=False)
    assert find_cached_config("acme/other", env).parent.name == "abc123"


def test_missing_repo_names_where_it_looked(tmp_path):
    with pytest.raises(ConfigFileError) as info:
        find_cached_config("acme/absent", {"HF_HOME": str(tmp_path)})
    assert "models--acme--absent" in str(info.value) and "huggingface-cli download" in str(info.value)
    with pytest.raises(ConfigFileError):
        find_cached_config("not a repo id", {"HF_HOME": str(tmp_path)})


def test_requirement_takes_a_repo_id(tmp_path, monkeypatch):
    catalog = open_catalog()
    spec = resolve_model(ModelMemory(model="meta-llama/Llama-3.1-8B"), catalog)
    assert spec.params == 8030261248 and spec.hf_repo == "meta-llama/Llama-3.1-8B"
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    _cache(tmp_path / "hub", "acme/tiny")
    assert resolve_model(ModelMemory(model="acme/tiny"), catalog).hf_repo == "acme/tiny"
    with pytest.raises(PlanInputError) as info:
        resolve_model(ModelMemory(model="acme/missing"), catalog)
    assert info.value.field == "model.model" and "local Hugging Face cache" in str(info.value)


def test_gpt_oss_experts_carry_biases_and_a_clamped_activation(tmp_path):
    # The architecture (model_type gpt_oss) fixes the per-expert biases; swiglu_limit in the config clamps the GLU.
    spec = spec_from_hf_config(FIXTURES / "gpt-oss-120b.config.json")
    assert spec.expert_bias and not spec.clamped_glu  # this fixture copy carries no swiglu_limit
    cfg = json.loads((FIXTURES / "gpt-oss-120b.config.json").read_text())
    cfg["swiglu_limit"] = 7.0
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert spec_from_hf_config(tmp_path / "config.json").clamped_glu
    catalog = open_catalog()
    oss = spec_from_catalog(catalog.model("gpt-oss-120b"))
    assert oss.expert_bias and oss.clamped_glu
    qwen = spec_from_catalog(catalog.model("qwen3-30b-a3b"))
    assert not (qwen.expert_bias or qwen.clamped_glu)
