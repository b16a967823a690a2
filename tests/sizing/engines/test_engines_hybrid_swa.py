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


def _ollama_gemma3_27b(version: str) -> tuple[float, float]:
    """(kv MiB, weights total GiB) Ollama ``version`` logs for gemma3:27b Q4_K_M, num_ctx 4096, 2 parallel."""
    from gpudesk.sizing.engines.fit import engine_fit
    from gpudesk.sizing.engines.device import DeviceMemory

    spec = spec_from_catalog(open_catalog().model("gemma-3-27b"))
    r = engine_fit("ollama", spec, DeviceMemory("Radeon 780M", int(33.6 * GIB), "ROCm"),
                   ["num_ctx=4096", "num_parallel=2", "num_batch=512"], version=version, weight_format="q4_k_m")
    return r.extra["memory_required_kv_bytes"] / 2**20, r.extra["memory_weights_total_bytes"] / GIB


def test_ollama_096_sizes_gemma3_sliding_layers_to_the_window() -> None:
    # take0a/mcp docs/ollama.md, Ollama 0.9.6 on a Radeon 780M: "memory.required.kv=1.6 GiB",
    # "memory.weights.total=15.4 GiB", layers.offload=63.
    kv_mib, weights_gib = _ollama_gemma3_27b("0.9.6")
    assert abs(kv_mib / 1638.4 - 1) < 0.05
    assert round(weights_gib, 1) == 15.4
    # Before 0.6.3 every layer held num_ctx x num_parallel cells, and before 0.6.1 the total carried the KV too.
    old_kv_mib, old_weights_gib = _ollama_gemma3_27b("0.6.0")
    assert old_kv_mib == 62 * 8192 * 256 * 16 * 2 / 2**20  # 3,968 MiB
    assert old_weights_gib > weights_gib + 2.5


def test_ollama_swa_layers_are_gemma3s_only() -> None:
    from gpudesk.sizing.engines.ollama import gemma3_sliding_layers

    gemma3 = spec_from_catalog(open_catalog().model("gemma-3-27b"))
    assert len(gemma3_sliding_layers(gemma3, None)) == 52 and 5 not in gemma3_sliding_layers(gemma3, None)
    assert gemma3_sliding_layers(gemma3, "gemma2") == frozenset()
    oss = spec_from_catalog(open_catalog().model("gpt-oss-120b"))  # alternating window: not Gemma 3's layout
    assert gemma3_sliding_layers(oss, None) == frozenset()


def test_trtllm_pytorch_backend_budget_on_unified_memory() -> None:
    """jeansblog/trt_llm README (TensorRT-LLM 1.1.0rc3 on a DGX Spark): the profiling pool was 8,224 tokens (0.56
    GiB), the peak 113.65 GiB of 119.70, and the KV cache 5.95 GiB for 86,720 tokens."""
    from gpudesk.sizing.engines.device import DeviceMemory
    from gpudesk.sizing.engines.fit import engine_fit
    from gpudesk.sizing.engines.trtllm import profiling_pool_tokens

    assert profiling_pool_tokens(8192, 131072, 32, overlap=True) == 8224
    assert profiling_pool_tokens(8192, 131072, 32, overlap=False) == 8224
    assert profiling_pool_tokens(8192, 4096, 32, overlap=False) == 2 * 4096 + 32  # two requests of 4,095 and one token
    per_token = 36 * 2 * 8 * 64 * 2  # gpt-oss-120b, bf16: 72 KiB
    tokens = int((119.70 - 113.65) * GIB * 0.9 + 8224 * per_token * 0.9) // per_token
    assert abs(tokens / 86_720 - 1) < 0.005
    oss = spec_from_catalog(open_catalog().model("gpt-oss-120b"))
    spark = DeviceMemory("GB10", int(119.7 * GIB), unified=True)
    args = ["free_gpu_memory_fraction=0.9", "max_batch_size=64", "max_num_tokens=8192"]
    flushed = engine_fit("trtllm", oss, spark, args, version="1.1.0rc3")
    cached = engine_fit("trtllm", oss, spark, [*args, "host_used_gib=50"], version="1.1.0rc3")
    # What the OS and page cache hold comes off the budget at the fraction.
    assert abs((flushed.per_gpu.kv_cache_bytes - cached.per_gpu.kv_cache_bytes) / GIB - 45.0) < 0.01
    assert "host_used_gib" not in cached.command
    overlap_off = engine_fit("trtllm", oss, spark, [*args, "disable_overlap_scheduler=true"], version="1.1.0rc3")
    assert "disable_overlap_scheduler: true" in overlap_off.command


def test_trtllm_on_unified_memory_says_the_page_cache_counts_as_used() -> None:
    from gpudesk.sizing.engines.device import DeviceMemory
    from gpudesk.sizing.engines.fit import engine_fit

    oss = spec_from_catalog(open_catalog().model("gpt-oss-120b"))
    args = ["free_gpu_memory_fraction=0.9", "host_used_gib=50"]
    spark = engine_fit("trtllm", oss, DeviceMemory("GB10", int(119.7 * GIB), unified=True), args, version="1.1.0rc3")
    notes = " ".join(text for text, _src in spark.assumptions)
    assert "page cache" in notes and "50.00 GiB" in notes
    card = engine_fit("trtllm", oss, DeviceMemory("H200", int(139.8 * GIB)), args, version="1.1.0rc3")
    assert "page cache" not in " ".join(text for text, _src in card.assumptions)


def test_vllm_largest_context_counts_the_padded_sliding_groups() -> None:
    from gpudesk.sizing.engines.vllm_hybrid import hybrid_max_context

    groups = HybridGroups(10, 1, 6)  # Gemma 3 27B
    # 15,998 blocks (19.53 GiB): four requests of 8,192 tokens take 4 x 3,590 = 14,360 blocks, a fifth does not fit.
    assert hybrid_max_context(groups, 1024, 15_998, 4, 8192, 16, 8192) == 8192
    ctx = hybrid_max_context(groups, 1024, 15_998, 5, 8192, 16, 8192)
    assert ctx < 8192
    assert hybrid_blocks_per_request(groups, 1024, ctx, 8192, 16) * 5 <= 15_998
    assert hybrid_blocks_per_request(groups, 1024, ctx + 16, 8192, 16) * 5 > 15_998


def test_trtllm_refusal_names_what_the_os_and_page_cache_hold() -> None:
    from gpudesk.sizing.engines.device import DeviceMemory
    from gpudesk.sizing.engines.fit import engine_fit

    oss = spec_from_catalog(open_catalog().model("gpt-oss-120b"))
    r = engine_fit("trtllm", oss, DeviceMemory("GB10", int(119.7 * GIB), unified=True), ["host_used_gib=60"],
                   version="1.1.0rc3")
    assert not r.fits and "60.00 GiB" in r.reason and r.kv_cache_tokens == 0
