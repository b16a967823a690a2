"""Forty-seventh pass (issue 28): engine and runtime wordings the doctor did not read, each from its own source.

* llama.cpp's KV cache refused on a GPU backend ("llama_kv_cache_init: failed to allocate buffer for kv cache" beside a
  device refusal): the whole cache is allocated after the weights, sized by the context length, so the context setting
  is the knob (kv_cache_budget); the same refusal in host RAM stays host RAM.
* SGLang's decode retraction log ("Decode out of memory happened. #retracted_reqs: N, #new_token_ratio: A -> B"): the
  scheduler found its KV token pool full and retracted requests (kv_cache_budget); SGLang's "Decode out of memory. Try
  to lower your batch size" with the pool's free tokens stays the pool's accounting.
* PyOpenCL's MEM_OBJECT_ALLOCATION_FAILURE (CL_MEM_OBJECT_ALLOCATION_FAILURE, -4) and Vulkan's -1 after
  vkAllocateMemory are read as out-of-memory texts; a Vulkan command-buffer call refused with out-of-memory is the
  driver's objects, not the data's memory (not_capacity, buffer_limit kind).
* ONNX Runtime's C API argument check "not enough space: expected N, got M" (CreateTensorWithDataAsOrtValue): a
  caller's buffer shorter than its tensor's shape, nothing allocated (not_capacity, the shape as the check).
* PaddlePaddle's buddy allocator refusal with "available A, total T ... GPU memory used: U": with Paddle using almost
  nothing and more than half the device outside its use and the free memory, another process holds the GPU.
* PyTorch's CPU allocator in its older words without the prefix ("not enough memory: you tried to allocate N bytes",
  c10/core/impl/alloc_cpu.cpp): host RAM, as its later "can't allocate memory" already was.
* The NVIDIA kernel driver's "can't alloc VA space for mapping" (dmaAllocMapping, NV_ERR_NO_MEMORY): the BAR1 mapping
  window is full, not the VRAM (not_capacity, with nvidia-smi's BAR1 figures as the check).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# janhq/jan#3796 (Cortex / llama.cpp, ctx_len 128000 on two 12 GB cards; lines quoted by the maintainer).
LLAMA_KV_DEVICE = ("cudaMalloc failed: out of memory\nllama_kv_cache_init: failed to allocate buffer for kv cache\n"
                   "llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache")
# ggml-org/llama.cpp#8101 (the KV cache for n_ctx 1048576 refused in host RAM).
LLAMA_KV_HOST = ("llama_new_context_with_model: n_ctx      = 1048576\n"
                 "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 137438953504\n"
                 "llama_kv_cache_init: failed to allocate buffer for kv cache\n"
                 "llama_new_context_with_model: llama_kv_cache_init() failed for self-attention cache")
# sgl-project/sglang#4184 (DeepSeek-R1 over 16 ranks; the log repeats on every rank).
SGLANG_RETRACT = (
    "[2025-03-07 21:49:33 TP13] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.1474 -> 0.1845\n"
    "[2025-03-07 21:49:33 TP12] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.1474 -> 0.1845\n"
    "[2025-03-07 21:49:45 TP9] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.0980 -> 0.1919")
# sgl-project/sglang#4602 (the pool's accounting with page size > 1: 2048 tokens free for 148).
SGLANG_ACCOUNTING = ("RuntimeError: Decode out of memory. Try to lower your batch size.\nTry to allocate 148 tokens.\n"
                     "Avaliable tokens: 2048\nself.token_to_kv_pool_allocator.available_size()=2048\n"
                     "self.tree_cache.evictable_size()=0")
# tinygrad/tinygrad#722 (LLaMA-7B on a 6 GB GTX 1660 Ti through PyOpenCL; the paste cut as stored).
PYOPENCL = ("using GPU backend\nusing <pyopencl.Device 'NVIDIA GeForce GTX 1660 Ti' on 'NVIDIA CUDA' at 0x1af146f39a0>\n"
            "loaded weights in 4721.49 ms, 5.79 GB loaded at 1.23 GB/s\nTraceback (most recent call last):\n...\n"
            "pyopencl._cl.MemoryError: clEnqueueWriteBuffer failed: MEM_OBJECT_ALLOCATION_FAILURE,")
# nihui/waifu2x-ncnn-vulkan#1 (a 1956x1956 image at scale 2; tiling fixed it).
NCNN_MINUS_ONE = "vkAllocateMemory failed -1"
# ggml-org/llama.cpp#19420 (Intel Arc iGPU on Windows, --no-mmap; one command buffer per 1 MB transfer).
VK_COMMAND_BUFFER = "llama_model_load: error loading model: vk::CommandBuffer::begin: ErrorOutOfHostMemory"
# lllyasviel/Fooocus#177 (the issue title; fixed by disk room for the Windows page file).
CPU_ALLOCATOR_OLD = "not enough memory: you tried to allocate 9437184 bytes"
# omacom/omarchy#5372 (RTX 2080 Ti, nvidia-open 595.58.03; Chromium under Wayland, BAR1 exhaustion over time).
NVRM_BAR1 = ("NVRM: dmaAllocMapping_GM107: can't alloc VA space for mapping.\nNVRM: Out of memory [NV_ERR_NO_MEMORY]\n"
             "[drm:__nv_drm_gem_nvkms_map [nvidia_drm]] *ERROR* Failed to map NvKmsKapiMemory\n"
             "traps: Media[2036251] trap invalid opcode in chromium")
# wenet-e2e/wenet#906 (WeNet's ONNX encoder under Triton's onnxruntime backend; the issue title).
ORT_SHORT_BUFFER = "onnx runtime error 2: not enough space: expected 318080, got 314240"
# PaddlePaddle/Paddle#18819 (Paddle 1.5.1, FLAGS_fraction_of_gpu_memory_to_use 0.003, an 8 GB card).
PADDLE_BUDDY = (
    "W0725 17:13:27.698426 175955 system_allocator.cc:121] Cannot malloc 195.801 MB GPU memory. Please shrink "
    "FLAGS_fraction_of_gpu_memory_to_use or FLAGS_initial_gpu_memory_in_mb or FLAGS_reallocate_gpu_memory_in_mb"
    "environment variable to a lower value. Current FLAGS_fraction_of_gpu_memory_to_use value is 0.003. Current "
    "FLAGS_initial_gpu_memory_in_mb value is 0. Current FLAGS_reallocate_gpu_memory_in_mb value is 0\n"
    "F0725 17:13:27.698644 175955 legacy_allocator.cc:201] Cannot allocate 195.800781MB in GPU 0, available "
    "5.937500MBtotal 7981694976GpuMinChunkSize 256.000000BGpuMaxChunkSize 21.694021MBGPU memory used: 324.750000kB")


def test_llama_kv_cache_refused_on_the_gpu_is_the_context_budget() -> None:
    d = diagnose_text(LLAMA_KV_DEVICE)
    top = d.causes[0]
    assert top.id == "kv_cache_budget"
    assert "KV cache" in top.explanation and "context length" in top.explanation
    assert "--ctx-size" in top.fix and "num_ctx" in top.fix
    assert any(c.id == "genuine_shortage" for c in d.causes[1:])


def test_llama_kv_cache_context_size_is_quoted_when_logged() -> None:
    text = "llama_new_context_with_model: n_ctx      = 131072\n" + LLAMA_KV_DEVICE
    top = diagnose_text(text).causes[0]
    assert top.id == "kv_cache_budget" and top.evidence["context_tokens"] == 131072
    assert "131072 tokens" in top.explanation


def test_llama_kv_cache_refused_in_host_ram_stays_host_ram() -> None:
    top = diagnose_text(LLAMA_KV_HOST).causes[0]
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"


def test_sglang_retraction_log_is_the_kv_pool() -> None:
    d = diagnose_text(SGLANG_RETRACT)
    top = d.causes[0]
    assert top.id == "kv_cache_budget"
    assert top.evidence["retracted_requests"] == 3 and top.evidence["retraction_lines"] == 3
    assert "--schedule-conservativeness" in top.fix and "--mem-fraction-static" in top.fix
    assert "not a failed CUDA allocation" in top.explanation


def test_sglang_decode_error_with_free_tokens_stays_the_accounting() -> None:
    top = diagnose_text(SGLANG_ACCOUNTING).causes[0]
    assert top.id == "not_capacity"


def test_pyopencl_allocation_failure_is_read() -> None:
    d = diagnose_text(PYOPENCL)
    assert d.causes[0].id != "unparseable"
    assert d.causes[0].id == "genuine_shortage"


def test_vulkan_minus_one_after_vkallocatememory_is_read() -> None:
    d = diagnose_text(NCNN_MINUS_ONE)
    assert d.causes[0].id == "genuine_shortage"


def test_vulkan_command_buffer_refusal_is_the_driver_not_capacity() -> None:
    d = diagnose_text(VK_COMMAND_BUFFER)
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "buffer_limit"
    assert top.evidence["check_command"] == "vulkaninfo --summary"
    assert "command buffer" in top.explanation and "16383" in top.explanation
    assert "reuses command buffers" in top.fix


def test_vulkan_data_allocation_refused_is_not_the_command_buffer_reading() -> None:
    text = VK_COMMAND_BUFFER + "\nggml_vulkan: Device memory allocation of size 4294967296 failed.\nvkAllocateMemory"
    top = diagnose_text(text).causes[0]
    assert top.evidence.get("not_capacity_kind") != "vulkan_command_buffer"


def test_ort_short_caller_buffer_is_not_memory() -> None:
    top = diagnose_text(ORT_SHORT_BUFFER).causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["not_capacity_kind"] == "caller_buffer" and top.evidence["deciding_check"] == "absurd_size"
    assert top.evidence["tensor_bytes"] == 318080 and top.evidence["buffer_bytes"] == 314240
    assert "invalid argument" in top.explanation and "shape" in top.fix


def test_ort_buffer_figures_the_other_way_round_are_not_read_so() -> None:
    top = diagnose_text("not enough space: expected 1024, got 4096").causes[0]
    assert top.evidence.get("not_capacity_kind") != "caller_buffer"


def test_paddle_buddy_refusal_with_paddle_using_nothing_is_another_process() -> None:
    d = diagnose_text(PADDLE_BUDDY)
    top = d.causes[0]
    assert top.id == "other_process" and top.evidence["deciding_check"] == "other_process"
    assert top.evidence["framework_used_bytes"] == 332544
    assert top.evidence["held_outside_bytes"] > 7 * 2**30
    assert "FLAGS_fraction_of_gpu_memory_to_use" in top.explanation
    assert "nvidia-smi" in top.fix


def test_paddle_buddy_refusal_with_paddle_holding_the_card_is_not_another_process() -> None:
    # The same refusal with Paddle's own tensors using 7 GB of the 7.98 GB card: the job's own need.
    text = PADDLE_BUDDY.replace("GPU memory used: 324.750000kB", "GPU memory used: 7.100000GB")
    d = diagnose_text(text)
    assert not any(c.evidence.get("framework_used_bytes") for c in d.causes)
    assert d.causes[0].id != "other_process"


def test_nvrm_mapping_va_refusal_is_bar1_not_capacity() -> None:
    top = diagnose_text(NVRM_BAR1).causes[0]
    assert top.id == "not_capacity" and top.evidence["not_capacity_kind"] == "bar1_mapping"
    assert top.evidence["check_command"] == "nvidia-smi -q -d MEMORY"
    assert "BAR1" in top.explanation and "Resizable BAR" in top.fix


def test_nvrm_out_of_memory_without_the_mapping_line_is_not_bar1() -> None:
    d = diagnose_text("NVRM: Out of memory [NV_ERR_NO_MEMORY]")
    assert not any(c.evidence.get("not_capacity_kind") == "bar1_mapping" for c in d.causes)


def test_cpu_allocator_older_words_without_prefix_are_host_ram() -> None:
    top = diagnose_text(CPU_ALLOCATOR_OLD).causes[0]
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"


def test_cpu_allocator_words_beside_a_cuda_error_are_not_host_ram() -> None:
    text = "RuntimeError: CUDA error: not enough memory: you tried to allocate 9437184 bytes on the GPU"
    top = diagnose_text(text).causes[0]
    assert top.evidence.get("deciding_check") != "host_ram"


def test_paddle_buddy_refusal_with_a_garbled_figure_is_not_read() -> None:
    # review10: a figure that is not one decimal number (two dots) is not matched at all, rather than matched and
    # then dropped by a caught ValueError.
    d = diagnose_text(PADDLE_BUDDY.replace("324.750000kB", "324.750.000kB"))
    assert not any(c.evidence.get("framework_used_bytes") for c in d.causes)
