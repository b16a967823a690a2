"""Engine log lines read into numbers: vLLM's profiling budget, SGLang's load line, TensorRT-LLM's component
table, llama.cpp's buffers. Lines are quoted from public issues (URL at each test)."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text

GiB = 1024**3

# vllm-project/vllm#14447 (comment): V0 worker profiling lines on a 24 GB card at 0.99.
VLLM_PROFILE = (
    "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] the current vLLM instance can use total_gpu_memory "
    "(23.58GiB) x gpu_memory_utilization (0.99) = 23.35GiB\n"
    "(VllmWorkerProcess pid=507) INFO 04-12 08:21:19 [worker.py:267] model weights take 21.21GiB; non_torch_memory "
    "takes 0.20GiB; PyTorch activation peak memory takes 0.37GiB; the rest of the memory reserved for KV Cache is 1.57GiB.\n"
)


def test_vllm_profile_lines_give_the_budget():
    r = parse_text(VLLM_PROFILE + "ValueError: No available memory for the cache blocks. Try increasing "
                   "`gpu_memory_utilization` when initializing the engine.")
    assert r.parsed["vllm_total_gpu_memory_bytes"] == round(23.58 * GiB)
    assert r.parsed["gpu_memory_utilization_ratio"] == 0.99
    assert r.parsed["vllm_weights_bytes"] == round(21.21 * GiB)
    assert r.parsed["vllm_kv_cache_memory_bytes"] == round(1.57 * GiB)
    cause = diagnose_text(VLLM_PROFILE + "ValueError: No available memory for the cache blocks.").top
    # (21.21 + 0.20 + 0.37) / 23.58 = 0.924 -> at least 0.94 (rounded up, one hundredth for the KV blocks)
    assert cause.id == "kv_cache_budget" and "--gpu-memory-utilization to at least 0.94" in cause.fix


def test_vllm_negative_kv_budget_is_read_with_its_sign():
    r = parse_text("model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory takes "
                   "2.37GiB; the rest of the memory reserved for KV Cache is -0.43GiB.\n"
                   "ValueError: No available memory for the cache blocks.")
    assert r.parsed["vllm_kv_cache_memory_bytes"] == -round(0.43 * GiB)


def test_trtllm_component_table():
    # NVIDIA/TensorRT-LLM#5872
    text = ("Executor creation failed due to insufficient GPU memory.\n\nThe following component could not be created: "
            "KV cache\nTotal GPU memory (GiB): 140.06\nFree GPU memory before component creation attempt (GiB): 108.86\n\n"
            "Previously created components and free GPU memory before/after creation (GiB):\nModel: 139.55 / 110.70\n"
            "Sampler: 110.70 / 110.70\n")
    r = parse_text(text)
    assert r.engine == "trtllm" and r.kind == "trtllm_executor"
    assert r.parsed["trtllm_model_used_bytes"] == round(139.55 * GiB) - round(110.70 * GiB)
    assert r.devices[0].total_bytes == round(140.06 * GiB) and r.devices[0].free_bytes == round(108.86 * GiB)


def test_llamacpp_free_memory_gives_the_layers_that_fit():
    # Shape of llama.cpp's start-up lines (ggml-org/llama.cpp load_tensors / llama_model_load_from_file_impl).
    text = ("llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - 20000 MiB free\n"
            "load_tensors: offloaded 40/40 layers to GPU\n"
            "load_tensors:        CUDA0 model buffer size = 40000.00 MiB\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 40000.00 MiB on device 0: cudaMalloc failed: out of memory\n"
            "alloc_tensor_range: failed to allocate CUDA0 buffer of size 41943040000\n")
    cause = diagnose_text(text).top
    # A 40000 MiB weights buffer on a card the log names as an RTX 3090 (24 GB) is one buffer above the whole card
    # (forty-eighth pass, rules.single_allocation_exceeds_capacity); the fix is still the layers that fit.
    assert cause.id == "single_allocation_exceeds_capacity" and "-ngl / --n-gpu-layers 20" in cause.fix
