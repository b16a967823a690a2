"""Fortieth pass (issue 28, the misses over every fresh batch, no new set).

Each reading is the runtime's own wording or figures, read from its source:

* TensorRT-LLM's runtime buffer refused inside the serving loop (the executor's "Encountered an error in forwardAsync
  function", or ``RuntimeBuffers::reshape`` in the stack, cpp/tensorrt_llm/batch_manager): the KV-cache pool took
  free_gpu_memory_fraction (0.9) of the free memory when the executor started, and each batch's buffers (the logits a
  request asks for among them) come from what it left, so the pool's share is the knob (kv_cache_budget, 0.75). The
  same cudaMallocAsync line while the model instance is created stays the shortage of the engine's build-time limits.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# https://github.com/NVIDIA/TensorRT-LLM/issues/3636 ("Reserve vram for context_logits instead of allocating on the
# fly"; run.py with context logits on an engine built with maxNumTokens 128000)
TRTLLM_3636 = (
    '  File "/home/ss/.local/lib/python3.12/site-packages/tensorrt_llm/runtime/model_runner_cpp.py", line 1009, in '
    "_fill_output\n"
    "    raise RuntimeError(response.error_msg)\n"
    "RuntimeError: Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] CUDA runtime error in "
    "::cudaMallocAsync(ptr, n, mMemPool->getPool(), mCudaStream->get()): out of memory (/home/jenkins/agent/workspace/"
    "LLM/release-0.18/L0_Test-x86_64/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)\n"
    "1       0x762b1a2a241c void tensorrt_llm::common::check<cudaError>(cudaError, char const*, char const*, int) + 92")

# https://github.com/NVIDIA/TensorRT-LLM/issues/2857 (generation logits returned under load; one line with literal \n
# separators, as the reporter copied it from a JSON log)
TRTLLM_2857 = (
    "[ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mMemPool->getPool(), mCudaStream->get()): out of memory "
    "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)\\n1       0x7f45c6d96865 void "
    "tensorrt_llm::common::check<cudaError>(cudaError, char const*, char const*, int) + 149\\n2       0x7f45c8ab8d23 "
    "tensorrt_llm::runtime::BufferManager::gpu(nvinfer1::Dims64, nvinfer1::DataType) const + 515\\n3       "
    "0x7f45c8f82881 tensorrt_llm::batch_manager::RuntimeBuffers::reshape(tensorrt_llm::runtime::TllmRuntime const&, "
    "tensorrt_llm::runtime::ModelConfig const&, tensorrt_llm::runtime::WorldConfig const&) + 2033")

# https://github.com/NVIDIA/TensorRT-LLM/issues/260 (Triton + TRT-LLM, max_batch_size 24 on 2 V100: the runtime
# buffers of the build-time batch limit do not fit at start-up)
TRTLLM_260 = (
    "E1103 02:59:01.152656 81041 backend_model.cc:553] ERROR: Failed to create instance: unexpected error when creating "
    "modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): "
    "out of memory (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)")


def test_trtllm_buffer_refused_in_the_serving_loop_is_the_kv_share() -> None:
    for text in (TRTLLM_3636, TRTLLM_2857):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and d.report.engine == "trtllm"
        assert top.id == "kv_cache_budget", text[:60]
        assert "free_gpu_memory_fraction" in top.fix and "0.8" in top.fix
        assert "default, 0.9, is assumed" in top.explanation
        assert "genuine_shortage" in [c.id for c in d.causes[1:]]


def test_trtllm_buffer_in_the_serving_loop_names_the_fraction_the_log_gives() -> None:
    d = diagnose_text("kv_cache_free_gpu_mem_fraction: 0.95\n" + TRTLLM_3636)
    top = d.causes[0]
    assert top.id == "kv_cache_budget"
    assert "below 0.95" in top.fix and "0.85" in top.fix
    assert "95%" in top.explanation and "is assumed" not in top.explanation


def test_trtllm_buffer_refused_while_the_instance_is_created_stays_the_shortage() -> None:
    d = diagnose_text(TRTLLM_260)
    assert d.found_oom and d.causes[0].id == "genuine_shortage"
    assert "kv_cache_budget" not in [c.id for c in d.causes]
