"""Fixes in the terms of the engine or platform that printed the message.

The rules reason from the memory account and name a cause; when the OOM happened inside a serving engine or
on a non-CUDA platform, the first fix is that engine's or platform's knob (TGI's token budgets, vLLM's
utilization, SGLang's static fraction, ROCm's allocator variable) rather than the training advice.
"""

from __future__ import annotations

import re

from gpudesk import i18n
from gpudesk.i18n import N_, _
from gpudesk.oom.cause import Cause
from gpudesk.oom.report import MemoryReport
from gpudesk.oom import framework_checks, framework_fixes, stack_terms
from gpudesk.oom.rules import genuine_shortage, preallocation
from gpudesk.oom.rules.fragmentation import CUDA_ALLOC_CONF, HIP_ALLOC_CONF

# NVIDIA's tools -> ROCm's (rocm-smi, the amdgpu driver's dmesg lines), most specific first; commands are never
# translated, so this works on the translated sentences too. rocm-smi's options, from its documentation
# (https://rocm.docs.amd.com/projects/rocm_smi_lib/en/latest/python_usage.html, `rocm-smi -h`): --showrasinfo (the RAS
# error counts, ECC's), --gpureset -d N, --showpids (the processes using the GPUs), --showmeminfo vram (total and used
# VRAM). amd-smi, its successor from ROCm 6 (https://rocm.docs.amd.com/projects/amdsmi/en/latest/how-to/amdsmi-cli-tool.html),
# has the same under `amd-smi metric --ecc`, `amd-smi reset --gpureset`, `amd-smi process`, `amd-smi metric
# --mem-usage`, and `amd-smi --rocm-smi` prints rocm-smi's format; the checks (gpudesk.oom.signatures.ROCM_COMMANDS)
# say rocm-smi, so the evidence's "Command to run" does too.
_ROCM_TOOLS = (("nvidia-smi -q -d ECC", "rocm-smi --showrasinfo all"), ("dmesg | grep -i xid", "dmesg | grep -i amdgpu"),
               ("nvidia-smi -r", "rocm-smi --gpureset -d <N>"),
               ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv", "rocm-smi --showpids"),
               ("nvidia-smi --query-gpu=memory.total,memory.used --format=csv", "rocm-smi --showmeminfo vram"),
               ("nvidia-smi", "rocm-smi"), ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"))


def _rocm_commands(text: str) -> str:
    for nvidia, amd in _ROCM_TOOLS:
        text = text.replace(nvidia, amd)
    return text


_SHORTAGE_FIX = {
    "tgi": N_("Lower TGI's token budgets: --max-batch-total-tokens and --max-batch-prefill-tokens (or "
              "--max-total-tokens per request); TGI sizes them at warm-up from the memory left after the weights"),
    "vllm": N_("Lower vLLM's peak: --max-num-seqs and --max-num-batched-tokens, or --gpu-memory-utilization if "
               "another process shares the GPU"),
    "sglang": N_("Lower --mem-fraction-static by 0.05 (it leaves total × (1 − fraction) for activations and CUDA "
                 "graphs), or --chunked-prefill-size / --cuda-graph-max-bs"),
    "trtllm": N_("Lower kv_cache_free_gpu_mem_fraction or rebuild with a smaller max_batch_size / max_num_tokens"),
}


def apply(report: MemoryReport, causes: list[Cause]) -> None:
    """Rewrite the fixes of ``causes`` in place for ``report.engine`` / ``report.platform``."""
    cuda_conf, hip_conf = i18n._(CUDA_ALLOC_CONF), i18n._(HIP_ALLOC_CONF)  # as the rules wrote them
    for cause in causes:
        if report.platform == "rocm":
            cause.fix = _rocm_commands(cause.fix.replace(cuda_conf, hip_conf))
            cause.more_fixes = [_rocm_commands(m.replace(cuda_conf, hip_conf)) for m in cause.more_fixes]
            cause.checks = [_rocm_commands(c) for c in cause.checks]
            command = cause.evidence.get("check_command")
            if isinstance(command, str):  # the deciding check's command ("Command to run"), as the checks say it
                cause.evidence["check_command"] = _rocm_commands(command)
        if cause.id == "genuine_shortage" and report.engine in _SHORTAGE_FIX and report.kind.startswith(
                ("pytorch_", "cuda_")):
            cause.more_fixes = [cause.fix] + [m for m in cause.more_fixes if m != cause.fix]
            cause.fix = i18n._(_SHORTAGE_FIX[report.engine])
    stack_terms.apply(report, causes)
    apply_runtime(report, causes)
    framework_checks.apply(report, causes)  # the "Also check" list in the report's framework's terms
    framework_fixes.apply(report, causes)  # and the training fixes
    stack_terms.name_the_device(report, causes)  # "HPU" / "NPU" in the prose of a Gaudi / Ascend report


# --- Fixes in the user's runtime's own terms (issue 28) ----------------------------------------------------------
# Knob names from each runtime's documentation:
#   ComfyUI: README "--lowvram", "--novram", "--cpu-vae"; the "VAE Decode (Tiled)" node (nodes.py VAEDecodeTiled).
#   diffusers: AutoencoderKL.enable_tiling(), pipeline enable_model_cpu_offload() (docs "Reduce memory usage").
#   llama.cpp: tools/server README -ngl/--n-gpu-layers, -c/--ctx-size, -ub/--ubatch-size, --cache-type-k/-v.
#   Ollama: docs/faq.md num_ctx / OLLAMA_CONTEXT_LENGTH, num_gpu, OLLAMA_KV_CACHE_TYPE, OLLAMA_FLASH_ATTENTION.
#   ONNX Runtime: CUDA execution provider options gpu_mem_limit, arena_extend_strategy (docs "CUDA EP").
#   TensorRT: IBuilderConfig.set_memory_pool_limit(MemoryPoolType.WORKSPACE, ...) (TensorRT API docs).
#   TensorRT-LLM: trtllm-build --max_batch_size/--max_num_tokens/--max_seq_len (build time) vs
#     KvCacheConfig(free_gpu_memory_fraction, max_tokens) (run time) (docs "Useful build-time flags", "KV cache").
#   JAX: docs.jax.dev "GPU memory allocation": 75 % preallocated; XLA_PYTHON_CLIENT_PREALLOCATE=false;
#     XLA_CLIENT_MEM_FRACTION (new name) / XLA_PYTHON_CLIENT_MEM_FRACTION (before; of *available* memory before
#     jaxlib 0.4.1, of total memory since: jaxlib 0.4.1 release notes).
#   MLX / Metal: mx.set_cache_limit; macOS 14+ `sudo sysctl iogpu.wired_limit_mb=N` raises the GPU's wired limit.
#   CuPy: cupy.get_default_memory_pool().set_limit / free_all_blocks (docs "Memory management").
#   CUDA.jl (Julia): docs "Memory management" (https://cuda.juliagpu.org/stable/usage/memory/): arrays are freed by
#     Julia's garbage collector into CUDA.jl's pool; GC.gc(); CUDA.reclaim() returns the pool's cached memory to the
#     driver, CUDA.unsafe_free!(a) frees one array at once; JULIA_CUDA_MEMORY_POOL=none turns the pool off and
#     JULIA_CUDA_SOFT_MEMORY_LIMIT / JULIA_CUDA_HARD_MEMORY_LIMIT bound it (CUDA.memory_status() prints its use).
#   NCCL: NCCL_BUFFSIZE / NCCL_MAX_NCHANNELS (NCCL environment variables) and headroom outside the framework cache.
#   MLC LLM: docs "Configure engine": mlc_llm serve --overrides "gpu_memory_utilization=...;context_window_size=...;
#     prefill_chunk_size=..."; mlc_llm gen_config --tensor-parallel-shards (named in its own "Insufficient GPU memory"
#     error, cpp/serve/config.cc).
#   AWS Neuron: transformers-neuronx from_pretrained(tp_degree=..., n_positions=..., batch_size=...) (its documentation,
#     "Transformers NeuronX developer guide"): the model is split over tp_degree NeuronCores, each with its own memory.
#   CatBoost: docs FAQ "How to overcome the out of memory error on GPU" (depth, border_count, max_ctr_complexity,
#     gpu_cat_features_storage=CpuPinnedMemory) and the gpu_ram_part training parameter.
#   faiss: StandardGpuResources.setTempMemory / noTempMemory, GpuIndexFlatConfig.useFloat16 / GpuClonerOptions
#     .useFloat16 (faiss wiki "Faiss on the GPU"); queries and adds may be batched by the caller.
_RUNTIME_FIX: dict[str, tuple[str, list[str]]] = {
    "comfyui": (N_("Decode with the 'VAE Decode (Tiled)' node (lower tile_size), start ComfyUI with --lowvram (or "
                   "--novram), or decode on the CPU with --cpu-vae"),
                [N_("Lower the resolution, the batch size or the number of video frames."),
                 N_("Close other programs that use the GPU (browsers, games, another UI).")]),
    "sdwebui": (N_("Start the web UI with --lowvram (the strongest offload: one module on the GPU at a time) and "
                   "--xformers or --opt-sdp-attention; lower the resolution or the batch size"),
                [N_("Decode large images with a tiled-VAE extension."),
                 N_("Close other programs that use the GPU (browsers, games, another UI).")]),
    "diffusers": (N_("Tile the VAE decode: pipe.vae.enable_tiling() (and pipe.enable_vae_slicing() for batches), and "
                     "offload idle models with pipe.enable_model_cpu_offload()"),
                  [N_("Lower the resolution, the batch size or the number of frames."),
                   N_("Load the pipeline in fp16/bf16 (torch_dtype=torch.float16).")]),
    "vae": (N_("Decode the VAE in tiles (diffusers: pipe.vae.enable_tiling(); ComfyUI: the 'VAE Decode (Tiled)' node; "
               "AUTOMATIC1111: --medvram / --lowvram or a tiled-VAE extension), or decode in fp16 or on the CPU"),
            [N_("Lower the resolution, the batch size or the number of frames.")]),
    "llamacpp": (N_("Offload fewer layers (-ngl / --n-gpu-layers below the current value), lower the context "
                    "(-c / --ctx-size) and the micro-batch (-ub 512), or store the KV cache quantised "
                    "(--cache-type-k q8_0 --cache-type-v q8_0)"),
                 [N_("Use a smaller quantisation of the model (e.g. Q4_K_M).")]),
    "ollama": (N_("Lower the context (num_ctx or OLLAMA_CONTEXT_LENGTH) and the layers on the GPU (num_gpu), or "
                  "quantise the KV cache (OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1)"),
               [N_("Use a smaller quantisation of the model (e.g. a q4_K_M tag).")]),
    "onnxruntime": (N_("Cap and tighten ONNX Runtime's CUDA arena: provider options gpu_mem_limit and "
                       "arena_extend_strategy='kSameAsRequested'; run fewer sessions or threads at once, or smaller "
                       "inputs"),
                    [N_("Share one InferenceSession between threads instead of one per thread.")]),
    "tensorrt": (N_("Lower the builder workspace (config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, ...)), "
                    "build for smaller maximum shapes or batch, or in FP16/INT8"),
                 [N_("Build on a GPU with more memory than the one that runs the engine, if the builder is the "
                     "step that fails.")]),
    "trtllm": (N_("At build time: trtllm-build with a smaller --max_batch_size / --max_num_tokens / --max_seq_len; "
                  "at run time: KvCacheConfig(free_gpu_memory_fraction=0.8) or max_tokens to leave room"),
               [N_("Use tensor parallelism (--tp_size) to spread the weights.")]),
    "nccl": (N_("Leave headroom for NCCL's buffers: torch.cuda.empty_cache() before the first collective, a smaller "
                "batch, or smaller buffers (NCCL_BUFFSIZE=2097152, NCCL_MAX_NCHANNELS=4)"),
             [N_("Check that every rank uses its own GPU (torch.cuda.set_device(local_rank)).")]),
    "mlx": (N_("Lower the working set: a smaller model or quantisation, a smaller KV/prompt cache (mx.set_cache_limit), "
               "or raise the GPU's wired limit on macOS 14+: sudo sysctl iogpu.wired_limit_mb=<MB>"),
            [N_("Close other apps: unified memory is shared with them.")]),
    "mlc": (N_("Lower MLC LLM's memory plan: mlc_llm serve --overrides \"gpu_memory_utilization=0.8;"
               "context_window_size=4096;prefill_chunk_size=1024\" (the same keys in mlc-chat-config.json), or a "
               "smaller quantisation"),
            [N_("Split the weights over several GPUs (mlc_llm gen_config --tensor-parallel-shards N).")]),
    "catboost": (N_("Lower CatBoost's GPU memory: a smaller depth, border_count or max_ctr_complexity, and "
                    "gpu_cat_features_storage='CpuPinnedMemory'; or train on a sample of the data"),
                 [N_("gpu_ram_part sets the share of the GPU CatBoost takes for its pool; leave room for other "
                     "processes on the GPU.")]),
    "neuron": (N_("Split the model over more NeuronCores (a larger tp_degree) and lower n_positions / batch_size "
                  "(transformers-neuronx), or use an instance with more device memory per core"),
               [N_("Run fewer models or processes on the same NeuronCores.")]),
    "faiss": (N_("Search and add in smaller batches, reserve less scratch memory (res.setTempMemory), and store the "
                 "vectors in float16 (GpuIndexFlatConfig.useFloat16 / GpuClonerOptions.useFloat16)"),
              [N_("Shard the index over several GPUs (faiss.index_cpu_to_all_gpus with shard=True).")]),
    "cudajl": (N_("Lower what each step keeps on the GPU (the batch or the array sizes), free arrays as soon as they "
                  "are dead (CUDA.unsafe_free!) and return the pool's cache with GC.gc(); CUDA.reclaim() between "
                  "phases"),
               [N_("Bound CUDA.jl's pool with JULIA_CUDA_HARD_MEMORY_LIMIT (or JULIA_CUDA_SOFT_MEMORY_LIMIT) when "
                   "another process shares the GPU, or turn the pool off with JULIA_CUDA_MEMORY_POOL=none.")]),
    "cupy": (N_("Bound and release CuPy's pool: cupy.get_default_memory_pool().set_limit(size=...) and "
                "free_all_blocks() between stages; process the data in chunks"), []),
    "tpu": (N_("Lower the per-core batch, shard the model and optimizer over more TPU cores (jax.sharding / pjit, "
               "FSDP), rematerialise with jax.checkpoint, or keep activations in bfloat16"),
            [N_("Use a TPU generation with more HBM per core.")]),
    "jax": (N_("Lower the batch or sequence length, rematerialise with jax.checkpoint, or shard over more devices; "
               "turning preallocation off does not add memory"),
            [N_("Donate buffers you no longer need (jax.jit(..., donate_argnums=...)).")]),
}
# Memory that grows from one run or request to the next in a long-running inference process (rules.leak, read from
# the user's words): the training-loop fix (loss.item(), no_grad) is no knob of these programs. What each one offers:
#   ComfyUI: the server's POST /free {"unload_models": true, "free_memory": true} (server.py; the queue's flags in
#     main.py unload every model and empty the cache between prompts), the same as the UI's "Unload Models" / "Free model
#     and node cache" buttons; a custom node that keeps tensors between runs is fixed by its own update.
#   llama.cpp: llama-server allocates the KV cache for -c/--ctx-size and its compute buffers once, when the context is
#     created (src/llama-context.cpp, ggml_backend_sched_reserve), so steady requests should hold memory flat; growth
#     across requests is memory the server keeps outside those buffers, fixed by its releases.
#   Ollama: a model stays loaded for keep_alive (OLLAMA_KEEP_ALIVE, docs/faq.md); `ollama stop MODEL` unloads it now.
#   ONNX Runtime: its BFC arena keeps every chunk it extended by and extends in powers of two by default (CUDA EP
#     option arena_extend_strategy, kNextPowerOfTwo / kSameAsRequested); the run option
#     "memory.enable_memory_arena_shrinkage" ("gpu:0") returns unused chunks after a run
#     (include/onnxruntime/core/session/onnxruntime_run_options_config_keys.h).
_LEAK_FIX = {
    "onnxruntime": N_("Keep ONNX Runtime's arena from growing run after run: the CUDA provider option "
                      "arena_extend_strategy='kSameAsRequested', and shrink it after each run with the run option "
                      "memory.enable_memory_arena_shrinkage='gpu:0' (RunOptions.add_run_config_entry); create each "
                      "InferenceSession once and reuse it"),
    "comfyui": N_("Free ComfyUI's memory between queued runs (the 'Unload Models' / 'Free model and node cache' "
                  "buttons, or POST /free with {\"unload_models\": true, \"free_memory\": true}) and update the "
                  "custom node whose runs add memory: growth from run to run is memory a node keeps between runs"),
    "llamacpp": N_("Update llama.cpp and restart llama-server until then: the KV cache (-c / --ctx-size) and the "
                   "compute buffers are allocated once at start, so memory that grows request after request is kept "
                   "by the server outside them, not a context that is too large"),
    "ollama": N_("Update Ollama, and unload the model between batches of requests until then (ollama stop MODEL, or "
                 "OLLAMA_KEEP_ALIVE=0): memory that grows request after request is kept by the runner, not the "
                 "context you set"),
}
_LEAK_FIX_OTHER = N_("Memory that grows from one run to the next is kept by the {runtime} process between runs: create "
                     "the model, session or pipeline once and reuse it, keep results on the CPU, update {runtime}, and "
                     "restart the process between batches until then")
# Runtimes that are not PyTorch underneath: PyTorch's own calls in a check do not apply.
_NOT_TORCH = ("llamacpp", "ollama", "onnxruntime", "tensorrt", "trtllm", "mlx", "mlc", "faiss", "neuron", "catboost",
              "cudajl")
# A runtime's own pool, where a rule's fix or check names PyTorch's caching allocator (PYTORCH_ALLOC_CONF,
# torch.cuda.empty_cache(), memory_reserved()): the same advice in that pool's terms (sources above).
_POOL_FIX = {
    "cudajl": (N_("Return CUDA.jl's cached pool memory to the driver between phases (GC.gc(); CUDA.reclaim()), or "
                  "turn the pool off with JULIA_CUDA_MEMORY_POOL=none; JULIA_CUDA_HARD_MEMORY_LIMIT / "
                  "JULIA_CUDA_SOFT_MEMORY_LIMIT bound it"),
               N_("Print CUDA.memory_status() after each step: a pool that keeps more than the arrays in use is cache "
                  "that GC.gc(); CUDA.reclaim() returns; a use that grows with every step is arrays kept alive.")),
}
_TORCH_ALLOCATOR = re.compile(r"PYTORCH_\w*ALLOC_CONF|expandable_segments|max_split_size|empty_cache|"
                              r"memory_(?:reserved|allocated)\(|torch|autocast|\.half\(\)|\.item\(\)", re.IGNORECASE)


def _leak_fix(key: str, cause: Cause) -> None:
    """An inference runtime's leak in its own terms (``_LEAK_FIX``), where the rule wrote the training-loop fix."""
    if not _PYTORCH_ONLY.search(cause.fix):
        return
    cause.more_fixes = [m for m in cause.more_fixes if not _PYTORCH_ONLY.search(m)]
    cause.fix = i18n._(_LEAK_FIX[key]) if key in _LEAK_FIX else i18n._(_LEAK_FIX_OTHER).format(runtime=key)
    if key in _NOT_TORCH:
        cause.checks = [c for c in cause.checks if not _PYTORCH_ONLY.search(c)] + [
            _("Watch the GPU's used memory (nvidia-smi -l 5) over identical requests or runs: a rise with every one is "
              "the leak; a rise only with longer inputs is their size.")]


# Shapes whose rules already speak the engine's own terms (engine_budget, kv_cache_budget, mps_limit).
_OWN_TERMS_KINDS = ("ggml_alloc_failed", "tgi_prefill", "trtllm_runtime_alloc", "trtllm_executor", "tensorrt_build_alloc",
                    "vllm_kv_cache", "vllm_mamba_cache", "sglang_kv_pool", "mps_oom", "model_load_failed")
_INFERENCE_RUNTIMES = ("comfyui", "sdwebui", "diffusers", "vae", "llamacpp", "ollama", "onnxruntime", "tensorrt", "trtllm", "mlx",
                       "mlc", "faiss", "neuron", "catboost")
_VAE = re.compile(r"vae.{0,40}decod|decod\w{0,6}.{0,20}vae|VAEDecode", re.IGNORECASE)
_JAX_VERSION = re.compile(r"\bjax(?:lib)?(?:==|\s{1,3}v?)(\d{1,2})\.(\d{1,2})\.(\d{1,3})")
_PROCESS_COUNT = re.compile(r"\b(\d{1,2}) (?:JAX )?processes\b", re.IGNORECASE)
_CUDA_ONLY = re.compile(r"PYTORCH_\w*ALLOC_CONF|XLA_PYTHON_CLIENT|XLA_CLIENT_MEM|CUDA_VISIBLE_DEVICES|"
                        r"expandable_segments|nvidia-smi|torch\.cuda|cuda", re.IGNORECASE)
_PYTORCH_ONLY = re.compile(r"torch|autocast|\.half\(\)|\.item\(\)", re.IGNORECASE)
_UNSUPPORTED_EXPANDABLE = re.compile(r"expandable[_ ]segments?\W{0,3}(?:is |are )?not supported", re.IGNORECASE)


def _runtime_key(report: MemoryReport) -> str | None:
    """Which runtime's knobs a fix should use (None: the rules' own PyTorch terms)."""
    if report.platform == "tpu":
        return "tpu"
    runtime = report.runtime or report.engine
    if runtime == "comfyui" or (report.text and "comfyui" in report.text.lower()):
        return "comfyui"
    if runtime in ("ollama",) or report.engine == "ollama":
        return "ollama"
    if runtime in ("pytorch", "diffusers", None) and report.text and _VAE.search(report.text):
        return "diffusers" if runtime == "diffusers" else "vae"  # an image pipeline's VAE decode, not training
    if report.platform in ("metal",) or runtime == "mlx":
        return "mlx"
    if runtime in _RUNTIME_FIX:
        return runtime
    return None


def jax_fraction_fix(report: MemoryReport) -> str:
    """The JAX memory-fraction setting in the version's own terms, for the number of processes the text names.

    Each of N processes sharing a GPU gets 0.9 / N (rounded down to 0.05), so N pools and the CUDA context fit.
    jaxlib before 0.4.1 read the fraction of *available* memory (release notes), so the fraction is the same but
    a later process gets less than an earlier one.
    """
    text = report.text or ""
    m = _PROCESS_COUNT.search(text)
    processes = max(1, int(m.group(1))) if m else 2
    fraction = max(0.05, int(0.9 / processes * 20) / 20)
    version = _JAX_VERSION.search(text)
    old = version is not None and (int(version.group(1)), int(version.group(2)), int(version.group(3))) < (0, 4, 1)
    if old:
        return _("Set XLA_PYTHON_CLIENT_PREALLOCATE=false, or XLA_PYTHON_CLIENT_MEM_FRACTION={fraction} per process "
                 "for {n} processes (before jaxlib 0.4.1 it is a fraction of the memory still available, so start "
                 "the largest process first)").format(fraction=f"{fraction:.2f}", n=processes)
    return _("Set XLA_PYTHON_CLIENT_PREALLOCATE=false, or XLA_CLIENT_MEM_FRACTION={fraction} per process for {n} "
             "processes (XLA_PYTHON_CLIENT_MEM_FRACTION in JAX releases before the rename; a fraction of the total "
             "memory since jaxlib 0.4.1)").format(fraction=f"{fraction:.2f}", n=processes)


def apply_runtime(report: MemoryReport, causes: list[Cause]) -> None:
    """Fixes in the runtime's own terms; nothing the text says is unsupported; no GPU advice for a TPU."""
    key = None if report.kind in _OWN_TERMS_KINDS else _runtime_key(report)
    for cause in causes:
        if cause.id == "preallocation" and (report.runtime in ("jax", "xla") or report.framework == "jax") \
                and not preallocation.names_torch_xla(report.text or ""):
            # (PyTorch/XLA's PJRT client is configured by its own variables: the rule's fix names them.)
            cause.fix = jax_fraction_fix(report)
        if (cause.id in ("genuine_shortage", "single_allocation_exceeds_capacity") and key is not None
                and "largest_allocation_bytes" not in cause.evidence  # XLA:TPU's largest buffer: its own layout fix
                and "tpu_hbm_usage_bytes" not in cause.evidence):  # XLA:TPU's HBM parts: the larger part's own fix
            if report.engine in _SHORTAGE_FIX and key not in ("comfyui", "diffusers", "tpu"):
                continue  # the serving engine's own knob is already first
            fix, more = _RUNTIME_FIX[key]
            if key in _INFERENCE_RUNTIMES or key in ("tpu", "jax"):
                # Training advice (micro-batch, checkpointing, FSDP, LoRA) and PyTorch-only checks (no_grad, AMP)
                # do not apply to an inference runtime or to JAX.
                cause.checks = [c for c in cause.checks if not _PYTORCH_ONLY.search(c)]
                cause.more_fixes = [i18n._(m) for m in more]
                if key != "tpu":
                    cause.more_fixes.append(_("Use a GPU with more memory."))
            else:
                cause.more_fixes = [cause.fix] + [i18n._(m) for m in more] + cause.more_fixes
                if key in _NOT_TORCH:  # a runtime that is not PyTorch underneath (CUDA.jl): no torch calls, no FSDP
                    training = _training_fix_texts()
                    cause.more_fixes = [m for m in cause.more_fixes if not _PYTORCH_ONLY.search(m)
                                        and (m not in training or m == i18n._(genuine_shortage.FIX))]
                    cause.checks = [c for c in cause.checks if not _PYTORCH_ONLY.search(c)]
            cause.fix = i18n._(fix)
        elif cause.id in ("genuine_shortage", "single_allocation_exceeds_capacity") and key is None \
                and not training_fixes_apply(report):
            _without_training_fixes(cause)
        if key in _POOL_FIX:
            _pool_terms(cause, *_POOL_FIX[key])
        if cause.id == "leak" and key is not None and key in _INFERENCE_RUNTIMES:
            _leak_fix(key, cause)
        if report.mig_profile and cause.id in ("genuine_shortage", "single_allocation_exceeds_capacity"):
            cause.more_fixes.insert(0, _("This is a MIG slice ({profile}): the job gets only the slice's memory; use "
                                         "a larger profile or the whole GPU.").format(profile=report.mig_profile))
    if report.text and _YARN_LIMIT.search(report.text):
        for cause in causes:
            if cause.id == "not_capacity" and cause.evidence.get("deciding_check") == "host_ram":
                cause.more_fixes = [cause.fix] + [m for m in cause.more_fixes if m != cause.fix]
                # Spark before 2.3 named the overhead spark.yarn.executor.memoryOverhead (its own message says so).
                knob = ("spark.yarn.executor.memoryOverhead" if "spark.yarn.executor.memoryoverhead" in
                        report.text.lower() else "spark.executor.memoryOverhead")
                cause.fix = _("Raise the container's memory: {knob} (the memory outside the JVM heap: Python "
                              "workers, native libraries, GPU runtimes) or spark.executor.memory; or run fewer tasks "
                              "per executor (spark.executor.cores)").format(knob=knob)
    if report.platform == "tpu":
        for cause in causes:
            _drop(cause, _CUDA_ONLY)
    if report.text and _UNSUPPORTED_EXPANDABLE.search(report.text):
        expandable = re.compile(r"expandable_segments", re.IGNORECASE)
        for cause in causes:
            _drop(cause, expandable)


# YARN's kill of a container above its memory limit (gpudesk.oom.signatures, host_ram). Spark's configuration docs
# ("Running on YARN", spark.executor.memoryOverhead: "memory that accounts for things like VM overheads, interned
# strings, other native overheads"; PySpark's Python workers count against it) name the knobs.
_YARN_LIMIT = re.compile(r"running beyond physical memory limits|killed by yarn for exceeding memory limits",
                         re.IGNORECASE)


def _drop(cause: Cause, pattern: re.Pattern[str]) -> None:
    """Remove every fix matching ``pattern``; the next remaining fix becomes the first."""
    cause.more_fixes = [m for m in cause.more_fixes if not pattern.search(m)]
    if pattern.search(cause.fix):
        cause.fix = cause.more_fixes.pop(0) if cause.more_fixes else _(
            "Reduce what the step keeps in memory (batch, input size), or use a device with more memory")


# Evidence that the program trains (the training-sizing fixes of gpudesk.oom.rules.genuine_shortage apply): a training
# word in the text, or a framework that trains named with no word of inference beside it. A program that names no
# framework (a C++ SDK, a camera's depth engine, an unknown binary) or names inference only gets fixes that fit any
# program: smaller inputs or model, fewer programs on the GPU, a larger GPU.
_TRAINING_WORDS = re.compile(r"\b(?:train(?:ing|er|s)?|epochs?|backward|optimi[sz]er|fine-?tun\w*|finetun\w*|"
                             r"gradients?|loss|accelerate|deepspeed|lightning)\b", re.IGNORECASE)
_INFERENCE_WORDS = re.compile(r"\b(?:inference|infer(?:ring)?|predict(?:ion|ing)?|sdk|serving|deploy\w*|"
                              r"detector|camera|runtime engine)\b", re.IGNORECASE)
_TRAINING_STACKS = ("pytorch", "tensorflow", "jax", "xla", "paddle", "mxnet")
_LARGER_GPU = N_("Use a GPU with more memory.")
_INFERENCE_FIX = N_("Lower what the program holds on the GPU at once: a smaller batch or input (resolution, sequence "
                    "length, frames) or a smaller model; close other programs that use the GPU")


def training_fixes_apply(report: MemoryReport) -> bool:
    """The text shows a training job, or a training framework with no sign of inference only (see above)."""
    if is_inference_runtime(report):
        return False
    text = report.text or ""
    if _TRAINING_WORDS.search(text):
        return True
    stack = report.framework in _TRAINING_STACKS or report.runtime in _TRAINING_STACKS
    return stack and not _INFERENCE_WORDS.search(text)


def _training_fix_texts() -> set[str]:
    """genuine_shortage's training-sizing fixes as shown (translated), the larger GPU aside."""
    return {i18n._(m) for m in (genuine_shortage.FIX, *genuine_shortage.MORE)} - {i18n._(_LARGER_GPU)}


def _without_training_fixes(cause: Cause) -> None:
    """Drop the training-sizing fixes and PyTorch-only checks (genuine_shortage's) from ``cause``."""
    training = _training_fix_texts()
    kept = [m for m in cause.more_fixes if m not in training and not _PYTORCH_ONLY.search(m)]
    if cause.fix in training:
        cause.fix = i18n._(_INFERENCE_FIX)
    # A rule's own first fix stays even where it names a PyTorch setting: the rule chose it from the text (the Mac
    # trap's PYTORCH_MPS_HIGH_WATERMARK_RATIO); only the generic PyTorch extras go.
    cause.more_fixes = [m for m in kept if m != cause.fix]
    cause.checks = [c for c in cause.checks if not _PYTORCH_ONLY.search(c)]


def _pool_terms(cause: Cause, fix: str, check: str) -> None:
    """Fixes and checks naming PyTorch's caching allocator, in the runtime's own pool's terms (``_POOL_FIX``)."""
    named = bool(_TORCH_ALLOCATOR.search(cause.fix)) or any(_TORCH_ALLOCATOR.search(m) for m in cause.more_fixes)
    if named:
        cause.more_fixes = [m for m in cause.more_fixes if not _TORCH_ALLOCATOR.search(m)]
        if _TORCH_ALLOCATOR.search(cause.fix):
            cause.fix = i18n._(fix)
        elif i18n._(fix) not in cause.more_fixes:
            cause.more_fixes.append(i18n._(fix))
    if any(_TORCH_ALLOCATOR.search(c) for c in cause.checks):
        cause.checks = [c for c in cause.checks if not _TORCH_ALLOCATOR.search(c)] + [i18n._(check)]


def is_inference_runtime(report: MemoryReport) -> bool:
    """The text comes from an inference runtime (ComfyUI, llama.cpp, ONNX Runtime, TensorRT, MLX ...) or a TPU/JAX
    program, whose fixes are not the training-sizing ones (micro-batch, checkpointing, sharding, precision)."""
    key = _runtime_key(report)
    return key is not None and (key in _INFERENCE_RUNTIMES or key in ("tpu", "jax"))
