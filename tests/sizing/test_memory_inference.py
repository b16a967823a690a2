"""Inference memory: KV cache with GQA, paged blocks against vLLM's log, quantised weights."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.sizing import SizingError, inference_memory, kv_bytes_per_token, kv_cache_blocks, spec_from_hf_config, weight_bytes
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.memory_inference import check_max_model_len, kv_cache_bytes

PLAN = FIXTURES / "plan"
L2 = spec_from_hf_config(PLAN / "llama-2-7b-hf.config.json")
L3 = spec_from_hf_config(PLAN / "meta-llama-3-8b.config.json")


def test_kv_bytes_per_token_published():
    assert kv_bytes_per_token(L2, "fp16") == 512 * 1024  # 0.5 MiB/token
    assert kv_bytes_per_token(L3, "bf16") == 128 * 1024  # GQA: 8 KV heads
    assert kv_bytes_per_token(L3, "fp8") == 64 * 1024


def test_vllm_2418_block_count():
    case = json.loads((PLAN / "vllm-2418-kv-blocks.jsonl").read_text().splitlines()[0])
    assert "3664" in case["message"] and "229" in case["context"]
    per_token = kv_bytes_per_token(L2, "fp16")
    # A budget between 229 and 230 blocks of 16 tokens gives exactly the logged 229 blocks.
    budget = 229.5 * 16 * per_token
    blocks = kv_cache_blocks(budget, per_token)
    assert blocks == 229
    assert blocks * 16 == 3664
    with pytest.raises(SizingError) as info:
        check_max_model_len(blocks, 4096)
    assert info.value.field == "max_model_len" and "3664" in str(info.value)
    check_max_model_len(blocks, 3664)


def test_paged_rounding():
    paged = kv_cache_bytes(L3, 1000, 2, "bf16", block_tokens=16)
    flat = kv_cache_bytes(L3, 1000, 2, "bf16", block_tokens=None)
    assert paged == 1008 * 2 * 128 * 1024 and flat == 1000 * 2 * 128 * 1024


def test_quantised_weight_formats():
    assert weight_bits_per_param("int4-g128") == 4 + 20 / 128  # fp16 scale + packed 4-bit zero per group
    assert weight_bits_per_param("nf4-dq") == pytest.approx(4.127, abs=1e-3)
    int4 = weight_bytes(L3, "int4-g128")
    # Embedding and LM head (2 x 128256 x 4096) stay in bf16: about 2.1 GB of the total.
    assert int4 == pytest.approx((L3.params - 2 * 128256 * 4096) * (4 + 20 / 128) / 8 + 2 * 128256 * 4096 * 2)
    assert weight_bytes(L3, "bf16") == L3.params * 2
    with pytest.raises(SizingError):
        weight_bits_per_param("int3")


def test_inference_breakdown_has_kv_and_prefill():
    est = inference_memory(L3, weight_format="fp8", context_tokens=4096, concurrent_sequences=8)
    assert est.component("kv_cache") == 8 * 4096 * 128 * 1024
    assert est.component("prefill_workspace") > 0
    # fp8 quantises the Linear layers only: embeddings and LM head stay bf16 (vLLM Fp8Config, torchao quantize_).
    assert est.component("weights") == (L3.params - L3.embedding_params) + 2 * L3.embedding_params
    with pytest.raises(SizingError) as info:
        inference_memory(L3, concurrent_sequences=0)
    assert info.value.field == "concurrent_sequences"


def test_catalog_shapes_kv_per_token():
    from gpudesk.catalog import open_catalog
    from gpudesk.sizing import spec_from_catalog

    catalog = open_catalog()
    l31 = spec_from_catalog(catalog.model("llama-3.1-70b"))
    assert kv_bytes_per_token(l31, "bf16") == 320 * 1024  # oom.md 1.2: 80 layers x 8 KV heads
    # gpu_poor README: Llama-2-7B, 1000 tokens -> about 500 MB of KV with vLLM/exLlama (fp16).
    l2 = spec_from_catalog(catalog.model("llama-2-7b"))
    assert kv_cache_bytes(l2, 1000, 1, "fp16", block_tokens=None) == 1000 * 512 * 1024  # 500 MiB
    assert round(kv_cache_bytes(l2, 1000, 1, "fp16", block_tokens=16) / 1024**2) == 504  # 63 blocks of 16 tokens


# --- Per-GPU KV under tensor parallelism, sliding windows, checkpoint weight formats (issue 10 tryout) ---

from gpudesk.catalog import open_catalog  # noqa: E402
from gpudesk.sizing import MemoryWorkload, estimate_memory  # noqa: E402
from gpudesk.sizing.dtypes import weight_format_source  # noqa: E402
from gpudesk.sizing.memory_inference import kv_heads_per_gpu, kv_sequence_bytes  # noqa: E402
from gpudesk.sizing.shapes import spec_from_catalog  # noqa: E402

GIB = 2**30
SIZING_CONFIGS = FIXTURES / "sizing" / "configs"


def _catalog_spec(model_id):
    return spec_from_catalog(open_catalog().model(model_id))


def test_kv_heads_replicated_when_tp_exceeds_kv_heads():
    # vLLM ModelConfig.get_num_kv_heads: max(1, kv_heads // tp). Qwen3-30B-A3B has 4 KV heads: at tp 8 each GPU
    # still caches one whole head (48 layers x 2 x 128 x 2 B = 24 KiB/token), so 8 x 32k tokens are 6.00 GiB.
    spec = _catalog_spec("qwen3-30b-a3b")
    assert kv_heads_per_gpu(spec, 8) == 1 and kv_heads_per_gpu(spec, 2) == 2
    est = inference_memory(spec, context_tokens=32768, concurrent_sequences=8, tensor_parallel=8)
    assert est.component("kv_cache") == 6 * GIB
    # Up to tp = kv_heads the cache still splits evenly.
    assert inference_memory(spec, context_tokens=32768, concurrent_sequences=8, tensor_parallel=4).component("kv_cache") == 6 * GIB
    assert inference_memory(spec, context_tokens=32768, concurrent_sequences=8, tensor_parallel=2).component("kv_cache") == 12 * GIB


def test_mla_latent_cached_whole_on_every_rank():
    # DeepSeek-V3: 61 layers x (512 + 64) latent values x 2 B = 70,272 B/token on every one of the 8 GPUs.
    spec = _catalog_spec("deepseek-v3")
    est = inference_memory(spec, weight_format="fp8", context_tokens=32768, concurrent_sequences=16, tensor_parallel=8)
    assert est.component("kv_cache") == 61 * 576 * 2 * 32768 * 16
    assert 34.2 * GIB < est.component("kv_cache") < 34.4 * GIB


def test_sliding_window_layers_hold_only_the_window():
    # Gemma 3 27B: 52 of 62 layers use a 1024-token window; vLLM's hybrid manager reserves window - 1 + one
    # prefill chunk (2048) + one block for them (vllm/v1/kv_cache_interface.py SlidingWindowSpec).
    spec = _catalog_spec("gemma-3-27b")
    assert spec.local_attention_layers == 52
    per_layer = 2 * 16 * 128 * 2
    expected = per_layer * (10 * 131072 + 52 * (3072 + 16))
    assert kv_sequence_bytes(spec, 131072) == expected
    est = inference_memory(spec, context_tokens=131072)
    assert 10.5 * GIB < est.component("kv_cache") < 12 * GIB
    # With the hybrid manager off, every layer holds every token (62 GiB).
    full = inference_memory(spec, context_tokens=131072, hybrid_kv_cache=False).component("kv_cache")
    assert full == per_layer * 62 * 131072
    # Short contexts are not capped below themselves.
    assert kv_sequence_bytes(spec, 512) == per_layer * 62 * 512


def test_gpt_oss_config_layers_window_and_checkpoint_format():
    spec = spec_from_hf_config(SIZING_CONFIGS / "gpt-oss-120b.config.json")
    assert spec.sliding_window == 128 and spec.local_attention_layers == 18
    assert spec.checkpoint_weight_format == "mxfp4"
    # Checkpoint default: MXFP4 experts (4.25 bit) + bf16 rest = about 61 GiB, not 217 GiB of bf16.
    assert 58 * GIB < weight_bytes(spec) < 63 * GIB
    assert weight_bytes(spec, "bf16") > 200 * GIB
    est = inference_memory(spec, context_tokens=8192)
    assert any("mxfp4" in a and "OCP" in s for a, s in est.assumptions)


def test_sliding_window_pattern_and_unused_window(tmp_path):
    base = {"model_type": "gemma3_text", "hidden_size": 5376, "num_hidden_layers": 62, "num_attention_heads": 32,
            "num_key_value_heads": 16, "head_dim": 128, "intermediate_size": 21504, "vocab_size": 262208,
            "sliding_window": 1024}
    cfg = tmp_path / "gemma3.config.json"
    cfg.write_text(json.dumps({**base, "sliding_window_pattern": 6}), encoding="utf-8")
    assert spec_from_hf_config(cfg).local_attention_layers == 52
    # Qwen2 ships a sliding_window it does not use (use_sliding_window false): every layer is global.
    cfg.write_text(json.dumps({**base, "model_type": "qwen2", "use_sliding_window": False}), encoding="utf-8")
    assert spec_from_hf_config(cfg).local_attention_layers == 0


def test_mxfp4_is_ocp_mx_size_and_sources_match_the_format():
    assert weight_bits_per_param("mxfp4") == 4.25  # 4-bit E2M1 + one 8-bit E8M0 scale per 32 values
    assert "QLoRA" not in weight_format_source("fp8") and "QLoRA" in weight_format_source("nf4-dq")
    est = inference_memory(L3, weight_format="fp8")
    assert not any("QLoRA" in source for _, source in est.assumptions)


def test_training_refuses_a_weight_format_it_would_ignore():
    with pytest.raises(SizingError) as err:
        estimate_memory(L3, MemoryWorkload(mode="train", weight_format="int4-g128"))
    assert err.value.field == "weight_format" and "inference" in err.value.reason
    plain = estimate_memory(L3, MemoryWorkload(mode="train"))
    assert estimate_memory(L3, MemoryWorkload(mode="train", weight_format="bf16")).total_bytes == plain.total_bytes


def test_lora_without_recompute_names_the_common_recipe():
    est = estimate_memory(L3, MemoryWorkload(mode="qlora"))
    assert any("gradient checkpointing" in a for a, _ in est.assumptions)
    est = estimate_memory(L3, MemoryWorkload(mode="qlora", recompute="full"))
    assert not any("gradient checkpointing" in a for a, _ in est.assumptions)


def test_mla_decode_matrices_by_engine_era():
    """vLLM PR 13109's log (vLLM of 2025-02, absorbed MLA): AWQ DeepSeek-Coder-V2-Lite 'model weights take 10.45GiB'
    against ~8.3 GiB of AWQ weights; the absorbed W_Q_UK / W_UV_O are 2 x 2048 x 16 x 512 bf16 per layer."""
    from gpudesk.sizing.memory_inference import mla_decode_weight_bytes

    spec = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "deepseek-v2-lite.config.json")
    absorbed = mla_decode_weight_bytes(spec, "int4-g128", "absorbed")
    per_layer = 2 * (2 * 2048 * 16 * 512 + 2048 * 16 * 64 + 512 * 16 * 256)
    assert absorbed == 27 * per_layer
    up_proj = mla_decode_weight_bytes(spec, "int4-g128", "up-proj")
    assert up_proj == 27 * 2 * 512 * 16 * 256  # only the dequantised kv_b_proj copy
    assert mla_decode_weight_bytes(spec, "bf16", "up-proj") == 0  # views of a 16-bit kv_b_proj
    assert mla_decode_weight_bytes(spec, "int4-g128", "none") == 0
    assert mla_decode_weight_bytes(spec, "int4-g128", "absorbed", tensor_parallel=2) < absorbed  # heads split
    llama = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-3-8b.config.json")
    assert mla_decode_weight_bytes(llama, "int4-g128", "absorbed") == 0
    est = inference_memory(spec, weight_format="int4-g128", context_tokens=16, mla_decode_weights="absorbed")
    assert 10.0 < est.statistic_bytes("weights") / 2**30 < 10.45
    with pytest.raises(SizingError):
        mla_decode_weight_bytes(spec, "int4-g128", "materialised")
