"""Human-readable names for the machine keys of evidence and parsed values.

Evidence and ``MemoryReport.parsed`` keep machine keys with their unit in the name (``requested_bytes``,
``fit_margin_ratio``, ``window_s``) for JSON and scripts. People read :func:`label_for` instead:
``label_for("requested_bytes")`` -> "Requested allocation". The names use PyTorch's allocator terms
(``torch.cuda.memory_stats`` / ``memory_summary``), NVML's ("memory used by the process") and the OOM
message's own words. A key without an entry (dynamic keys such as ``process_1234_bytes``,
``summary_<row>_<column>_bytes``, ``bfc_<stat>_bytes``, ``env_<NAME>``) gets a name built from its parts,
never the raw key.
"""

from __future__ import annotations

import re

LABELS: dict[str, str] = {
    # Request and capacity (the OOM message's clauses).
    "requested_bytes": "Requested allocation",
    "total_capacity_bytes": "GPU total capacity",
    "free_bytes": "Free on the GPU",
    "this_process_bytes": "Used by this process (NVML, incl. non-PyTorch)",
    "allocated_bytes": "Allocated by PyTorch (live tensors)",
    "reserved_bytes": "Reserved by PyTorch (incl. live tensors)",
    "reserved_unallocated_bytes": "Reserved but unallocated (allocator cache)",
    "cached_bytes": "Cached (old name for reserved but unallocated)",
    "private_pools_bytes": "Allocated in private pools (CUDA graphs)",
    "device_index": "GPU index",
    "rank": "Rank",
    "exception_class": "Exception",
    "oom_messages": "OOM messages in the text",
    "headroom_bytes": "Free + cached (the most a request could get)",
    "headroom_ratio": "Free + cached, share of the GPU",
    # Fit against the request.
    "fit_margin_bytes": "Left after the request (free + cache − request)",
    "fit_margin_ratio": "Left after the request, share of the GPU",
    "shortfall_bytes": "Missing for the request (request − free − cache)",
    "fragmentation_ratio": "Cached share of reserved memory",
    "inactive_split_bytes": "Non-releasable memory (inactive split blocks)",
    "largest_free_block_bytes": "Largest free cached block",
    "num_alloc_retries": "cudaMalloc retries (cache flushes)",
    "num_ooms": "OOMs seen by the allocator",
    # Single allocation.
    "requested_to_capacity_ratio": "Request ÷ GPU total capacity",
    "bogus_size": "Implausible size (shape or config bug)",
    "tensor_shape": "Tensor shape",
    "tensor_elements": "Tensor elements",
    "dtype": "Data type",
    # Other processes.
    "other_processes_bytes": "Used by other processes",
    "other_processes_ratio": "Other processes, share of the GPU",
    "other_processes_count": "Other processes",
    "other_pids": "Other processes' PIDs",
    "dead_pids": "PIDs holding memory but not running",
    "same_job_siblings": "Same job's other ranks",
    # Outside the allocator.
    "non_pytorch_bytes": "Outside PyTorch's allocator (process − reserved)",
    "non_pytorch_ratio": "Outside the allocator, share of the GPU",
    "error_kind": "Kind of error",
    "library_status": "Library status",
    "library_call": "Failing call",
    "library_error_also_present": "Library error also in the text",
    # CUDA graphs.
    "private_pools_to_allocated_ratio": "Private pools ÷ allocated",
    # Multi-GPU.
    "busiest_gpu_index": "Busiest GPU",
    "busiest_gpu_bytes": "Memory on the busiest GPU",
    "least_gpu_index": "Least used GPU",
    "least_gpu_bytes": "Memory on the least used GPU",
    "imbalance_ratio": "Busiest ÷ least used",
    # Leak and host memory (samples over time).
    "pid": "Process ID",
    "allocated_first_bytes": "Allocated at the first sample",
    "allocated_last_bytes": "Allocated at the last sample",
    "allocated_growth_bytes": "Growth of allocated memory",
    "allocated_growth_bytes_per_s": "Growth of allocated memory per second",
    "window_s": "Time covered by the samples",
    "samples": "Samples",
    "host_rss_first_bytes": "Host memory (RSS) at the first sample",
    "host_rss_last_bytes": "Host memory (RSS) at the last sample",
    "host_rss_growth_bytes": "Growth of host memory (RSS)",
    "host_rss_growth_bytes_per_s": "Growth of host memory (RSS) per second",
    "zombie_pids": "Zombie or dead worker PIDs",
    "workers_on_gpu_pids": "Workers holding a CUDA context",
    "killed_worker_pids": "Workers killed (from the log)",
    # Windows.
    "shared_gpu_memory_bytes": "Shared GPU memory (system RAM)",
    "text": "Text found",
    # KV cache (vLLM).
    "max_model_len_tokens": "Maximum model length (max_model_len)",
    "kv_cache_tokens": "KV cache capacity",
    "shortfall_tokens": "Tokens missing",
    "kv_cache_blocks": "KV cache blocks",
    "kv_block_size_tokens": "KV block size",
    "kv_cache_needed_bytes": "KV cache needed",
    "kv_cache_available_bytes": "KV cache available",
    "gpu_memory_utilization_ratio": "gpu_memory_utilization",
    "estimated_max_model_len_tokens": "Estimated maximum model length",
    "kv_bytes_per_token": "KV cache bytes per token",
    "kv_cache_bytes": "KV cache size",
    "kv_needed_for_max_model_len_bytes": "KV cache needed for max_model_len",
    "kv_missing_bytes": "KV cache missing",
    # XLA / TensorFlow.
    "xla_total_allocation_bytes": "XLA total allocation",
    "xla_total_fragmentation_bytes": "XLA fragmentation",
    "xla_total_fragmentation_ratio": "XLA fragmentation share",
    "xla_largest_peak_buffer_bytes": "Largest peak buffer",
    "xla_peak_buffers_count": "Peak buffers listed",
    "xla_first_peak_buffer_shape": "First peak buffer's shape",
    "driver_oom": "Driver allocation failed",
    "cublas_handle_failed": "cuBLAS handle creation failed",
    # Unparseable input.
    "characters": "Characters read",
    "framework_guess": "Framework guess",
    "missing": "Missing from the input",
    # Probe, launch and evidence.
    "probe_duration_s": "Probe run time",
    "probe_method": "Probe method",
    "oom_observer_alloc_bytes": "Allocation at the OOM (observer)",
    "oom_observer_device_free_bytes": "Free on the GPU at the OOM (observer)",
    "summary_num_alloc_retries": "cudaMalloc retries (memory_summary)",
    "summary_num_ooms": "OOMs (memory_summary)",
    "summary_units": "Units of the memory_summary table",
    "peak_allocated_bytes": "Peak allocated",
    "peak_reserved_bytes": "Peak reserved",
    "private_pool_bytes": "Allocated in private pools (CUDA graphs)",
    "total_bytes": "GPU total capacity",
    "memory_total_bytes": "GPU total memory",
    "device_allocated_bytes": "Allocated by PyTorch",
    "device_free_bytes": "Free on the GPU",
    "unattributed_bytes": "Used on the GPU but not by any listed process",
    "alloc_bytes": "Allocation",
}

# memory_summary rows and columns (torch/cuda/memory.py memory_summary).
# TensorFlow's BFC allocator and XLA have no "PyTorch" figures: the same keys name their own terms
# (BFC ``Stats:`` block: Limit, InUse; oom.md §3.2).
# Issue 11: serving engines, other platforms and the memory account.
LABELS.update({
    "allowed_bytes": "Allowed to this process (per-process cap)",
    "allowed_ratio": "Share of the GPU allowed to this process",
    "fraction_that_fits_ratio": "Per-process memory fraction that fits",
    "free_ratio": "Share of the GPU free",
    "free_to_request_ratio": "Free memory / request",
    "outside_allocator_bytes": "Held outside this process's allocator",
    "outside_allocator_ratio": "Share of the GPU held outside this process's allocator",
    "cuda_call": "CUDA call that failed",
    "ggml_buffer": "ggml buffer that failed (model, KV cache or compute)",
    "model_buffer_bytes": "Model buffer on this GPU",
    "offloaded_layers": "Layers offloaded to the GPU",
    "total_layers": "Layers in the model",
    "layers_that_fit": "Layers that fit (-ngl)",
    "n_ctx_tokens": "Context size",
    "kv_cache_bytes": "KV cache",
    "high_watermark_ratio_that_fits": "PYTORCH_MPS_HIGH_WATERMARK_RATIO that fits",
    "mps_allocated_bytes": "MPS allocated (live tensors)",
    "mps_other_allocations_bytes": "MPS other allocations",
    "mps_max_allowed_bytes": "MPS limit (high watermark)",
    "mps_pool": "MPS pool",
    "mps_high_watermark_ratio": "PYTORCH_MPS_HIGH_WATERMARK_RATIO in force",
    "mamba_cache_blocks": "Mamba cache blocks available",
    "max_num_seqs": "max_num_seqs",
    "max_batch_prefill_tokens": "TGI --max-batch-prefill-tokens",
    "max_batch_total_tokens": "TGI max batch total tokens",
    "max_model_len_that_fits_tokens": "max_model_len that fits",
    "estimated_max_model_len_tokens": "Estimated maximum model length (vLLM)",
    "gpu_memory_utilization_that_fits_ratio": "gpu_memory_utilization that fits",
    "vllm_total_gpu_memory_bytes": "Total GPU memory (vLLM profiling)",
    "vllm_weights_bytes": "Model weights (vLLM profiling)",
    "vllm_non_torch_bytes": "Non-torch memory (vLLM profiling)",
    "vllm_activation_peak_bytes": "Activation peak (vLLM profiling)",
    "vllm_kv_cache_memory_bytes": "Memory for the KV cache (vLLM profiling)",
    "mem_fraction_static_ratio": "SGLang --mem-fraction-static",
    "mem_fraction_static_minimum_ratio": "Smallest --mem-fraction-static that leaves a KV pool",
    "sglang_avail_after_load_bytes": "Free after loading the weights (SGLang)",
    "sglang_total_before_load_bytes": "Free before loading the weights (SGLang)",
    "sglang_weights_bytes": "Weights (SGLang 'mem usage')",
    "sglang_profiled_max_tokens": "KV tokens SGLang profiled",
    "trtllm_component": "TensorRT-LLM component that failed",
    "kv_cache_free_gpu_mem_fraction_ratio": "kv_cache_free_gpu_mem_fraction",
    "sentinel_total": "Total capacity is NVML's 'not available' value",
})

FRAMEWORK_LABELS: dict[str, dict[str, str]] = {
    "tensorflow": {
        "total_capacity_bytes": "Allocator memory limit (BFC Limit)",
        "allocated_bytes": "In use by the allocator (BFC InUse)",
        "free_bytes": "Left under the limit (Limit − InUse)",
        "reserved_bytes": "Reserved by the allocator",
        "requested_to_capacity_ratio": "Request ÷ allocator limit",
    },
    "jax": {
        "allocated_bytes": "In use by XLA",
        "reserved_bytes": "Reserved by XLA",
    },
}

# Keys whose value 1 means "yes" (flags found in the text).
FLAG_KEYS = frozenset({"driver_oom", "cublas_handle_failed", "library_error_also_present", "bogus_size",
                       "same_job_siblings"})

_SUMMARY_ROWS = {
    "allocated": "Allocated memory",
    "active": "Active memory",
    "requested": "Requested memory",
    "reserved": "GPU reserved memory",
    "non_releasable": "Non-releasable memory",
    "active_allocs": "Active allocs",
    "reserved_segments": "GPU reserved segments",
    "non_releasable_allocs": "Non-releasable allocs",
    "allocations": "Allocations",
    "oversize_allocations": "Oversize allocations",
    "oversize_segments": "Oversize GPU segments",
}
_SUMMARY_COLS = {"cur": "current", "peak": "peak", "tot_alloc": "total allocated", "tot_freed": "total freed"}
_SUMMARY_POOLS = {"large_pool": "large pool", "small_pool": "small pool"}
_UNIT_SUFFIXES = ("_bytes_per_s", "_bytes", "_ratio", "_tokens", "_count", "_s")


def _summary_label(rest: str) -> str | None:
    """``non_releasable_large_pool_cur`` -> "Non-releasable memory, large pool, current"."""
    for col_key, col in _SUMMARY_COLS.items():
        if not rest.endswith("_" + col_key):
            continue
        head = rest[: -len(col_key) - 1]
        pool = None
        for pool_key, pool_name in _SUMMARY_POOLS.items():
            if head.endswith("_" + pool_key):
                head, pool = head[: -len(pool_key) - 1], pool_name
        row = _SUMMARY_ROWS.get(head)
        if row is None:
            return None
        return ", ".join(part for part in (row, pool, col) if part)
    return None


def _generic(key: str) -> str:
    base = key
    for suffix in _UNIT_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    words = base.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else key


def label_for(key: str, framework: str | None = None) -> str:
    """The human-readable name of an evidence or parsed key (the value's unit comes from the key's suffix
    when it is displayed, so the name carries none). ``framework`` ("tensorflow", "jax", ...) picks that
    framework's own term where PyTorch's would be wrong."""
    special = FRAMEWORK_LABELS.get(framework or "", {})
    if key in special:
        return special[key]
    if key in LABELS:
        return LABELS[key]
    m = re.fullmatch(r"process_(\d+)_bytes", key)
    if m:
        return f"Used by process {m.group(1)}"
    m = re.fullmatch(r"summary_(.+?)(?:_bytes)?", key)
    if m:
        label = _summary_label(m.group(1))
        if label:
            return label
    m = re.fullmatch(r"bfc_(.+?)(?:_bytes)?", key)
    if m:
        return f"BFC allocator {m.group(1).replace('_', ' ')}"
    m = re.fullmatch(r"xla_(\w+)_allocation_bytes", key)
    if m:
        return f"XLA {m.group(1).replace('_', ' ')} allocation"
    m = re.fullmatch(r"trtllm_(\w+?)_used_bytes", key)
    if m:
        return f"TensorRT-LLM {m.group(1).replace('_', ' ')}: memory used"
    m = re.fullmatch(r"env_(\w+)", key)
    if m:
        return f"Environment {m.group(1)}"
    return _generic(key)


def has_label(key: str) -> bool:
    """True when ``key`` has a written name (in :data:`LABELS` or one of the dynamic key shapes)."""
    if key in LABELS or re.fullmatch(r"process_\d+_bytes|bfc_\w+|env_\w+|xla_\w+_allocation_bytes|trtllm_\w+_used_bytes", key):
        return True
    m = re.fullmatch(r"summary_(.+?)(?:_bytes)?", key)
    return bool(m and _summary_label(m.group(1)))
