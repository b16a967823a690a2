"""TensorRT-LLM's paged KV cache: a fraction of the memory free after the engine (or PyTorch model) loads.

Source: NVIDIA/TensorRT-LLM ``cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp`` (``BaseKVCacheManager::
calculateMaxNumBlocks``) and ``tensorrt_llm/llmapi/llm_args.py`` ``KvCacheConfig``: ``free_gpu_memory_fraction``
(default 0.9) of the free memory after the weights and the execution context's activation buffers are allocated,
capped by ``max_tokens`` when set; blocks of ``tokens_per_block`` (default 32) tokens, each
``2 x num_kv_heads_per_rank x head_size x layers x dtype_bytes`` per token. The runtime logs "[MemUsageChange]
Allocated X GiB for max tokens in paged KV cache (N)" and "Number of blocks in KV cache primary pool: B".
The activation buffers are sized for ``max_num_tokens`` (default 8192) tokens in one step.

PyTorch backend (the default from 1.0; ``tensorrt_llm/_torch/pyexecutor/_util.py`` ``KvCacheCreator``,
https://github.com/NVIDIA/TensorRT-LLM/blob/v1.1.0rc3/tensorrt_llm/_torch/pyexecutor/_util.py): a first KV pool just
large enough for the dummy requests of the profiling pass (``_get_token_num_for_estimation``: ``max_num_tokens``
tokens in requests of at most ``max_seq_len - 1``, each plus one generated token, plus one more with the overlap
scheduler, rounded up to whole blocks: 8,192 -> 8,224 tokens), then ``_cal_max_tokens``: ``(total - peak +
profiling pool) x free_gpu_memory_fraction``, ``peak`` being the torch peak plus everything else
``cudaMemGetInfo`` counts as used ("Memory used outside torch"), capped by ``max_tokens``. That "everything else"
includes other processes and, on unified memory (DGX Spark/GB10, GH200), the OS and the page cache the checkpoint
was read through, which ``cudaMemGetInfo`` does not count as free (vllm-project/vllm#35313, ggml-org/llama.cpp#17368;
NVIDIA's Spark playbooks drop caches first): the ``host_used_gib`` input, what the OS, page cache and other processes
hold while the engine measures. On a GB10 (119.70 GiB) gpt-oss-120b printed a 113.65 GiB peak and got 5.95 GiB
(86,720 tokens) for its KV cache, about 50 GiB less than the same launch after a cache flush.
"""

from __future__ import annotations

from shlex import quote
from typing import Any

from gpudesk.i18n import _
from gpudesk.sizing.engines.common import CONTEXT_BYTES, EngineFit, GpuMemory, Setting, settings_with_defaults
from gpudesk.sizing.engines.flags import trtllm_serve_takes_extra_options, uses_trtllm_serve
from gpudesk.units import GIB
from gpudesk.sizing.engines.forward import profile_peak_bytes
from gpudesk.sizing.engines.vllm import kv_precision
from gpudesk.sizing.memory_inference import kv_token_bytes_all_layers, resolve_weight_format, weight_bytes
from gpudesk.sizing.shapes import ModelSpec

SETTINGS: dict[str, Setting] = {
    "free_gpu_memory_fraction": (0.9, float, "kv_cache_config.free_gpu_memory_fraction"),
    "max_tokens": (None, int, "kv_cache_config.max_tokens"),
    "tokens_per_block": (32, int, "tokens_per_block"),
    "max_batch_size": (2048, int, "--max_batch_size"),
    "max_num_tokens": (8192, int, "--max_num_tokens"),
    "max_seq_len": (None, int, "--max_seq_len"),
    "tp_size": (1, int, "--tp_size"),
    "kv_cache_dtype": ("auto", str, "kv_cache_config.dtype"),
    # PyTorch backend (1.0 on): one token more per profiling request unless the overlap scheduler is off.
    "disable_overlap_scheduler": (False, bool, "disable_overlap_scheduler"),
    # Not a flag: GiB the OS, the page cache and other processes hold when the engine measures (module docstring).
    "host_used_gib": (0.0, float, "host_used_gib"),
}
#: Settings that describe the environment, not the command line.
ENVIRONMENT_SETTINGS = frozenset({"host_used_gib"})


def pytorch_backend(version: str) -> bool:
    """True from 1.0, whose ``trtllm-serve`` runs the PyTorch backend by default."""
    try:
        return int(version.strip().lower().lstrip("v").split(".")[0]) >= 1
    except ValueError:
        return True


def profiling_pool_tokens(max_num_tokens: int, max_seq_len: int, tokens_per_block: int, overlap: bool) -> int:
    """Tokens of the KV pool the profiling pass allocates (module docstring, ``_get_token_num_for_estimation``)."""
    per_request = max(1, min(max_num_tokens, max_seq_len - 1))
    extra = 2 if overlap else 1
    blocks, left = 0, max_num_tokens
    while left > 0:
        n = min(per_request, left)
        blocks += -(-(n + extra) // tokens_per_block)
        left -= n
    return blocks * tokens_per_block


def command(model: str, s: dict[str, Any], version: str, tp: int, seq: int) -> str:
    """``trtllm-serve`` with the KvCacheConfig settings it has no flag for in an ``--extra_llm_api_options`` YAML
    (1.0 on), or ``examples/run.py`` over a built engine where that release's ``trtllm-serve`` cannot take them
    (:mod:`gpudesk.sizing.engines.flags`)."""
    frac = float(s["free_gpu_memory_fraction"])
    needs_options = bool(s["max_tokens"]) or str(s["kv_cache_dtype"]) != "auto" or bool(s["disable_overlap_scheduler"]) or \
        int(s["tokens_per_block"]) != SETTINGS["tokens_per_block"][0]
    if not uses_trtllm_serve(version) or (needs_options and not trtllm_serve_takes_extra_options(version)):
        parts = [f"python3 examples/run.py --engine_dir {quote(model)} --max_output_len {seq}",
                 f"--kv_cache_free_gpu_memory_fraction {frac:g}"]
        if s["max_tokens"]:
            parts.append(f"--max_tokens_in_paged_kv_cache {int(s['max_tokens'])}")
        return " ".join(parts)
    kv_lines = []
    top_lines = ["disable_overlap_scheduler: true"] if s["disable_overlap_scheduler"] else []
    if s["max_tokens"]:
        kv_lines.append(f"  max_tokens: {int(s['max_tokens'])}")
    if str(s["kv_cache_dtype"]) != "auto":
        kv_lines.append(f"  dtype: {s['kv_cache_dtype']}")
    if int(s["tokens_per_block"]) != SETTINGS["tokens_per_block"][0]:
        kv_lines.append(f"  tokens_per_block: {int(s['tokens_per_block'])}")
    serve = (f"trtllm-serve {quote(model)} --tp_size {tp} --max_batch_size {s['max_batch_size']} "
             f"--max_num_tokens {s['max_num_tokens']} --max_seq_len {seq} --kv_cache_free_gpu_memory_fraction {frac:g}")
    if not kv_lines and not top_lines:
        return serve
    yaml = "\\n".join(top_lines + (["kv_cache_config:"] + kv_lines if kv_lines else []))
    return f"printf '{yaml}\\n' > extra_llm_api_options.yaml && {serve} --extra_llm_api_options extra_llm_api_options.yaml"


def trtllm_fit(spec: ModelSpec, gpu_name: str, gpu_total_bytes: int, given: dict[str, Any], *,
               version: str = "1.0", weight_format: str = "checkpoint", concurrency: int = 1,
               model_ref: str | None = None, unified: bool = False) -> EngineFit:
    """TensorRT-LLM's sizing (module docstring); ``unified``: the device shares memory with the CPU."""
    s = settings_with_defaults(SETTINGS, given)
    tp = max(1, int(s["tp_size"]))
    fmt = resolve_weight_format(spec, weight_format)
    seq = int(s["max_seq_len"] or spec.context_length or 4096)
    weights = weight_bytes(spec, fmt) / tp
    activation = profile_peak_bytes(spec, int(s["max_num_tokens"]), int(s["max_batch_size"]), tp)
    free = gpu_total_bytes - CONTEXT_BYTES - weights - activation - float(s["host_used_gib"]) * GIB  # beyond the
    # device total, which for a unified device already leaves the idle OS out (device.py)
    frac = float(s["free_gpu_memory_fraction"])
    kvp = kv_precision(s["kv_cache_dtype"])
    per_token = kv_token_bytes_all_layers(spec, kvp, tp)
    pool = 0
    if pytorch_backend(version):
        pool = profiling_pool_tokens(int(s["max_num_tokens"]), seq, int(s["tokens_per_block"]),
                                     not s["disable_overlap_scheduler"])
    budget = max(0.0, (free + pool * per_token) * frac) if free > 0 else 0.0
    tokens = int(budget // per_token)
    if s["max_tokens"]:
        tokens = min(tokens, int(s["max_tokens"]))
    block = int(s["tokens_per_block"])
    blocks = tokens // block
    tokens = blocks * block
    kv_bytes = tokens * per_token
    fits = free > 0 and tokens >= block
    host_used = float(s["host_used_gib"]) * GIB
    if fits:
        reason = ""
    elif host_used:
        reason = _("weights and activation buffers take {need:.2f} GiB and the OS, page cache and other processes "
                   "{host:.2f} GiB of {total:.2f} GiB; no memory is left for the paged KV cache.").format(
            need=(weights + activation + CONTEXT_BYTES) / GIB, host=host_used / GIB, total=gpu_total_bytes / GIB)
    else:
        reason = _("weights and activation buffers take {need:.2f} GiB of {total:.2f} GiB; no memory "
                   "is left for the paged KV cache.").format(need=(weights + activation + CONTEXT_BYTES) / GIB,
                                                              total=gpu_total_bytes / GIB)
    model = model_ref or spec.hf_repo or spec.name
    cmd = command(model, s, version, tp, seq)
    mem = GpuMemory(weights, activation, CONTEXT_BYTES, kv_bytes)
    return EngineFit("trtllm", version, gpu_name, gpu_total_bytes, tp, mem, tokens, blocks, block, seq,
                     max(1, concurrency), tokens / seq if seq else 0.0, min(seq, tokens // max(1, concurrency)), fits,
                     reason, cmd, s, assumptions=(
                         (_("KV cache = free_gpu_memory_fraction {frac:g} x memory free after weights and activation "
                            "buffers").format(frac=frac), "cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp"),
                         *(((_("on unified memory the OS and the page cache count as used when TensorRT-LLM measures "
                               "free memory; {gib:.2f} GiB of them is taken off (host_used_gib). Flush the page cache "
                               "before starting, or the KV cache shrinks by what it holds.").format(
                             gib=float(s["host_used_gib"])), "tensorrt_llm/_torch/pyexecutor/_util.py"),)
                           if unified else ())))
