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
--num-prompts N --benchmark-warmup``, ``--prefix-caching``, a measured run's ``benchmark_warmup``): only the user knows which client measured the run, and
a deployment's first request finds nothing cached.

Prompts sent by an earlier run: a benchmark client that sweeps load levels against one server and takes each level's
prompts from the head of a dataset read in a fixed order sends, at level N, the prompts its earlier levels already
sent (evalscope ``perf --parallel a b c --number a b c``: ``evalscope/perf/main.py`` runs the levels one after the
other against the same server, and ``evalscope/perf/benchmark.py`` ``get_requests`` reads the dataset plugin's
prompts in order and sends the first ``--number`` of them, modelscope/evalscope at a403af2, 2025-07-18). The engine's
prefix cache still holds those prompts where its pool has not evicted them: vLLM V1 as above; SGLang's radix cache
(on by default, ``--disable-radix-cache`` turns it off; ``python/sglang/srt/server_args.py``), whose match is capped
at the prompt's length minus one token (``schedule_batch.py`` ``Req.adjust_max_prefix_ids``, v0.4.x: "we need to
ensure each request has at least one token") at the default page of one token. Such a request prefills one block
(vLLM) or one token (SGLang) and produces its first token in the next step, instead of queueing behind the others'
prefill. It is an input (``ServeLoad.cached_prompts``, a measured run's ``cached_prompts``): the number of the run's
first prompts, in the order the client sends them, that an earlier run sent to the same server; only the user knows
how the client picked its prompts. The cache keeps them while the pool has room for them next to the run's own
requests (the engines evict the least recently used free blocks first): the count is capped at what fits. Two
things set that room. (1) The run's first requests (as many as it keeps in flight) arrive together and are admitted
first; a cached one takes its prompt's blocks out of the free queue at admission (vLLM V1
``KVCacheManager.get_computed_blocks`` then ``allocate_slots`` touches the hit blocks; SGLang
``RadixCache.match_prefix`` + ``inc_lock_ref`` locks the matched nodes), before the decode of the others allocates
anything, so those prompts are kept whatever the pool: their blocks ARE the request's own prompt blocks, counted in
its footprint once. (2) A cached prompt the client sends later must outlive the run's requests already in flight:
it is kept while the pool holds its PROMPT next to their whole footprints. The earlier run's output blocks need not
survive: they are no part of the prompt, and both engines evict them first (vLLM V1 frees a request's blocks in
reverse order, "so that the tail blocks are evicted first", ``vllm/v1/core/block_pool.py`` ``free_blocks`` via
``single_type_kv_cache_manager.py``; SGLang's radix cache evicts least recently used leaves, and a finished
request's output tokens are the leaves below its prompt, ``python/sglang/srt/mem_cache/radix_cache.py`` ``evict``).
"""

from __future__ import annotations

from gpudesk.sizing.serve_host import engine_version_tuple

VLLM_V1_SINCE = (0, 8)
PREFIX_BLOCK_TOKENS = 16
SGLANG_PAGE_TOKENS = 1  # SGLang --page-size default: the radix cache matches token by token
SOURCE = ("vllm benchmarks/benchmark_serving.py initial single prompt test run (input_requests[0]); "
          "vllm/v1/core/kv_cache_manager.py get_computed_blocks (prefix caching on by default in V1) "
          "(https://github.com/vllm-project/vllm)")
EARLIER_RUN_SOURCE = ("evalscope/perf/main.py and benchmark.py get_requests (levels in turn, prompts from the dataset's "
                      "head in order; modelscope/evalscope a403af2); vllm/v1/core/kv_cache_manager.py "
                      "get_computed_blocks; SGLang radix cache (server_args.py disable_radix_cache, schedule_batch.py "
                      "Req.adjust_max_prefix_ids)")


def warmup_caches_first_prompt(engine: str, version: str | None, offline: bool, num_prompts: int | None,
                               warmup: bool = True, prefix_caching: bool | None = None) -> bool:
    """Whether the measured run's first prompt is already in the engine's prefix cache because the benchmark client
    sent it once before (``warmup``; module docstring): vLLM served online with a published request count, its
    prefix cache on (``prefix_caching``, else V1's default)."""
    if not warmup or engine != "vllm" or offline or num_prompts is None:
        return False
    return keeps_prefix_cache(engine, version, prefix_caching)


def cached_prompt_tokens(prompt_tokens: int, block_tokens: int = PREFIX_BLOCK_TOKENS) -> int:
    """Tokens of a fully cached prompt the engine does not recompute: whole blocks, the last token left out."""
    block = max(1, block_tokens)
    return max(0, (prompt_tokens - 1) // block * block)


def keeps_prefix_cache(engine: str, version: str | None, enabled: bool | None = None) -> bool:
    """Whether ``engine`` at ``version`` keeps a prefix cache (module docstring): ``enabled`` where the server's flag
    was given (vLLM ``--enable-prefix-caching`` / ``--no-enable-prefix-caching``, SGLang ``--disable-radix-cache``:
    ``vllm/engine/arg_utils.py`` EngineArgs.enable_prefix_caching, ``python/sglang/srt/server_args.py``
    disable_radix_cache), else the default: vLLM V1 (0.8 on, or no version given) and SGLang (radix cache)."""
    if enabled is not None:
        return enabled and engine in ("vllm", "sglang")
    if engine == "sglang":
        return True
    if engine != "vllm":
        return False
    parsed = engine_version_tuple(version)
    return parsed is None or parsed >= VLLM_V1_SINCE


def prefix_block_tokens(engine: str, kv_block_size: int | None) -> int:
    """The unit a prefix-cache hit is counted in: vLLM's KV block (``--block-size``, 16), SGLang's page (1)."""
    if engine == "sglang":
        return SGLANG_PAGE_TOKENS
    return kv_block_size or PREFIX_BLOCK_TOKENS


def earlier_run_cached_prompts(engine: str, version: str | None, offline: bool, cached_prompts: int,
                               num_prompts: int | None, request_tokens: int, live_requests: int,
                               kv_capacity_tokens: int, prefix_caching: bool | None = None,
                               prompt_tokens: int | None = None) -> int:
    """How many of the run's first prompts the engine finds in its prefix cache because an earlier run sent them
    (``cached_prompts``; module docstring): none where the engine keeps no prefix cache or the run is offline, at
    most the run's prompts; those among the run's first ``live_requests`` (its first wave) as far as the pool holds
    their prompts (``prompt_tokens`` each; ``request_tokens`` = prompt + output where not given), and the later
    ones as far as the pool holds their prompts next to the whole footprints of the ``live_requests``."""
    if cached_prompts <= 0 or offline or not keeps_prefix_cache(engine, version, prefix_caching):
        return 0
    count = cached_prompts if num_prompts is None else min(cached_prompts, num_prompts)
    prompt = max(1, prompt_tokens if prompt_tokens is not None else request_tokens)
    first_wave = min(count, max(0, live_requests), kv_capacity_tokens // prompt)
    room = kv_capacity_tokens - live_requests * request_tokens
    return first_wave + max(0, min(count - first_wave, room // prompt))
