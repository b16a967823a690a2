"""vLLM's hybrid KV cache manager keeps only the window's blocks of a model's sliding-window layers
(gpudesk/sizing/serve_hybrid_kv.py). The configuration is AMD's MLPerf Inference v6.0 gpt-oss-120b Server run on
MI355X (vLLM, one TP1 replica per GPU, block 64, gpu_memory_utilization 0.95, max_num_batched_tokens 65536)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.engines.vllm_hybrid import HybridGroups
from gpudesk.sizing.memory_inference import kv_token_bytes_all_layers
from gpudesk.sizing.serve_engine import engine_budget
from gpudesk.sizing.serve_hybrid_kv import hybrid_capacity
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


@pytest.fixture(scope="module")
def gpt_oss(catalog):
    return spec_from_catalog(catalog.model("gpt-oss-120b"))


def _load(**changes):
    base = ServeLoad(engine="vllm", input_tokens=5011, output_tokens=1372, request_rate_per_s=61.2 / 8,
                     weight_format="mxfp4", max_num_seqs=1024, max_num_batched_tokens=65536,
                     gpu_memory_utilization=0.95, kv_block_size=64, rocm_aiter=True)
    return dataclasses.replace(base, **changes)


def test_vllm_hybrid_manager_holds_about_twice_the_tokens_for_gpt_oss(catalog, gpt_oss):
    gpu = catalog.gpu("mi355x")
    hybrid = engine_budget(gpt_oss, gpu, _load(engine_version="0.14.0"))
    before = engine_budget(gpt_oss, gpu, _load(engine_version="0.9.2"))  # every layer sized as full attention
    assert before.kv_capacity_tokens == int(before.kv_bytes // kv_token_bytes_all_layers(gpt_oss, "bf16", 1))
    # one full and one sliding group of 18 layers; a request of 5011 + 686 tokens holds 90 + 3 blocks of 64
    found = hybrid_capacity(gpt_oss, "bf16", 1, hybrid.kv_bytes, 64, 5011 + 686, (0, 14))
    assert found is not None
    assert found.groups == HybridGroups(group_size=18, full_groups=1, sliding_groups=1)
    assert found.blocks_per_request == 90 + 3
    assert hybrid.kv_capacity_tokens == found.tokens
    assert hybrid.kv_capacity_tokens / before.kv_capacity_tokens == pytest.approx(2 * 5697 / (93 * 64), rel=0.001)  # whole blocks
    assert any(a.name == "hybrid_kv_cache" for a in hybrid.assumptions)


def test_engines_and_models_without_the_hybrid_manager_keep_every_layer(catalog, gpt_oss):
    gpu = catalog.gpu("mi355x")
    sglang = engine_budget(gpt_oss, gpu, _load(engine="sglang", rocm_aiter=None, kv_block_size=None))
    assert not any(a.name == "hybrid_kv_cache" for a in sglang.assumptions)
    llama = spec_from_catalog(catalog.model("llama-3.1-8b"))
    assert hybrid_capacity(llama, "bf16", 1, 100e9, 16, 2048, None) is None

