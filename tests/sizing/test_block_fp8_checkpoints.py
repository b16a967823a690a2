"""Qwen's official block-FP8 checkpoints in the catalog (``qwen3-*-fp8``): the same shape as the BF16 rows, the
checkpoint's format ``fp8``, and weights counted as FP8 Linear weights + one float32 scale per 128 x 128 block + the
BF16 modules the checkpoint leaves unquantised (embeddings, LM head, MoE router gates)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.memory_inference import is_block_fp8_checkpoint, moe_router_params, weight_bytes
from gpudesk.sizing.shapes import spec_from_hf_config

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "configs"
# new id -> the BF16 row it quantises
FP8_ROWS = {"qwen3-8b-fp8": "qwen3-8b", "qwen3-14b-fp8": "qwen3-14b", "qwen3-32b-fp8": "qwen3-32b",
            "qwen3-30b-a3b-fp8": "qwen3-30b-a3b", "qwen3-235b-a22b-fp8": "qwen3-235b-a22b",
            "qwen3-235b-a22b-instruct-2507-fp8": "qwen3-235b-a22b",
            "qwen3-coder-480b-a35b-fp8": "qwen3-coder-480b-a35b"}
SHAPE = ("params", "layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim", "ffn_size",
         "vocab_size", "moe_experts", "moe_active_experts", "moe_ffn_size", "moe_layers", "tied_embeddings",
         "attention_kind")


def _spec(model_id: str):
    return spec_from_catalog(open_catalog().model(model_id))


@pytest.mark.parametrize("fp8_id", sorted(FP8_ROWS))
def test_fp8_rows_copy_the_bf16_shape_and_name_the_fp8_repo(fp8_id):
    catalog = open_catalog()
    fp8, bf16 = catalog.model(fp8_id), catalog.model(FP8_ROWS[fp8_id])
    for column in SHAPE:
        assert getattr(fp8, column) == getattr(bf16, column), column
    assert fp8.checkpoint_weight_format == "fp8" and bf16.checkpoint_weight_format is None
    assert fp8.hf_repo == bf16.hf_repo + "-FP8" or fp8.hf_repo == "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
    assert fp8.source_url == f"https://huggingface.co/{fp8.hf_repo}/blob/main/config.json"
    assert "weight_block_size [128, 128]" in fp8.notes


def _block_fp8_bytes_by_matrix(model_id: str) -> tuple[float, int]:
    """(every quantised Linear matrix of the shape at 1 byte a weight + ceil(out/128) x ceil(in/128) fp32 scales,
    the rest of the parameters at 2 bytes, independent of the estimator's own arithmetic; the RMSNorm weights)."""
    s = _spec(model_id)
    d, h = s.head_dim_resolved, s.hidden_size
    attention = [(s.num_attention_heads * d, h), (s.kv_heads_resolved * d, h), (s.kv_heads_resolved * d, h),
                 (h, s.num_attention_heads * d)]
    width = s.moe_ffn_size or s.ffn_size
    mlp = [(width, h), (width, h), (h, width)] * (s.moe_experts or 1)
    matrices = (attention + mlp) * s.layers
    quantised = sum(o * i for o, i in matrices)
    scales = sum(math.ceil(o / 128) * math.ceil(i / 128) for o, i in matrices)
    norms = s.params - quantised - s.embedding_params - moe_router_params(s)
    return quantised + 4 * scales + 2 * (s.params - quantised), norms


@pytest.mark.parametrize("fp8_id", ["qwen3-8b-fp8", "qwen3-30b-a3b-fp8", "qwen3-235b-a22b-fp8",
                                    "qwen3-coder-480b-a35b-fp8"])
def test_weight_bytes_count_fp8_weights_block_scales_and_bf16_modules(fp8_id):
    # The per-matrix count puts the RMSNorm weights (under 1 M parameters) at 2 bytes, the estimator at 1.
    expected, norms = _block_fp8_bytes_by_matrix(fp8_id)
    assert 0 <= norms < 1_000_000
    assert weight_bytes(_spec(fp8_id)) == pytest.approx(expected, abs=norms + 16)


def test_qwen3_235b_fp8_weights_against_online_fp8_of_the_bf16_model():
    fp8, bf16 = _spec("qwen3-235b-a22b-fp8"), _spec("qwen3-235b-a22b")
    assert is_block_fp8_checkpoint(fp8, "fp8") and not is_block_fp8_checkpoint(bf16, "fp8")
    assert moe_router_params(fp8) == 94 * 4096 * 128
    # 233.80 B quantised weights / 16384 = 14.27 M fp32 scales (57.1 MB) + 49.3 M router weights kept 16-bit
    extra = weight_bytes(fp8) - weight_bytes(bf16, "fp8")
    assert extra == pytest.approx(4 * (fp8.params - fp8.embedding_params - 94 * 4096 * 128) / 16384
                                  + 94 * 4096 * 128, rel=1e-9)
    assert weight_bytes(fp8) / 1e9 == pytest.approx(236.445, abs=0.001)
    assert weight_bytes(fp8, "bf16") == weight_bytes(bf16)  # served as BF16: no scales, nothing kept apart


def test_the_hub_config_gives_the_catalog_row():
    # The Hub's config.json of Qwen/Qwen3-235B-A22B-FP8 (quantization_config quant_method fp8, weight_block_size
    # [128, 128]) read offline: the same format, parameters and weight bytes as the catalog row.
    from_config = spec_from_hf_config(CONFIGS / "qwen3-235b-a22b-fp8.config.json")
    row = _spec("qwen3-235b-a22b-fp8")
    assert from_config.checkpoint_weight_format == "fp8"
    assert from_config.params == row.params
    assert weight_bytes(from_config) == weight_bytes(row)


def test_dense_fp8_checkpoint_has_no_router():
    assert moe_router_params(_spec("qwen3-32b-fp8")) == 0
    expected, norms = _block_fp8_bytes_by_matrix("qwen3-32b-fp8")
    assert weight_bytes(_spec("qwen3-32b-fp8")) == pytest.approx(expected, abs=norms + 16)


def test_catalog_models_lists_the_fp8_checkpoints(capsys):
    assert main(["catalog", "models", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    for fp8_id in FP8_ROWS:
        assert rows[fp8_id]["checkpoint_weight_format"] == "fp8"
    assert rows["qwen3-235b-a22b-instruct-2507-fp8"]["context_length_tokens"] == 262144


def test_serve_fit_loads_the_fp8_repo_and_its_weights(capsys):
    assert main(["estimate", "serve", "--engine", "vllm", "--model", "qwen3-235b-a22b-fp8", "--gpu", "h100-sxm5",
                 "--gpus", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["command"].startswith("vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4")
    # a quarter of 236.4 GB, not of the 470.2 GB BF16 checkpoint
    assert out["per_gpu"]["weights_bytes"] / 1e9 == pytest.approx(236.445 / 4, rel=0.005)
    assert out["fits"]


def test_estimate_memory_names_the_block_scales(capsys):
    assert main(["estimate", "memory", "--model", "qwen3-30b-a3b-fp8", "--mode", "inference"]) == 0
    text = capsys.readouterr().out
    # 29.9 B quantised weights / 16384 x 4 bytes = 7.3 MB of scales; 48 x 2048 x 128 = 12.6 M router weights
    assert "one float32 scale per 128 x 128 weight block (7 MB in all)" in text and "12.6 M MoE router" in text
    assert main(["estimate", "memory", "--model", "qwen3-30b-a3b", "--mode", "inference", "--weight-format", "fp8"]) == 0
    assert "weight block" not in capsys.readouterr().out  # online FP8 of the BF16 model: per-tensor scales


def test_estimate_speed_takes_the_fp8_checkpoint(capsys):
    assert main(["estimate", "speed", "--model", "qwen3-30b-a3b-fp8", "--gpu", "h100-sxm5", "--engine", "vllm",
                 "--input-tokens", "1024", "--output-tokens", "256", "--concurrency", "8", "--json"]) == 0
    speed = json.dumps(json.loads(capsys.readouterr().out))
    # the checkpoint's block-FP8 kernels are modelled (serve_step: block_fp8 needs checkpoint_weight_format fp8)
    assert "block_fp8" in speed
    assert main(["estimate", "speed", "--model", "qwen3-30b-a3b", "--gpu", "h100-sxm5", "--engine", "vllm",
                 "--input-tokens", "1024", "--output-tokens", "256", "--concurrency", "8", "--weight-format", "fp8",
                 "--json"]) == 0
    assert "block_fp8" not in json.dumps(json.loads(capsys.readouterr().out))
