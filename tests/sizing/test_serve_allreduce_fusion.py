"""SGLang's default fused all-reduce + residual + RMSNorm (gpudesk.sizing.serve_allreduce_fusion), on the SGLang
v0.5.8.post1 8 x B200 TP 8 concurrency-1 rows of tests/fixtures/speed/fresh118_serve_runs.jsonl."""

from __future__ import annotations

import pytest

from gpudesk.sizing import speed_validation as sv
from gpudesk.sizing.serve_allreduce_fusion import fusion_enabled
from gpudesk.sizing.shapes import spec_from_hf_config


@pytest.mark.parametrize(("engine", "version", "arch", "capability", "gpu", "tp", "dp", "a2a", "on"), [
    ("sglang", (0, 5, 8), "Qwen3MoeForCausalLM", "10.0", "b200", 8, 1, False, True),
    ("sglang", (0, 5, 8), "Qwen3MoeForCausalLM", "9.0", "h200-sxm", 8, 1, False, True),  # SM90 from v0.5.7
    ("sglang", (0, 5, 6), "Qwen3MoeForCausalLM", "10.0", "b200", 8, 1, False, False),  # not yet on the list
    ("sglang", (0, 5, 6), "DeepseekV3ForCausalLM", "10.0", "b200", 8, 1, False, True),
    ("sglang", (0, 5, 6), "DeepseekV3ForCausalLM", "9.0", "h200-sxm", 8, 1, False, False),  # SM100 only then
    ("sglang", (0, 5, 8), "Qwen3MoeForCausalLM", "9.0", "h20", 8, 1, False, False),  # H20 excluded
    ("sglang", (0, 5, 8), "Qwen3MoeForCausalLM", "12.0", "rtx-pro-6000-bw", 4, 1, False, False),  # no SM120 build
    ("sglang", (0, 5, 8), "LlamaForCausalLM", "10.0", "b200", 8, 1, False, False),
    ("sglang", (0, 5, 8), "GptOssForCausalLM", "10.0", "b200", 8, 8, False, False),  # DP attention
    ("sglang", (0, 5, 8), "GptOssForCausalLM", "10.0", "b200", 8, 1, True, False),  # all-to-all MoE backend
    ("sglang", (0, 5, 8), "GptOssForCausalLM", "10.0", "b200", 1, 1, False, False),
    ("sglang", None, "GptOssForCausalLM", "10.0", "b200", 8, 1, False, False),  # version unknown
    ("vllm", (0, 5, 8), "GptOssForCausalLM", "10.0", "b200", 8, 1, False, False),
])
def test_auto_enable_conditions(engine, version, arch, capability, gpu, tp, dp, a2a, on) -> None:
    assert fusion_enabled(engine, version, arch, capability, gpu, tp, True, dp, a2a) is on


def test_multi_node_never() -> None:
    assert not fusion_enabled("sglang", (0, 5, 8), "DeepseekV3ForCausalLM", "10.0", "b200", 16, False, 1, False)


def test_config_architecture_is_read(tmp_path) -> None:
    (tmp_path / "config.json").write_text(
        '{"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 4096, '
        '"num_hidden_layers": 94, "num_attention_heads": 64, "num_key_value_heads": 4, "intermediate_size": 12288, '
        '"moe_intermediate_size": 1536, "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, '
        '"head_dim": 128}')
    assert spec_from_hf_config(tmp_path / "config.json").hf_architecture == "Qwen3MoeForCausalLM"


def _row(suffix: str) -> dict:
    rows = sv.read_rows(sv.speed_cases_dir() / "fresh118_serve_runs.jsonl")
    return next(r for r in rows if r["id"] == f"gist-benhamm-b200x8-sglang-{suffix}")


@pytest.mark.parametrize("suffix", ["qwen3-235b-a22b-bf16-tp8-1k1k-c1-tpot", "gpt-oss-120b-mxfp4-tp8-1k1k-c1-tpot",
                                    "deepseek-r1-0528-nvfp4-tp8-1k1k-c1-tpot"])
def test_b200_tp8_batch_one_tpot(suffix: str) -> None:
    """Before the fusion these TPOTs were predicted 1.30-1.51x the measured (speedfix125 notes)."""
    row = _row(suffix)
    ratio = sv._serve_predictor(row) / row["measured"]["value"]
    assert 0.8 <= ratio <= 1.2
