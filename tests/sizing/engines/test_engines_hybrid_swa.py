"""Sliding-window caches of hybrid models, engine by engine: vLLM V1's hybrid KV cache groups (vllm_hybrid.py),
checked on the figures real start-up logs printed."""

from __future__ import annotations

from gpudesk.catalog import open_catalog
from gpudesk.sizing import spec_from_catalog
from gpudesk.sizing.memory_inference import kv_layer_bytes_per_token
from gpudesk.sizing.engines.vllm_hybrid import (
    HybridGroups,
    hybrid_blocks_per_request,
    hybrid_groups,
    hybrid_num_blocks,
    hybrid_tokens,
)

GIB = 1024**3


def _vllm_printed(model: str, available_gib: float) -> tuple[int, float]:
    """(tokens, concurrency) vLLM 0.19.0 prints for ``available_gib`` of KV budget, bf16, block 16, 8,192 tokens."""
    spec = spec_from_catalog(open_catalog().model(model))
    groups = hybrid_groups(spec, (0, 19))
    assert groups is not None
    per_token_layer = kv_layer_bytes_per_token(spec, "bf16")
    blocks = hybrid_num_blocks(groups, available_gib * GIB, per_token_layer * 16)
    per_request = hybrid_blocks_per_request(groups, int(spec.sliding_window or 0), 8192, 8192, 16)
    return hybrid_tokens(groups, blocks, 16), blocks / per_request


def test_gemma3_27b_pads_its_52_sliding_layers_into_six_groups_of_ten() -> None:
    # llm-d-planner v0.19.0 logs, google-gemma-3-27b-it on one H100: "Available KV cache memory: 19.53 GiB",
    # "GPU KV cache size: 36,560 tokens", "Maximum concurrency for 8,192 tokens per request: 4.46x".
    spec = spec_from_catalog(open_catalog().model("gemma-3-27b"))
    assert hybrid_groups(spec, (0, 19)) == HybridGroups(10, 1, 6)
    tokens, concurrency = _vllm_printed("gemma-3-27b", 19.53)
    assert abs(tokens - 36_560) <= 16 * 7  # the printed GiB is rounded to 0.01
    assert round(concurrency, 2) == 4.46
    # Sized as 62 full-attention layers, the same budget would read 41,280 tokens.
    assert int(19.53 * GIB // (62 * 8192 * 16)) * 16 > 41_000


def test_gemma3_12b_groups_without_padding() -> None:
    # Same sweep, gemma-3-12b-it: 47.72 GiB -> 130,304 tokens, 15.88x.
    spec = spec_from_catalog(open_catalog().model("gemma-3-12b"))
    assert hybrid_groups(spec, (0, 19)) == HybridGroups(8, 1, 5)
    tokens, concurrency = _vllm_printed("gemma-3-12b", 47.72)
    assert abs(tokens - 130_304) <= 16 * 6
    assert abs(concurrency - 15.88) < 0.01


def test_one_attention_type_or_an_old_release_has_no_hybrid_groups() -> None:
    llama = spec_from_catalog(open_catalog().model("llama-3.1-8b"))
    assert hybrid_groups(llama, (0, 19)) is None
    gemma = spec_from_catalog(open_catalog().model("gemma-3-27b"))
    assert hybrid_groups(gemma, (0, 9)) is None
    # gpt-oss alternates: equal counts, one group per type whatever the release.
    oss = spec_from_catalog(open_catalog().model("gpt-oss-120b"))
    assert hybrid_groups(oss, (0, 11)) == HybridGroups(18, 1, 1)
