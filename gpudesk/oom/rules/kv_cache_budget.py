"""``kv_cache_budget``: the serving engine's KV-cache budget cannot hold what it was asked to serve.

Each engine sizes its KV cache from a memory budget after loading the weights and profiling activations:

* vLLM: KV memory = total GPU memory × ``gpu_memory_utilization`` − weights − non-torch memory − activation
  peak (``vllm/worker/worker.py`` determine_num_available_blocks in V0, ``vllm/v1/worker/gpu_worker.py`` in V1,
  https://github.com/vllm-project/vllm). The start-up checks: one request at ``max_model_len`` must fit (V0:
  tokens = blocks × block size, vllm#2418: 229 × 16 = 3664 < 4096; V1 ``kv_cache_utils.py``: bytes needed vs
  available, with the estimated maximum model length), there must be at least one block ("No available
  memory for the cache blocks"), and hybrid models need one Mamba cache block per sequence
  (``max_num_seqs`` ≤ blocks). Fix values: the largest ``max_model_len`` that fits (the estimate vLLM printed,
  or the KV capacity in tokens rounded down to the 16-token block; from the V1 byte figures, max_model_len ×
  available / needed, KV memory being linear in length for full attention), the ``max_num_seqs`` equal to the
  Mamba blocks, and the ``gpu_memory_utilization`` that covers weights + non-torch + activations
  ((W + N + A) / total, from the profiling lines when present).
* SGLang: rest = available after load − total before load × (1 − ``mem_fraction_static``) must be positive
  (``model_runner_kv_cache_mixin.py`` profile_max_num_token, https://github.com/sgl-project/sglang); the
  smallest fraction that leaves any KV pool is 1 − available/total.
* TGI 0.9-1.0: warm-up allocates the KV cache for ``--max-batch-total-tokens`` tokens
  (``server/text_generation_server/models/flash_causal_lm.py``, https://github.com/huggingface/text-generation-inference)
  and says "Not enough memory to handle N total tokens with M prefill tokens" when it does not fit next to the
  weights: the token budget is the knob (half of it as the first try); 0.8.
* vLLM's start-up check ("Free memory on device (F/T GiB) on startup is less than desired GPU memory utilization
  (U, B GiB)", gpudesk.oom.parsers.startup_free) with under a tenth of the device held: the driver and the engine's
  own context take that much, so the budget U × T is above what any start can have free; the fix is
  ``gpu_memory_utilization`` at most F/T; 0.75 (a larger holder is gpudesk.oom.rules.other_process's).
* TensorRT-LLM: the KV cache takes ``kv_cache_free_gpu_mem_fraction`` (default 0.9) of the memory free after
  the other components; failing to create it means that share plus what follows does not fit. Its KV cache
  manager refuses to start when the pool holds fewer tokens than one sequence at the engine's maximum length
  (beam_width × tokensPerBlock × maxBlocksPerSeq, ``cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp``): the
  pool's tokens scale with the fraction (KV bytes = fraction × free memory), so the fraction that fits is the
  one given (default 0.9) × need / tokens; above 1 no fraction does, and the engine's maximum sequence length
  (max_input_len + max_output_len at build) must come down to what the pool holds.
  The PyTorch backend creates its components in a fixed order (``tensorrt_llm/_torch/pyexecutor/py_executor_creator.py``,
  ``create_py_executor`` and ``_ExecutorCreationStage``, NVIDIA/TensorRT-LLM at bab0f2e6): the model, sampler and
  drafter, a temporary KV cache and temporary "Additional executor resources" to measure the peak (their names end
  "(temporary for KV cache size estimation)"; without the estimation the final KV cache is built at once), then the
  final "KV cache" sized as ``free_gpu_memory_fraction`` of what is free, and last the final "Additional executor
  resources"
  (the executor's buffers and CUDA-graph warm-up, sized by max_batch_size and max_num_tokens). When that last
  component cannot be created the KV cache has already taken its share of the free memory and left too little
  beside it: the KV fraction is the knob that gives the memory back, and max_num_tokens (the executor's own hint for
  that stage) the one that shrinks the buffers (NVIDIA/TensorRT-LLM#5950: 16.95 GiB left after the KV cache on a
  96 GB H20, batch 128 × 32768 tokens); 0.7.

KV bytes per token = 2 · layers · kv_heads · head_dim · bytes (oom.md §1.2) when the sizing code knows the
model (see diagnose.kv_sizing).
"""

from __future__ import annotations

import math

from gpudesk.oom.cause import Cause
from gpudesk.units import format_bytes
from gpudesk.oom.rules import kv_pool_allocation, trtllm_serving
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import check_command, check_line
from gpudesk.oom.rules.other_process import STARTUP_HELD_SHARE, engine_start_held
from gpudesk.i18n import _

BLOCK_TOKENS = 16  # vLLM's default block size


def check(f: Facts) -> Cause | None:
    r = f.report
    pool = kv_pool_allocation.check(f)
    if pool is not None:
        return pool
    if r.kind == "engine_startup_free":
        return _budget_above_free(f) or _share_above_free(f)
    if r.kind == "vllm_mamba_cache":
        return _mamba(f)
    if r.kind == "sglang_kv_pool":
        return _sglang(f)
    if r.kind == "sglang_input_over_pool":
        return _sglang_input_over_pool(f)
    if r.kind == "trtllm_executor":
        return _trtllm(f)
    if r.kind == "trtllm_kv_too_small":
        return _trtllm_one_sequence(f)
    if r.kind == "trtllm_kv_blocks_exhausted":
        return _trtllm_blocks_exhausted(f)
    if r.kind == "trtllm_runtime_alloc":
        return trtllm_serving.buffers_after_pool(f)
    if r.kind == "tgi_total_tokens":
        return _tgi_total(f)
    if r.kind != "vllm_kv_cache":
        return None
    cap, need = r.kv_cache_tokens, r.max_model_len_tokens
    block = int(r.parsed.get("kv_block_size_tokens", BLOCK_TOKENS))
    util = r.parsed.get("gpu_memory_utilization_ratio")
    est = r.parsed.get("estimated_max_model_len_tokens")
    needed_b, avail_b = r.parsed.get("kv_cache_needed_bytes"), r.parsed.get("kv_cache_available_bytes")
    fit: int | None = None
    derived = False
    if isinstance(est, int) and est > 0:
        fit = est
    elif cap is not None and cap > 0:
        fit = (cap // block) * block or cap
    elif (isinstance(needed_b, int) and isinstance(avail_b, int) and needed_b > 0 and avail_b > 0
          and need is not None):
        fit = (need * avail_b // needed_b) // block * block
        derived = True
    util_fit = _vllm_util_that_fits(r.parsed)
    if fit:
        if derived and isinstance(avail_b, int) and isinstance(needed_b, int):
            fix = _("Start vLLM with --max-model-len {fit} (from {need} × {available} / {needed}: the KV cache grows "
                    "linearly with the length)").format(fit=fit, need=need, available=format_bytes(avail_b),
                                                        needed=format_bytes(needed_b))
        elif cap and not est:
            fix = _("Start vLLM with --max-model-len {fit} (the KV cache holds {cap} tokens)").format(fit=fit, cap=cap)
        else:
            fix = _("Start vLLM with --max-model-len {fit}").format(fit=fit)
    elif util_fit is not None:
        fix = _("Raise --gpu-memory-utilization to at least {util_fit:.2f}: weights, non-torch memory and the "
                "activation peak alone take that share of the GPU, and the KV cache needs more on top").format(
                    util_fit=util_fit)
    elif isinstance(util, float) and util >= 0.9:
        fix = _("The weights leave no room for the KV cache even at --gpu-memory-utilization {util}: use a "
                "quantised model (AWQ/GPTQ/FP8), shard it (--tensor-parallel-size 2) or a GPU with more "
                "memory").format(util=util)
    else:
        fix = (_("Raise --gpu-memory-utilization above {util}: vLLM's budget is that share of the GPU's total "
                 "memory, and it must hold the weights, the activation peak and at least one KV block").format(
                     util=util) if util else
               _("Raise --gpu-memory-utilization (default 0.9): vLLM's budget is that share of the GPU's total "
                 "memory, and it must hold the weights, the activation peak and at least one KV block"))
    more = [
        (_("Raise --gpu-memory-utilization above {util} if nothing else uses the GPU.").format(util=util) if util
         else _("Raise --gpu-memory-utilization (default 0.9) if nothing else uses the GPU.")),
        _("Store the KV cache in fp8: --kv-cache-dtype fp8."),
        _("Shard the model over more GPUs (--tensor-parallel-size) or quantise the weights to leave room for KV."),
    ]
    if not fit:
        more[0] = _("Lower --max-model-len and --max-num-seqs: the activation peak is profiled at these sizes.")
    return Cause(
        id="kv_cache_budget",
        title=_("KV cache too small for the maximum sequence length") if need else _("No memory left for the KV cache"),
        confidence=0.9,
        evidence=evidence(
            max_model_len_tokens=need,
            kv_cache_tokens=cap,
            shortfall_tokens=(need - cap) if need is not None and cap is not None else None,
            kv_cache_blocks=r.parsed.get("kv_cache_blocks"),
            kv_cache_needed_bytes=needed_b,
            kv_cache_available_bytes=avail_b,
            estimated_max_model_len_tokens=est,
            max_model_len_that_fits_tokens=fit,
            gpu_memory_utilization_ratio=util,
            gpu_memory_utilization_that_fits_ratio=util_fit,
            vllm_weights_bytes=r.parsed.get("vllm_weights_bytes"),
            vllm_kv_cache_memory_bytes=r.parsed.get("vllm_kv_cache_memory_bytes"),
        ),
        explanation=_("After loading the weights and profiling activations, the memory left under "
                    "gpu_memory_utilization holds fewer KV-cache tokens than one max-length request needs.")
                    if need else
                    _("After the weights, the non-torch memory and the activation peak, nothing of vLLM's budget "
                    "(gpu_memory_utilization × total GPU memory) is left for the KV cache."),
        fix=fix,
        more_fixes=more,
    )


def _vllm_util_that_fits(parsed: dict[str, int | float | str]) -> float | None:
    total = parsed.get("vllm_total_gpu_memory_bytes")
    parts = [parsed.get(k) for k in ("vllm_weights_bytes", "vllm_non_torch_bytes", "vllm_activation_peak_bytes")]
    if not isinstance(total, int) or total <= 0 or not all(isinstance(p, int) for p in parts):
        return None
    used = sum(int(p) for p in parts if isinstance(p, int))
    return math.ceil(used / total * 100) / 100 + 0.01


def _mamba(f: Facts) -> Cause:
    p = f.report.parsed
    seqs, blocks = p.get("max_num_seqs"), p.get("mamba_cache_blocks")
    return Cause(
        id="kv_cache_budget",
        title=_("Too many concurrent sequences for the Mamba cache"),
        confidence=0.9,
        evidence=evidence(max_num_seqs=seqs, mamba_cache_blocks=blocks),
        explanation=_("A hybrid (Mamba / linear-attention) model needs one Mamba cache block per running sequence; the "
                    "memory left after the weights and the KV cache holds fewer blocks than --max-num-seqs."),
        fix=_('Start vLLM with --max-num-seqs {blocks}').format(blocks=blocks) if blocks else _("Lower --max-num-seqs"),
        more_fixes=[_("Lower --max-model-len: a smaller KV pool leaves more memory for Mamba blocks."),
                    _("Raise --gpu-memory-utilization if nothing else uses the GPU.")],
    )


def _sglang_input_over_pool(f: Facts) -> Cause:
    """SGLang refused a request longer than its KV pool holds (parsers/sglang.py ``_INPUT_TOO_LONG``): the limit is not a
    context window, so the pool sized at start-up from the memory free after the weights is the limit."""
    p = f.report.parsed
    limit, pool = p.get("sglang_max_input_tokens"), f.report.kv_cache_tokens
    return Cause(
        id="kv_cache_budget",
        title=_("SGLang's KV pool is smaller than the request"),
        confidence=0.75,
        evidence=evidence(refused_request_tokens=p.get("refused_request_tokens"), sglang_max_input_tokens=limit,
                          kv_cache_tokens=pool),
        explanation=_("SGLang accepts an input of at most min(context length, KV pool tokens) − 6 tokens. {limit} is "
                      "not a model's context window, so the KV pool ({pool} tokens) sized at start-up from the memory "
                      "free after the weights set the limit.").format(limit=limit, pool=pool),
        fix=_("Raise --mem-fraction-static (or free the memory the weights' loading still holds) so the KV pool grows; "
              "the start-up line 'KV Cache is allocated. #tokens:' shows its size"),
        more_fixes=[_("Use a quantised model or tensor parallelism (--tp 2) to leave more memory for the KV pool."),
                    _("Shorten the input, or start SGLang with --allow-auto-truncate.")],
        checks=[check_line("grep -E 'max_total_num_tokens|KV Cache is allocated|context_len' <the SGLang server log>",
                           _("If the KV pool's token count is below the model's context length, memory sized the pool "
                             "and the limit; if the context length is the smaller, the input is longer than the model "
                             "accepts, not a memory problem."))],
    )


def _sglang(f: Facts) -> Cause:
    p = f.report.parsed
    avail, total = p.get("sglang_avail_after_load_bytes"), p.get("sglang_total_before_load_bytes")
    current = p.get("mem_fraction_static_ratio")
    minimum: float | None = None
    if not isinstance(avail, int) or not isinstance(total, int) or total <= 0:
        avail = total = None
    else:
        minimum = math.ceil((1 - avail / total) * 100) / 100
    if minimum is not None and (not isinstance(current, float) or current < minimum):
        fix = _("Start SGLang with --mem-fraction-static above {minimum:.2f} (e.g. {suggested:.2f}): after the "
                "weights {available} of {total} is free, and SGLang keeps total × (1 − fraction) for activations "
                "before sizing the KV pool").format(minimum=minimum, suggested=min(0.95, minimum + 0.05),
                                                    available=format_bytes(avail), total=format_bytes(total))
    elif minimum is not None:
        fix = _("The weights leave {available} of {total}: even --mem-fraction-static {current} leaves no KV pool "
                "after CUDA graphs and activations; use a quantised model, more GPUs (--tp) or smaller "
                "--cuda-graph-max-bs / --chunked-prefill-size").format(
                    available=format_bytes(avail), total=format_bytes(total), current=current)
    else:
        fix = (_("Raise --mem-fraction-static above {current}: it is the share of the GPU for weights + KV pool, "
                 "and the weights leave no KV pool at this value").format(current=current)
               if isinstance(current, float) else
               _("Raise --mem-fraction-static: it is the share of the GPU for weights + KV pool, and the weights "
                 "leave no KV pool at this value"))
    return Cause(
        id="kv_cache_budget",
        title=_("SGLang's static memory leaves no room for the KV pool"),
        confidence=0.9,
        evidence=evidence(sglang_avail_after_load_bytes=avail, sglang_total_before_load_bytes=total,
                          sglang_weights_bytes=p.get("sglang_weights_bytes"), mem_fraction_static_ratio=current,
                          mem_fraction_static_minimum_ratio=minimum,
                          sglang_profiled_max_tokens=p.get("sglang_profiled_max_tokens")),
        explanation=_("SGLang sizes the KV pool as (free after load) − total × (1 − mem_fraction_static); with these "
                    "weights that is not positive, so no token fits."),
        fix=fix,
        more_fixes=[(_("Raising the fraction shrinks the activation reserve: if serving then OOMs, lower "
                    "--chunked-prefill-size and --cuda-graph-max-bs as well.")),
                    _("Use a quantised model or tensor parallelism (--tp 2) to shrink the weights per GPU.")],
    )


# The last component the PyTorch backend creates, after the final KV cache (module docstring); the temporary one of
# the same name, created for the estimation before the KV cache, ends "(temporary for KV cache size estimation)".
TRTLLM_EXTRA_RESOURCES = "additional executor resources"


def _trtllm(f: Facts) -> Cause | None:
    p = f.report.parsed
    comp = str(p.get("trtllm_component", ""))
    if comp.lower() == TRTLLM_EXTRA_RESOURCES:
        return _trtllm_after_kv(f, comp)
    if comp and "kv" not in comp.lower():
        return None
    frac = p.get("kv_cache_free_gpu_mem_fraction_ratio")
    return Cause(
        id="kv_cache_budget",
        title=_("TensorRT-LLM could not create its KV cache"),
        confidence=0.75,
        evidence=evidence(trtllm_component=comp or None, total_capacity_bytes=f.total, free_bytes=f.free,
                          kv_cache_free_gpu_mem_fraction_ratio=frac),
        explanation=(_("The KV cache takes kv_cache_free_gpu_mem_fraction of the memory free after the model and "
                       "the other components ({free} free here); that share plus the buffers created after it did "
                       "not fit.").format(free=format_bytes(f.free)) if f.free is not None else
                     _("The KV cache takes kv_cache_free_gpu_mem_fraction of the memory free after the model and "
                       "the other components; that share plus the buffers created after it did not fit.")),
        fix=(_("Lower kv_cache_free_gpu_mem_fraction (KvCacheConfig.free_gpu_memory_fraction) below {fraction}, or "
               "cap it in bytes with KvCacheConfig.max_gpu_total_bytes").format(fraction=frac)
             if isinstance(frac, float) else
             _("Lower kv_cache_free_gpu_mem_fraction (KvCacheConfig.free_gpu_memory_fraction) below the default "
               "0.9, e.g. 0.8, or cap it in bytes with KvCacheConfig.max_gpu_total_bytes")),
        more_fixes=[_("Lower max_batch_size / max_num_tokens: the runtime buffers created after the KV cache scale with them."),
                    (_("If a fraction of 0.1 still fails with most memory free, the refusal is not about capacity: "
                    "check the driver and the other ranks."))],
    )


TRTLLM_DEFAULT_FRACTION = 0.9  # KvCacheConfig.free_gpu_memory_fraction's default


def _trtllm_after_kv(f: Facts, comp: str) -> Cause:
    """The executor's last component failed after the final KV cache took its share (module docstring)."""
    frac = f.report.parsed.get("kv_cache_free_gpu_mem_fraction_ratio")
    current = frac if isinstance(frac, float) else TRTLLM_DEFAULT_FRACTION
    return Cause(
        id="kv_cache_budget",
        title=_("TensorRT-LLM's KV cache left too little for the executor's buffers"),
        confidence=0.7,
        evidence=evidence(trtllm_component=comp, total_capacity_bytes=f.total, free_bytes=f.free,
                          kv_cache_free_gpu_mem_fraction_ratio=frac),
        explanation=(_("TensorRT-LLM creates the executor's buffers and CUDA-graph warm-up last, after the KV cache "
                       "has taken {fraction} of the free memory; {free} was left for them and they did not fit.")
                     .format(fraction=current, free=format_bytes(f.free)) if f.free is not None else
                     _("TensorRT-LLM creates the executor's buffers and CUDA-graph warm-up last, after the KV cache "
                       "has taken {fraction} of the free memory; what was left did not hold them.")
                     .format(fraction=current)),
        fix=_("Lower KvCacheConfig.free_gpu_memory_fraction below {fraction} (e.g. {lower}), or lower max_num_tokens "
              "and max_batch_size, which size the executor's buffers").format(
                  fraction=current, lower=round(max(current - 0.1, current / 2), 2)),  # never zero or below
        more_fixes=[_("Capture fewer CUDA graphs (cuda_graph_config batch sizes), or turn them off to test.")],
    )


def _trtllm_one_sequence(f: Facts) -> Cause:
    """TensorRT-LLM's KV pool holds fewer tokens than one sequence (module docstring)."""
    r = f.report
    p = r.parsed
    tokens, need = r.kv_cache_tokens, r.max_model_len_tokens
    frac = p.get("kv_cache_free_gpu_mem_fraction_ratio")
    given = frac if isinstance(frac, float) else TRTLLM_DEFAULT_FRACTION
    per_block = p.get("kv_block_size_tokens")
    fits: float | None = None
    if tokens and need:
        fits = math.ceil(given * need / tokens * 100) / 100
    beam = p.get("beam_width")
    per_beam = tokens // beam if tokens and isinstance(beam, int) and beam > 0 else tokens
    longest = (per_beam // per_block * per_block if isinstance(per_block, int) and per_block > 0 and per_beam
               else per_beam)
    if fits is not None and fits < 1:
        if isinstance(frac, float):
            fix = _("Raise kv_cache_free_gpu_mem_fraction to at least {fits:.2f} (now {given}): the KV pool holds "
                    "{tokens} tokens and one sequence at the engine's maximum length needs {need}").format(
                        fits=fits, given=given, tokens=tokens, need=need)
        else:  # the log printed no fraction: TensorRT-LLM's default is assumed, not read
            fix = _("Raise kv_cache_free_gpu_mem_fraction to at least {fits:.2f} (default {given}): the KV pool holds "
                    "{tokens} tokens and one sequence at the engine's maximum length needs {need}").format(
                        fits=fits, given=given, tokens=tokens, need=need)
    elif fits is not None:
        fix = _("Rebuild the engine with a maximum sequence length (max_input_len + max_output_len) of at most "
                "{longest} tokens, or spread the weights over more GPUs (tensor parallelism) to leave more memory for "
                "the KV pool: even all the free memory (fraction 1.0) holds fewer than the {need} tokens one sequence "
                "needs").format(longest=longest, need=need)
    else:
        fix = _("Give the KV pool one full sequence: raise kv_cache_free_gpu_mem_fraction (default 0.9) or "
                "max_tokens_in_paged_kv_cache, or rebuild the engine with a smaller max_input_len + max_output_len")
    return Cause(
        id="kv_cache_budget",
        title=_("TensorRT-LLM's KV cache cannot hold one sequence of the engine's maximum length"),
        confidence=0.9,
        evidence=evidence(kv_cache_tokens=tokens, one_sequence_tokens=need,
                          shortfall_tokens=(need - tokens) if tokens is not None and need is not None else None,
                          kv_cache_pool_bytes=p.get("kv_cache_pool_bytes"), beam_width=beam,
                          kv_block_size_tokens=per_block, max_blocks_per_sequence=p.get("max_blocks_per_sequence"),
                          kv_cache_free_gpu_mem_fraction_ratio=frac, kv_cache_fraction_that_fits_ratio=fits),
        explanation=_("TensorRT-LLM's KV cache manager checks at start that its pool (a fraction of the memory free "
                      "after the weights and runtime buffers, or max_tokens_in_paged_kv_cache) holds at least one "
                      "sequence at the engine's maximum length, times the beam width; this pool holds less, so the "
                      "model instance is not created."),
        fix=fix,
        more_fixes=[_("Set max_tokens_in_paged_kv_cache to at least the tokens of one sequence (or leave it empty so "
                      "the fraction decides)."),
                    _("Lower max_batch_size / max_num_tokens at build: the engine's activation memory, taken before "
                      "the KV cache is sized, scales with them.")],
    )


def _trtllm_blocks_exhausted(f: Facts) -> Cause:
    """TensorRT-LLM's block manager found no free KV block for a scheduled sequence (parsers.trtllm): the pool, sized
    from the KV budget after the engine's buffers, is smaller than the batch it serves. 0.75: the figures are not
    printed, and a pool too small for the batch is what the assertion states."""
    return Cause(
        id="kv_cache_budget",
        title=_("TensorRT-LLM's KV cache ran out of blocks for the batch it serves"),
        confidence=0.75,
        evidence=evidence(kv_cache_tokens=f.report.kv_cache_tokens),
        explanation=_("TensorRT-LLM keeps the KV cache in a pool of fixed blocks, sized at start from the memory left "
                      "after the weights and the engine's activation buffers (kv_cache_free_gpu_mem_fraction of it, or "
                      "max_tokens_in_paged_kv_cache); a sequence the batch manager scheduled needed a block and none "
                      "was free."),
        fix=_("Give the KV pool more room or ask less of it: raise kv_cache_free_gpu_mem_fraction (default 0.9), or "
              "serve smaller batches (a lower max_batch_size, shorter outputs)"),
        more_fixes=[_("Lower max_batch_size / max_num_tokens at build: the engine's activation memory, taken before "
                      "the KV cache is sized, scales with them.")],
    )


def _tgi_total(f: Facts) -> Cause:
    total = int(f.report.parsed.get("max_batch_total_tokens", 0))
    return Cause(
        id="kv_cache_budget",
        title=_("TGI's KV cache for --max-batch-total-tokens does not fit"),
        confidence=0.8,
        evidence=evidence(max_batch_total_tokens=total or None,
                          max_batch_prefill_tokens=f.report.parsed.get("max_batch_prefill_tokens")),
        explanation=_("TGI's warm-up reserves the KV cache for {total} tokens across all requests; after the "
                      "weights, the GPU cannot hold a cache that large.").format(total=total),
        fix=_("Start TGI with --max-batch-total-tokens {half} (half of {total}), keeping --max-batch-prefill-tokens "
              "below it").format(half=max(1, total // 2), total=total),
        more_fixes=[_("Quantise the weights (--quantize awq/gptq/bitsandbytes) or shard over more GPUs "
                      "(--num-shard) to leave room for the cache.")],
    )


def _budget_above_free(f: Facts) -> Cause | None:
    """vLLM's start-up free-memory check with little held by others (module docstring)."""
    got = engine_start_held(f)
    if got is None or got[2] >= STARTUP_HELD_SHARE * got[0]:
        return None
    total, free, held = got
    budget = f.report.parsed.get("engine_budget_bytes")
    most = int(free / total * 100) / 100
    return Cause(
        id="kv_cache_budget",
        title=_("The engine's memory budget is larger than the free memory at start"),
        confidence=0.75,
        evidence=evidence(total_at_start_bytes=total, free_at_start_bytes=free, held_at_start_bytes=held,
                          engine_budget_bytes=budget if isinstance(budget, int) else None),
        explanation=_("gpu_memory_utilization asks for {budget} of {total}, but only {free} was free before loading: "
                      "the {held} the driver and the engine's own context hold already count against it.").format(
                          budget=format_bytes(budget) if isinstance(budget, int) else "?",
                          total=format_bytes(total), free=format_bytes(free), held=format_bytes(held)),
        fix=_("Set --gpu-memory-utilization to at most {most:.2f}").format(most=most),
    )


def _share_above_free(f: Facts) -> Cause | None:
    """vLLM's start-up check quoted with only the share asked for, above 0.9 (gpudesk.oom.parsers.startup_free): what
    was held could be as little as the driver's and the engine's own context, so the share itself is the first reading
    (0.6), another holder beside it (gpudesk.oom.rules.other_process reads shares of 0.9 and below)."""
    r = f.report
    above, util = r.parsed.get("held_share_above"), r.parsed.get("gpu_memory_utilization")
    if engine_start_held(f) is not None or not isinstance(above, float) or not isinstance(util, float) \
            or above >= STARTUP_HELD_SHARE:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("The engine's memory budget is larger than the free memory at start"),
        confidence=0.6,
        evidence=evidence(gpu_memory_utilization_ratio=util, deciding_check="other_process",
                          check_command=check_command("other_process", r.platform)),
        explanation=_("gpu_memory_utilization asks for {util:.0%} of the GPU before anything is loaded, which leaves "
                      "less than the driver, the CUDA context and a desktop can already hold.").format(util=util),
        # the share the start-up check leaves to the driver and the context (other_process.STARTUP_HELD_SHARE)
        fix=_("Set --gpu-memory-utilization to {most:.1f} or less (nvidia-smi shows what is already in use)").format(
            most=1 - STARTUP_HELD_SHARE),
    )
