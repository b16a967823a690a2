"""Serving engines whose memory error is a shortage at the configured budget (``genuine_shortage``), each with
the engine's own knob:

* TGI warm-up "Not enough memory to handle N prefill tokens" → ``--max-batch-prefill-tokens`` below N
  (TGI's warm-up runs one prefill of that many tokens; ``flash_causal_lm.py`` warmup); 0.8.
* llama.cpp / Ollama buffer allocation (``ggml_backend_cuda_buffer_type_alloc_buffer``): the model buffer
  scales with the offloaded layers (``-ngl`` / Ollama ``num_gpu``), the compute buffer with
  ``--ubatch-size`` × ``--ctx-size``, the KV cache with ``--ctx-size``. With the free memory and the model
  buffer known, the layers that fit = offloaded × free / model buffer (rounded down); 0.8.
* TensorRT-LLM runtime buffers (``cudaMallocAsync`` in tllmBuffers.h): the engine's ``max_batch_size`` /
  ``max_num_tokens`` buffers do not fit next to the KV cache; 0.7. TensorRT's builder request alone (no
  capacity known) reads as a shortage during the build; 0.5.
* vLLM's sampler warm-up ("CUDA out of memory occurred when warming up sampler with N dummy requests", V1's
  ``gpu_model_runner.py`` ``_dummy_sampler_run``, run after the KV cache is allocated to reserve the sampler's
  max-shape logits and sampling tensors): N is ``max_num_seqs``, and those tensors did not fit beside the weights and
  the KV cache that ``gpu_memory_utilization`` sized, so the engine's budget is the cause (``kv_cache_budget``, 0.9:
  the text names the step, above any reading of the PyTorch figures logged beside it), with the two knobs the message
  itself names (llm-d/llm-d#787: KV cache allocated at --gpu-memory-utilization=0.95, then the warm-up failed).
* vLLM's sleep mode waking up (``vllm/device_allocator/cumem.py``, ``CuMemAllocator.wake_up`` -> ``create_and_map``,
  whose C++ side ``csrc/cumem_allocator.cpp`` reports "CUDA Error: out of memory at .../cumem_allocator.cpp:N";
  https://github.com/vllm-project/vllm): an engine put to sleep releases its weights and KV cache so that a trainer on
  the same GPU can use the memory (RL trainers colocate them), and wake-up maps back everything it had, sized at start
  by ``gpu_memory_utilization`` as a fraction of the whole GPU. When the trainer still holds its share, the engine's
  budget no longer fits beside it: ``kv_cache_budget``, 0.7, with the engine's budget as the knob (TideDra/lmm-r1#43:
  a lower vllm memory utilisation fixed it).
* vLLM's start-up profiling run running out of memory: before it sizes the KV cache, the engine runs one dummy batch
  at its configured maximum (V0: ``vllm/worker/worker.py`` ``determine_num_available_blocks`` ->
  ``model_runner.profile_run``, which builds ``max_num_seqs`` dummy sequences of up to ``max_num_batched_tokens``
  tokens, and for encoder-decoder multimodal models (``enc_dec_model_runner.py``, "Starting profile run for
  multi-modal models") the largest images each of them may carry; V1: ``vllm/v1/worker/gpu_worker.py``
  ``determine_available_memory`` -> ``gpu_model_runner.profile_run``; https://github.com/vllm-project/vllm). The
  weights have loaded by then, so an out-of-memory error inside that step is the engine's profiling budget (its
  ``max_num_seqs`` / ``max_num_batched_tokens`` / ``limit_mm_per_prompt`` / ``max_model_len``) not fitting beside the
  weights, not the traffic: ``kv_cache_budget``, 0.88 (above the generic reading of PyTorch's figures logged beside it,
  which sees only a full GPU). vllm#10034 and vllm#8879 (Llama-3.2-11B-Vision's profile run at the default 256
  sequences): a lower ``max_num_seqs`` and eager mode made it start.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.units import format_bytes
from gpudesk.oom.rules import budget_words
from gpudesk.oom.rules.base import Facts, evidence, join_sentences
from gpudesk.oom.rules.single_allocation_exceeds_capacity import largest_gpu_bytes
from gpudesk.i18n import _
from gpudesk.oom.signatures import check_line


_VLLM_SAMPLER = re.compile(r"out of memory occurred\s{1,3}when\s{1,3}warming up\s{1,3}sampler with\s{1,3}(\d{1,7})"
                           r"\s{1,3}dummy\s{1,3}requests", re.IGNORECASE)


def _vllm_sampler(f: Facts) -> Cause | None:
    """vLLM's sampler warm-up did not fit (module docstring)."""
    m = _VLLM_SAMPLER.search(f.report.text or "")
    if m is None:
        return None
    n = int(m.group(1))
    return Cause(
        id="kv_cache_budget",
        title=_("vLLM's sampler does not fit beside the weights and the KV cache"),
        confidence=0.9,
        evidence=evidence(max_num_seqs=n),
        explanation=_("After allocating the KV cache, vLLM warms up its sampler with {n} requests (max_num_seqs) to "
                      "reserve its largest logits and sampling tensors; they did not fit in what the weights and the "
                      "KV cache left.").format(n=n),
        fix=_("Start vLLM with a lower --max-num-seqs (try {half}), or a lower --gpu-memory-utilization so that the KV "
              "cache leaves room for the sampler").format(half=max(1, n // 2)),
    )


# The file and line as C++ prints them ("cumem_allocator.cpp:62") or as a paste spaces them ("cumem_allocator.cpp: 62",
# TideDra/lmm-r1#42).
_VLLM_WAKE_UP = re.compile(r"cumem_allocator\.cpp\s{0,2}:\s{0,2}\d{1,6}|device_allocator[/\\]cumem\.py", re.IGNORECASE)


def _vllm_wake_up(f: Facts) -> Cause | None:
    """vLLM's sleep-mode allocator could not map its memory back (module docstring)."""
    text = f.report.text or ""
    low = text.lower()
    if _VLLM_WAKE_UP.search(text) is None or "out of memory" not in low:
        return None
    waking = "wake_up" in low or "create_and_map" in low
    return Cause(
        id="kv_cache_budget",
        title=_("vLLM's memory budget does not fit beside the rest of the GPU's use when it wakes up"),
        confidence=0.7 if waking else 0.55,
        evidence=evidence(cuda_call="cumem_allocator"),
        explanation=_("vLLM's sleep mode releases the engine's weights and KV cache so that a trainer on the same GPU "
                      "can use the memory, and maps all of it back when the engine wakes up. That memory was sized at "
                      "start by gpu_memory_utilization as a share of the whole GPU; with the trainer still holding "
                      "its own share, the engine's budget no longer fits beside it."),
        fix=_("Lower the engine's gpu_memory_utilization (the trainer's vLLM memory setting) so the engine and the "
              "trainer fit on the GPU together, or spread the engine over more GPUs (tensor_parallel_size)"),
        more_fixes=[_("Free the trainer's cached memory before waking the engine (torch.cuda.empty_cache()), and "
                      "offload its optimizer states if the trainer supports it.")],
    )


# vLLM named as the part that failed inside a training job (RL trainers such as TRL's GRPOTrainer or OpenRLHF start
# a vLLM engine for generation beside the model being trained): "3B用4块GPU3090训练时，vllm报显存不足" ("training a 3B
# model on four 3090s, vllm reports out of memory", dhcode-cpp/X-R1#38). The engine takes gpu_memory_utilization of
# the whole GPU at start (vllm/v1/worker/gpu_worker.py, the budget is a share of total memory, not of what is free),
# so a share set for a GPU of its own does not fit beside a trainer, and one left to the engine still has to cover
# weights, activations and the KV cache for max_model_len.
_VLLM_WORD = re.compile(r"(?<![a-z])vllm(?![a-z])", re.IGNORECASE)
_TRAINING = re.compile(r"\btrain(?:ing|er|ed)?\b|\bgrpo\b|\bppo\b|\brlhf\b|\bdpo\b|\bfine-?tun(?:e|ing)\b|训练|微调",
                       re.IGNORECASE)


def _vllm_in_trainer(f: Facts) -> Cause | None:
    """A training job whose vLLM engine ran out of memory, with no figure the other rules can weigh (above)."""
    text = f.report.text or ""
    if f.requested is not None or f.total is not None or _VLLM_WORD.search(text) is None \
            or _TRAINING.search(text) is None:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("The vLLM engine's memory share does not fit beside the training job"),
        confidence=0.6,
        evidence=evidence(engine="vllm"),
        explanation=_("The training job starts a vLLM engine for generation, and vLLM takes gpu_memory_utilization "
                      "of the whole GPU at start for its weights, activations and KV cache, whatever the trainer "
                      "holds: a share meant for a GPU of its own does not fit beside the trainer, and a share too "
                      "small cannot hold the KV cache for max_model_len."),
        fix=_("Set the trainer's vLLM memory share (its gpu_memory_utilization setting) to what is left beside the "
              "training process on that GPU, or give vLLM a GPU of its own; lower the vLLM max_model_len (the "
              "prompt plus completion length) if the KV cache is what does not fit"),
        more_fixes=[_("Use a smaller generation batch or fewer generations per prompt, so the engine needs less "
                      "KV cache.")],
    )


# "OOM" as a word (a title above a cut traceback: "llama-3.2-11B-vision run in vllm==0.6.3 OOM error", vllm#10569).
_OOM_WORD = re.compile(r"(?<![A-Za-z0-9])OOM(?:s|ed|ing)?(?![A-Za-z0-9])")
# The profiling step named in a traceback frame, a worker's error line or its log line (module docstring).
# Aphrodite (vLLM's fork, now dphnAI/sonar) logs the same step on its own "INFO:     " line as "Profiling peak memory
# usage..." before the dummy batch and "Memory profiling completed in N seconds" after it (its log in dphnAI/sonar#1320);
# an out-of-memory between the two is that batch: the context length it defaults to from config.json (131072 for
# Llama 3.1) when --max-model-len is not given (dphnAI/sonar#1077).
_VLLM_PROFILE_RUN = re.compile(r"\bdetermine_num_available_blocks\b|\bdetermine_available_memory\b|\bprofile_run\b"
                               r"|starting profile run|^INFO:\s{1,8}Profiling peak memory usage",
                               re.IGNORECASE | re.MULTILINE)


def _vllm_profile_run(f: Facts) -> Cause | None:
    """vLLM's start-up profiling run did not fit beside the weights (module docstring)."""
    text = f.report.text or ""
    if _VLLM_PROFILE_RUN.search(text) is None or ("out of memory" not in text.lower()
                                                   and _OOM_WORD.search(text) is None):
        return None
    if f.report.signature is not None:
        return None  # a signature (ECC, host RAM, a garbage size, ...) explains the failure better
    return Cause(
        id="kv_cache_budget",
        title=_("vLLM's start-up profiling batch does not fit beside the weights"),
        confidence=0.88,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free),
        explanation=_("Before sizing the KV cache, vLLM runs one dummy batch at its configured maximum (max_num_seqs "
                      "sequences, max_num_batched_tokens tokens, and for multimodal models the largest images per "
                      "sequence) to measure the activation peak. The weights had loaded; that profiling batch is what "
                      "did not fit, so the engine's settings set this peak, not the traffic."),
        fix=_("Start vLLM with a lower --max-num-seqs (e.g. 32) and --max-num-batched-tokens or --max-model-len; for "
              "multimodal models also --limit-mm-per-prompt; add --enforce-eager to skip CUDA-graph capture"),
        more_fixes=[_("If another process shares the GPU, lower --gpu-memory-utilization to what is free; otherwise "
                      "spread the weights over more GPUs (--tensor-parallel-size).")],
    )


# vLLM's own marks around an error raised while it serves: V0's model runner re-raises a failed step as "Error in model
# execution (input dumped to /tmp/err_execute_model_input_<time>.pkl)" (vllm/worker/model_runner_base.py,
# dump_input_when_exception), V1 dumps the failing batch from dump_input.py, and the engine logs the exception on
# vLLM's own log line "ERROR mm-dd hh:mm:ss [engine.py:N]" (vllm/logger.py's format; the brackets since 0.8). A worker
# process of vLLM's multiprocess executor writes its lines behind its name and pid, in colour on a terminal
# ("(VllmWorkerProcess pid=N) " in V0, vllm/executor/multiproc_worker_utils.py ``_add_prefix``; "(Worker_TP0 pid=N) ",
# "(VllmWorker rank=5 pid=N) ", "(EngineCore_DP0 pid=N) " in V1, vllm/utils ``decorate_logs``), and each executor logs a
# worker's failed call with its traceback from the worker's loop (V0 multiproc_worker_utils.py ``_run_worker_process``,
# V1 vllm/v1/executor/multiproc_executor.py ``worker_busy_loop``: "ERROR ... [multiproc_executor.py:N] ...");
# https://github.com/vllm-project/vllm.
_ANSI = r"(?:(?:\x1b|\u2190)\[[\d;]{0,12}m)?"
_VLLM_SERVING = re.compile(r"Error in model execution \(input dumped to|err_execute_model_input_|"
                           r"^(?:" + _ANSI + r"\([A-Za-z][\w-]{0,40}(?: rank=\d{1,5})? pid=\d{1,9}\)" + _ANSI +
                           r"\s{1,3})?(?:ERROR|WARNING|INFO)\s\d\d-\d\d\s\d\d:\d\d:\d\d\s\[?(?:engine|llm_engine|"
                           r"async_llm_engine|core|dump_input|gpu_model_runner|model_runner|worker|multiproc_executor|"
                           r"multiproc_worker_utils)\.py:\d{1,5}\]"
                           # A traceback frame in vLLM's model runner, the module that executes each scheduled step
                           # (V1 vllm/v1/worker/gpu_model_runner.py execute_model and the sampler it calls, V0
                           # vllm/worker/model_runner.py): the error was raised inside a serving step.
                           r"|[/\\]vllm[/\\](?:v1[/\\])?worker[/\\](?:gpu_)?model_runner\.py\"?,\s{1,3}line\s{1,3}\d",
                           re.MULTILINE)
# The worker loading its weights (V0 worker.py / V1 gpu_worker.py ``load_model`` -> model_loader ``get_model`` ->
# the model's ``load_weights``) or opening its device (``init_device``): the same worker prefix, before any budget was
# sized; weights that do not fit are the job's size, not the serving budget.
_VLLM_LOADING = re.compile(r"\bload_model\b|\bload_weights\b|\bget_model\b|\binit_device\b")
# The share of the GPU the engine's process holds at the failure from which its own budget is read as the holder
# (vLLM's default gpu_memory_utilization is 0.9; the budget is what the process took at start).
_ENGINE_HELD_SHARE = 0.85


def _held_by_process(f: Facts) -> int | None:
    """What the failing process holds on the GPU by PyTorch's message: NVML's "this process has", else the one process
    it lists by pid (its own, when it cannot tell itself in a container), else PyTorch's reserved memory."""
    parsed = f.report.parsed
    values = [v for v in (parsed.get("this_process_bytes"), f.reserved) if isinstance(v, int)]
    if parsed.get("other_processes_count") == 1 and isinstance(parsed.get("other_processes_bytes"), int):
        values.append(int(parsed["other_processes_bytes"]))
    return max(values) if values else None


def _vllm_serving_budget(f: Facts) -> Cause | None:
    """PyTorch's out-of-memory error raised inside vLLM's model execution, with the engine's own process holding most
    of the GPU. vLLM takes ``gpu_memory_utilization`` × total (0.9 by default) at start for the weights, the KV cache
    and the activation peak it profiled, and every step runs inside that budget; what it cannot profile (a vision
    encoder's activations for a larger image, multi-step scheduling's extra buffers, the sampler at a larger batch)
    must fit in the rest of the card. A failure while serving with the process holding 85 % of the card or more is that
    rest running out: the budget is set too high for this load, and the maintainers' fix is a lower
    gpu_memory_utilization (vllm-project/vllm#9290: 0.941 failed at request rate inf, 0.9 did not; OpenBMB/MiniCPM-V#612:
    0.9 on a 24 GB card, advised 0.8). 0.88, as the profiling run's: the engine's settings, above the generic reading
    of a full GPU. CUDA-graph capture and the start-up profiling run have their own readings."""
    r = f.report
    if (r.kind != "pytorch_oom" or r.graph_capture or r.signature is not None or f.total is None
            or _VLLM_SERVING.search(r.text or "") is None or _VLLM_PROFILE_RUN.search(r.text or "") is not None
            or _VLLM_LOADING.search(r.text or "") is not None):
        return None
    held = _held_by_process(f)
    if held is None or held < _ENGINE_HELD_SHARE * f.total:
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("vLLM's memory budget leaves too little of the GPU for this step"),
        confidence=0.88,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total,
                          in_use_bytes=held, setting="gpu_memory_utilization"),
        explanation=_("vLLM takes gpu_memory_utilization of the GPU at start for the weights, the KV cache and the "
                      "activations it profiled; its process held {held} of {total} when a step asked for {request} "
                      "more. What the start-up profile did not cover (a larger image for a vision encoder, multi-step "
                      "buffers, a larger sampling batch) must fit in the rest of the card, and that rest ran out.").format(
                          held=format_bytes(held), total=format_bytes(f.total),
                          request=format_bytes(f.requested) if f.requested else _("memory")),
        fix=_("Start vLLM with a lower --gpu-memory-utilization (e.g. 0.8, or 0.05 below the current value) so the "
              "steps have room outside the KV cache"),
        more_fixes=[_("Or lower --max-num-seqs / --max-model-len (and --limit-mm-per-prompt for multimodal models) so "
                      "each step needs less.")],
    )


# An engine's own words for a failed warm-up with an out-of-memory in the same sentence ("Warmup failed, because of
# multimodal model inference out of memory", MindIE; "warm-up ran out of memory"), and the settings the message itself
# tells the user to lower ("Please try to decrease `maxPrefillTokens`") or names with their value ("`maxInputTokenLen`
# set to 8192").
_WARM_UP_OOM = re.compile(r"warm[- ]?up[^\n.]{0,120}?(?:out of memory|\boom\b)|(?:out of memory|\boom\b)[^\n.]{0,80}?"
                          r"warm(?:ing)?[- ]?up", re.IGNORECASE)
_KNOB_TO_LOWER = re.compile(r"(?:decrease|reduce|lower)\w{0,3}\s{1,3}(?:the\s{1,3})?`([A-Za-z_][\w.\-]{1,60})`",
                            re.IGNORECASE)
_KNOB_SET = re.compile(r"`([A-Za-z_][\w.\-]{1,60})`\s{1,3}(?:is\s{1,3})?set to\s{1,3}(\d{1,9})", re.IGNORECASE)


def _warm_up_budget(f: Facts) -> Cause | None:
    """An out-of-memory error at a serving engine's warm-up, in a wording no engine parser reads (MindIE's "Warmup
    failed, because of multimodal model inference out of memory when `maxInputTokenLen` set to 8192. Please try to
    decrease `maxPrefillTokens`"). A serving engine warms up by running the largest batch its settings allow (the
    prefill-token and batch budgets, and for multimodal models the image area they reserve) once the weights and the
    KV cache are in place, precisely so that such a batch fails at start rather than under traffic: the failure is
    those settings not fitting beside the weights, and the fix is the settings the message names
    (gpustack/gpustack#3541: MindIE's multimodal area grows with its prefill budget; a lower --max-prefill-tokens or
    batch size made the model fit one device). 0.6: the text names the step and the knobs, no figures."""
    r = f.report
    text = r.text or ""
    if r.kind != "generic_oom" or _WARM_UP_OOM.search(text) is None:
        return None
    lower = list(dict.fromkeys(m.group(1) for m in _KNOB_TO_LOWER.finditer(text)))
    named = [(m.group(1), int(m.group(2))) for m in _KNOB_SET.finditer(text)]
    knobs = lower + [name for name, _value in named if name not in lower]
    fix = (_("Lower the settings the message names ({knobs}): they size the batch the warm-up runs; halve them, "
             "then raise them step by step").format(knobs=", ".join(knobs)) if knobs else
           _("Lower the engine's batch and prefill-token settings (the largest batch it warms up with), or its "
             "maximum sequence length"))
    return Cause(
        id="kv_cache_budget",
        title=_("The engine's warm-up batch does not fit beside the model"),
        confidence=0.6,
        evidence=evidence(settings_named=", ".join(f"{n}={v}" for n, v in named) or None),
        explanation=_("The engine ran out of memory while warming up. A serving engine warms up with the largest batch "
                      "its settings allow, after the weights and the KV cache are in place, so that a batch that "
                      "cannot fit fails at start: its batch and prefill-token settings do not fit beside the model."),
        fix=fix,
        more_fixes=[_("Spread the model over more devices (tensor parallelism), or use a smaller or quantised model.")],
    )


# Shapes that carry no figure of the device: an engine's figureless out-of-memory.
_FIGURELESS_KINDS = ("generic_oom", "pytorch_oom", "cuda_error_oom")


def _sglang_static_pool(f: Facts) -> Cause | None:
    """A figureless out-of-memory from SGLang while it serves (its scheduler's log lines or its name in the text, no
    start-up figures): SGLang reserves ``mem_fraction_static`` (0.88 by default on large GPUs) of the GPU for the
    weights and its KV pool when it starts (python/sglang/srt/server_args.py, model_executor/model_runner.py), and
    every batch's activations, CUDA graphs and sampling buffers must fit in the rest; a prefill batch of many new
    tokens is what outgrows it (sgl-project/sglang#1030: 13,938 new tokens from 17 sequences, fixed by
    --max-prefill-tokens 4096; the maintainer: or a lower --mem-fraction-static). 0.55: above a figureless shortage
    (0.45): the engine's budget, not the model's size."""
    r = f.report
    if (r.engine != "sglang" or r.kind not in _FIGURELESS_KINDS or r.signature is not None
            or any(v is not None for v in (f.total, f.free, f.allocated, f.reserved))):
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("SGLang's static pool leaves too little for this batch's activations"),
        confidence=0.55,
        evidence=evidence(requested_bytes=f.requested),
        explanation=_("SGLang reserves mem_fraction_static of the GPU for the weights and its KV pool at start; each "
                      "batch's activations must fit in what is left. A large prefill batch (many new tokens at once) "
                      "outgrows that rest: the engine's budget, not the model's size."),
        fix=_("Bound the prefill batch: --max-prefill-tokens 4096 (or --chunked-prefill-size 4096) and "
              "--max-running-requests; if it still runs out, lower --mem-fraction-static (e.g. 0.8)"),
        more_fixes=[_("Disable CUDA graphs (--disable-cuda-graph) or lower --cuda-graph-max-bs to leave more room.")],
    )


# transformers' bitsandbytes quantizers refusing a device map that put modules on the CPU or the disk
# (transformers/quantizers/quantizer_bnb_4bit.py and quantizer_bnb_8bit.py, validate_environment).
_BNB_MODULES_OFF_GPU = re.compile(r"some modules are dispatched on the cpu or the disk", re.IGNORECASE)


def _quantized_model_off_gpu(f: Facts) -> Cause | None:
    """transformers' bitsandbytes quantizer refused the device map: with device_map="auto", accelerate's
    infer_auto_device_map places on the CPU or the disk what the GPU's free memory cannot hold, and a quantized
    module cannot run there unless it is kept in fp32 (llm_int8_enable_fp32_cpu_offload). The quantized model does not
    fit the GPU's free memory (unslothai/unsloth#1629: "you most likely have too less VRAM"). 0.6: the library's own
    reason, no figures."""
    m = _BNB_MODULES_OFF_GPU.search(f.report.text or "")
    if m is None or f.report.signature is not None:
        return None
    if _BNB_CPU_BUILD.search(f.report.text or ""):
        return _quantized_without_gpu_build(f)
    return Cause(
        id="genuine_shortage",
        title=_("The quantized model does not fit the GPU's free memory"),
        confidence=0.6,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("Loading with an automatic device map placed some modules on the CPU or the disk because the "
                      "GPU's free memory could not hold them, and bitsandbytes cannot run quantized modules there: "
                      "the quantized model is larger than what the GPU had free."),
        fix=_("Load a smaller model (or fewer bits, e.g. 4-bit instead of 8-bit) on this GPU, free the GPU of other "
              "processes, or use a GPU with more memory"),
        more_fixes=[_("To run anyway with part of the model on the CPU (slowly), keep those modules in fp32: "
                      "BitsAndBytesConfig(llm_int8_enable_fp32_cpu_offload=True) with a device_map that names them.")],
        checks=[_("nvidia-smi: compare the GPU's free memory with the model's size at its quantized precision.")],
    )


# bitsandbytes' own warning that it loaded its CPU-only library (bitsandbytes/cextension.py: "The installed version of
# bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are
# unavailable."), printed when libbitsandbytes_cuda*.so/.dll could not be loaded for the CUDA that torch reports (a
# CPU-only torch, a CUDA runtime it cannot find, or a Windows build without CUDA). Then the quantized modules have no GPU
# path at all, and the device-map refusal beside it is about the installation, not the VRAM (LlamaChinese/Llama-Chinese
# #123: a 7B model in 8 bits on a 16 GB T4, "'NoneType' object has no attribute 'cadam32bit_grad_fp32'" beside it; the
# same pair answered "bad pytorch version" in jllllll/bitsandbytes-windows-webui#13).
_BNB_CPU_BUILD = re.compile(r"bitsandbytes was compiled without gpu support", re.IGNORECASE)


def _quantized_without_gpu_build(f: Facts) -> Cause:
    """The device-map refusal beside bitsandbytes' CPU-only build (``_BNB_CPU_BUILD``): not capacity, 0.7."""
    from gpudesk import i18n
    from gpudesk.oom.signatures import CHECKS, check_command

    command = check_command("driver_version", f.report.platform)
    return Cause(
        id="not_capacity",
        title=_("Not a memory problem: bitsandbytes was loaded without GPU support"),
        confidence=0.7,
        evidence=evidence(not_capacity_kind="driver_version", deciding_check="driver_version",
                          check_command=command),
        explanation=_("bitsandbytes says it loaded its CPU-only library, so its quantized layers have no GPU path "
                      "and the quantized model cannot be placed on the GPU whatever memory is free; the refusal of "
                      "modules on the CPU follows from the installation (a CPU-only PyTorch, or a CUDA runtime "
                      "bitsandbytes cannot find), not from the model's size."),
        fix=_("Install a PyTorch build with CUDA (torch.cuda.is_available() must print True) and a bitsandbytes "
              "release with GPU support for this platform, then load the model again"),
        checks=[check_line(command=command, meaning=i18n._(CHECKS["driver_version"].meaning))],
    )


def names_sampler_warmup(f: Facts) -> bool:
    """The text is vLLM's sampler warm-up failure (its own reading here; the generic shortage stays silent)."""
    return _VLLM_SAMPLER.search(f.report.text or "") is not None


def names_quantized_model_off_gpu(f: Facts) -> bool:
    """The text is bitsandbytes' refusal of modules off the GPU (its own reading here; the generic shortage stays
    silent)."""
    return _BNB_MODULES_OFF_GPU.search(f.report.text or "") is not None and f.report.signature is None


def check(f: Facts) -> Cause | None:
    r = f.report
    sampler = (_vllm_sampler(f) or _vllm_wake_up(f) or _vllm_profile_run(f) or _vllm_serving_budget(f)
               or _warm_up_budget(f)
               or _sglang_static_pool(f) or _vllm_in_trainer(f) or _quantized_model_off_gpu(f))
    if sampler is not None:
        return sampler
    if r.kind == "tgi_prefill":
        n = int(r.parsed.get("max_batch_prefill_tokens", 0))
        return Cause(
            id="genuine_shortage",
            title=_("TGI cannot fit one prefill batch after loading the model"),
            confidence=0.8,
            evidence=evidence(max_batch_prefill_tokens=n or None,
                              max_batch_total_tokens=r.parsed.get("max_batch_total_tokens")),
            explanation=(_("TGI's warm-up runs a prefill of {n} tokens; the memory left after the weights cannot "
                           "hold its activations.").format(n=n) if n
                         else _("TGI's warm-up prefill does not fit next to the weights.")),
            fix=(_("Start TGI with --max-batch-prefill-tokens below {n} (try {half}) and --max-input-tokens no "
                   "larger than it").format(n=n, half=max(1, n // 2)) if n > 1
                 else _("Lower --max-batch-prefill-tokens and --max-input-tokens")),
            more_fixes=[(_("Quantise the weights (--quantize awq/gptq/eetq/bitsandbytes) or shard over more GPUs "
                        "(--num-shard) to leave room.")),
                        _("If this happens even at a few hundred tokens, the weights alone fill the GPU.")],
        )
    if r.kind == "ggml_alloc_failed":
        if f.free is not None and f.requested is not None and f.free >= 1.05 * f.requested:
            return None  # the buffer fitted in what was free: not_capacity explains the refusal
        return budget_words.ollama_long_context(f) or _ggml(f)
    if r.kind == "trtllm_runtime_alloc":
        return Cause(
            id="genuine_shortage",
            title=_("TensorRT-LLM's runtime buffers do not fit next to the KV cache"),
            confidence=0.7,
            evidence=evidence(cuda_call=r.parsed.get("cuda_call"),
                              kv_cache_free_gpu_mem_fraction_ratio=r.parsed.get("kv_cache_free_gpu_mem_fraction_ratio")),
            explanation=_("A runtime buffer (sized by the engine's max_batch_size × max sequence length) could not be "
                        "allocated: the KV cache and the weights took the memory first."),
            fix=_("Rebuild the engine with a smaller --max_batch_size / --max_num_tokens, or lower "
                "kv_cache_free_gpu_mem_fraction (default 0.9) to leave room for the runtime buffers"),
            more_fixes=[_("Cap the KV cache in bytes: KvCacheConfig.max_gpu_total_bytes."),
                        _("Use tensor parallelism to spread the weights.")],
        )
    if r.kind == "model_load_failed":
        return _model_load(f)
    if r.kind == "tensorrt_build_alloc" and f.total is None and _EXECUTION_CONTEXT.search(r.text or ""):
        return _context_memory(f)
    if r.kind == "tensorrt_build_alloc" and f.total is None:
        return Cause(
            id="genuine_shortage",
            title=_("TensorRT could not allocate memory while building the engine"),
            confidence=0.5,
            evidence=evidence(requested_bytes=f.requested),
            explanation=_("The builder asked for {requested} for a tactic or weights; compare it with the GPU's "
                          "capacity (not in the message).").format(requested=format_bytes(f.requested)),
            fix=_("Build with a smaller max_batch_size / max_input_len / max_seq_len, or on a GPU with more memory; "
                "limit the builder's workspace (--workspace / builder_config memory pool limit)"),
        )
    return None


def _ggml(f: Facts) -> Cause:
    r = f.report
    buffer = str(r.parsed.get("ggml_buffer", "compute"))
    ollama = r.engine == "ollama"
    fits: int | None = None
    model_buf, layers = r.parsed.get("model_buffer_bytes"), r.parsed.get("offloaded_layers")
    if buffer == "model" and f.free is not None and isinstance(model_buf, int) and isinstance(layers, int) and model_buf:
        fits = max(0, int(layers * f.free / model_buf))
    if buffer == "model":
        title = _("The model's offloaded layers do not fit on the GPU")
        knob = "num_gpu" if ollama else "-ngl / --n-gpu-layers"
        fix = (_("Offload fewer layers: {knob} {fits} (the free memory holds about {fits} of {layers})").format(
                   knob=knob, fits=fits, layers=layers) if fits is not None
               else _("Offload fewer layers ({knob} below the current value) or use a smaller quantisation (e.g. "
                      "Q4_K_M)").format(knob=knob))
        why = _("The weights placed on this GPU need more memory than it has free.")
    elif buffer == "kv_cache":
        title = _("The KV cache for this context does not fit")
        fix = (_("Lower the context: num_ctx / OLLAMA_CONTEXT_LENGTH") if ollama else
               _("Lower --ctx-size (-c), or store the KV cache quantised: --cache-type-k q8_0 --cache-type-v q8_0"))
        why = _("The KV cache grows with the context size.")
    else:
        title = _("The compute buffer does not fit next to the model")
        fix = (_("Lower the context (num_ctx / OLLAMA_CONTEXT_LENGTH) or offload fewer layers (num_gpu)") if ollama
               else _("Lower --ubatch-size (-ub, e.g. 512) and --ctx-size (-c): the compute buffer scales with both; "
                      "or offload fewer layers (-ngl) to leave room"))
        why = _("The compute (scratch) buffer is sized for the largest micro-batch and context; the layers on this "
                "GPU left too little.")
    return Cause(
        id="genuine_shortage",
        title=title,
        confidence=_ggml_confidence(f),
        evidence=evidence(requested_bytes=f.requested, device_index=r.device_index, ggml_buffer=buffer,
                          free_bytes=f.free, model_buffer_bytes=model_buf, offloaded_layers=layers,
                          layers_that_fit=fits, kv_cache_bytes=r.parsed.get("kv_cache_bytes")),
        explanation=join_sentences([why] + ([_("It asked for {requested} on device {device}.").format(
            requested=format_bytes(f.requested), device=r.device_index)] if f.requested is not None else [])),
        fix=fix,
        more_fixes=[(_("With several GPUs, shift layers away from the full one: --tensor-split (e.g. 3,1) or "
                    "CUDA_VISIBLE_DEVICES to exclude a small card.")),
                    (_("A buffer far larger than the GPU (hundreds of GiB) points to a sizing bug: try without "
                    "pipeline parallelism or a smaller --ubatch-size."))],
    )


def _ggml_confidence(f: Facts) -> float:
    """0.8 for a ggml buffer that does not fit beside the model; 0.6 when the one buffer is larger than the GPU, or
    (capacity not in the text) at least half the largest GPU sold: no knob that leaves room beside the model can fit
    it, so the single-allocation reading (:mod:`gpudesk.oom.rules.single_allocation_exceeds_capacity`, 0.7 there)
    leads (ikawrakow/ik_llama.cpp#749: a 273 GiB compute buffer with pipeline parallelism, a sizing bug)."""
    req = f.requested
    if req is not None and ((f.total is not None and req > f.total)
                            or (f.total is None and req >= largest_gpu_bytes() / 2)):
        return 0.6
    return 0.8


# TensorRT creating an execution context ("executionContext.cpp::ExecutionContext", IExecutionContext): the context
# allocates the engine's whole activation memory (ICudaEngine::getDeviceMemorySize, sized for the largest shapes of
# its optimisation profiles) as one device allocation (TensorRT's developer guide, "Memory": "the execution context
# ... device memory is allocated when the context is created unless createExecutionContextWithoutDeviceMemory").
_EXECUTION_CONTEXT = re.compile(r"executioncontext|execution context", re.IGNORECASE)


def _context_memory(f: Facts) -> Cause:
    """TensorRT could not create an execution context: its one allocation is the activation memory of the engine's
    largest profile, which a smaller built maximum (batch, shapes) shrinks (NVIDIA/TensorRT#2826: 20.4 GB asked for
    a VAE engine built for batch 16 on a 16 GB V100, fine with max_batch_size 4). 0.6: above a builder shortage with no
    capacity (0.5)."""
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("TensorRT's execution context asks for the engine's whole activation memory at once"),
        confidence=0.6,
        evidence=evidence(requested_bytes=f.requested),
        explanation=_("Creating an execution context allocates the engine's activation memory ({requested}) in one "
                      "piece, sized for the largest shapes and batch the engine was built for, whatever the input "
                      "at run time: that one allocation is larger than the GPU could give.").format(
                          requested=format_bytes(f.requested) if f.requested is not None else "?"),
        fix=_("Rebuild the engine for smaller maximum shapes (a smaller max batch size in the optimisation profile), or "
              "create the context without device memory and give it a smaller buffer "
              "(createExecutionContextWithoutDeviceMemory / setDeviceMemory)"),
        more_fixes=[_("Compare the request with the GPU's memory (nvidia-smi): an engine built on a larger GPU can "
                      "need more than this one has.")],
    )


def _model_load(f: Facts) -> Cause:
    """llama.cpp (or an app built on it: LM Studio, Ollama, GPT4All) failed to load a model and gave no reason that
    names the file (parsers/generic ``_MODEL_LOAD_FAILED``). Loading allocates the offloaded layers' weights on the GPU
    and the context's KV cache and compute buffers at once, so a load that fails with no file fault is most often
    those allocations not fitting the GPU (lmstudio-ai/lmstudio-bug-tracker#297: a 1B model on a 2 GB laptop GPU loaded
    with GPU offload 0). 0.45, the figureless reading: the check tells it apart."""
    return Cause(
        id="genuine_shortage",
        title=_("The model failed to load: likely its offloaded layers and context do not fit the GPU"),
        confidence=0.45,
        evidence=evidence(),
        explanation=_("The runtime failed to load the model and gave no reason about the file. Loading allocates the "
                      "GPU-offloaded layers and the context's KV cache and buffers at once, so this failure is most "
                      "often those allocations not fitting the GPU."),
        fix=_("Offload fewer layers to the GPU (GPU offload / -ngl lower, 0 to test on the CPU alone) and lower the "
              "context length"),
        checks=[_("Load the model with GPU offload 0: if it then loads, the offloaded layers and context did not fit "
                  "the GPU; if it still fails, the file or the runtime version is at fault.")],
    )
