"""Sixty-sixth pass of the OOM doctor (issue 28): messages with a memory figure or an allocation fragment in them that
came back as "no out-of-memory message found". Every positive text is a real message quoted from the public thread in
its comment; the negatives keep the words of an ordinary log, which must stay "not found"."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers import pool_status

# ollama/ollama#5239: ggml logs "allocating" in its buffer-type allocator only when cudaMalloc failed; the paste stops
# after the figure.
GGML_ALLOC_CUT = ("ggml_cuda_init: found 2 CUDA devices:\n"
                  "  Device 0: NVIDIA GeForce RTX 2080 Ti, compute capability 7.5, VMM: yes\n"
                  "llm_load_tensors: ggml ctx size =    0.77 MiB\n"
                  "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 11597")
# PaddlePaddle/Paddle#11082: posix_memalign's ENOMEM (12) in a glog check.
POSIX_MEMALIGN_GLOG = "Check failed: posix_memalign(&ptr, 4096ul, size) == 0 (12 vs. 0)"
# noonghunna/club-3090#32: PyTorch's per-process clause of its OOM error, pasted alone.
PROCESS_CLAUSE = "Process 60 has 17179869184.00 GiB memory in use."
# ovg-project/kvcached#191: a memory manager's available < need comparison before the engine's fatal error.
AVAILABLE_BELOW_NEED = (
    "(EngineCore_DP0 pid=10311) [kvcached][WARNING][2025-10-25 11:17:27][kv_cache_manager.py:164] available_size()=9.0 "
    "< need_size=30 10.80 toks/s]\n"
    "(EngineCore_DP0 pid=10311) ERROR 10-25 11:17:27 [core.py:720] EngineCore encountered a fatal error.")
# mlc-ai/mlc-llm#2239: a size larger than the GPU's memory.
LARGER_THAN_GPU_MEMORY = "[Bug] Unexpected Error: The model weight size may be larger than GPU memory size"
# ROCm/librocdxg#22: a zero free reading, the memory noun said earlier in the sentence.
ZERO_BYTES_FREE = ("[Issue]: [Bug] GetSegmentId fails for type 1 (MEMORY) on discrete RX 9060 XT (gfx1200) in WSL2 — "
                   "VramAvail returns HSA_STATUS_ERROR, PyTorch sees 0 bytes free")
# qizhou000/VisEdit#5: gpustat's row of a GPU another process keeps busy.
GPUSTAT_ROW = "[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | (null)"


@pytest.mark.parametrize("text", [GGML_ALLOC_CUT, POSIX_MEMALIGN_GLOG, PROCESS_CLAUSE, AVAILABLE_BELOW_NEED,
                                  LARGER_THAN_GPU_MEMORY, ZERO_BYTES_FREE, GPUSTAT_ROW])
def test_memory_fragment_is_found(text):
    assert diagnose_text(text).found_oom, text


def test_posix_memalign_enomem_in_glog_form_is_the_host():
    cause = diagnose_text(POSIX_MEMALIGN_GLOG).causes[0]
    assert cause.id == "not_capacity"


def test_gpustat_row_reads_used_and_total_in_mib():
    status = pool_status.read(GPUSTAT_ROW)
    assert status is not None
    assert status.used_bytes == 10151 * 2**20 and status.total_bytes == 81920 * 2**20


@pytest.mark.parametrize("text", [
    # ggml's ordinary load lines: a buffer that was allocated is logged with "size", not "allocating".
    "llm_load_tensors: ggml ctx size =    0.77 MiB\nllm_load_tensors:      CUDA0 buffer size =  4155.99 MiB",
    # posix_memalign with a bad alignment (EINVAL, 22) is not memory.
    "Check failed: posix_memalign(&ptr, 3ul, size) == 0 (22 vs. 0)",
    # A comparison with enough available, and a figure of something else.
    "[kv_cache_manager.py:164] available_size()=90.0 > need_size=30",
    "speed: 10.80 toks/s, 512 prompts processed",
    # A model smaller than the GPU's memory, and a tensor larger than a batch.
    "The model weight size is smaller than GPU memory size, loading normally",
    "The input is larger than the batch size; splitting it",
    # Free disk space, and free memory with nothing wrong.
    "Writing checkpoint: 12 GB free space on /data",
    "nvidia-smi: 0 MiB used of 24576 MiB",
    # gpustat's header with no GPU row.
    "gpu-server  Mon Dec  7 12:00:00 2026  535.104.05",
])
def test_ordinary_log_stays_not_found(text):
    assert not diagnose_text(text).found_oom, text


# microsoft/onnxruntime#14474: the CUDA arena extended by the same request again and again, its running total climbing.
ARENA_TOTALS = (
    "[I:onnxruntime:OnnxGlobalEnv, bfc_arena.cc:197 onnxruntime::BFCArena::Extend] Extended allocation by 504000000 "
    "bytes.\n"
    "[I:onnxruntime:OnnxGlobalEnv, bfc_arena.cc:200 onnxruntime::BFCArena::Extend] Total allocated bytes: 21919005696\n"
    "[I:onnxruntime:, sequential_executor.cc:176 onnxruntime::SequentialExecutor::Execute] Begin execution\n"
    "[I:onnxruntime:OnnxGlobalEnv, bfc_arena.cc:197 onnxruntime::BFCArena::Extend] Extended allocation by 504000000 "
    "bytes.\n"
    "[I:onnxruntime:OnnxGlobalEnv, bfc_arena.cc:200 onnxruntime::BFCArena::Extend] Total allocated bytes: 22423005696")


def test_arena_running_total_climbing_is_a_leak():
    diagnosis = diagnose_text(ARENA_TOTALS)
    assert diagnosis.found_oom
    assert diagnosis.causes[0].id == "leak"


@pytest.mark.parametrize("text", [
    # One extension at start: nothing grows.
    "[I:onnxruntime:OnnxGlobalEnv, bfc_arena.cc:200 onnxruntime::BFCArena::Extend] Total allocated bytes: 21919005696",
    # The same total twice: the arena reused what it held.
    "Total allocated bytes: 21919005696\nBegin execution\nTotal allocated bytes: 21919005696",
])
def test_arena_total_that_does_not_climb_stays_not_found(text):
    assert not diagnose_text(text).found_oom, text
