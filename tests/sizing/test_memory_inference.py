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
    assert weight_bits_per_param("int4-g128") == 4.25
    assert weight_bits_per_param("nf4-dq") == pytest.approx(4.127, abs=1e-3)
    int4 = weight_bytes(L3, "int4-g128")
    # Embedding and LM head (2 x 128256 x 4096) stay in bf16: about 2.1 GB of the total.
    assert int4 == pytest.approx((L3.params - 2 * 128256 * 4096) * 4.25 / 8 + 2 * 128256 * 4096 * 2)
    assert weight_bytes(L3, "bf16") == L3.params * 2
    with pytest.raises(SizingError):
        weight_bits_per_param("int3")


def test_inference_breakdown_has_kv_and_prefill():
    est = inference_memory(L3, weight_format="fp8", context_tokens=4096, concurrent_sequences=8)
    assert est.component("kv_cache") == 8 * 4096 * 128 * 1024
    assert est.component("prefill_workspace") > 0
    assert est.component("weights") == L3.params
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
