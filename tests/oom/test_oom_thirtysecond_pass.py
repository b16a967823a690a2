"""Thirty-second pass (issue 28, the misses of fresh batch 34): what the text carries that the doctor ignored.

* TensorRT-LLM's KV cache manager refuses to start when its pool holds fewer tokens than one sequence at the
  engine's maximum length ("maxTokensInPagedKvCache (N) must be large enough to process at least 1 sequence to
  completion (i.e. must be larger than beam_width (B) * tokensPerBlock (T) * maxBlocksPerSeq (M))",
  cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp): the KV budget, with the pool's tokens, one sequence's need and
  the fraction that would hold it.
* Intel oneMKL's host allocator ("mkl_malloc: failed to allocate memory"): the host's RAM.
* The DataLoader's pin-memory thread ("Caught RuntimeError in pin memory thread for device 0",
  torch/utils/data/_utils/pin_memory.py): the batch being page-locked in host memory, checked with pin_memory=False.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# triton-inference-server/tensorrtllm_backend#366 (Mistral-7B, tp 4 on A10G; the same engine runs under run.py with a
# larger KV pool).
TRTLLM_ONE_SEQUENCE = (
    "[TensorRT-LLM][INFO] Allocate 956301312 bytes for k/v cache. \n"
    "[TensorRT-LLM][INFO] Using 29184 total tokens in paged KV cache, and 272 blocks per sequence\n"
    "E0306 16:40:07.708802 117 backend_model.cc:691] ERROR: Failed to create instance: unexpected error when creating "
    "modelInstanceState: maxTokensInPagedKvCache (29184) must be large enough to process at least 1 sequence to "
    "completion (i.e. must be larger than beam_width (1) * tokensPerBlock (128) * maxBlocksPerSeq (272))")
# NVIDIA/TensorRT-LLM#494 (an older release: the check without its figures; kv_cache_free_gpu_mem_fraction 0.2 in the
# reporter's config).
TRTLLM_ONE_SEQUENCE_OLD = (
    "[TensorRT-LLM][INFO] Using 693 tokens in paged KV cache.\n"
    "E1128 16:31:49.479096 227 backend_model.cc:634] ERROR: Failed to create instance: unexpected error when creating "
    "modelInstanceState: maxTokensInPagedKvCache must be large enough to process at least 1 sequence to completion "
    "(i.e. must be larger than beam_width * tokensPerBlock * maxBlocksPerSeq)")


def test_trtllm_pool_below_one_sequence_is_the_kv_budget_with_its_figures() -> None:
    d = diagnose_text(TRTLLM_ONE_SEQUENCE)
    top = d.causes[0]
    assert top.id == "kv_cache_budget" and d.found_oom
    assert (top.evidence["kv_cache_tokens"], top.evidence["one_sequence_tokens"]) == (29184, 128 * 272)
    assert top.evidence["shortfall_tokens"] == 128 * 272 - 29184
    # 0.9 x 34816 / 29184 > 1: no fraction holds the sequence, the engine's length must come down to the pool.
    assert top.evidence["kv_cache_fraction_that_fits_ratio"] > 1
    assert "max_input_len + max_output_len" in top.fix and "29184" in top.fix
    # The INFO line's pool size is not the failing request.
    assert d.report.requested_bytes is None


def test_trtllm_check_wrapped_by_a_terminal_is_read() -> None:
    wrapped = TRTLLM_ONE_SEQUENCE.replace("must be large enough to process", "must be large enough\nto process").replace(
        "* maxBlocksPerSeq", "\n* maxBlocksPerSeq")
    top = diagnose_text(wrapped).causes[0]
    assert top.id == "kv_cache_budget" and top.evidence["one_sequence_tokens"] == 128 * 272


def test_trtllm_longest_sequence_that_fits_counts_the_beams() -> None:
    # Four beams of one request share the pool: each holds a quarter of it, in whole 128-token blocks.
    beams = TRTLLM_ONE_SEQUENCE.replace("beam_width (1)", "beam_width (4)")
    top = diagnose_text(beams).causes[0]
    assert top.evidence["one_sequence_tokens"] == 4 * 128 * 272
    assert "at most 7296 tokens" in top.fix  # 29184 / 4 = 7296 = 57 blocks of 128


def test_trtllm_fraction_that_holds_one_sequence_is_named_when_one_does() -> None:
    low = TRTLLM_ONE_SEQUENCE + "\nkv_cache_free_gpu_mem_fraction: 0.5"
    top = diagnose_text(low).causes[0]
    # 0.5 x 34816 / 29184 = 0.597 -> 0.60.
    assert top.evidence["kv_cache_fraction_that_fits_ratio"] == 0.6
    assert top.fix.startswith("Raise kv_cache_free_gpu_mem_fraction to at least 0.60")


def test_trtllm_check_without_figures_reads_the_pool_from_its_info_line() -> None:
    d = diagnose_text(TRTLLM_ONE_SEQUENCE_OLD)
    top = d.causes[0]
    assert top.id == "kv_cache_budget" and d.found_oom
    assert top.evidence["kv_cache_tokens"] == 693
    assert "kv_cache_free_gpu_mem_fraction" in top.fix


def test_trtllm_kv_reading_needs_the_managers_check() -> None:
    # The INFO lines alone (a healthy start) are no failure.
    info = "\n".join(TRTLLM_ONE_SEQUENCE.split("\n")[:2])
    assert _top(info)[0] != "kv_cache_budget"
    # TensorRT-LLM's runtime-buffer failure is not this check.
    runtime = ("[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of "
               "memory (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)")
    assert diagnose_text(runtime).report.kind != "trtllm_kv_too_small"


# Purfview/whisper-standalone-win#511 (Faster-Whisper-XXL on a laptop's CPU; it ran after closing other programs).
MKL_MALLOC = ("Standalone Faster-Whisper-XXL r245.4 running on: CPU\n\n"
              "Traceback (most recent call last):\n"
              "  File \"D:\\whisper-fast-XXL\\__main__.py\", line 2324, in <module>\n"
              "  File \"faster_whisper\\transcribe.py\", line 782, in __init__\n"
              "RuntimeError: mkl_malloc: failed to allocate memory\n"
              "[PYI-4440:ERROR] Failed to execute script '__main__' due to unhandled exception!")


def test_mkl_host_allocator_failure_is_host_ram() -> None:
    assert _top(MKL_MALLOC) == ("not_capacity", True, "host_ram")
    top = diagnose_text(MKL_MALLOC).causes[0]
    assert "host RAM" in top.title


def test_mkl_reading_needs_mkls_allocator() -> None:
    # The same traceback with a CUDA allocator's words is device memory.
    cuda = MKL_MALLOC.replace("mkl_malloc: failed to allocate memory",
                              "CUDA failed with error out of memory").replace("running on: CPU", "running on: CUDA")
    assert _top(cuda)[2] != "host_ram"


# hearbenchmark/hear-eval-kit#316 (fixed by pin_memory=False in the DataLoader).
PIN_THREAD = "RuntimeError: Caught RuntimeError in pin memory thread for device 0."


def test_pin_memory_thread_failure_is_pinned_host_memory() -> None:
    assert _top(PIN_THREAD) == ("not_capacity", True, "pin_memory")
    causes = diagnose_text(PIN_THREAD).causes
    assert "pin_memory=False" in causes[0].fix
    # The device reading (the thread creating a context on a full GPU 0) stays, second.
    assert [c.id for c in causes].index("allocation_outside_allocator") > 0


def test_pin_memory_reading_needs_the_threads_words() -> None:
    # A DataLoader worker's failure (not the pin-memory thread) is not read as pinned memory.
    worker = "RuntimeError: Caught RuntimeError in DataLoader worker process 0."
    assert _top(worker)[2] != "pin_memory"


def test_kv_pool_info_line_beside_a_runtime_buffer_failure_is_not_the_request() -> None:
    # TensorRT-LLM's INFO line reports the KV pool it created; the runtime buffer that failed afterwards is another
    # allocation, whose size the error does not print (TensorRT-LLM#401's error line).
    text = ("[TensorRT-LLM][INFO] Allocate 956301312 bytes for k/v cache. \n"
            "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory "
            "(/code/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)")
    report = diagnose_text(text).report
    assert report.requested_bytes is None and report.parsed["kv_cache_pool_bytes"] == 956301312
    # The same words on an error line are the failing request.
    failed = diagnose_text("RuntimeError: failed to allocate 956301312 bytes for k/v cache: out of memory").report
    assert failed.requested_bytes == 956301312
