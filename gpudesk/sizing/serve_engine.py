"""An inference engine's memory budget and scheduler settings: the KV capacity and the most requests it runs.

Each engine reserves a fraction of the GPU's memory when it starts and gives what the weights, the profiled
activations and the runtime leave to the KV cache. This is the engine's own budget, kept apart from the
planning safe line (:mod:`gpudesk.sizing.capacity`): the engine fills its fraction whatever the planner keeps free.

- vLLM: ``--gpu-memory-utilization`` (default 0.9, ``vllm/config/cache.py`` CacheConfig) of the total memory;
  KV = total x utilization - weights - peak activation of a ``max_num_batched_tokens`` profiling run - non-torch
  memory (``vllm/v1/worker/gpu_worker.py`` determine_available_memory; PR 21489 logs each part).
  ``max_num_batched_tokens`` / ``max_num_seqs`` defaults of ``vllm serve``: 8192 / 1024 on GPUs with at least
  70 GiB other than A100, else 2048 / 256; the offline ``LLM`` class (benchmark_throughput, benchmark_latency, an
  offline ``batch`` here) takes 16384 / 8192 tokens (``vllm/engine/arg_utils.py`` EngineArgs.get_batch_defaults).
  Before V1 became the default engine (v0.8.0, March 2025) ``max_num_seqs`` was 256 on every GPU, serving and
  offline alike (V0 ``vllm/engine/arg_utils.py`` EngineArgs ``max_num_seqs: int = 256``); a published
  ``engine_version`` below 0.8 keeps that cap. The V1 defaults changed twice: from v0.8.0 the large token budgets
  (8192 serving, 16384 offline) went only to GPUs whose device name contains "h100" or "h200" (vllm-project/vllm
  PR 12369, January 2025, ``_set_default_args_v1``), every other GPU (A100, B200, MI300X included) kept 2048 /
  8192, and ``max_num_seqs`` stayed 256 everywhere; PR 17073 (April 2025) moved the rule to memory (at least
  70 GiB) and raised ``max_num_seqs`` to 1024, and PR 17885 (May 2025) took the A100 back out. A published 0.8.x
  takes the device-name rule (0.8.5 may already carry PR 17073: its merge and the 0.8.5 tag are days apart, not
  checked); 0.9 and later, or no version, the memory rule.
- SGLang: ``--mem-fraction-static`` of the total memory holds weights and the KV pool. Up to v0.5.2 the default
  is 0.88 at TP 1, 0.87 at TP 2, 0.85 at TP 4, 0.81 at TP 8, 0.79 at TP 16 (``python/sglang/srt/server_args.py``
  ServerArgs.__post_init__, v0.4) with ``--chunked-prefill-size`` 8192 (2048 under 25 GB). Since v0.5.3 (PR 10975,
  merged 2025-09-27; ``_handle_gpu_memory_settings``) the chunk is 2048 under 35 GiB, 4096 under 60 GiB, 8192
  under 160 GiB, else 16384, the CUDA-graph batch cap ``cuda_graph_max_bs`` 24 / 32 / 256 (80 / 160 / 512 at TP 4
  and more) by the same classes and 512 from 160 GiB, and the fraction is (memory - reserved) / memory with
  reserved = 512 MiB + 1.5 MiB x max(chunk, 2048) + 2 MiB x cuda_graph_max_bs + TP/8 GiB, at least 10 GiB on
  GPUs over 60 GiB. ``--max-running-requests`` by default ``tokens / context_len x 512`` clamped to 2048 .. 4096
  and at most the pool's token count / 2 (``python/sglang/srt/model_executor/model_runner.py`` ``init_memory``:
  ``min(max(int(max_total_num_tokens / context_len * 512), 2048), 4096)``; ``_resolve_max_num_reqs`` of later
  releases adds the ``tokens // 2`` cap): a long-context model (Gemma 4, 262,144 tokens) gets 2048. No version given: the current release.
- TensorRT-LLM: ``KvCacheConfig.free_gpu_memory_fraction`` (default 0.9) of the memory left free after the
  engine and its activations load; ``max_num_tokens`` 8192 and ``max_batch_size`` 2048 (``trtllm-serve`` /
  LLM API BuildConfig defaults, ``tensorrt_llm/llmapi/llm_args.py``).
- LMDeploy (TurboMind or the PyTorch engine): ``cache_max_entry_count`` of the total to v0.2.1, of the memory free
  after the weights from v0.2.2; ``max_prefill_token_num`` and ``max_batch_size`` by release and device
  (:mod:`gpudesk.sizing.serve_lmdeploy`).
- Prefill mixing: vLLM V1 always schedules prompt chunks into the decode steps (chunked prefill, on by default
  since V1, ``vllm/v1/core/sched/scheduler.py``); TensorRT-LLM's in-flight batching runs context and generation
  requests in the same iteration (docs "In-flight batching"), with or without chunked context (without it each
  prompt runs whole: ``TRTLLM_IFB_SOURCE``); SGLang runs a prefill batch as its own step and mixes
  only with ``--enable-mixed-chunk`` (``server_args.py`` enable_mixed_chunk=False). vLLM before V1 (a published
  ``engine_version`` below 0.8) turns chunked prefill off for a model with multi-head latent attention (DeepSeek
  V2/V3/R1): ``vllm/config.py`` VllmConfig.__post_init__ of v0.7.1-v0.7.3 logs "MLA is enabled; forcing chunked
  prefill and prefix caching to be disabled." (the line appears in the published startup logs of v0.7.1 and v0.7.3
  servers); from v0.8 (V1, chunked prefill always on) the rule is kept only for non-GPU platforms ("MLA is enabled
  on a non-GPU platform", v0.8.4 logs). Such a server runs each prompt as a prefill-only step, so a new request's
  prompt no longer rides in the decode steps: TTFT and TPOT follow the separate-prefill schedule.
- vLLM V0 (a published ``engine_version`` below 0.8): chunked prefill only for contexts over 32K tokens, budget 512
  / 2048 with it and the whole context without (:mod:`gpudesk.sizing.serve_vllm_v0`).
- vLLM-Ascend v0.9.1 and v0.10.2rc1-v0.11.0rc3 on an Ascend NPU: no chunked prefill for non-MLA models whatever the
  flag, prefill-first steps of at least the model's context (:mod:`gpudesk.sizing.serve_vllm_ascend`).
- FP8 KV (``--kv-cache-dtype fp8``) halves the bytes per token (:mod:`gpudesk.sizing.memory_inference`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudesk.catalog.records import GPU
from gpudesk.i18n import _
from gpudesk.sizing.capacity import gpu_reported_total_bytes
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.serve_wide_ep import group_dense_params, per_rank_token_budget_scale
from gpudesk.sizing.serve_dp_attention import (
    DP_ATTENTION_SOURCE,
    attention_params_per_layer,
    attention_tp,
    per_rank_batch_scale,
)
from gpudesk.sizing.memory_inference import (
    PAGED_BLOCK_TOKENS,
    kv_token_bytes_all_layers,
    prefill_workspace_bytes,
    resolve_weight_format,
    weight_bytes,
)
from gpudesk.sizing.overheads import Overheads
from gpudesk.sizing.serve_host import engine_version_tuple
from gpudesk.sizing.serve_hybrid_kv import HYBRID_SOURCE, hybrid_capacity
from gpudesk.units import GIB, format_bytes, format_count, format_percent
from gpudesk.sizing.serve_load import ServeLoad, storage_weight_format
from gpudesk.sizing import serve_lmdeploy as lmdeploy
from gpudesk.sizing.serve_static import STATIC_SOURCE, is_static_batch, static_batch_limits
from gpudesk.sizing.serve_vllm_ascend import vllm_ascend_scheduler
from gpudesk.sizing.serve_vllm_v0 import MLA_NO_CHUNKED_SOURCE, vllm_v0_scheduler
from gpudesk.sizing.shapes import ModelSpec
from gpudesk.sizing.speed_common import Assumption, raw

VLLM_DEFAULT_UTILIZATION = 0.9
TRTLLM_DEFAULT_FREE_FRACTION = 0.9
# SGLang mem_fraction_static by tensor-parallel degree (server_args.py, v0.4 - v0.5.2): (min tp, fraction).
SGLANG_FRACTION_BY_TP = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))
# SGLang v0.5.3+ (PR 10975): (below GiB, chunked_prefill_size, cuda_graph_max_bs at TP < 4, at TP >= 4).
SGLANG_MEMORY_CLASSES = ((20, 2048, 8, 8), (35, 2048, 24, 80), (60, 4096, 32, 160), (90, 8192, 256, 512),
                         (160, 8192, 256, 512), (float("inf"), 16384, 512, 512))
SGLANG_HEURISTIC_SINCE = (0, 5, 3)
LARGE_GPU_BYTES = 70 * GIB
SGLANG_SMALL_GPU_BYTES = 25e9
SGLANG_MAX_RUNNING = 4096
SGLANG_MIN_RUNNING = 2048
TRTLLM_MAX_NUM_TOKENS = 8192
TRTLLM_MAX_BATCH = 2048
VLLM_V1_DEFAULT_SINCE = (0, 8)
VLLM_V0_MAX_NUM_SEQS = 256
# vLLM versions whose V1 defaults pick the large batch by device name (PR 12369) instead of memory (PR 17073).
VLLM_NAME_RULE_BEFORE = (0, 9)
VLLM_NAME_RULE_DEVICES = ("h100", "h200")
# vLLM sizes the KV pool from the torch peak plus the non-torch increase since a snapshot taken after the CUDA
# context and NCCL start (PR 9352, v0.6.4; the era table of gpudesk.sizing.engines.vllm, read in the wheels).
VLLM_SNAPSHOT_SINCE = (0, 6, 4)
VLLM_SNAPSHOT_SOURCE = (
    "vllm/v1/worker/gpu_worker.py Worker.init_device (init_snapshot taken after "
    "init_worker_distributed_environment: 'Initialize the distributed environment BEFORE taking memory snapshot') "
    "and determine_available_memory (memory_profiling from init_snapshot: non_kv_cache_memory = weights + "
    "torch_peak_increase + non_torch_increase; requested_memory = total x gpu_memory_utilization); "
    "vllm-project/vllm PR 9352 (v0.6.4) and PR 10511 ('overhaul memory profiling') (https://github.com/vllm-project/vllm)")

# Each setting cites its own mechanism: the memory fraction, the token budget per step, the running-request cap and
# whether prompt chunks ride in the decode steps are separate defaults in each engine (module docstring).
VLLM_REPO = "(https://github.com/vllm-project/vllm)"
SGLANG_REPO = "(https://github.com/sgl-project/sglang)"
TRTLLM_REPO = "(https://github.com/NVIDIA/TensorRT-LLM)"
MEMORY_FRACTION_SOURCES = {
    "vllm": "vllm/config/cache.py CacheConfig gpu_memory_utilization=0.9; vllm/v1/worker/gpu_worker.py "
            "determine_available_memory " + VLLM_REPO,
    "sglang": "sglang python/sglang/srt/server_args.py mem_fraction_static (v0.4 table by TP; since v0.5.3 "
              "_handle_gpu_memory_settings, PR 10975) " + SGLANG_REPO,
    "trtllm": "TensorRT-LLM tensorrt_llm/llmapi/llm_args.py KvCacheConfig.free_gpu_memory_fraction=0.9 " + TRTLLM_REPO,
    "lmdeploy": lmdeploy.MEMORY_SOURCE,
    "optimum-habana": STATIC_SOURCE,
}
TOKEN_BUDGET_SOURCES = {
    "vllm": "vllm/engine/arg_utils.py EngineArgs.get_batch_defaults max_num_batched_tokens (8192 serving, 16384 "
            "offline on GPUs of at least 70 GiB other than A100, else 2048 / 8192; PR 12369, PR 17073, PR 17885) "
            + VLLM_REPO,
    "sglang": "sglang python/sglang/srt/server_args.py chunked_prefill_size (v0.4: 8192, 2048 under 25 GB; since "
              "v0.5.3 by memory class, _handle_gpu_memory_settings, PR 10975) " + SGLANG_REPO,
    "trtllm": "TensorRT-LLM tensorrt_llm/llmapi/llm_args.py max_num_tokens=8192 " + TRTLLM_REPO,
    "lmdeploy": lmdeploy.BUDGET_SOURCE,
    "optimum-habana": STATIC_SOURCE,
}
MAX_RUNNING_SOURCES = {
    "vllm": "vllm/engine/arg_utils.py EngineArgs.get_batch_defaults max_num_seqs (1024 on GPUs of at least 70 GiB "
            "other than A100, else 256; 256 on every GPU before PR 17073 and in V0) " + VLLM_REPO,
    "sglang": "sglang python/sglang/srt/model_executor/model_runner.py max_running_requests (the KV pool's tokens / "
              "2, at most 4096) " + SGLANG_REPO,
    "trtllm": "TensorRT-LLM tensorrt_llm/llmapi/llm_args.py max_batch_size=2048 " + TRTLLM_REPO,
    "lmdeploy": lmdeploy.RUNNING_SOURCE,
    "optimum-habana": STATIC_SOURCE,
}
MIXED_PREFILL_SOURCES = {
    "vllm": "vllm/v1/core/sched/scheduler.py Scheduler.schedule (V1: chunked prefill on by default, prompt chunks "
            "scheduled into the decode steps under the token budget) " + VLLM_REPO,
    "sglang": "sglang python/sglang/srt/server_args.py enable_mixed_chunk=False (a prefill batch runs as its own "
              "step) " + SGLANG_REPO,
    "trtllm": "TensorRT-LLM docs 'In-flight batching' (context and generation requests in one iteration); "
              "tensorrt_llm/llmapi/llm_args.py enable_chunked_prefill " + TRTLLM_REPO,
    "optimum-habana": STATIC_SOURCE,
}
#: The source of a setting the load itself gives (the engine flag the user typed) rather than the engine's default.
USER_SETTING_SOURCE = "given: ServeLoad.{field} (the engine's own flag)"

# TensorRT-LLM's in-flight batching without chunked context (``enable_chunked_context`` / ``enable_chunked_prefill``
# False): the micro-batch scheduler walks the active requests in order, gives each generation request its one token
# and each context request its whole prompt in the same iteration, and stops at the first request that would push
# the iteration past ``max_num_tokens`` ("if (maxNumTokensRuntime && batchNumTokens + reqNumTokens > ...) break;");
# chunking only lets a context be split over iterations. Prompts therefore never pause the generation requests.
TRTLLM_IFB_SOURCE = (
    "TensorRT-LLM cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp MicroBatchScheduler::operator() "
    "('Select the generation phase requests ... If there is any remaining space, include the context requests'; "
    "without mCtxChunkConfig a context takes getNumTokens() whole or the loop breaks), commit 0a949d3 "
    "(https://github.com/NVIDIA/TensorRT-LLM)")


@dataclass(frozen=True)
class EngineBudget:
    """Per GPU of a replica: ``memory_fraction`` the engine uses, ``weights_bytes``, ``kv_bytes`` (the KV
    pool), ``kv_bytes_per_token`` (all layers, one GPU), ``kv_capacity_tokens`` (tokens the pool holds),
    ``kv_dtype`` (resolved), ``token_budget`` (prefill + decode tokens per step), ``max_running`` (requests),
    and the ``assumptions``."""

    engine: str
    memory_fraction: float
    weights_bytes: float
    kv_bytes: float
    kv_bytes_per_token: float
    kv_capacity_tokens: int
    kv_dtype: str
    token_budget: int
    max_running: int
    mixed_prefill: bool
    assumptions: tuple[Assumption, ...]
    chunked_prompts: bool = True  # False: a prompt runs whole in one step (TensorRT-LLM without chunked context)


def _sglang_heuristic(version: str | None) -> bool:
    """Whether SGLang ``version`` sets its memory defaults from the GPU's memory (v0.5.3+; None: current)."""
    if version is None:
        return True
    parts = [int(x) for x in re.findall(r"\d+", str(version))[:3]]
    return tuple(parts + [0] * (3 - len(parts))) >= SGLANG_HEURISTIC_SINCE


def _sglang_class(gpu: GPU, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) SGLang v0.5.3+ picks for ``gpu`` at ``tp``."""
    gib = gpu.memory_bytes / GIB
    _below, chunk, small_tp, large_tp = next(c for c in SGLANG_MEMORY_CLASSES if gib < c[0])
    return chunk, small_tp if tp < 4 else large_tp


def sglang_cuda_graph_max_bs(gpu: GPU, tp: int, version: str | None) -> int | None:
    """The largest decode batch SGLang replays from a CUDA graph by default on ``gpu`` at ``tp``: its v0.5.3+
    memory-class default (``server_args.py`` ``_handle_gpu_memory_settings``, :data:`SGLANG_MEMORY_CLASSES`: 32 at
    TP < 4 on a 48 GB L40S, as the lukaLLM/vLLM_vs_SGLang_benchmarks run's server_info prints); None for earlier
    releases, whose default is not modelled."""
    return _sglang_class(gpu, tp)[1] if _sglang_heuristic(version) else None


def default_memory_fraction(engine: str, gpu: GPU, tp: int, version: str | None = None,
                            backend: str | None = None) -> float:
    """The engine's default memory fraction (module docstring); ``backend``: LMDeploy's."""
    if engine == "lmdeploy":
        return lmdeploy.default_cache_max_entry_count(version, backend)
    if engine == "sglang":
        if not _sglang_heuristic(version):
            return next(f for min_tp, f in SGLANG_FRACTION_BY_TP if tp >= min_tp)
        chunk, graph_bs = _sglang_class(gpu, tp)
        mib = gpu.memory_bytes / 2**20
        reserved = 512 + 1.5 * max(chunk, 2048) + 2 * graph_bs + tp / 8 * 1024
        if mib > 60 * 1024:
            reserved = max(reserved, 10 * 1024)
        return round((mib - reserved) / mib, 3)
    if engine == "trtllm":
        return TRTLLM_DEFAULT_FREE_FRACTION
    return VLLM_DEFAULT_UTILIZATION


def _vllm_large_defaults(gpu: GPU, version: str | None) -> bool:
    """Whether vLLM at ``version`` gives ``gpu`` its large batch defaults (module docstring): by device name in
    V1 0.8.x, by memory (at least 70 GiB, not an A100) from 0.9 and with no version; V0 is kept on the memory rule."""
    parsed = engine_version_tuple(version)
    if parsed is not None and VLLM_V1_DEFAULT_SINCE <= parsed < VLLM_NAME_RULE_BEFORE:
        name = gpu.name.lower()
        return any(device in name for device in VLLM_NAME_RULE_DEVICES)
    return gpu.memory_bytes >= LARGE_GPU_BYTES and not gpu.id.startswith("a100")


def default_token_budget(engine: str, gpu: GPU, offline: bool = False, tp: int = 1,
                         version: str | None = None, backend: str | None = None, context_tokens: int = 0) -> int:
    """Prefill + decode tokens one scheduler step takes by default (module docstring); ``offline``: vLLM's ``LLM``
    class defaults; ``backend`` and ``context_tokens`` (the session length): LMDeploy's."""
    if engine == "lmdeploy":
        return lmdeploy.default_prefill_tokens(version, backend, context_tokens)[0]
    if engine == "trtllm":
        return TRTLLM_MAX_NUM_TOKENS
    if engine == "sglang":
        if _sglang_heuristic(version):
            return _sglang_class(gpu, tp)[0]
        return 2048 if gpu.memory_gb * 1e9 < SGLANG_SMALL_GPU_BYTES else 8192
    large = _vllm_large_defaults(gpu, version)
    if offline:
        return 16384 if large else 8192
    return 8192 if large else 2048


def default_max_running(engine: str, gpu: GPU, kv_capacity_tokens: int, version: str | None = None,
                        context_tokens: int | None = None) -> int:
    """Requests one replica runs at once by default (module docstring); ``version`` the engine's published version
    (None: the current release); ``context_tokens`` the model's context length (SGLang's ``context_len``; None:
    not known, the 4096 ceiling)."""
    if engine == "trtllm":
        return TRTLLM_MAX_BATCH
    if engine == "lmdeploy":
        return lmdeploy.default_max_batch_size(gpu, version)
    if engine == "sglang":
        estimate = SGLANG_MAX_RUNNING
        if context_tokens:
            estimate = min(max(int(kv_capacity_tokens / context_tokens * 512), SGLANG_MIN_RUNNING), SGLANG_MAX_RUNNING)
        return max(1, min(estimate, kv_capacity_tokens // 2))
    parsed = engine_version_tuple(version)
    if parsed is not None and parsed < VLLM_NAME_RULE_BEFORE:
        return VLLM_V0_MAX_NUM_SEQS  # V0, and V1 before PR 17073 (module docstring)
    large = _vllm_large_defaults(gpu, version)
    return 1024 if large else 256


VLLM_MLA_CHUNKED_PREFILL_SINCE = (0, 8)
VLLM_MLA_NO_CHUNKED_PREFILL_SOURCE = MLA_NO_CHUNKED_SOURCE


def default_mixed_prefill(spec: ModelSpec, engine: str, version: str | None,
                          backend: str | None = None) -> tuple[bool, str]:
    """(whether the engine's default schedules prompt chunks into decode steps, source): vLLM and TensorRT-LLM
    yes, SGLang no; vLLM before 0.8 not for a multi-head latent attention model (module docstring); LMDeploy's
    TurboMind yes, its PyTorch engine no (:mod:`gpudesk.sizing.serve_lmdeploy`)."""
    if engine == "lmdeploy":
        backend = lmdeploy.lmdeploy_backend(backend)
        return lmdeploy.mixed_prefill(backend), lmdeploy.MIXED_SOURCE[backend]
    if engine == "sglang" or is_static_batch(engine):
        return False, MIXED_PREFILL_SOURCES[engine]
    if engine == "vllm" and spec.attention_kind == "mla":
        parsed = engine_version_tuple(version)
        if parsed is not None and parsed < VLLM_MLA_CHUNKED_PREFILL_SINCE:
            return False, VLLM_MLA_NO_CHUNKED_PREFILL_SOURCE
    return True, MIXED_PREFILL_SOURCES.get(engine, MIXED_PREFILL_SOURCES["vllm"])


def _vllm_snapshot_after_init(version: str | None) -> bool:
    """Whether this vLLM sizes its KV pool from a memory snapshot taken after start-up (v0.6.4 and later, or no
    version given): KV = total x gpu_memory_utilization - weights - torch peak increase - non-torch increase, where
    both increases are measured from the snapshot ``init_device`` takes once the CUDA context and the NCCL
    communicators exist (VLLM_SNAPSHOT_SOURCE). The context and the NCCL buffers then live in the memory the
    utilization leaves free, not in the KV budget."""
    release = version_triple(version)
    return release is None or release >= VLLM_SNAPSHOT_SINCE


def kv_dtype_resolved(kv_dtype: str) -> str:
    """``auto`` -> the model's 16-bit dtype (bf16); else the given one."""
    return "bf16" if kv_dtype == "auto" else kv_dtype


def engine_budget(spec: ModelSpec, gpu: GPU, load: ServeLoad) -> EngineBudget:
    """The KV pool and scheduler limits of one replica of ``load`` on ``gpu``.

    Raises:
        ShapeError: the model has no transformer shape.
        SizingError: the weights and runtime leave no KV cache under the engine's memory fraction.
    """
    engine, tp = load.engine.lower(), load.tp
    if not spec.is_transformer:
        raise ShapeError("model", _("{model}: serving speed needs a transformer shape (layers, hidden size, heads)."
                                    ).format(model=spec.name))
    fmt = resolve_weight_format(spec, storage_weight_format(load.weight_format))
    pp = load.pp
    if pp > (spec.layers or 0):
        raise SizingError("pp", _("{pp} pipeline stages need at least {pp} layers; {model} has {layers}.").format(
            pp=pp, model=spec.name, layers=spec.layers or 0))
    # Pipeline parallelism: each stage holds its share of the decoder layers (the slowest, fullest stage: ceil(L / pp)
    # of L layers) and their KV cache; the KV capacity in tokens is that of one stage (every token has its KV on all).
    stage_share = -(-(spec.layers or 1) // pp) / (spec.layers or 1) if pp > 1 else 1.0
    weights = weight_bytes(spec, fmt) / tp * stage_share
    dp_attn = load.attention_dp
    attn_tp = attention_tp(tp, dp_attn)
    if dp_attn > 1:
        # Each attention group holds its tp / D ranks' share of the attention projections (serve_dp_attention).
        bytes_per_param = weight_bytes(spec, fmt) / spec.params
        weights += (attention_params_per_layer(spec) * (spec.layers or 0) * bytes_per_param
                    * (1 / attn_tp - 1 / tp) * stage_share)
        # DP ranks of a wide expert-parallel group also hold their own dense layers and embeddings (serve_wide_ep)
        weights += group_dense_params(spec, load) * bytes_per_param * stage_share
    kv_dtype = kv_dtype_resolved(load.kv_dtype.lower())
    user_fraction = load.gpu_memory_utilization
    version = load.engine_version
    fraction = float(user_fraction) if user_fraction is not None else default_memory_fraction(engine, gpu, tp,
                                                                                              version, load.backend)
    user_budget = load.max_num_batched_tokens
    token_budget = int(user_budget) if user_budget is not None else default_token_budget(
        engine, gpu, load.batch is not None, tp, version, load.backend, spec.context_length or 0)
    static = static_batch_limits(load) if is_static_batch(engine) else None
    if static is not None and user_budget is None:
        token_budget = static[0]
    v0 = vllm_v0_scheduler(spec, gpu, version, load.mixed_prefill, user_budget,
                           load.num_scheduler_steps) if engine == "vllm" else None
    if v0 is not None:
        token_budget = v0.token_budget
    # vLLM-Ascend releases that force prefill-first scheduling whatever the user's flag (serve_vllm_ascend).
    ascend = vllm_ascend_scheduler(spec, gpu, version, token_budget) if engine == "vllm" else None
    if ascend is not None:
        token_budget = ascend.token_budget
    overheads = Overheads()
    runtime = overheads.cuda_context_bytes + overheads.inference_runtime_bytes + (
        overheads.nccl_bytes_per_gpu if tp * pp > 1 else 0)
    if engine == "vllm" and _vllm_snapshot_after_init(version):
        # vLLM takes its baseline memory snapshot after the CUDA context and the NCCL communicators exist and
        # charges the KV budget only for what grows after it (VLLM_SNAPSHOT_SOURCE).
        runtime = overheads.inference_runtime_bytes
    activation = prefill_workspace_bytes(spec, token_budget) / 1.0
    # The engine's total is what the driver reports (cudaMemGetInfo), ECC included: the one figure every sizing
    # path reads (:func:`gpudesk.sizing.capacity.gpu_reported_total_bytes`).
    total = float(gpu_reported_total_bytes(gpu))
    if engine == "trtllm":
        kv = fraction * (total - weights - activation - runtime)
    elif engine == "lmdeploy":
        # cache_max_entry_count of the total (TurboMind to v0.2.1) or of the free memory (serve_lmdeploy)
        kv = lmdeploy.kv_pool_bytes(fraction, version, load.backend, total, weights, runtime, token_budget,
                                    spec.vocab_size or 0)
    elif engine == "sglang":
        # The static fraction holds weights + KV pool; activations and runtime live in the rest.
        kv = total * fraction - weights
    else:
        kv = total * fraction - weights - activation - runtime
    per_token = sum_layers_kv_bytes(spec, kv_dtype, attn_tp) * stage_share
    if kv < PAGED_BLOCK_TOKENS * per_token:
        # the setting the user gave is the one to name; without one, the tensor-parallel degree is the lever
        raise SizingError("gpu_memory_utilization" if user_fraction is not None else "tp", _(
            "{model} leaves no KV cache on {gpu} at TP {tp}: {weights:.1f} GiB of weights per GPU against "
            "{fraction:.0%} of {memory:.0f} GiB; raise the tensor-parallel degree or the memory fraction.").format(
            model=spec.name, gpu=gpu.name, tp=tp, weights=weights / GIB, fraction=fraction,
            memory=total / GIB))
    rank_capacity = int(kv // per_token)
    hybrid = (hybrid_capacity(spec, kv_dtype, attn_tp, kv / stage_share, load.kv_block_size or PAGED_BLOCK_TOKENS,
                              load.input_tokens + load.output_tokens // 2, engine_version_tuple(version))
              if engine == "vllm" and v0 is None and ascend is None else None)
    if hybrid is not None:
        rank_capacity = hybrid.tokens
    capacity = rank_capacity * dp_attn  # each attention group caches only its own requests (serve_dp_attention)
    user_running = load.max_num_seqs
    max_running = int(user_running) if user_running is not None else static[1] if static is not None \
        else default_max_running(engine, gpu, rank_capacity, version, spec.context_length)
    max_running *= per_rank_batch_scale(engine, dp_attn, user_running is not None)
    mixed, mixed_source = default_mixed_prefill(spec, engine, version, load.backend)
    if v0 is not None and load.mixed_prefill is None:
        mixed, mixed_source = v0.chunked, v0.source
    if load.mixed_prefill is not None:
        mixed, mixed_source = load.mixed_prefill, USER_SETTING_SOURCE.format(field="mixed_prefill")
    chunked = True
    if engine == "lmdeploy" and mixed and user_budget is None and not lmdeploy.default_prefill_tokens(
            version, load.backend, spec.context_length or 0)[1]:
        chunked = False  # TurboMind before v0.2.5 runs each prompt whole (serve_lmdeploy)
    if engine == "trtllm" and not mixed:
        # In-flight batching mixes context and generation requests whatever the chunking; without chunked context
        # each context runs whole in one iteration (TRTLLM_IFB_SOURCE).
        mixed, chunked, mixed_source = True, False, TRTLLM_IFB_SOURCE
    if ascend is not None:
        mixed, mixed_source = ascend.chunked, ascend.source
    # vLLM's data-parallel ranks each schedule up to their own token budget per step (serve_wide_ep); the
    # profiling run above is one rank's
    token_budget *= per_rank_token_budget_scale(load)
    def _given(field: str, value: object, defaults: dict[str, str]) -> str:
        return USER_SETTING_SOURCE.format(field=field) if value is not None else defaults[engine]

    budget_source = (ascend.source if ascend is not None else v0.source if v0 is not None and user_budget is None
                     else _given("max_num_batched_tokens", user_budget, TOKEN_BUDGET_SOURCES))
    running_source = _given("max_num_seqs", user_running, MAX_RUNNING_SOURCES)
    if per_rank_batch_scale(engine, dp_attn, user_running is not None) > 1:  # the cap is per attention rank
        running_source += "; " + DP_ATTENTION_SOURCE
    assumptions = (
        Assumption("mixed_prefill", (_("yes") if mixed else _("no")) if chunked
                   else _("yes, whole prompts (no chunking)"), mixed_source, raw(mixed=mixed, chunked=chunked)),
        Assumption("engine_memory_fraction", (
            _("{share} of the memory free after the weights") if engine == "lmdeploy"
            and lmdeploy.fraction_of_free_memory(version, load.backend) else _("{share} of the GPU's memory")).format(
            share=format_percent(fraction, digits=None)),
                   _given("gpu_memory_utilization", user_fraction, MEMORY_FRACTION_SOURCES), raw(share=fraction)),
        Assumption("kv_capacity_tokens", _("{tokens} tokens ({size}, {dtype})").format(
            tokens=format_count(capacity), size=format_bytes(kv, digits=1), dtype=kv_dtype),
                   "PagedAttention arXiv 2309.06180; engine memory profiling (vllm PR 21489)",
                   raw(tokens=capacity, bytes_per_gpu=kv, dtype=kv_dtype)),
    ) + ((Assumption("hybrid_kv_cache", _(
        "sliding-window layers keep only their window's blocks: {groups} KV cache groups of {layers} layers, "
        "{per_request} blocks per request of {context} tokens").format(
        groups=hybrid.groups.groups, layers=hybrid.groups.group_size, per_request=hybrid.blocks_per_request,
        context=format_count(load.input_tokens + load.output_tokens // 2)), HYBRID_SOURCE,
        raw(groups=hybrid.groups.groups, group_size=hybrid.groups.group_size, blocks=hybrid.blocks,
            blocks_per_request=hybrid.blocks_per_request)),) if hybrid is not None else ()) + (
        Assumption("token_budget_per_step", _("{tokens} tokens").format(tokens=format_count(token_budget)),
                   budget_source, raw(tokens=token_budget)),
        Assumption("max_running_requests", _("{requests} requests").format(requests=format_count(max_running)),
                   running_source, raw(requests=max_running)),
    ) + ((Assumption("attention_dp", _(
        "attention in {groups} data-parallel groups of {gpus} GPU(s), each caching only its own requests").format(
        groups=dp_attn, gpus=attn_tp), DP_ATTENTION_SOURCE, raw(groups=dp_attn, gpus_per_group=attn_tp)),)
        if dp_attn > 1 else ())
    return EngineBudget(engine=engine, memory_fraction=fraction, weights_bytes=weights, kv_bytes=kv,
                        kv_bytes_per_token=per_token, kv_capacity_tokens=capacity, kv_dtype=kv_dtype,
                        token_budget=token_budget, max_running=max_running, mixed_prefill=mixed,
                        assumptions=assumptions, chunked_prompts=chunked)


def sum_layers_kv_bytes(spec: ModelSpec, kv_dtype: str, tp: int) -> float:
    """KV bytes per token over all layers on one of ``tp`` GPUs, each layer with its own KV heads and width
    (:func:`gpudesk.sizing.memory_inference.kv_token_bytes_all_layers`; sliding-window layers counted in full, as
    engines without a per-window pool hold them; vLLM V1's hybrid manager keeps only their window:
    :mod:`gpudesk.sizing.serve_hybrid_kv`)."""
    return kv_token_bytes_all_layers(spec, kv_dtype, tp)
