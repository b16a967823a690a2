"""What the benchmark client does before it measures: its warm-up request and the engine's prefix cache.

vLLM's serving benchmark (``benchmarks/benchmark_serving.py``, ``vllm bench serve``) sends the first prompt of the
run once before the measured run ("Starting initial single prompt test run...": ``input_requests[0]``), and the
measured run then sends every prompt, that first one included. vLLM V1 (the default engine from v0.8) keeps prefix
caching on by default (``CacheConfig.enable_prefix_caching``; vLLM V1 blog, Jan 2025, "zero-overhead prefix
caching"), so the measured first request finds its prompt in the cache: the KV manager reuses every full block of
it but the one holding the last token, which it recomputes to sample from (``vllm/v1/core/kv_cache_manager.py``
``get_computed_blocks``: the hit is capped at the prompt's length minus one, in whole ``block_size`` blocks, 16 by
default). V0 (before 0.8) had prefix caching off by default, and the offline benchmarks (``benchmark_throughput``,
``benchmark_latency``) send no such request. This matters only where a published run has few prompts: a
one-prompt run measures a cached prefill. It is an input (``ServeLoad.benchmark_warmup``, ``estimate speed
--benchmark-warmup``, a measured run's ``benchmark_warmup``): only the user knows which client measured the run, and
a deployment's first request finds nothing cached.
"""

from __future__ import annotations

from gpudesk.sizing.serve_host import engine_version_tuple

VLLM_V1_SINCE = (0, 8)
PREFIX_BLOCK_TOKENS = 16
SOURCE = ("vllm benchmarks/benchmark_serving.py initial single prompt test run (input_requests[0]); "
          "vllm/v1/core/kv_cache_manager.py get_computed_blocks (prefix caching on by default in V1) "
          "(https://github.com/vllm-project/vllm)")


def warmup_caches_first_prompt(engine: str, version: str | None, offline: bool, num_prompts: int | None,
                               warmup: bool = True) -> bool:
    """Whether the measured run's first prompt is already in the engine's prefix cache because the benchmark client
    sent it once before (``warmup``; module docstring): vLLM V1 served online with a published request count."""
    if not warmup or engine != "vllm" or offline or num_prompts is None:
        return False
    parsed = engine_version_tuple(version)
    return parsed is None or parsed >= VLLM_V1_SINCE


def cached_prompt_tokens(prompt_tokens: int) -> int:
    """Tokens of a fully cached prompt the engine does not recompute: whole blocks, the last token left out."""
    return max(0, (prompt_tokens - 1) // PREFIX_BLOCK_TOKENS * PREFIX_BLOCK_TOKENS)
