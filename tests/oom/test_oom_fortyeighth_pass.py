"""Forty-eighth pass (issue 28): engine wordings the doctor did not read, each from its engine's own log.

* TensorRT's builder (8.6-9) logging a tactic it skips with its units, "Tactic Device request: N MB Available: M MB.
  Device memory is insufficient to use tactic.", before the unit-less "Skipping tactic ... requested size of N": the
  tactic's scratch in one piece, read in MB (single_allocation_exceeds_capacity, the workspace limit as the fix).
* LMDeploy TurboMind's "`session_len` truncated to N due to limited KV cache memory", with warm-ups that end as too
  long (status 6, Request::kTooLong): the KV-cache blocks left beside the weights hold N tokens (kv_cache_budget).
* An engine's own refusal "Not enough memory for KV cache, try reducing --num-pages": the KV pool it is about to
  reserve does not fit beside the weights (kv_cache_budget, the setting the hint names as the fix).
* llama.cpp's weights buffer for one device ("allocating N MiB on device D: cudaMalloc failed") larger than the whole
  GPU the log names: one buffer no card of that size can hold, the layer split's doing (single allocation, fewer
  offloaded layers as the fix).
* PyTorch's MapAllocator failing to map a file into host memory ("unable to mmap N bytes from file <FILE>: Cannot
  allocate memory"): mmap's ENOMEM, host RAM or its limits (not_capacity, host_ram check).
* NCCL's "unhandled system error" with its InfiniBand registration refused beside it ("Call to ibv_reg_dmabuf_mr
  failed with error Cannot allocate memory"): pinned memory against the memlock limit (pin_memory check), not a
  /dev/shm segment; NCCL's /dev/shm segment failure alone stays the shared-memory segment.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# NVIDIA/TensorRT-LLM#85 (LLaMA 13B engine for max_batch_size 128 on a 40 GB A100).
TRT_TACTIC_MB = (
    "[10/24/2023-06:48:50] [TRT] [I] Global timing cache in use. Profiling results in this builder pass will be stored.\n"
    "[10/24/2023-06:48:53] [TRT] [W] Tactic Device request: 41472MB Available: 40338MB. Device memory is insufficient "
    "to use tactic.\n"
    "[10/24/2023-06:48:53] [TRT] [W] UNSUPPORTED_STATESkipping tactic 0 due to insufficient memory on requested size "
    "of 41472 detected for tactic 0x0000000000000000.")
# cumulo-autumn/StreamDiffusion#161 (the unit-less line alone, in bytes, on a 16 GB RTX 4080 at batch 4).
TRT_TACTIC_BYTES_ALONE = (
    "[W] UNSUPPORTED_STATESkipping tactic 0 due to insufficient memory on requested size of 11580055552 detected for "
    "tactic 0x0000000000000000.Try decreasing the workspace size with IBuilderConfig::setMemoryPoolLimit().")

# InternLM/lmdeploy#4366 (GLM-4.7-Flash-AWQ on one V100-32G).
TURBOMIND_TRUNCATED = (
    "[TM][WARNING] [TM] `max_context_token_num` is not set, default to 202752.\n"
    "[TM][WARNING] [SegMgr] prefix caching is enabled\n"
    "[TM][WARNING] `session_len` truncated to 4928 due to limited KV cache memory\n"
    "[TM][ERROR] [Engine] Warm-up for 6144 tokens failed with status 6\n"
    "[TM][ERROR] [Engine] Warm-up for 8192 tokens failed with status 6\n"
    "[TM][ERROR] [Engine] Warm-up for 8320 tokens failed with status 6")

# FlashML-org/FreeToken-Web#2 (the engine's assertion as a commenter quoted it, RTX 5090D; full-width comma as written).
ENGINE_KV_WORDS = "AssertionError: Not enough memory for KV cache\uff0ctry reducing --num-pages"

# ollama/ollama#8776 (DeepSeek-R1 671B on three 64 GB MI210s; the ROCm build's log).
GGML_WEIGHTS_OVER_CARD = (
    "llama_load_model_from_file: using device ROCm1 (AMD Instinct MI210) - 65430 MiB free\n"
    "llama_load_model_from_file: using device ROCm2 (AMD Instinct MI210) - 65430 MiB free\n"
    "llama_load_model_from_file: using device ROCm0 (AMD Instinct MI210) - 64468 MiB free\n"
    "llm_load_tensors: tensor 'token_embd.weight' (q4_K) (and 531 others) cannot be used with preferred buffer type "
    "ROCm_Host, using CPU instead\n"
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 70139.08 MiB on device 0: cudaMalloc failed: out of memory\n"
    "llama_model_load: error loading model: unable to allocate ROCm0 buffer\n"
    "llama_load_model_from_file: failed to load model")
# janhq/jan#4953 (Gemma-3-12B Q4_1 on a GTX 1070 8 GB; the log names no card).
GGML_WEIGHTS_NO_CARD = (
    "20250430 21:55:01.443740 UTC 8354 ERROR ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7203.17 MiB on "
    "device 0: cudaMalloc failed: out of memory\n - llama_engine.cc:533\n"
    "20250430 21:55:01.443769 UTC 8354 ERROR alloc_tensor_range: failed to allocate CUDA0 buffer of size 7553073280\n"
    " - llama_engine.cc:533\n"
    "20250430 21:55:01.597022 UTC 8354 ERROR llama_model_load: error loading model: unable to allocate CUDA0 buffer\n"
    " - llama_engine.cc:533")

# vllm-project/vllm#9753 (a 3B model's first safetensors shard on an A10; the line as stored, cut after "(").
MMAP_ENOMEM = ("Failed to load model with Error: unable to mmap 4965799096 bytes from file "
               "<Llama-3.2-3B-Instruct/model-00001-of-00002.safetensors>: Cannot allocate memory (")

# vllm-project/vllm#19613 (the paste, then the reporter's own NCCL_DEBUG line; NCCL_BUFFSIZE set too large).
NCCL_VERBS_ENOMEM = (
    "ERROR 06-13 07:35:59 [core.py:517]   File \"cupy_backends/cuda/libs/nccl.pyx\", line 129, in "
    "cupy_backends.cuda.libs.nccl.check_status\n"
    "ERROR 06-13 07:35:59 [core.py:517] cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled "
    "system error (run with NCCL_DEBUG=INFO for details)\n"
    "[2025-06-16 17:17:39] kilo:318:3584 [5] misc/ibvwrap.cc:183 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error "
    "Cannot allocate memory")
# vllm-project/vllm#15255 (NCCL's /dev/shm segment, --tensor-parallel-size > 1 in a container).
NCCL_SHM_SEGMENT = (
    "(VllmWorker rank=1 pid=97) ERROR 03-20 23:26:06 [multiproc_executor.py:375] ncclSystemError: System call (e.g. "
    "socket, malloc) or external library call failed or device error.\n"
    "(VllmWorker rank=1 pid=97) ERROR 03-20 23:26:06 [multiproc_executor.py:375] Error while creating shared memory "
    "segment /dev/shm/nccl-6R371p (size 9637888)")


def test_trt_tactic_device_request_in_mb_is_one_piece() -> None:
    d = diagnose_text(TRT_TACTIC_MB)
    top = d.causes[0]
    assert top.id == "single_allocation_exceeds_capacity"
    assert top.evidence["tactic_workspace_bytes"] == 41472 * 2**20
    assert "workspace" in top.fix
    assert any(c.id == "genuine_shortage" for c in d.causes[1:])


def test_trt_unitless_tactic_size_alone_is_not_read_as_mb() -> None:
    d = diagnose_text(TRT_TACTIC_BYTES_ALONE)
    assert d.causes[0].id == "genuine_shortage"
    # The unit-less figure stays bytes (the parser's reading), never MB: a value no cause could carry made this
    # check unable to fail (review10).
    assert d.report.parsed.get("tactic_workspace_bytes") == 11580055552


def test_turbomind_session_len_truncation_is_the_kv_budget() -> None:
    d = diagnose_text(TURBOMIND_TRUNCATED)
    assert d.found_oom
    top = d.causes[0]
    assert top.id == "kv_cache_budget"
    assert top.evidence["kv_cache_tokens"] == 4928 and top.evidence["refused_request_tokens"] == 8320
    assert "cache_max_entry_count" in top.fix and "quant_policy" in top.fix
    assert "6144, 8192, 8320 tokens" in top.explanation


def test_turbomind_warmup_status_alone_is_not_the_kv_budget() -> None:
    d = diagnose_text("[TM][ERROR] [Engine] Warm-up for 8192 tokens failed with status 6")
    assert all(c.id != "kv_cache_budget" for c in d.causes)


def test_engine_kv_refusal_names_its_setting() -> None:
    d = diagnose_text(ENGINE_KV_WORDS)
    top = d.causes[0]
    assert top.id == "kv_cache_budget" and top.evidence["kv_setting"] == "--num-pages"
    assert top.fix.startswith("Lower --num-pages")


def test_engine_kv_refusal_does_not_take_a_later_lines_flag_for_its_setting() -> None:
    # review10: the refusal without its hint, then a later log line (a launcher's own advice) naming another flag:
    # that flag is not the KV setting, so the fix names the KV cache's size instead.
    text = ("AssertionError: Not enough memory for KV cache\n" + "INFO: shutting down the engine worker ...\n" * 6
            + "WARNING: requests are queueing; try reducing --max-batch-size or adding replicas")
    top = diagnose_text(text).causes[0]
    assert top.id == "kv_cache_budget" and top.evidence.get("kv_setting") is None
    assert "--max-batch-size" not in top.fix
    # The hint on the refusal's own line is still read.
    same_line = diagnose_text(ENGINE_KV_WORDS.replace("，", ", ")).causes[0]
    assert same_line.evidence["kv_setting"] == "--num-pages"


def test_not_enough_memory_without_the_kv_cache_is_not_the_kv_budget() -> None:
    # lllyasviel/Fooocus#177 (the issue title: PyTorch's CPU allocator, host RAM).
    d = diagnose_text("not enough memory: you tried to allocate 9437184 bytes")
    assert all(c.id != "kv_cache_budget" for c in d.causes)


def test_ggml_weights_buffer_over_the_named_card_is_one_allocation() -> None:
    d = diagnose_text(GGML_WEIGHTS_OVER_CARD)
    top = d.causes[0]
    assert top.id == "single_allocation_exceeds_capacity"
    assert top.evidence["requested_bytes"] > 64 * 2**30
    assert "layers" in top.fix and "-ngl" in top.fix
    assert "64.00 GiB" in top.explanation
    assert d.causes[1].id == "genuine_shortage"


def test_ggml_weights_buffer_with_no_card_named_stays_the_layers_shortage() -> None:
    top = diagnose_text(GGML_WEIGHTS_NO_CARD).causes[0]
    assert top.id == "genuine_shortage" and top.evidence["ggml_buffer"] == "model"


def test_file_mmap_enomem_is_host_memory() -> None:
    top = diagnose_text(MMAP_ENOMEM).causes[0]
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"


def test_cannot_allocate_memory_without_a_mapped_file_is_not_read_as_host_ram() -> None:
    # NVIDIA/k8s-device-plugin#243 (the issue title; a GPU with an uncorrectable ECC error).
    d = diagnose_text("cuda error: Cannot allocate memory")
    assert all(c.evidence.get("deciding_check") != "host_ram" for c in d.causes)


def test_nccl_system_error_from_verbs_enomem_is_pinned_memory() -> None:
    top = diagnose_text(NCCL_VERBS_ENOMEM).causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "pin_memory" and top.evidence["check_command"] == "ulimit -l"


def test_nccl_shm_segment_without_verbs_stays_shared_memory() -> None:
    top = diagnose_text(NCCL_SHM_SEGMENT).causes[0]
    assert top.id == "not_capacity" and top.evidence["not_capacity_kind"] == "shm_segment"
