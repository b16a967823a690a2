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

from gpudesk import i18n
from gpudesk.i18n import N_, _

LABELS: dict[str, str] = {
    # Request and capacity (the OOM message's clauses).
    "requested_bytes": N_("Requested allocation"),
    "tensor_bytes": N_("Bytes the tensor's shape needs"),
    "buffer_bytes": N_("Bytes of the buffer given"),
    "total_capacity_bytes": N_("GPU total capacity"),
    "free_bytes": N_("Free on the GPU"),
    "framework_used_bytes": N_("In use by the framework's allocator"),
    "held_outside_bytes": N_("Held outside the framework (total − free − in use)"),
    "this_process_bytes": N_("Used by this process (NVML, incl. non-PyTorch)"),
    "allocated_bytes": N_("Allocated by PyTorch (live tensors)"),
    "reserved_bytes": N_("Reserved by PyTorch (incl. live tensors)"),
    "reserved_unallocated_bytes": N_("Reserved but unallocated (allocator cache)"),
    # The TPU runtime's "... and V reservable": the largest piece its program reservation could take (openxla error 0101).
    "reservable_bytes": N_("Largest piece the TPU runtime could reserve"),
    "cached_bytes": N_("Cached (old name for reserved but unallocated)"),
    "private_pools_bytes": N_("Allocated in private pools (CUDA graphs)"),
    "device_index": N_("GPU index"),
    "rank": N_("Distributed rank"),
    "exception_class": N_("Exception"),
    "oom_messages": N_("OOM messages in the text"),
    "headroom_bytes": N_("Free + cached (the most a request could get)"),
    "headroom_ratio": N_("Free + cached, share of the GPU"),
    "headroom_upper_bound_bytes": N_("At most free + cached (capacity minus live tensors)"),
    "nccl_tests_max_bytes": N_("nccl-tests' largest size after its memory cap"),
    "nccl_tests_headroom_bytes": N_("Left by nccl-tests beside its buffers"),
    # What kind of failure (issue 28: gpudesk.oom.signatures).
    "runtime": N_("Runtime that printed the message"),
    "engine": N_("Serving engine"),
    "setting": N_("Engine setting the text names"),
    "smi_gpu_index": N_("GPU the pasted nvidia-smi table shows full"),
    "smi_used_bytes": N_("Memory in use on that GPU (nvidia-smi)"),
    "smi_total_bytes": N_("Memory of that GPU (nvidia-smi)"),
    "backend": N_("Device backend"),
    "not_capacity_kind": N_("Kind of failure (not memory capacity)"),
    "deciding_check": N_("Check that tells it apart"),
    "check_command": N_("Command to run"),
    "negative_size_bytes": N_("Negative size in the message"),
    "buffer_limit_bytes": N_("Largest single buffer allowed"),
    "pool_bytes": N_("Size of the runtime's fixed pool"),
    "pool_available_bytes": N_("Left in the runtime's fixed pool"),
    "pool_needed": N_("Size the runtime says its pool needs (in its own unit)"),
    "pool_needed_bytes": N_("Heap size the runtime says it needed"),
    "vgpu_accounted_bytes": N_("Memory the vGPU layer counted for the container"),
    "vgpu_limit_bytes": N_("The container's vGPU memory limit"),
    "exceeded_by_bytes": N_("Exceeded the capacity by"),
    "in_use_bytes": N_("In use (as the message says)"),
    "pool_held_bytes": N_("Held by the memory pool before the request (cache included)"),
    "pool_limit_bytes": N_("Memory pool limit"),
    "total_at_start_bytes": N_("GPU total when the framework started"),
    "free_at_start_bytes": N_("Free on the GPU when the framework started"),
    "engine_budget_bytes": N_("Memory the engine asked for at start (utilization × total)"),
    "held_at_start_bytes": N_("Held on the GPU before the engine started"),
    "held_at_start_min_ratio": N_("Held on the GPU before the start, share of the GPU (at least)"),
    "rmm_pool_bytes": N_("Memory pool the executor asked for at start"),
    "allocated_beyond_capacity_bytes": N_("Allocated beyond the GPU's capacity"),
    "mig_slice_capacity_bytes": N_("MIG slice capacity (at most)"),
    "smaller_gpu_index": N_("Smaller GPU that DataParallel warned about"),
    "larger_gpu_index": N_("Larger GPU it was compared with"),
    # Fit against the request.
    "fit_margin_bytes": N_("Left after the request (free + cache − request)"),
    "fit_margin_ratio": N_("Left after the request, share of the GPU"),
    "shortfall_bytes": N_("Missing for the request (request − free − cache)"),
    "fragmentation_ratio": N_("Cached share of reserved memory"),
    "inactive_split_bytes": N_("Non-releasable memory (inactive split blocks)"),
    "largest_free_block_bytes": N_("Largest free cached block"),
    "num_alloc_retries": N_("cudaMalloc retries (cache flushes)"),
    # Tenstorrent's banked allocator (gpudesk.oom.rules.bank_allocator): figures per bank.
    "bank_region": N_("Memory region (DRAM, L1, L1_SMALL, TRACE)"),
    "banks": N_("Banks the buffer is spread over"),
    "per_bank_request_bytes": N_("Requested per bank"),
    "bank_size_bytes": N_("Size of one bank"),
    "bank_free_bytes": N_("Free in each bank"),
    "num_ooms": N_("OOMs seen by the allocator"),
    # Single allocation.
    "requested_to_capacity_ratio": N_("Request ÷ GPU total capacity"),
    "bogus_size": N_("Implausible size (shape or config bug)"),
    "request_redacted": N_("Requested size redacted (placeholders such as xxx)"),
    "tensor_shape": N_("Tensor shape"),
    "tensor_elements": N_("Tensor elements"),
    "dtype": N_("Data type"),
    # Other processes.
    "other_processes_bytes": N_("Used by other processes"),
    "other_processes_ratio": N_("Other processes, share of the GPU"),
    "other_processes_count": N_("Other processes"),
    "other_pids": N_("Other processes' PIDs"),
    "dead_pids": N_("PIDs holding memory but not running"),
    "same_job_siblings": N_("Same job's other ranks"),
    # Outside the allocator.
    "non_pytorch_bytes": N_("Outside PyTorch's allocator (process − reserved)"),
    "unaccounted_bytes": N_("Held by neither live tensors nor free memory (device − free − allocated)"),
    "non_pytorch_ratio": N_("Outside the allocator, share of the GPU"),
    "error_kind": N_("Kind of error"),
    "library_status": N_("Library status"),
    "library_call": N_("Failing call"),
    "library_error_also_present": N_("Library error also in the text"),
    "read_unwrapped": N_("Read with its line breaks joined (a wrapped paste)"),
    # CUDA graphs.
    "private_pools_to_allocated_ratio": N_("Private pools ÷ allocated"),
    # Multi-GPU.
    "busiest_gpu_index": N_("Busiest GPU"),
    "busiest_gpu_bytes": N_("Memory on the busiest GPU"),
    "least_gpu_index": N_("Least used GPU"),
    "least_gpu_bytes": N_("Memory on the least used GPU"),
    "imbalance_ratio": N_("Busiest ÷ least used"),
    # Leak and host memory (samples over time).
    "pid": N_("Process ID"),
    "allocated_first_bytes": N_("Allocated at the first sample"),
    "allocated_last_bytes": N_("Allocated at the last sample"),
    "allocated_growth_bytes": N_("Growth of allocated memory"),
    "allocated_growth_bytes_per_s": N_("Growth of allocated memory per second"),
    "window_s": N_("Time covered by the samples"),
    "samples": N_("Samples"),
    "host_rss_first_bytes": N_("Host memory (RSS) at the first sample"),
    "host_rss_last_bytes": N_("Host memory (RSS) at the last sample"),
    "host_rss_growth_bytes": N_("Growth of host memory (RSS)"),
    "host_rss_growth_bytes_per_s": N_("Growth of host memory (RSS) per second"),
    "zombie_pids": N_("Zombie or dead worker PIDs"),
    "workers_on_gpu_pids": N_("Workers holding a CUDA context"),
    "killed_worker_pids": N_("Workers killed (from the log)"),
    # Windows.
    "shared_gpu_memory_bytes": N_("Shared GPU memory (system RAM)"),
    "text": N_("Text found"),
    # KV cache (vLLM).
    "max_model_len_tokens": N_("Maximum model length (max_model_len)"),
    "kv_cache_tokens": N_("KV cache capacity"),
    "context_tokens": N_("Context length (n_ctx)"),
    "retraction_lines": N_("Retraction log lines"),
    "retracted_requests": N_("Requests retracted"),
    "engine_words": N_("The engine's own words"),
    "kv_setting": N_("KV-cache setting named"),
    "refused_request_tokens": N_("Longest request refused (tokens)"),
    "shortfall_tokens": N_("Tokens missing"),
    "kv_cache_blocks": N_("KV cache blocks"),
    "kv_blocks_available": N_("KV cache blocks free"),
    "kv_blocks_needed": N_("KV cache blocks the request needs"),
    "kv_block_size_tokens": N_("KV block size"),
    "kv_cache_needed_bytes": N_("KV cache needed"),
    "kv_cache_available_bytes": N_("KV cache available"),
    "gpu_memory_utilization_ratio": N_("gpu_memory_utilization"),
    "estimated_max_model_len_tokens": N_("Estimated maximum model length"),
    "kv_bytes_per_token": N_("KV cache bytes per token"),
    "kv_cache_bytes": N_("KV cache size"),
    "kv_needed_for_max_model_len_bytes": N_("KV cache needed for max_model_len"),
    "kv_missing_bytes": N_("KV cache missing"),
    # XLA / TensorFlow.
    "xla_total_allocation_bytes": N_("XLA total allocation"),
    "xla_pool_bytes": N_("XLA's pool reserved at start"),
    "xla_total_fragmentation_bytes": N_("XLA fragmentation"),
    "xla_total_fragmentation_ratio": N_("XLA fragmentation share"),
    "xla_largest_peak_buffer_bytes": N_("Largest peak buffer"),
    "xla_peak_buffers_count": N_("Peak buffers listed"),
    "xla_first_peak_buffer_shape": N_("First peak buffer's shape"),
    "driver_oom": N_("Driver allocation failed"),
    "cublas_handle_failed": N_("cuBLAS handle creation failed"),
    # Unparseable input.
    "characters": N_("Characters read"),
    "framework_guess": N_("Framework guess"),
    "missing": N_("Missing from the input"),
    # Probe, launch and evidence.
    "probe_duration_s": N_("Probe run time"),
    "probe_method": N_("Probe method"),
    "oom_observer_alloc_bytes": N_("Allocation at the OOM (observer)"),
    "oom_observer_device_free_bytes": N_("Free on the GPU at the OOM (observer)"),
    "summary_num_alloc_retries": N_("cudaMalloc retries (memory_summary)"),
    "summary_num_ooms": N_("OOMs (memory_summary)"),
    "summary_units": N_("Units of the memory_summary table"),
    "peak_allocated_bytes": N_("Peak allocated"),
    "peak_reserved_bytes": N_("Peak reserved"),
    "private_pool_bytes": N_("Allocated in private pools (CUDA graphs)"),
    "total_bytes": N_("GPU total capacity"),
    "memory_total_bytes": N_("GPU total memory"),
    "device_allocated_bytes": N_("Allocated by PyTorch"),
    "device_free_bytes": N_("Free on the GPU"),
    "unattributed_bytes": N_("Used on the GPU but not by any listed process"),
    "alloc_bytes": N_("Allocation"),
    # Memory snapshots (gpudesk.oom.snapshot.account).
    "free_pieces": N_("Free cached blocks"),
    "leak_suspect_bytes": N_("Alive at the peak from allocations made in every iteration"),
    "leak_suspect_share_ratio": N_("Share of the peak held by those allocations"),
    "leak_suspect_allocations": N_("Allocations from the top suspect"),
    "leak_suspect_iterations": N_("Iterations the top suspect allocated in"),
    "leak_suspect_frame": N_("Code that made them"),
}

# memory_summary rows and columns (torch/cuda/memory.py memory_summary).
# TensorFlow's BFC allocator and XLA have no "PyTorch" figures: the same keys name their own terms
# (BFC ``Stats:`` block: Limit, InUse; oom.md §3.2).
# Issue 11: serving engines, other platforms and the memory account.
LABELS.update({
    # Keys of later passes that had no written name (the QA pass listed them over every older case set).
    "gc_freed_bytes": N_("Freed by the garbage collector at the failure"),
    "freed_share_ratio": N_("Share of the GPU the collector freed"),
    "allocator_cap_bytes": N_("The allocator's memory cap"),
    "carveout_total_bytes": N_("Total the runtime printed (the APU's VRAM carve-out)"),
    "collective_library": N_("Collective communication library"),
    "free_wrapped_below_zero": N_("Free figure wrapped below zero"),
    "gpu_memory_utilization": N_("gpu_memory_utilization"),
    "memory_report": N_("What the text reports"),
    "requested_is_lower_bound": N_("The request is a lower bound ('more than')"),
    "tpu_memory_space": N_("TPU memory space"),
    "tpu_reservable_bytes": N_("TPU memory that could be reserved"),
    "allowed_bytes": N_("Allowed to this process (per-process cap)"),
    "configured_limit_bytes": N_("The program's own memory setting"),
    "arena_available_bytes": N_("Left under the session's arena limit (ONNX Runtime gpu_mem_limit)"),
    "allowed_ratio": N_("Share of the GPU allowed to this process"),
    "fraction_that_fits_ratio": N_("Per-process memory fraction that fits"),
    "free_ratio": N_("Share of the GPU free"),
    "free_to_request_ratio": N_("Free memory / request"),
    "stated_max_allocation_bytes": N_("Maximum single allocation the device reports"),
    "outside_allocator_bytes": N_("Held outside this process's allocator"),
    "outside_allocator_ratio": N_("Share of the GPU held outside this process's allocator"),
    "described_as": N_("What the text says about the memory"),
    "tactic_workspace_bytes": N_("Workspace one TensorRT tactic asked for"),
    "held_by_others_estimate_bytes": N_("Held by other processes (estimate: the remainder less one CUDA context)"),
    "held_by_others_bytes": N_("Held by other processes (total − free − this process)"),
    "listed_other_processes_bytes": N_("Held by the processes the message lists"),
    "largest_allocation_bytes": N_("Largest single buffer of the program"),
    "largest_allocation_padding_bytes": N_("Padding in the largest buffer (TPU tiled layout)"),
    "tpu_hbm_usage_bytes": N_("HBM the TPU program needs (compiler's report)"),
    "tpu_hbm_program_bytes": N_("Program temporaries in HBM"),
    "tpu_hbm_arguments_bytes": N_("Arguments in HBM (parameters and state)"),
    # XLA:TPU's "reserved" line under "Total hbm usage >=": HBM the TPU runtime keeps for itself, outside the program
    "tpu_hbm_reserved_bytes": N_("Reserved in HBM by the TPU runtime"),
    "frame": N_("Function the error was raised in"),
    "progress": N_("How far the log shows the job ran (epoch or step)"),
    "usage_share": N_("Share of the GPU's memory the text says is in use"),
    "stated_free_share": N_("Share of the GPU's memory the text says was free"),
    "settings_named": N_("Engine settings the message names, with their values"),
    "model_parameters_billions": N_("Parameters of the model the text names (billions)"),
    "model_weight_bytes": N_("Weights of that model in bf16"),
    "gpu_memory_bytes": N_("Memory of the GPU the text names"),
    "messages": N_("Out-of-memory messages in the text"),
    # (Sixty-third pass) gpudesk.oom.rules.leak._kept_after_release: the memory still in use after each release.
    "readings": N_("Readings in the text"),
    "still_in_use_first_bytes": N_("Still in use after the first release"),
    "still_in_use_last_bytes": N_("Still in use after the last release"),
    "still_in_use_growth_bytes": N_("Growth of the memory still in use"),
    "cuda_call": N_("CUDA call that failed"),
    "ggml_buffer": N_("ggml buffer that failed (model, KV cache or compute)"),
    "model_buffer_bytes": N_("Model buffer on this GPU"),
    "offloaded_layers": N_("Layers offloaded to the GPU"),
    "total_layers": N_("Layers in the model"),
    "layers_that_fit": N_("Layers that fit (-ngl)"),
    "n_ctx_tokens": N_("Context size"),
    "kv_cache_bytes": N_("KV cache"),
    "high_watermark_ratio_that_fits": N_("PYTORCH_MPS_HIGH_WATERMARK_RATIO that fits"),
    "mps_allocated_bytes": N_("MPS allocated (live tensors)"),
    "mps_other_allocations_bytes": N_("MPS other allocations"),
    "mps_max_allowed_bytes": N_("MPS limit (high watermark)"),
    "mps_pool": N_("MPS pool"),
    "mps_high_watermark_ratio": N_("PYTORCH_MPS_HIGH_WATERMARK_RATIO in force"),
    "mamba_cache_blocks": N_("Mamba cache blocks available"),
    "max_num_seqs": N_("max_num_seqs"),
    "max_batch_prefill_tokens": N_("TGI --max-batch-prefill-tokens"),
    "max_batch_total_tokens": N_("TGI max batch total tokens"),
    "max_model_len_that_fits_tokens": N_("max_model_len that fits"),
    "estimated_max_model_len_tokens": N_("Estimated maximum model length (vLLM)"),
    "gpu_memory_utilization_that_fits_ratio": N_("gpu_memory_utilization that fits"),
    "device_limit_bytes": N_("Device memory limit the engine plans against"),
    "memory_fraction_ratio": N_("Engine's share of that limit"),
    "weights_bytes": N_("Model weights (engine's figure)"),
    "overhead_bytes": N_("Overhead the engine measured"),
    "kv_budget_bytes": N_("KV cache budget (share − weights − overhead)"),
    "fraction_needed_ratio": N_("Share the weights and overhead take"),
    "vllm_total_gpu_memory_bytes": N_("Total GPU memory (vLLM profiling)"),
    "vllm_weights_bytes": N_("Model weights (vLLM profiling)"),
    "vllm_non_torch_bytes": N_("Non-torch memory (vLLM profiling)"),
    "vllm_initial_usage_bytes": N_("Memory in use before the profiling run (vLLM)"),
    "vllm_others_before_profile_bytes": N_("Held by other processes before profiling (in use minus the weights)"),
    "vllm_activation_peak_bytes": N_("Activation peak (vLLM profiling)"),
    "vllm_kv_cache_memory_bytes": N_("Memory for the KV cache (vLLM profiling)"),
    "mem_fraction_static_ratio": N_("SGLang --mem-fraction-static"),
    "mem_fraction_static_minimum_ratio": N_("Smallest --mem-fraction-static that leaves a KV pool"),
    "sglang_avail_after_load_bytes": N_("Free after loading the weights (SGLang)"),
    "sglang_total_before_load_bytes": N_("Free before loading the weights (SGLang)"),
    "sglang_weights_bytes": N_("Weights (SGLang 'mem usage')"),
    "sglang_profiled_max_tokens": N_("KV tokens SGLang profiled"),
    "sglang_max_input_tokens": N_("Longest input SGLang accepts"),
    "trtllm_component": N_("TensorRT-LLM component that failed"),
    "trtllm_stage": N_("Where TensorRT-LLM failed (its serving loop's words)"),
    "kv_cache_free_gpu_mem_fraction_ratio": N_("kv_cache_free_gpu_mem_fraction"),
    "kv_cache_fraction_that_fits_ratio": N_("kv_cache_free_gpu_mem_fraction that holds one sequence"),
    "kv_cache_pool_bytes": N_("KV cache pool (TensorRT-LLM 'Allocate N bytes for k/v cache')"),
    "beam_width": N_("Beam width"),
    "one_sequence_tokens": N_("Tokens one sequence needs (beam width × block size × blocks per sequence)"),
    "max_blocks_per_sequence": N_("KV blocks per sequence at the maximum length"),
    "sentinel_total": N_("Total capacity is NVML's 'not available' value"),
})

FRAMEWORK_LABELS: dict[str, dict[str, str]] = {
    "tensorflow": {
        "total_capacity_bytes": N_("Allocator memory limit (BFC Limit)"),
        "allocated_bytes": N_("In use by the allocator (BFC InUse)"),
        "free_bytes": N_("Left under the limit (Limit − InUse)"),
        "reserved_bytes": N_("Reserved by the allocator"),
        "requested_to_capacity_ratio": N_("Request ÷ allocator limit"),
    },
    "jax": {
        "allocated_bytes": N_("In use by XLA"),
        "reserved_bytes": N_("Reserved by XLA"),
    },
    # CUDA.jl's status printout: "Memory pool usage: A (R reserved)" (src/pool.jl memory_status).
    "cudajl": {
        "this_process_bytes": N_("Used by this process (NVML, incl. memory outside CUDA.jl's pool)"),
        "allocated_bytes": N_("In use by CUDA.jl's pool (live arrays)"),
        "reserved_bytes": N_("Reserved by CUDA.jl's pool (incl. live arrays)"),
        "reserved_unallocated_bytes": N_("Reserved but unused (CUDA.jl's pool cache)"),
        "device_allocated_bytes": N_("Allocated by CUDA.jl"),
        "non_pytorch_bytes": N_("Outside CUDA.jl's pool (process − reserved)"),
    },
}

# Display names of the runtimes, engines and frameworks a report recognises (``report.runtime``, ``report.engine``,
# ``report.framework``: gpudesk.oom.parsers.generic._RUNTIMES and the engine parsers): one table for the CLI's
# header and "Recognised:" line and the window's. The JSON keeps the id.
RUNTIME_NAMES: dict[str, str] = {
    "pytorch": N_("PyTorch"), "tensorflow": N_("TensorFlow"), "jax": N_("JAX/XLA"), "xla": N_("XLA"),
    "cudajl": N_("CUDA.jl"), "vllm": N_("vLLM"), "sglang": N_("SGLang"), "trtllm": N_("TensorRT-LLM"),
    "tgi": N_("Text Generation Inference"), "llamacpp": N_("llama.cpp"), "ollama": N_("Ollama"),
    "onnxruntime": N_("ONNX Runtime"), "tensorrt": N_("TensorRT"), "opencv": N_("OpenCV"), "nccl": N_("NCCL"),
    "mlx": N_("MLX"), "comfyui": N_("ComfyUI"), "sdwebui": N_("Stable Diffusion web UI"), "diffusers": N_("diffusers"),
    "cupy": N_("CuPy"), "numba": N_("Numba"), "jcuda": N_("JCuda"), "triton": N_("Triton"), "mlc": N_("MLC LLM"),
    "neuron": N_("AWS Neuron"), "faiss": N_("Faiss"), "taichi": N_("Taichi"), "amrex": N_("AMReX"),
    "paddle": N_("PaddlePaddle"), "mxnet": N_("MXNet"), "catboost": N_("CatBoost"), "ctranslate2": N_("CTranslate2"),
    "ggml": N_("ggml"),
    # A report whose framework no parser recognised (MemoryReport.framework's default).
    "unknown": N_("unknown"),
}
# Frameworks whose allocator is PyTorch's caching allocator (vLLM's reports carry "vllm" as their framework).
PYTORCH_FRAMEWORKS = ("pytorch", "vllm")


def runtime_name(runtime_id: str | None) -> str:
    """The translated display name of a runtime / engine / framework id ("cudajl" -> "CUDA.jl"); an id without
    one is shown as it is."""
    if not runtime_id:
        return ""
    name = RUNTIME_NAMES.get(runtime_id)
    return i18n._(name) if name else runtime_id


def outside_allocator_words(runtime_id: str | None) -> str:
    """What a process holds outside its framework's allocator, in that framework's words: the runtime's own label of
    ``non_pytorch_bytes`` where :data:`FRAMEWORK_LABELS` has one (CUDA.jl's pool), PyTorch's for PyTorch, the
    framework's allocator otherwise."""
    special = FRAMEWORK_LABELS.get(runtime_id or "", {}).get("non_pytorch_bytes")
    if special:
        return i18n._(special)
    if runtime_id in PYTORCH_FRAMEWORKS:
        return i18n._(LABELS["non_pytorch_bytes"])
    return _("Outside the framework's allocator (process − reserved)")


# Display names of the ids that evidence values and the history carry (one table for the CLI and the UI): the
# causes (gpudesk.oom.cause.CAUSE_IDS), the kinds of "not a capacity problem" (``not_capacity_kind``: the signatures
# of gpudesk.oom.signatures and the rules' own kinds) and the deciding checks (``deciding_check``: the keys of
# gpudesk.oom.signatures.CHECKS). The JSON keeps the id; people read the name.
CAUSE_NAMES: dict[str, str] = {
    "fragmentation": N_("Fragmented allocator cache"),
    "genuine_shortage": N_("Not enough GPU memory"),
    "other_process": N_("Other processes use the GPU"),
    "single_allocation_exceeds_capacity": N_("One allocation larger than the GPU"),
    "cuda_graph_pools": N_("CUDA graph private pools"),
    "kv_cache_budget": N_("KV cache too small"),
    "allocation_outside_allocator": N_("Memory outside PyTorch's allocator"),
    "multi_gpu_imbalance": N_("Uneven memory across GPUs"),
    "host_memory_growth": N_("Host memory growth"),
    "zombie_workers": N_("Zombie or dead workers"),
    "sysmem_fallback": N_("System memory fallback"),
    "leak": N_("Memory leak"),
    "preallocation": N_("Framework preallocation"),
    "not_capacity": N_("Not a memory capacity problem"),
    "per_process_cap": N_("Per-process memory cap"),
    "unparseable": N_("No OOM message found"),
}
NOT_CAPACITY_KIND_NAMES: dict[str, str] = {
    "shared_memory": N_("On-chip shared memory of one core"),
    "host_ram": N_("Host RAM (system memory)"),
    "oom_killer": N_("Killed by the host's OOM killer"),
    "dev_shm": N_("Shared-memory filesystem (/dev/shm)"),  # DataLoader workers, Ray's object store, any mmap user
    "shm_segment": N_("NCCL shared-memory segments (/dev/shm)"),
    "absurd_size": N_("Implausible requested size"),
    "checkpoint_version": N_("Binary checkpoint from another version"),
    "ecc": N_("Uncorrectable ECC error"),
    "xid": N_("Driver lost the GPU (Xid)"),
    "driver_version": N_("Driver older than the CUDA runtime"),
    "runtime_unusable": N_("CUDA runtime cannot use the driver"),
    "expandable_segments": N_("Expandable segments refused"),
    "buffer_limit": N_("Per-allocation buffer limit"),
    "va_reserve": N_("Virtual address reservation refused"),
    "vmm_handle": N_("HIP memory handle limit"),
    "rocm_start": N_("ROCm driver or runtime start-up refused"),
    "nvenc_session": N_("Video encoder session refused"),
    "managed_memory": N_("Managed memory under WSL2 or Windows"),
    "managed_oversubscription": N_("Managed memory oversubscription"),
    "device_region": N_("Device memory region sized when the device was opened"),
    "vulkan_large": N_("Vulkan per-allocation limit"),
    "vulkan_heap": N_("Vulkan allocation above its heap's size"),
    "pool_fallback": N_("Runtime's fixed pool full"),
    "xpu_large": N_("Intel GPU allocation of 4 GiB or more"),
    "vulkan_unsized": N_("Vulkan buffer refused"),
    "vulkan_command_buffer": N_("Vulkan command buffer refused by the driver"),
    "caller_buffer": N_("Caller's buffer shorter than the tensor's shape"),
    "bar1_mapping": N_("BAR1 address space for mappings exhausted"),
    "pin_memory": N_("Page-locked (pinned) host memory"),
    "free_exceeds_request": N_("Memory was free"),
    "illegal_address": N_("Illegal memory access"),
    "library_mismatch": N_("cuDNN/cuBLAS missing or mismatched"),
    "extension_arch": N_("CUDA extension built for another GPU or toolkit"),
    "call_not_supported": N_("Call not supported on this device"),
    "fixed_pool": N_("Runtime's fixed pool full"),
    "legacy_sparse_conversion": N_("Legacy sparse conversion"),
    "page_file": N_("Windows page file (commit limit)"),
    "release_call_failed": N_("A call that only frees memory failed"),
    "token_pool_accounting": N_("Token pool accounting"),
    "stream_ordered_refused": N_("Stream-ordered allocator refused, plain allocation works"),
    "single_allocation_limit": N_("Single-allocation limit named in the message"),
    "runtime_object_refused": N_("Runtime's own objects refused (no data allocated)"),
    "tf_host_pool": N_("TensorFlow's pinned host-memory pool"),
}
CHECK_NAMES: dict[str, str] = {
    "ecc": N_("ECC error counts"),
    "xid": N_("Xid lines in the kernel log"),
    "driver_version": N_("Driver and CUDA versions"),
    "pin_memory": N_("Run without pinned memory"),
    "shared_memory": N_("Kernel's shared memory per block"),
    "host_ram": N_("Host memory use"),
    "absurd_size": N_("Shape and dtype at the failing op"),
    "expandable_segments": N_("Run without expandable segments"),
    "buffer_limit": N_("Device's per-allocation limit"),
    "free_exceeds_request": N_("Free memory on the GPU"),
    "illegal_address": N_("Memory checker (compute-sanitizer)"),
    "other_process": N_("Processes on the GPU"),
    "preallocation": N_("Run without preallocation"),
}
# Evidence keys whose value is one of those ids.
# A memory report's kind (gpudesk.oom.parsers.generic.memory_report): memory held or growing, no failure named.
MEMORY_REPORT_NAMES: dict[str, str] = {
    "usage": N_("Memory in use, no failure named"),
    "growth": N_("Memory growing, no failure named"),
}
ID_VALUE_NAMES: dict[str, dict[str, str]] = {
    "not_capacity_kind": NOT_CAPACITY_KIND_NAMES,
    "deciding_check": CHECK_NAMES,
    "memory_report": MEMORY_REPORT_NAMES,
}


def cause_name(cause_id: str) -> str:
    """The display name of a cause id ("genuine_shortage" -> "Not enough GPU memory"); an unknown id as it is."""
    name = CAUSE_NAMES.get(cause_id)
    return i18n._(name) if name else cause_id


def id_value_name(key: str, value: object) -> str | None:
    """The display name of an id held by evidence key ``key`` (``not_capacity_kind``, ``deciding_check``), None
    when ``key`` holds no id or the id has no name."""
    name = ID_VALUE_NAMES.get(key, {}).get(value) if isinstance(value, str) else None
    return i18n._(name) if name else None


# Keys whose value 1 means "yes" (flags found in the text).
FLAG_KEYS = frozenset({"driver_oom", "cublas_handle_failed", "library_error_also_present", "bogus_size", "request_redacted",
                       "same_job_siblings", "read_unwrapped"})

_SUMMARY_ROWS = {
    "allocated": N_("Allocated memory"),
    "active": N_("Active memory"),
    "requested": N_("Requested memory"),
    "reserved": N_("GPU reserved memory"),
    "non_releasable": N_("Non-releasable memory"),
    "active_allocs": N_("Active allocs"),
    "reserved_segments": N_("GPU reserved segments"),
    "non_releasable_allocs": N_("Non-releasable allocs"),
    "allocations": N_("Allocations"),
    "oversize_allocations": N_("Oversize allocations"),
    "oversize_segments": N_("Oversize GPU segments"),
}
_SUMMARY_COLS = {"cur": N_("current"), "peak": N_("peak"), "tot_alloc": N_("total allocated"), "tot_freed": N_("total freed")}
_SUMMARY_POOLS = {"large_pool": N_("large pool"), "small_pool": N_("small pool")}
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
        if pool is None:
            # Translators: a row and a column of torch.cuda.memory_summary(), e.g. "Allocated memory, peak"
            return _("{row}, {column}").format(row=i18n._(row), column=i18n._(col))
        # Translators: a row, pool and column of torch.cuda.memory_summary(): "Allocated memory, large pool, peak"
        return _("{row}, {pool}, {column}").format(row=i18n._(row), pool=i18n._(pool), column=i18n._(col))
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
        return i18n._(special[key])
    if key in LABELS:
        return i18n._(LABELS[key])
    m = re.fullmatch(r"process_(\d+)_bytes", key)
    if m:
        return _("Used by process {pid}").format(pid=m.group(1))
    m = re.fullmatch(r"summary_(.+?)(?:_bytes)?", key)
    if m:
        label = _summary_label(m.group(1))
        if label:
            return label
    m = re.fullmatch(r"bfc_(.+?)(?:_bytes)?", key)
    if m:
        return _("BFC allocator {stat}").format(stat=m.group(1).replace("_", " "))
    m = re.fullmatch(r"xla_(\w+)_allocation_bytes", key)
    if m:
        return _("XLA {kind} allocation").format(kind=m.group(1).replace("_", " "))
    m = re.fullmatch(r"trtllm_(\w+?)_used_bytes", key)
    if m:
        return _("TensorRT-LLM {component}: memory used").format(component=m.group(1).replace("_", " "))
    m = re.fullmatch(r"env_(\w+)", key)
    if m:
        return _("Environment {name}").format(name=m.group(1))
    return _generic(key)


def has_label(key: str) -> bool:
    """True when ``key`` has a written name (in :data:`LABELS` or one of the dynamic key shapes)."""
    if key in LABELS or re.fullmatch(r"process_\d+_bytes|bfc_\w+|env_\w+|xla_\w+_allocation_bytes|trtllm_\w+_used_bytes", key):
        return True
    m = re.fullmatch(r"summary_(.+?)(?:_bytes)?", key)
    return bool(m and _summary_label(m.group(1)))
