"""A serving engine's memory budget named in the user's own words, with no figure for the other rules to weigh
(``kv_cache_budget``):

* vLLM's ``gpu_memory_utilization`` set to 0.96 or more ("OOM occurs after setting gpu_memory_utilization to 1.0",
  vllm#1298). vLLM sizes its KV cache as total × gpu_memory_utilization − weights − the peak activation memory of one
  profiling run (``vllm/worker/worker.py`` ``determine_num_available_blocks``; V1 ``gpu_worker.py``
  ``determine_available_memory``; https://github.com/vllm-project/vllm), and that profile is approximate: CUDA graphs,
  NCCL buffers, the sampler and fragmentation come after it. A budget of the whole GPU leaves nothing for them, so
  the preallocated KV cache takes memory the run needs (the maintainer on vllm#1298: 0.9 to 0.95 is safe). 0.7.
* Ollama with its context setting (``num_ctx`` / ``OLLAMA_CONTEXT_LENGTH``) named as what brings the failure on.
  Ollama decides how many layers to offload (``num_gpu``) from an estimate of what fits; the KV cache and compute
  buffers grow with the context, and an estimate that leaves them out (or undercounts them) offloads layers the GPU
  cannot hold beside the cache of a large context (ollama#1952: fixed in 0.1.21/0.1.22, which offload fewer layers
  for a large ``num_ctx``; https://github.com/ollama/ollama, ``llm/memory.go`` EstimateGPULayers). 0.6: the figures
  are not in the text. Ollama's batch setting (``num_batch``) counts as the context's: llama.cpp's compute buffers grow
  with the batch and the context together (ollama#1800: lowering num_batch from 512 ended the OOM of 16k contexts).
* TGI's token budget named beside an OOM ("auto max_batch_total_tokens OOM", text-generation-inference#651). TGI
  0.9+ infers ``--max-batch-total-tokens`` at warm-up from the memory it measures
  (``server/text_generation_server/models/flash_causal_lm.py`` warmup, https://github.com/huggingface/text-generation-inference)
  and allocates that KV cache; it counts the GPU as its own, so a budget larger than what stays free fails later.
  0.6, fix: set the token budget (and ``--cuda-memory-fraction``) explicitly.
* An SGLang server named beside an OOM with no figures: SGLang takes ``mem_fraction_static`` of the GPU for the weights
  and its KV pool up front (``model_runner.py`` profile_max_num_token, https://github.com/sgl-project/sglang), and
  what runs outside that pool (a vision encoder, CUDA graphs, large prefills) gets only the rest (allenai/olmocr#50:
  a standalone server on a 24 GB card needed --mem-fraction-static 0.80). 0.6.
* vLLM named beside an OOM with ``gpu_memory_utilization`` said not to help (vllm#5993): the start-up check needs one
  request of ``max_model_len`` tokens in the KV cache whatever the share, so the context length is the knob. 0.6.
* vLLM with a small ``gpu_memory_utilization`` (under 0.5) named beside an OOM (vllm#9630: 0.2 of a 96 GB H100 for an
  11B vision model): vLLM limits itself to that share of the whole GPU for the weights, the profiling run and the KV
  cache, so the cap it was given, not the GPU, is too small (``per_process_cap``, 0.65): raise the share.
* llama.cpp's own context lines (``n_ctx = N``, "KV self size", "KV buffer size") in a log that runs out of memory
  with no figure of the failing request: the KV cache is sized by n_ctx and sits on the GPU with the offloaded layers
  (``src/llama-kv-cache.cpp``, https://github.com/ggml-org/llama.cpp), and the layer count chosen for the weights
  alone (Ollama's estimate, ollama#2706) leaves the cache and compute buffers no room. 0.55.
* Ollama's own load request (``runner.go``: ``msg=load request="{Operation:... KvSize:N ...}"``, the context in tokens
  times the parallel slots, ``num_ctx`` x ``OLLAMA_NUM_PARALLEL``) naming 32768 tokens or more, with llama.cpp's compute
  buffer refused (thirty-ninth pass). Without flash attention the compute buffer holds one micro-batch's attention
  scores against the whole cache, n_ubatch x n_ctx x n_head x 4 bytes (``ggml_soft_max`` over ``kq`` in
  ``src/llama-graph.cpp``, https://github.com/ggml-org/llama.cpp): 512 x 262144 x 32 x 4 bytes is 16 GiB, the 17-19 GB
  per GPU of ollama#15284 (KvSize:262144, FlashAttention:Disabled). The context decides, not the model's size
  (``kv_cache_budget``, 0.85; ollama#1952 and #1800 were fixed the same way). A context below that is read from the
  buffers as before.
* An engine's own refusal naming its KV cache as what the memory is not enough for ("AssertionError: Not enough memory
  for KV cache, try reducing --num-pages", FlashML-org/FreeToken-Web#2): the engine checks the pool it is about to
  reserve (pages or tokens × the KV bytes of one token) against the memory left after the weights, before any CUDA
  allocation fails, so the KV setting it names is the knob (0.7, above a shortage with no figure).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules import kv_budget_figures
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

# The setting and its value as users and logs write it: "gpu_memory_utilization=1.0", "--gpu-memory-utilization 0.98",
# "setting gpu_memory_utilization to 1.0", '"gpu_memory_utilization": 0.95' (also read by vllm_kv_allocation).
UTILIZATION = re.compile(r"gpu[_-]memory[_-]utili[sz]ation\W{0,3}(?:(?:to|of|at|=|:)\s{0,3})?(0?\.\d{1,4}|1(?:\.0{1,4})?)"
                          r"(?![\d.])", re.IGNORECASE)
# A share this close to the whole GPU leaves no margin for what the profiling run does not see (module docstring).
_WHOLE_GPU_SHARE = 0.96
_OLLAMA_CONTEXT = re.compile(r"\bnum_ctx\b|\bnum_batch\b|\bollama_context_length\b", re.IGNORECASE)
_OLLAMA = re.compile(r"(?<![a-z])ollama(?![a-z])", re.IGNORECASE)
_CONTEXT_WORDS = re.compile(r"\bnum_ctx\b|\bnum_batch\b|\bollama_context_length\b|\bcontext (?:window|size|length)s?\b",
                            re.IGNORECASE)


def _whole_gpu_budget(f: Facts) -> Cause | None:
    m = UTILIZATION.search(f.report.text or "")
    if m is None or float(m.group(1)) < _WHOLE_GPU_SHARE:
        return None
    share = float(m.group(1))
    return Cause(
        id="kv_cache_budget",
        title=_("gpu_memory_utilization leaves no margin beside the KV cache"),
        confidence=0.7,
        evidence=evidence(gpu_memory_utilization_ratio=share),
        explanation=_("vLLM fills gpu_memory_utilization ({share}) of the GPU with the weights, one profiling run's "
                      "activations and a preallocated KV cache. The profile is approximate (CUDA graphs, NCCL buffers "
                      "and the sampler come after it), so a budget of the whole GPU leaves nothing for them.").format(
                          share=share),
        fix=_("Set gpu_memory_utilization to 0.9 (at most 0.95), and lower max_model_len or max_num_seqs if the "
              "KV cache is then too small"),
    )


def _ollama_context(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if f.requested is not None or f.total is not None or _CONTEXT_WORDS.search(text) is None \
            or (_OLLAMA.search(text) is None and _OLLAMA_CONTEXT.search(text) is None):
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("Ollama offloaded more layers than fit beside the KV cache of this context"),
        confidence=0.6,
        evidence=evidence(engine="ollama"),
        explanation=_("Ollama chooses how many layers to put on the GPU from an estimate of what fits; the KV cache "
                      "and compute buffers grow with the context (num_ctx), and an estimate that undercounts them "
                      "offloads layers the GPU cannot hold beside a large context's cache."),
        fix=_("Lower the context (num_ctx or OLLAMA_CONTEXT_LENGTH), or put fewer layers on the GPU (num_gpu); "
              "update Ollama, whose newer estimates count the context's cache"),
        more_fixes=[_("Store the KV cache quantised (OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1).")],
    )


# An out-of-memory failure said in words, the short forms included ("OOM", "CUDA-ooM").
OOM_SAID = re.compile(r"out of memory|(?<![a-z0-9])oom(?:s|ed|ing)?(?![a-z0-9])|显存不足|爆显存|显存溢出", re.IGNORECASE)
_TGI_TOKENS = re.compile(r"\bmax[_-]batch[_-]total[_-]tokens\b|\bmax[_-]total[_-]tokens\b", re.IGNORECASE)
_SGLANG = re.compile(r"\bsglang\b", re.IGNORECASE)
_SGLANG_FRACTION = re.compile(r"mem[_-]fraction[_-]static\W{0,3}(0?\.\d{1,4})", re.IGNORECASE)
_VLLM = re.compile(r"(?<![a-z])vllm(?![a-z])|\bVllmWorkerProcess\b|\bLoading model weights took\b", re.IGNORECASE)
_UTILIZATION_NO_HELP = re.compile(
    r"gpu[_-]memory[_-]utili[sz]ation[^.\n]{0,40}?(?:did(?:n'?t| not) help|does(?:n'?t| not) help|no effect|"
    r"still (?:oom|out of memory))", re.IGNORECASE)
_LLAMACPP_CONTEXT = re.compile(r"\bn_ctx\s{0,8}=\s{0,3}(\d{2,7})\b|\bKV self size\b|\bKV buffer size\b", re.IGNORECASE)


def _no_figures(f: Facts) -> bool:
    return f.requested is None and f.total is None


def _tgi_tokens(f: Facts) -> Cause | None:
    text = f.report.text or ""
    m = _TGI_TOKENS.search(text)
    if m is None or not _no_figures(f) or OOM_SAID.search(text) is None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("TGI's token budget takes more memory than stays free"),
        confidence=0.6,
        evidence=evidence(engine="tgi", settings_named=m.group(0)),
        explanation=_("TGI sizes its KV cache for {setting} tokens at warm-up from the memory it sees and counts the "
                      "whole GPU as its own, so the cache it allocates leaves too little for the requests (or for "
                      "other programs on the same GPU).").format(setting=m.group(0)),
        fix=_("Set --max-batch-total-tokens explicitly below the inferred value, and cap TGI's share with "
              "--cuda-memory-fraction on a shared GPU"),
        more_fixes=[_("Lower --max-batch-prefill-tokens and --max-input-tokens with it.")],
    )


def _sglang_server(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _SGLANG.search(text) is None or not _no_figures(f) or OOM_SAID.search(text) is None:
        return None
    m = _SGLANG_FRACTION.search(text)
    return Cause(
        id="kv_cache_budget",
        title=_("SGLang's static memory share leaves too little for the rest"),
        confidence=0.6,
        evidence=evidence(engine="sglang", mem_fraction_static_ratio=float(m.group(1)) if m else None),
        explanation=_("SGLang reserves mem_fraction_static of the GPU for the weights and its KV-cache pool when it "
                      "starts; what runs outside the pool (a vision encoder, CUDA graphs, long prefills) has only "
                      "the rest, which runs out on a smaller GPU."),
        fix=_("Start the server with a lower --mem-fraction-static (0.8, or 0.7 on a 24 GB GPU), and lower "
              "--chunked-prefill-size for long inputs"),
    )


def _vllm_context(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if _UTILIZATION_NO_HELP.search(text) is None or _VLLM.search(text) is None or OOM_SAID.search(text) is None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("vLLM needs the KV cache of one full-length request"),
        confidence=0.6,
        evidence=evidence(engine="vllm"),
        explanation=_("vLLM checks at start that the KV cache holds one request of max_model_len tokens (the model's "
                      "whole context by default); with the weights loaded, no gpu_memory_utilization leaves that "
                      "much, so changing it does not help."),
        fix=_("Lower max_model_len (--max-model-len) to the context you need, and set gpu_memory_utilization to "
              "0.9-0.95"),
        more_fixes=[_("Spread the weights with --tensor-parallel-size, or store the KV cache in fp8 "
                      "(--kv-cache-dtype fp8).")],
    )


# A share of the GPU this small leaves an engine little beyond its weights (module docstring).
_SMALL_SHARE = 0.5


def _small_vllm_share(f: Facts) -> Cause | None:
    text = f.report.text or ""
    m = UTILIZATION.search(text)
    if m is None or float(m.group(1)) >= _SMALL_SHARE or float(m.group(1)) <= 0 or _VLLM.search(text) is None \
            or OOM_SAID.search(text) is None or not _no_figures(f):
        return None
    share = float(m.group(1))
    return Cause(
        id="per_process_cap",
        title=_("vLLM was given too small a share of the GPU"),
        confidence=0.65,
        evidence=evidence(engine="vllm", gpu_memory_utilization_ratio=share),
        explanation=_("vLLM keeps to gpu_memory_utilization ({share}) of the whole GPU for the weights, one profiling "
                      "run and the KV cache; that share is smaller than the model needs, whatever the GPU has "
                      "free.").format(share=share),
        fix=_("Raise --gpu-memory-utilization (0.9 on a GPU of its own; on a shared GPU, the share the other "
              "processes leave free), and lower --max-model-len if the KV cache is still too small"),
    )


def _llamacpp_context(f: Facts) -> Cause | None:
    text = f.report.text or ""
    m = _LLAMACPP_CONTEXT.search(text)
    if m is None or f.requested is not None or OOM_SAID.search(text) is None:
        return None
    n_ctx = int(m.group(1)) if m.group(1) else None
    return Cause(
        id="kv_cache_budget",
        title=_("llama.cpp's context buffers do not fit beside the offloaded layers"),
        confidence=0.55,
        evidence=evidence(engine="llama.cpp", n_ctx_tokens=n_ctx),
        explanation=_("llama.cpp puts the KV cache (sized by n_ctx) and the compute buffers on the GPU beside the "
                      "offloaded layers; a layer count chosen for the weights alone leaves them no room, and the "
                      "compute buffers grow with the input."),
        fix=_("Lower the context (-c / n_ctx, Ollama num_ctx) or the batch (-b / num_batch), or offload fewer layers "
              "(-ngl, Ollama num_gpu)"),
        more_fixes=[_("Quantise the KV cache (--cache-type-k q8_0 --cache-type-v q8_0 with flash attention).")],
    )


# The refusal in the engine's words, and the setting its hint names ("try reducing --num-pages").
# The memory is qualified by the device's name for it: "GPU", "device", and on Apple silicon "Metal" (the GPU API whose
# working-set limit the engine plans against) or "unified" (sixty-second pass: vllm-metal's "Paged attention: not
# enough Metal memory for KV cache", gpudesk.oom.rules.kv_budget_figures).
_KV_NOT_ENOUGH = re.compile(r"\b(?:not enough|insufficient)\s{1,3}(?:(?:gpu|device|metal|unified)\s{1,3})?memory\s{1,3}"
                            r"for\s{1,3}(?:the\s{1,3})?(?:kv|key[- ]value)[ -]?cache\b", re.IGNORECASE)
_KV_HINT = re.compile(r"\b(?:try\s{1,3})?(?:reduc(?:e|ing)|lower(?:ing)?|decreas(?:e|ing))\s{1,3}(--?[a-z][\w-]{1,40})",
                      re.IGNORECASE)
# The hint belongs to the refusal: it is read only in the words that follow it (the same sentence or the next line), so
# a flag that a later, unrelated line of a pasted log says to reduce is not taken for the KV setting.
KV_HINT_WINDOW_CHARS = 160


def _engine_kv_words(f: Facts) -> Cause | None:
    text = f.report.text or ""
    m = _KV_NOT_ENOUGH.search(text)
    if m is None:
        return None
    figures = kv_budget_figures.read(text, m.end())
    if figures is not None and not figures.weights_fit_limit:
        return None  # the weights alone exceed the device's limit: no budget fits them (kv_budget_figures)
    if figures is not None:
        return _engine_kv_plan(m.group(0), figures)
    hint = _KV_HINT.search(text, m.end(), m.end() + KV_HINT_WINDOW_CHARS)
    setting = hint.group(1) if hint else None
    fix = (_("Lower {setting} (the KV cache's size) or the maximum context length, so the KV pool fits beside the "
             "weights").format(setting=setting) if setting else
           _("Lower the KV cache's size (its token, page or block count) or the maximum context length, so the KV "
             "pool fits beside the weights"))
    return Cause(
        id="kv_cache_budget",
        title=_("The engine's KV cache does not fit in the memory left beside the weights"),
        confidence=0.7,
        evidence=evidence(engine_words=m.group(0), kv_setting=setting),
        explanation=_("The engine itself refused its KV cache: it checks the pool it is about to reserve (its pages or "
                      "tokens times the KV bytes of one token) against the memory left after loading the weights, "
                      "before any CUDA allocation fails."),
        fix=fix,
        more_fixes=[_("Quantise the KV cache or the weights, or use a GPU with more memory.")],
    )


def _engine_kv_plan(words: str, plan: kv_budget_figures.KvBudgetFigures) -> Cause:
    """The engine's refusal with its plan's figures, the weights inside the device's limit (kv_budget_figures): the
    share it was given, less the weights and its measured overhead, left the KV cache nothing. 0.8: the engine's own
    arithmetic, above the refusal in words alone (0.7)."""
    gb = 1e9
    needed = plan.fraction_needed
    if needed < 1:
        fix = _("Give the engine a larger share of the device's memory: above {needed:.2f} of the {limit:.2f} GB limit "
                "(vLLM --gpu-memory-utilization; VLLM_METAL_MEMORY_FRACTION on Apple silicon), or lower "
                "--max-num-batched-tokens and --max-num-seqs, which size the overhead and the reserved slots").format(
                    needed=needed, limit=plan.limit_bytes / gb)
    else:
        fix = _("The weights ({model:.2f} GB) fit the {limit:.2f} GB limit, but the overhead the engine measured "
                "({overhead:.2f} GB) leaves no share for the KV cache: lower --max-num-batched-tokens (the profiling "
                "batch that sizes the overhead) or the context length, and update the engine if the overhead is far "
                "above the weights").format(model=plan.model_bytes / gb, limit=plan.limit_bytes / gb,
                                            overhead=plan.overhead_bytes / gb)
    return Cause(
        id="kv_cache_budget",
        title=_("The engine's memory share leaves its KV cache no room"),
        confidence=0.8,
        evidence=evidence(engine_words=words, device_limit_bytes=round(plan.limit_bytes),
                          memory_fraction_ratio=plan.fraction, weights_bytes=round(plan.model_bytes),
                          overhead_bytes=round(plan.overhead_bytes), kv_budget_bytes=round(plan.kv_budget_bytes),
                          fraction_needed_ratio=round(needed, 3)),
        explanation=_("The engine refused to start: its share of the device's memory ({fraction} of {limit:.2f} GB) "
                      "less the weights ({model:.2f} GB) and its measured overhead ({overhead:.2f} GB) leaves "
                      "{budget:.2f} GB for the KV cache. The weights fit the device; the budget the engine was given "
                      "(or the overhead it measured) is what is short.").format(
                          fraction=plan.fraction if plan.fraction is not None else "?",
                          limit=plan.limit_bytes / gb, model=plan.model_bytes / gb,
                          overhead=plan.overhead_bytes / gb, budget=plan.kv_budget_bytes / gb),
        fix=fix,
        more_fixes=[_("Use a smaller or more quantised model, or quantise the KV cache.")],
    )


# The KV cache named beside a long context in the user's words (fifty-fourth pass): "out of memory issue with the kv
# buffer size allocating about 43G with a 160K context length from the model. But when you set the -c or --ctx_size
# 2048, then the inference can work normally" (ggml-org/llama.cpp#8817). A KV cache holds, for every layer, a key and
# a value vector per KV head for each token of the context: 2 x n_layer x n_kv_head x head_dim x n_ctx x bytes per
# element (llama.cpp's llama_kv_cache_init, src/llama.cpp; the same product in every engine), so it grows linearly
# with the context and a model's full training context (llama.cpp used n_ctx_train when -c was not given until PR
# #10136 set a 4096 default, "causes enormous KV cache allocation and failures for regular hardware") can need more
# than the weights. The context is read from "<N>[K] context (length|size|window)" or "context (length|size) (of|=|:)
# <N>[K]", and counts from LONG_CONTEXT_TOKENS up; a shorter context keeps the other readings.
_KV_NAMED = re.compile(r"\b(?:kv|key[- ]value)[ _-]?(?:cache|buffer)\b|\bKV self size\b", re.IGNORECASE)
_CONTEXT_FIGURE = re.compile(
    r"(?<![\d.])(\d{1,7})\s?(k)?\s(?:tokens?\s)?(?:context|ctx)(?:[ _-](?:length|size|window|len))?\b"
    r"|\b(?:context|ctx)[ _-](?:length|size|window|len)\s{0,3}(?:of|=|:|is|to)?\s{0,3}(\d{1,7})\s?(k)?(?![\d.])",
    re.IGNORECASE)
# Tokens per "K" in a context written "160K": users and model cards write it for 1024 (131072 = "128K"); the
# threshold compares against 32768 tokens either way.
_K_TOKENS = 1024


def long_context_said(text: str) -> int | None:
    """The longest context figure of the text in tokens (``_CONTEXT_FIGURE``), or None."""
    best = None
    for m in _CONTEXT_FIGURE.finditer(text):
        digits, kilo = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        tokens = int(digits) * (_K_TOKENS if kilo else 1)
        best = tokens if best is None else max(best, tokens)
    return best


def _kv_long_context_words(f: Facts) -> Cause | None:
    """The KV cache and a context of ``LONG_CONTEXT_TOKENS`` or more named in an out-of-memory text (comment above).
    0.6: above a shortage read from a bare request (0.55), below the engines' own refusals (0.7 and up)."""
    text = f.report.text or ""
    if f.report.signature is not None or _KV_NAMED.search(text) is None or OOM_SAID.search(text) is None:
        return None
    tokens = long_context_said(text)
    if tokens is None or tokens < LONG_CONTEXT_TOKENS:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("The KV cache for a long context does not fit"),
        confidence=0.6,
        evidence=evidence(n_ctx_tokens=tokens, requested_bytes=f.requested),
        explanation=_("The text names the KV cache with a context of {tokens} tokens. The KV cache keeps a key and a "
                      "value for every layer and every token of the context, so it grows in step with the context: "
                      "a model's full training context can need more memory than its weights.").format(tokens=tokens),
        fix=_("Set a shorter context (llama.cpp -c / --ctx-size, Ollama num_ctx, vLLM --max-model-len, exllamav2 "
              "max_seq_len) that covers the prompts you use, e.g. 4096 or 8192"),
        more_fixes=[_("Quantise the KV cache (llama.cpp --cache-type-k q8_0 --cache-type-v q8_0 with flash "
                      "attention) to halve it.")],
    )


def check(f: Facts) -> Cause | None:
    return (_whole_gpu_budget(f) or _small_vllm_share(f) or _ollama_context(f) or _tgi_tokens(f) or _sglang_server(f) or _vllm_context(f)
            or _llamacpp_context(f) or _engine_kv_words(f) or _kv_long_context_words(f))


# Ollama's load request's context field (module docstring) and the context from which its compute buffer, not the
# weights, is read as the cause.
_OLLAMA_KV_SIZE = re.compile(r"\bKvSize:\s{0,2}(\d{3,9})\b")
LONG_CONTEXT_TOKENS = 32768


def ollama_long_context(f: Facts) -> Cause | None:
    """llama.cpp's compute buffer refused under Ollama's load request for a context of 32768 tokens or more."""
    r = f.report
    if r.parsed.get("ggml_buffer", "compute") != "compute":
        return None
    sizes = [int(m.group(1)) for m in _OLLAMA_KV_SIZE.finditer(r.text or "")]
    if not sizes or max(sizes) < LONG_CONTEXT_TOKENS:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("The context Ollama was asked for is too long for these GPUs"),
        confidence=0.85,
        evidence=evidence(engine="ollama", n_ctx_tokens=max(sizes), requested_bytes=f.requested,
                          device_index=r.device_index),
        explanation=_("Ollama's load request sets a context of {tokens} tokens (KvSize). The KV cache and llama.cpp's "
                      "compute buffer grow with it: without flash attention the compute buffer holds each "
                      "micro-batch's attention scores against the whole context, so a long context alone can need "
                      "more than the GPU has beside the model's layers.").format(tokens=max(sizes)),
        fix=_("Lower the context: num_ctx in the request or Modelfile, or OLLAMA_CONTEXT_LENGTH for the server "
              "(e.g. 8192); enable flash attention (OLLAMA_FLASH_ATTENTION=1) so the scores are not held at once"),
    )
