"""Fifty-fifth pass (issue 28): messages the tolerant layer did not recognise, and Vulkan's result codes.

The general layer (:mod:`gpudesk.oom.parsers.generic`) reads more resource-exhaustion words, never a project's name:

* "lack of" as a shortage word, a swap area and a system's / GPU's resources as what ran short, "no available (free,
  more) memory", and a shortage directly after CJK text;
* a Vulkan call's VkResult read as a whole number: -1 / -2 are memory, -10 (VK_ERROR_TOO_MANY_OBJECTS) is the
  device's maxMemoryAllocationCount, a count of allocations (``not_capacity`` / buffer_limit), never read as -1;
* "insufficient shared memory available on the GPU" is the per-block shared memory (``not_capacity`` /
  shared_memory), never the DataLoader's /dev/shm;
* a memory figure that is not a number ("requires approximately NaN undefined of memory") is a garbage size
  (``not_capacity`` / absurd_size);
* the host's memory printed at 90% or more (DeepSpeed's see_memory_usage) is host RAM (``not_capacity`` / host_ram);
* a run aborted for the lack of the CPU swap space (a serving engine's area for preempted KV blocks) is the KV-cache
  budget (``kv_cache_budget``), while the system's swap said short is host RAM.

Every positive text is a real message quoted from the public thread named in its comment; the negatives must stay
"not found" or keep their reading."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.limit_words import vulkan_allocation_count, vulkan_memory_result, vulkan_results
from gpudesk.oom.parsers.detect import parse_text

# nihui/realcugan-ncnn-vulkan#41 (tile size 65 or less on a 16 GB Radeon 6900 XT, ~4 GB in use).
VK_TOO_MANY = ("When I set tile-size to <= 65, error message `vkAllocateMemory failed -10` shows up; when I set it above "
               "that or left the parameter out, the program starts up but then ends without any output result or "
               "warning message.")
# nihui/waifu2x-ncnn-vulkan#32 (the reporter's prose; -2 is VK_ERROR_OUT_OF_DEVICE_MEMORY).
VK_OUT_OF_DEVICE = ("I upgrade my gpu driver to the newest, but this 'vkAllocateMemory failed -2' error still occured, "
                    "but the scaled image still comes out. \nWhat's the meaning of this error??")
# vosen/ZLUDA#171 (tiny-cuda-nn's FullyFusedMLP through ZLUDA; 4 of 16 GB in use).
SHARED_MEMORY = ("WARNING  GPUMemoryArena: GPU 0 does not support virtual memory. Falling back to regular allocations, "
                 "which will be larger and can cause occasional stutter.\nUncaught exception: FullyFusedMLP: "
                 "insufficient shared memory available on the GPU. Reduce `n_neurons` or use `CutlassMLP` (better "
                 "compatibility but slower) instead.")
# lmstudio-ai/lmstudio-bug-tracker#1038 (an RWKV GGUF; fixed in the next release).
GUARDRAIL_NAN = ("Error: Model loading was stopped due to insufficient system resources. Under the current settings, "
                 "this model requires approximately NaN undefined of memory, and continuing to load it would likely "
                 "overload your system and cause it to freeze. If you think this is incorrect, you can adjust the "
                 "model loading guardrails in settings.")
# lmstudio-ai/lmstudio-bug-tracker#1202 (the same guardrail with a figure).
GUARDRAIL_FIGURE = ("Loading model mistralai/mistral-nemo-instruct-2407 Q4_K_M shows error message \"Model loading was "
                    "stopped due to insufficient system resources. Under the current settings, this model requires "
                    "approximately 273.25 GB of memory, and continuing to load it would likely overload your system "
                    "and cause it to freeze. If you think this is incorrect, you can adjust the model loading "
                    "guardrails in settings.\"")
# databrickslabs/dolly#111 (DeepSpeed ZeRO-3 on one RTX 3090 with 32 GB RAM; the launcher then exits with -9).
DEEPSPEED_HOST = (
    "[2023-04-20 19:03:19,578] [INFO] [utils.py:831:see_memory_usage] After creating fp32 partitions\n"
    "[2023-04-20 19:03:19,581] [INFO] [utils.py:832:see_memory_usage] MA 0.13 GB         Max_MA 0.13 GB         "
    "CA 0.63 GB         Max_CA 1 GB \n"
    "[2023-04-20 19:03:19,581] [INFO] [utils.py:840:see_memory_usage] CPU Virtual Memory:  used = 29.71 GB, "
    "percent = 95.3%\n"
    "[2023-04-20 19:03:19,633] [INFO] [utils.py:831:see_memory_usage] Before initializing optimizer states")
# vllm-project/vllm#588 (V0 scheduler, swap_space exhausted).
VLLM_SWAP = ("RuntimeError: Aborted due to the lack of CPU swap space. Please increase the swap space to avoid this "
             "error.")
# pat-jj/s3#10 (the reporter's words for vLLM's start-up error).
NO_AVAILABLE = ("I ran train_s3.sh using 30904 and received the error no available memory for the cache blocks during "
                "allocation.\n\nReduce gpu_memory_utilization and repeat the same error.")
# PaddlePaddle/Paddle#44407 (a Chinese sentence running straight into the English message).
CJK_BEFORE = "编译昇腾310版本之后，运行提示Not enough available NPU memory"


def _top(text: str) -> tuple[str, object]:
    d = diagnose_text(text)
    assert d.top is not None
    return d.top.id, d.top.evidence.get("deciding_check")


def test_vulkan_result_codes_read_whole() -> None:
    assert vulkan_results(VK_TOO_MANY) == {-10}
    assert not vulkan_memory_result(VK_TOO_MANY)  # -10 is never read as -1
    assert vulkan_allocation_count(VK_TOO_MANY)
    assert vulkan_memory_result(VK_OUT_OF_DEVICE)
    assert not vulkan_allocation_count(VK_OUT_OF_DEVICE)
    assert vulkan_memory_result("vkAllocateMemory failed -1")
    assert vulkan_allocation_count("vkAllocateMemory returned VK_ERROR_TOO_MANY_OBJECTS")
    assert vulkan_results("vkQueueSubmit failed -4") == {-4}
    assert not vulkan_memory_result("vkQueueSubmit failed -4")


def test_vulkan_too_many_objects_is_an_allocation_count() -> None:
    d = diagnose_text(VK_TOO_MANY)
    assert d.top is not None and d.top.id == "not_capacity"
    assert d.top.evidence["deciding_check"] == "buffer_limit"
    assert "maxMemoryAllocationCount" in d.top.evidence["check_command"]
    assert "VK_ERROR_TOO_MANY_OBJECTS" in d.top.explanation


def test_vulkan_out_of_device_memory_stays_a_shortage() -> None:
    assert _top(VK_OUT_OF_DEVICE)[0] == "genuine_shortage"


def test_shared_memory_on_the_gpu() -> None:
    assert _top(SHARED_MEMORY) == ("not_capacity", "shared_memory")


def test_dataloader_shm_stays_dev_shm() -> None:
    text = ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory "
            "(shm).")
    d = diagnose_text(text)
    assert d.top is not None and d.top.evidence.get("not_capacity_kind") == "dev_shm"


def test_not_a_number_size_is_garbage() -> None:
    d = diagnose_text(GUARDRAIL_NAN)
    assert d.top is not None and d.top.id == "not_capacity"
    assert d.top.evidence["deciding_check"] == "absurd_size"
    assert "NaN" in d.top.explanation


def test_guardrail_with_a_figure_is_recognised() -> None:
    d = diagnose_text(GUARDRAIL_FIGURE)
    assert d.found_oom
    assert d.top is not None and d.top.id != "not_capacity"


def test_host_memory_nearly_full() -> None:
    assert _top(DEEPSPEED_HOST) == ("not_capacity", "host_ram")


def test_host_memory_low_percent_is_not_read() -> None:
    text = "[INFO] [utils.py:840:see_memory_usage] CPU Virtual Memory:  used = 10.71 GB, percent = 35.3%"
    assert not diagnose_text(text).found_oom


def test_device_failure_beside_full_host_stays_device() -> None:
    text = DEEPSPEED_HOST + ("\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
                             "a total capacity of 23.69 GiB of which 1.02 GiB is free.")
    assert _top(text)[0] != "not_capacity"


def test_cpu_swap_space_is_the_kv_budget() -> None:
    d = diagnose_text(VLLM_SWAP)
    assert d.top is not None and d.top.id == "kv_cache_budget"
    assert "CPU swap space" in d.top.evidence["engine_words"]


def test_system_swap_short_is_host_ram() -> None:
    assert _top("ERROR: the job ran out of swap space and was stopped") == ("not_capacity", "host_ram")


@pytest.mark.parametrize("text", [NO_AVAILABLE, CJK_BEFORE, GUARDRAIL_FIGURE])
def test_recognised(text: str) -> None:
    assert parse_text(text).kind != "unknown"


@pytest.mark.parametrize("text", [
    # A traceback with no memory failure.
    "Traceback (most recent call last):\n  File \"<stdin>\", line 10, in <module>\nTypeError: 'NoneType' object is "
    "not subscriptable",
    # A Vulkan failure that is not memory (VK_ERROR_DEVICE_LOST, -4) and an initialisation failure (-3).
    "vkQueueSubmit failed -4",
    "vkCreateInstance failed -3",
    # NaN in a loss, not a memory figure.
    "loss is NaN after 200 steps; the required batch size is 32",
    # "no" before memory that is not a shortage.
    "Warning: no more data in the memory-mapped file reader, stopping",
    # A host usage line below the line.
    "CPU Virtual Memory:  used = 20.00 GB, percent = 62.5%",
])
def test_stays_not_found(text: str) -> None:
    assert not diagnose_text(text).found_oom


# georgeguimaraes/soothsayer#6 (EXLA's pool at 0.9 of an RTX 4090, then cuDNN's handle).
XLA_POOL_THEN_CUDNN = (
    "13:32:23.292 [info] XLA service 0x7eeec81c2900 initialized for platform CUDA (this does not guarantee that XLA "
    "will be used). Devices:\n"
    "13:32:23.292 [info]   StreamExecutor device (0): NVIDIA GeForce RTX 4090, Compute Capability 8.9\n"
    "13:32:23.292 [info] Using BFC allocator.\n"
    "13:32:23.292 [info] XLA backend allocating 22816161792 bytes on device 0 for BFCAllocator.\n"
    "13:32:23.430 [error] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n"
    "13:32:23.430 [error] Memory usage: 433717248 bytes free, 25351290880 bytes total.")
# JuliaGPU/AMDGPU.jl#938 (the C reproducer on a 128 GiB MI300A).
STREAM_POOL = ("./test-hipMalloc \nDevice: AMD Instinct MI300A  arch: gfx942:sramecc+:xnack-\n\n"
               "[hipMalloc]             OK\n[hipMallocAsync]        out of memory\n"
               "[hipMallocFromPoolAsync] out of memory")


def test_xla_pool_is_not_the_request() -> None:
    report = parse_text(XLA_POOL_THEN_CUDNN)
    assert report.requested_bytes is None  # the pool created at start is not the failing request


def test_xla_pool_before_library_is_preallocation() -> None:
    d = diagnose_text(XLA_POOL_THEN_CUDNN)
    assert d.top is not None and d.top.id == "preallocation"
    assert d.top.evidence["xla_pool_bytes"] == 22816161792


def test_small_xla_pool_keeps_its_reading() -> None:
    # A pool of a tenth of the device did not take the memory the library needed.
    text = XLA_POOL_THEN_CUDNN.replace("22816161792", "2535129088")
    d = diagnose_text(text)
    assert d.top is not None and d.top.id != "preallocation"


def test_stream_pool_refused_with_plain_ok() -> None:
    d = diagnose_text(STREAM_POOL)
    assert d.top is not None and d.top.id == "not_capacity"
    assert d.top.evidence["not_capacity_kind"] == "stream_ordered_refused"  # rules/runtime_refusals.py
    assert d.top.evidence["deciding_check"] == "driver_version"


def test_stream_pool_refused_alone_stays_a_shortage() -> None:
    # Without the plain call succeeding, nothing shows that the memory was there.
    text = "[hipMalloc]             out of memory\n[hipMallocAsync]        out of memory"
    d = diagnose_text(text)
    assert d.top is not None and d.top.evidence.get("not_capacity_kind") != "stream_ordered_refused"
