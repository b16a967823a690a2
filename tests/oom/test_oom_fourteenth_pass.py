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
