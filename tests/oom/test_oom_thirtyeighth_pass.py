"""Thirty-eighth pass (issue 28, fresh-39's texts that came back "not found", and engines' KV-budget wordings).

Each reading is the runtime's own wording, read from its source:

* PyTorch's DataLoader when its pin-memory thread died without an exception ("Pin memory thread exited
  unexpectedly", torch/utils/data/dataloader.py, _MultiProcessingDataLoaderIter._try_get_data): the thread that
  page-locks batches in host memory; pin_memory=False decides. A DataLoader *worker* that exited is not that.
* transformers' bitsandbytes quantizers refusing a device map with modules on the CPU or disk ("Some modules are
  dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model.",
  transformers/quantizers/quantizer_bnb_4bit.py, validate_environment): device_map="auto" put off the GPU what its free
  memory could not hold, so the quantized model does not fit.
* LMDeploy TurboMind's own CUDA check ("[TM][ERROR] CUDA runtime error: out of memory <turbomind file>:<line>") while it
  serves: LMDeploy's FAQ reads this line as the k/v cache's share (cache_max_entry_count of the free memory) leaving too
  little for the runtime buffers (kv_cache_budget). While the weights load it is the model's size instead.
* PyTorch's OOM raised under a frame of vLLM's model runner (vllm/v1/worker/gpu_model_runner.py, the module that runs
  each scheduled step) with the engine's process holding 85 % of the card or more: a serving step outgrew what
  gpu_memory_utilization left, read as vLLM's own error lines already are. The same frame with the process holding
  little of the card is not that.
* The TPU runtime's program reservation with the memory free but not in one piece ("There are F free, 0B reserved,
  and V reservable" with F >= request > V): openxla/xla docs/errors/error_0101.md's "HBM Fragmentation". Free below
  the request stays a shortage.
* PyTorch's request with its decimals mangled in the paste ("Tried to allocate 512.— MiB"): the whole part is the
  request rounded down (a lower bound), enough to weigh it against free and cached memory. Placeholders ("xxx MiB")
  stay unread.
* A pinned host buffer refused with the CUDA runtime's own reason that CUDA could not start
  (cudaErrorSystemDriverMismatch "system has unsupported display driver / cuda driver combination", cudaErrorNoDevice
  "no CUDA-capable device is detected"): the driver, not page-locked memory, decides (driver_version). The same buffer
  refused for "out of memory" stays pinned memory.
* torch_npu's workspace allocator closing its figures with the free clause ("...; 90.23 MiB free)"): read.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# https://github.com/milesial/Pytorch-UNet/issues/517 (the title; fixed by pin_memory=False)
UNET_517 = "RuntimeError: Pin memory thread exited unexpectedly"

# https://github.com/unslothai/unsloth/issues/1629 (models over 8B in 4-bit on a small GPU: "you most likely have too
# less VRAM")
UNSLOTH_1629 = (
    "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
    "quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, "
    "you need to set `llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` to `from_pretrained`. "
    "Check https://huggingface.co/docs/transformers/main/en/main_classes/quantization#offload-between-cpu-and-gpu for "
    "more details. ")


# https://github.com/InternLM/lmdeploy/issues/2236 (TurboMind on one A100 40 GB; the thread points to the FAQ)
LMDEPLOY_2236 = "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/utils/memory_utils.cu:32"

# https://github.com/InternLM/lmdeploy/issues/3557 (LMDeploy 0.8.0 serving many concurrent requests)
LMDEPLOY_3557 = ("Failed to find a feasible kernel in the cache, will dispatch by heuristic.\n"
                 "[TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/core/allocator.cc:49")

# https://github.com/pytorch/pytorch/issues/1455 (PyTorch's own THC check, 2017: not TurboMind)
THC_1455 = ("THCudaCheck FAIL file=/home/mktran/pytorch/torch/lib/THC/generic/THCStorage.cu line=66 error=2 : out of "
            "memory\n"
            "Traceback (most recent call last):\n"
            "  File \"main.py\", line 136, in train\n"
            "    loss.backward()")


# https://github.com/vllm-project/vllm/issues/34643 (prompt_logprobs' float32 log_softmax after the engine's budget)
VLLM_34643 = (
    'File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 4308, in '
    '_get_prompt_logprobs_dict logprobs = self.sampler.compute_logprobs(logits) File '
    '"/usr/local/lib/python3.12/dist-packages/vllm/v1/sample/sampler.py", line 207, in compute_logprobs return '
    'logits.log_softmax(dim=-1, dtype=torch.float32)\n'
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.71 GiB. GPU 0 has a total capacity of 22.30 GiB of "
    "which 1.52 GiB is free. Process 29153 has 248.00 MiB memory in use. Process 162529 has 248.00 MiB memory in use. "
    "Process 162519 has 20.28 GiB memory in use. Of the allocated memory 19.55 GiB is allocated by PyTorch, and 244.94 "
    "MiB is reserved by PyTorch but unallocated.")


def test_pin_memory_thread_that_exited_is_pinned_host_memory() -> None:
    d = diagnose_text(UNET_517)
    top = d.causes[0]
    assert d.found_oom and d.report.kind == "pin_memory_thread"
    assert top.id == "not_capacity" and d.report.signature == "pin_memory"
    assert "pin_memory=False" in top.fix


def test_a_dataloader_worker_that_exited_is_not_the_pin_memory_thread() -> None:
    d = diagnose_text("RuntimeError: DataLoader worker (pid 4242) exited unexpectedly")
    assert d.report.kind != "pin_memory_thread"
    assert d.report.signature != "pin_memory"


def test_bitsandbytes_refusing_modules_off_the_gpu_is_a_model_that_does_not_fit() -> None:
    d = diagnose_text(UNSLOTH_1629)
    top = d.causes[0]
    assert d.found_oom
    assert top.id == "genuine_shortage" and "quantized" in top.title
    assert "llm_int8_enable_fp32_cpu_offload" in " ".join(top.more_fixes)
    assert [c.id for c in d.causes].count("genuine_shortage") == 1


def test_enough_gpu_ram_alone_is_not_an_out_of_memory() -> None:
    # The advice sentence without the quantizer's refusal names no failure.
    d = diagnose_text("Make sure you have enough GPU RAM to fit the quantized model.")
    assert not d.found_oom


def test_turbomind_cuda_check_out_of_memory_is_the_kv_cache_share() -> None:
    for text in (LMDEPLOY_2236, LMDEPLOY_3557):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and top.id == "kv_cache_budget"
        assert "cache_max_entry_count" in top.fix
        assert top.evidence["engine"] == "lmdeploy"


def test_turbomind_out_of_memory_while_loading_weights_is_not_the_kv_share() -> None:
    d = diagnose_text("[TM][ERROR] CUDA runtime error: out of memory "
                      "/lmdeploy/src/turbomind/models/llama/LlamaWeight.cc:88")
    assert d.found_oom
    assert d.causes[0].id != "kv_cache_budget"


def test_pytorch_thc_runtime_error_is_not_turbomind() -> None:
    d = diagnose_text(THC_1455)
    assert d.found_oom
    assert all(c.id != "kv_cache_budget" for c in d.causes)


def test_oom_under_vllms_model_runner_with_the_engine_holding_the_card_is_its_budget() -> None:
    d = diagnose_text(VLLM_34643)
    top = d.causes[0]
    assert top.id == "kv_cache_budget"
    assert "--gpu-memory-utilization" in top.fix
    assert top.evidence["in_use_bytes"] > 0.85 * top.evidence["total_capacity_bytes"]


def test_vllm_model_runner_frame_with_a_small_process_is_not_the_engines_budget() -> None:
    # The same frame, but the process holds 2 GiB of 22 GiB: the engine's budget is not what filled the card.
    text = VLLM_34643.replace("Process 162519 has 20.28 GiB", "Process 162519 has 2.00 GiB").replace(
        "19.55 GiB is allocated", "1.55 GiB is allocated")
    d = diagnose_text(text)
    assert d.causes[0].id != "kv_cache_budget"


# https://github.com/Ascend/sglang/issues/617 (torch_npu's workspace allocator at SGLang start-up on a 61 GiB NPU)
ASCEND_SGLANG_617 = (
    "[rank0]:[E522 11:31:08.878836785 OpParamMaker.cpp:454] NPU out of memory. NPUWorkspaceAllocator tried to allocate "
    "216.00 MiB(NPU 0; 61.27 GiB total capacity; 90.23 MiB free). If you want to reduce memory usage, take a try to "
    "set the environment variable TASK_QUEUE_ENABLE=1.")


def test_npu_workspace_allocator_free_clause_closing_the_figures_is_read() -> None:
    d = diagnose_text(ASCEND_SGLANG_617)
    dev = d.report.device
    assert dev is not None and dev.free_bytes is not None
    assert 90 * 1024**2 < dev.free_bytes < 91 * 1024**2
    assert dev.total_bytes is not None and dev.total_bytes > 61 * 1024**3
    # Read from its figures (a full device), not "not enough of the message".
    assert d.causes[0].id != "unparseable"


def test_a_free_figure_outside_the_figures_clause_is_not_read_as_free() -> None:
    d = diagnose_text("NPU out of memory. NPUWorkspaceAllocator tried to allocate 216.00 MiB (90.23 MiB free)")
    dev = d.report.device
    assert dev is None or dev.free_bytes is None


# https://github.com/patil-suraj/exploring-T5/issues/5 (T5 on a Colab TPU with PyTorch/XLA; a commenter's log)
T5_TPU_5 = (
    "RuntimeError: Resource exhausted: From /job:tpu_worker/replica:0/task:0:\n"
    "2 root error(s) found.\n"
    "  (0) Resource exhausted: Attempting to reserve 3.60G at the bottom of memory. That was not possible. There are "
    "5.52G free, 0B reserved, and 3.53G reservable.\n"
    "\t [[{{node XRTExecute}}]]")

# https://github.com/google/flax/issues/1658 (a TPU v3-8; "solved with an ugly hack ... flushing the memory")
FLAX_1658 = (
    "2021-11-03 15:31:06.338128: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:"
    "2085] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Attempting to reserve 11.35G at the bottom of memory. "
    "That was not possible. There are 12.18G free, 0B reserved, and 10.52G reservable.")

# https://github.com/pytorch/xla/issues/1735 (free below the request: the program does not fit)
XLA_1735 = ("RuntimeError: Resource exhausted: From /job:tpu_worker/replica:0/task:0:\n"
            "Attempting to reserve 3.95G at the bottom of memory. That was not possible. There are 1.92G free, 0B "
            "reserved, and 1.92G reservable.")


def test_tpu_reservation_with_enough_free_but_no_piece_large_enough_is_fragmentation() -> None:
    for text in (T5_TPU_5, FLAX_1658):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and top.id == "fragmentation"
        reservable, requested, free = (top.evidence["reservable_bytes"], top.evidence["requested_bytes"],
                                       top.evidence["free_bytes"])
        assert reservable < requested <= free
        assert "donate_argnums" in top.fix


def test_tpu_reservation_with_too_little_free_is_not_fragmentation() -> None:
    d = diagnose_text(XLA_1735)
    assert d.causes[0].id == "genuine_shortage"
    assert all(c.id != "fragmentation" for c in d.causes)


# https://github.com/sshaoshuai/PointRCNN/issues/225 (RCNN stage at batch 2 on a 3 GB card; '512.— MiB' as posted)
POINTRCNN_225 = ("RuntimeError: CUDA out of memory. Tried to allocate 512.— MiB (GPU 0; 2.95 GiB total capacity; 1.81 GiB "
                 "already allocated; 356.00 MiB free; 1.89 GiB reserved in total by PyTorch )")


def test_request_with_garbled_decimals_is_read_from_its_whole_part() -> None:
    d = diagnose_text(POINTRCNN_225)
    assert d.report.requested_bytes == 512 * 1024**2
    assert d.report.parsed["requested_is_lower_bound"] == 1
    top = d.causes[0]
    assert top.id == "genuine_shortage"
    assert top.evidence["shortfall_bytes"] > 0


def test_request_placeholder_is_not_read_as_a_size() -> None:
    d = diagnose_text(POINTRCNN_225.replace("512.— MiB", "xxx.xx MiB"))
    assert d.report.requested_bytes is None
    assert "requested_is_lower_bound" not in d.report.parsed


# https://github.com/abetlen/llama-cpp-python/issues/1687 (a newer wheel's CUDA runtime against the installed driver)
LLAMA_CPP_PY_1687 = ("ggml_cuda_host_malloc: failed to allocate 1012.00 MiB of pinned memory: system has unsupported "
                     "display driver / cuda driver combination")

# https://github.com/janhq/jan/issues/3782 (Jan's Cortex engine; the CUDA runtime sees no GPU)
JAN_3782 = ("[CORTEX]::Error: ggml_cuda_host_malloc: failed to allocate 1034.00 MiB of pinned memory: no CUDA-capable "
            "device is detected")


def test_pinned_buffer_refused_because_cuda_did_not_start_names_the_driver_check() -> None:
    for text in (LLAMA_CPP_PY_1687, JAN_3782):
        d = diagnose_text(text)
        top = d.causes[0]
        assert top.id == "not_capacity" and d.report.signature == "driver_version"
        assert top.checks and top.checks[0].startswith("nvidia-smi")


def test_pinned_buffer_refused_for_memory_stays_pinned_memory() -> None:
    d = diagnose_text(LLAMA_CPP_PY_1687.replace("system has unsupported display driver / cuda driver combination",
                                                "out of memory"))
    assert d.report.signature == "pin_memory"
