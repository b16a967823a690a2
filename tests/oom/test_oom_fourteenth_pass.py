"""Fourteenth pass (issue 28): the four texts of the held-out batch fresh-17 that came back "not found", each read
as a mechanism: llama.cpp's context that could not be created (its KV cache and compute buffers), a Chinese "kill掉"
(the system ended the process), C++'s std::bad_alloc in MSVC's words ("bad allocation", the host's allocator) and
MLX's count of resident Metal buffers ("Resource limit (N) exceeded"). Every text is a real message quoted from the
public thread named in its comment; a variant is marked as such. Negative cases check that each reading needs its
own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text

# ollama/ollama#6283 (Ollama 0.3.4 on Windows, a 128k default context): llama.cpp could not allocate the context.
OLLAMA_CONTEXT = ("Error: llama runner process has terminated: error:failed to create context with model "
                  "'C:\\Users\\razva\\.ollama\\blobs\\sha256-c4e04968e3ca697b947c4820d7d4e58873e9f93908a043e72808'")

# chatchat-space/Langchain-Chatchat#4841 (building a vector store of 1M rows on a 40 GB machine).
ZH_KILLED = "构建向量知识库时，占用内存过大。100w条。40g的内存进程会自己kill掉。没有任何报错信息。"

# microsoft/onnxruntime#16305 (ONNX Runtime's C++ API on Windows, the default CPU execution provider).
ORT_BAD_ALLOCATION = (
    " [ onnxruntime::SequentialExecutor::Execute] Non-zero status code returned while running FusedMatMul node. "
    "Name:'MatMul_With_Transpose_token_14_FusedMatMulAndScale' Status Message: bad allocation")

# ml-explore/mlx-lm#831 (mlx_lm.server distributed on M3 Ultras): the title.
MLX_RESOURCE_LIMIT = "Resource limit (499000) exceeded with mlx_lm.server distributed."


def _top(text: str) -> tuple[str, str | None]:
    d = diagnose_text(text)
    assert d.found_oom, text
    top = d.causes[0]
    return top.id, top.evidence.get("deciding_check")


def test_a_context_llama_cpp_could_not_create_is_a_shortage_not_unparseable():
    assert _top(OLLAMA_CONTEXT)[0] == "genuine_shortage"
    # The same words from llama.cpp's own tools (variant: llama-cli's line, common/common.cpp).
    assert _top("common_init_from_params: failed to create context with model 'models/7B/ggml-model-f16.gguf'")[0] \
        == "genuine_shortage"


def test_a_model_that_failed_to_load_is_not_a_context_failure():
    # Negative: a missing file is no allocation failure.
    assert not diagnose_text("llama_load_model_from_file: failed to load model 'x.gguf'").found_oom


def test_a_chinese_kill_diao_or_killed_by_itself_is_the_system_killing_the_process():
    assert parse_text(ZH_KILLED).signature == "sigkill"
    assert _top(ZH_KILLED) == ("not_capacity", "host_ram")
    assert parse_text("训练到一半进程被kill掉了").signature == "sigkill"  # variant
    assert parse_text("跑了两个小时，进程自动kill了").signature == "sigkill"  # variant


def test_kill_inside_a_word_or_a_command_is_not_a_kill():
    # Negative: "skill掉" (a skill dropped) and a user running kill themselves are no system kill.
    assert parse_text("这个skill掉了").signature is None
    assert parse_text("我用 kill -9 结束了进程").signature is None


def test_msvc_bad_allocation_is_the_host_allocator():
    report = parse_text(ORT_BAD_ALLOCATION)
    assert report.signature == "host_ram"
    assert _top(ORT_BAD_ALLOCATION) == ("not_capacity", "host_ram")


def test_bad_allocation_from_a_device_allocator_is_not_host_ram():
    # Negative (variant): Thrust's device allocator in MSVC's words stays device memory.
    text = "thrust::system::detail::bad_alloc: bad allocation: cudaErrorMemoryAllocation: out of memory"
    assert parse_text(text).signature != "host_ram"


def test_mlx_resource_limit_is_a_count_of_buffers_not_bytes():
    report = parse_text(MLX_RESOURCE_LIMIT)
    assert report.signature == "buffer_limit"
    assert _top(MLX_RESOURCE_LIMIT) == ("not_capacity", "buffer_limit")
    # The full message MLX's allocator prints (mlx/backend/metal/allocator.cpp) reads the same.
    assert parse_text("[metal::malloc] Resource limit (499000) exceeded.").signature == "buffer_limit"


def test_a_resource_limit_without_a_count_exceeded_is_not_the_buffer_count():
    # Negative: a shell's ulimit message names no count of buffers.
    assert parse_text("resource limit reached, please retry").signature is None


def test_the_buffer_count_is_explained_and_fixed_as_a_count_not_as_one_large_buffer():
    top = diagnose_text(MLX_RESOURCE_LIMIT).causes[0]
    assert "499000" in top.explanation and "not bytes" in top.explanation
    assert "mx.eval" in top.fix and "mlx" in top.checks[0]
    # Negative: a per-buffer limit in bytes keeps the one-large-buffer reading.
    size = diagnose_text("[metal::malloc] Attempting to allocate 21474836480 bytes which is greater than the maximum "
                         "allowed buffer size of 17179869184 bytes.").causes[0]
    assert "not bytes" not in size.explanation and "mx.eval" not in size.fix


# runpod-workers/worker-vllm#40 (vLLM on a 48 GB GPU; the log is shown newest first): the failure while capturing.
VLLM_CAPTURE = (
    "engine.py :190 2024-02-03 03:44:03,976 Error initializing vLLM engine: CUDA out of memory. Tried to allocate "
    "112.00 MiB. GPU 0 has a total capacty of 44.35 GiB of which 53.38 MiB is free. Process 3663367 has 44.28 GiB "
    "memory in use. Of the allocated memory 37.38 GiB is allocated by PyTorch, and 275.68 MiB is reserved by PyTorch "
    "but unallocated.\n"
    "INFO 02-03 03:43:49 model_runner.py:625] Capturing the model for CUDA graphs. This may lead to unexpected "
    "consequences if the model is not static.\n"
    "INFO 02-03 03:43:48 llm_engine.py:316] # GPU blocks: 7754, # CPU blocks: 2048")


def test_vllm_capture_log_line_and_a_sole_listed_process_read_as_cuda_graph_capture():
    report = parse_text(VLLM_CAPTURE)
    assert report.graph_capture
    # The one listed process holds all the used memory: it is the failing process, not another holder.
    assert report.device is not None and report.device.other_processes[0].is_target
    assert diagnose_text(VLLM_CAPTURE).causes[0].id == "cuda_graph_pools"


def test_a_capture_that_finished_or_a_second_process_is_not_read_so():
    finished = VLLM_CAPTURE + "\nINFO 02-03 03:43:59 model_runner.py:698] Graph capturing finished in 10 secs."
    assert not parse_text(finished).graph_capture
    # Negative: two listed processes, neither covering PyTorch's memory alone nor all of it: no one is taken as this.
    two = VLLM_CAPTURE.replace("Process 3663367 has 44.28 GiB memory in use.",
                               "Process 1 has 22.00 GiB memory in use. Process 2 has 22.28 GiB memory in use.")
    dev = parse_text(two).device
    assert dev is not None and not any(p.is_target for p in dev.other_processes)


# ggml-org/llama.cpp#5441 (llama.cpp on Vulkan): the title, the call said in words with no size.
VULKAN_UNSIZED = "Vulkan Device memory allocation failed (ErrorOutOfDeviceMemory )"


def test_a_vulkan_device_memory_allocation_with_no_size_ranks_the_per_allocation_limit_first():
    assert parse_text(VULKAN_UNSIZED).signature == "vulkan_unsized"
    assert _top(VULKAN_UNSIZED) == ("not_capacity", "buffer_limit")
    # vulkan.hpp's name of the call, as ggml-vulkan prints it (variant with no size line).
    assert parse_text("ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory").signature == "vulkan_unsized"


def test_a_vulkan_allocation_with_a_small_size_is_not_the_unsized_reading():
    # Negative: a named size below the drivers' per-allocation limits leaves the device's capacity as the question.
    text = "ggml_vulkan: Device memory allocation of size 268435456 failed.\nErrorOutOfDeviceMemory"
    assert parse_text(text).signature is None
