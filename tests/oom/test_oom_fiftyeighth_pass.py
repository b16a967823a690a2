"""Fifty-eighth pass (issue 28): misses of fresh-73..78 read in their runtime's own words.

* vLLM's start-up free-memory check as users quote it in short, "Free memory on cuda:0 (F/T GiB) < desired utilization
  (U, B GiB)": the same figures as "... on startup is less than desired GPU memory utilization (U, B GiB)";
* PaddlePaddle's GpuMaxChunkSize check in its strict form, "enforce allocating < available failed, A >= F": the
  up-front chunk larger than what is free (``preallocation``), as its "<=" form already was;
* darknet's advice printed when a cudaMalloc of a layer's array fails, "Try to set subdivisions=64 in your cfg-file.":
  an allocation failure even when the status line is left out;
* OpenCL's status -4 (CL_MEM_OBJECT_ALLOCATION_FAILURE) as a number after the call that returned it;
* DyNet's CPU allocator, "CPU memory allocation failed n=N align=A": host RAM, with the request N;
* DyNet's fixed pools, "... is out of memory, try increasing with --dynet-mem (current capacity: N)": the framework's
  own pool sized by the user's setting (``per_process_cap``);
* TensorRT-LLM's block manager, "Can't allocate new blocks. No free blocks left.": the paged KV pool too small for
  the batch it serves (``kv_cache_budget``);
* a per-allocation limit refusing a request larger than the whole device: the request beyond the device leads;
* TensorFlow's "Failed to get convolution algorithm. This is probably because cuDNN failed to initialize": its cuDNN
  handle failing, read as "Could not create cudnn handle" is.

Every positive text is a real message quoted from the public thread named in its comment; the negatives must stay
"not found" or keep their reading."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers.detect import parse_text
from gpudesk.oom.parsers.generic import RUNTIME_ALLOC_STATUS


def _top(text: str) -> tuple[str, object, float]:
    d = diagnose_text(text)
    assert d.found_oom and d.top is not None
    return d.top.id, d.top.evidence.get("deciding_check"), d.top.confidence


# rwlove/home-ops#13221 (a second vLLM instance on a shared GPU, quoted by the PR's author).
VLLM_SHORT = "Free memory on cuda:0 (38.74/121.63 GiB) < desired utilization (0.35, 42.57 GiB)"


def test_vllm_short_free_memory_check_is_read() -> None:
    report = parse_text(VLLM_SHORT)
    assert report.kind == "engine_startup_free"
    assert report.parsed["gpu_memory_utilization"] == 0.35
    free = report.parsed["free_at_start_bytes"]
    assert isinstance(free, int) and abs(free - 38.74 * 2**30) < 2**20
    assert _top(VLLM_SHORT)[0] == "other_process"
    # The long form keeps its reading; a "<" between other words is not the check.
    long_form = ("ValueError: Free memory on device cuda:0 (1.53/22.05 GiB) on startup is less than desired GPU memory "
                 "utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
                 "processes.")
    assert parse_text(long_form).kind == "engine_startup_free"
    assert not diagnose_text("Free memory on the desk (3/4 drawers) < desired tidiness").found_oom


# PaddlePaddle/Paddle#6265 (the developer's unit-test run after the allocator's defaults changed).
PADDLE_STRICT = ("242: EnforceNotMet: enforce allocating < available failed, 11475179929 >= 11156224154\n"
                 "242:  at [/home/xxx/github/myfork/Paddle/paddle/platform/gpu_info.cc:90]\n"
                 "242: PaddlePaddle Call Stacks: \n"
                 "242: 1       0x7f025b0360bbp paddle::platform::GpuMaxChunkSize() + 763")


def test_paddle_strict_chunk_check_is_preallocation() -> None:
    report = parse_text(PADDLE_STRICT)
    assert report.parsed.get("requested_bytes") == 11475179929
    assert report.parsed.get("free_bytes") == 11156224154
    assert _top(PADDLE_STRICT)[:2] == ("preallocation", "preallocation")
    # Another enforce on the same comparison words is not the chunk check.
    assert not diagnose_text("EnforceNotMet: enforce index < size failed, 12 >= 10").found_oom


def test_paddle_preallocation_check_names_paddles_flag() -> None:
    """qa51 D4: the check beside Paddle's preallocation names Paddle's switch, not JAX's or TensorFlow's (en, zh_CN,
    and the message cut after its first line)."""
    from gpudesk import i18n
    before = i18n.current_language()
    tops = []
    try:
        for language in ("en", "zh_CN"):
            i18n.set_language(language)
            for text in (PADDLE_STRICT, PADDLE_STRICT.splitlines()[0]):
                tops.append(diagnose_text(text).top)
    finally:
        i18n.set_language(before)
    for top in tops:
        assert top is not None and top.id == "preallocation"
        shown = " ".join([str(top.evidence.get("check_command")), *top.checks])
        assert "FLAGS_allocator_strategy=auto_growth" in shown
        assert "XLA_PYTHON_CLIENT" not in shown and "TF_FORCE_GPU_ALLOW_GROWTH" not in shown


# pjreddie/darknet#2146 (AlexeyAB's fork at 608x608 on a 4 GB card).
DARKNET = ("608 x 608 \n Try to set subdivisions=64 in your cfg-file. \nCUDA status Error: file: ./src/dark_cuda.c : () "
           ": line: 373 : build time: Apr  1 2020 - 19:18:55")


def test_darknet_subdivisions_advice_is_an_allocation_failure() -> None:
    assert RUNTIME_ALLOC_STATUS.search(DARKNET)
    cause, _check, confidence = _top(DARKNET)
    assert cause == "genuine_shortage" and confidence <= 0.5  # figureless
    # The setting named in prose or a cfg line is not the advice.
    for text in ("subdivisions=64", "I set subdivisions=64 in my cfg file and it trains fine"):
        assert RUNTIME_ALLOC_STATUS.search(text) is None, text


# mbevand/silentarmy#59 (the title).
OPENCL = "sa-solver clEnqueueNDRangeKernel (-4) error"


def test_opencl_status_minus_four_is_an_allocation_failure() -> None:
    for text in (OPENCL, "clCreateBuffer returned -4", "clEnqueueWriteBuffer failed: -4"):
        assert RUNTIME_ALLOC_STATUS.search(text), text
    cause, _check, confidence = _top(OPENCL)
    assert cause == "genuine_shortage" and confidence <= 0.5
    # Other statuses, other numbers, and words that only start with "cl" are not read.
    for text in ("sa-solver clEnqueueNDRangeKernel (-5) error", "clBuildProgram returned -45",
                 "clFinish (-44) error", "the cluster (-4) error", "clCreateBuffer returned -4.5"):
        assert RUNTIME_ALLOC_STATUS.search(text) is None, text
    assert not diagnose_text("clBuildProgram returned -11").found_oom


# clab/dynet#983 (DyNet from Python on the CPU; the reporter's bold markers removed).
DYNET_CPU = ("CPU memory allocation failed n=2097152000 align=32\nException in thread Thread-1:\n"
             "Traceback (most recent call last):\n"
             "  File \"_dynet.pyx\", line 5235, in _dynet.Trainer.update\nRuntimeError: CPU memory allocation failed")


def test_dynet_cpu_allocator_is_host_ram() -> None:
    assert parse_text(DYNET_CPU).requested_bytes == 2097152000
    assert _top(DYNET_CPU)[:2] == ("not_capacity", "host_ram")
    # A GPU named beside it is device memory, not the host's.
    d = diagnose_text("GPU memory allocation failed n=2097152000 align=256 on CUDA device 0")
    assert not d.found_oom or (d.top is not None and d.top.evidence.get("deciding_check") != "host_ram")


# clab/dynet#292 (DyNet's C++ API, February 2017).
DYNET_POOL = "dynet is out of memory, try increasing with --dynet-mem (current capacity: 178257920)\nAborted"


def test_dynet_pool_is_its_own_setting() -> None:
    d = diagnose_text(DYNET_POOL)
    assert d.top is not None and d.top.id == "per_process_cap"
    assert d.top.evidence.get("configured_limit_bytes") == 178257920
    assert "--dynet-mem" in d.top.fix
    assert 0.7 <= d.top.confidence < 0.9  # the setting is named; its size against the device is not known
    # The named-pool form of the same message (dynet/aligned-mem-pool.cc after February 2017).
    named = ("GPU forward memory is out of memory, try increasing with --dynet-mem (current capacity: 536870912). See "
             "http://dynet.readthedocs.io/en/latest/commandline.html for details.")
    assert _top(named)[0] == "per_process_cap"
    # DyNet's CUDA failure is not its pool setting.
    assert _top("CUDA failure in cudaMalloc(&ptr, n)\nout of memory")[0] != "per_process_cap"


# NVIDIA/TensorRT-LLM#694 (a GPTQ engine built with max_batch_size 128 on 2 x A30).
TRTLLM_BLOCKS = ("[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] Assertion failed: Can't allocate new blocks. No free "
                 "blocks left. (/home/jenkins/agent/workspace/LLM/main/L0_PostMerge/llm/cpp/tensorrt_llm/batch_manager/"
                 "kvCacheManager.cpp:362)\n1       0x557282845de2 tensorrt_llm::common::throwRuntimeError(char const*, "
                 "int, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) + 100\n"
                 "2       0x7f5884df817a tensorrt_llm::batch_manager::kv_cache_manager::BlockManager::allocateBlock("
                 "tensorrt_llm::batch_manager::kv_cache_manager::GenerationRequest&, bool) + 954")


def test_trtllm_blocks_exhausted_is_the_kv_budget() -> None:
    report = parse_text(TRTLLM_BLOCKS)
    assert report.engine == "trtllm" and report.kind == "trtllm_kv_blocks_exhausted"
    cause, _check, confidence = _top(TRTLLM_BLOCKS)
    assert cause == "kv_cache_budget" and confidence < 0.9  # no pool figures in the text
    # "No free blocks left" from a file system or a block allocator elsewhere is not TensorRT-LLM's KV cache.
    assert not diagnose_text("copyblock : blocknr 12 no free blocks left on device 1").found_oom


# intel/ipex-llm#11798 (vLLM's torch SDPA backend on Arc A770; cut at "al" in the stored excerpt).
IPEX_BEYOND = ("  File \"/llm/vllm/vllm/model_executor/layers/attention/backends/torch_sdpa.py\", line 94, in forward\n"
               "    out = torch.nn.functional.scaled_dot_product_attention(\n"
               "RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB! Tried to "
               "allocate 40.00 GiB (GPU  0; 15.11 GiB total capacity; 10.03 GiB al")


def test_limit_refusing_more_than_the_device_holds() -> None:
    d = diagnose_text(IPEX_BEYOND)
    ids = [c.id for c in d.causes]
    assert ids[0] == "single_allocation_exceeds_capacity"
    # The per-allocation limit is still named, below it.
    assert any(c.id == "not_capacity" and c.evidence.get("deciding_check") == "buffer_limit" for c in d.causes[1:])
    # Under the device's memory, the limit leads as before (intel/intel-extension-for-pytorch#492).
    below = ("RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB! Tried to "
             "allocate 7.62 GiB (GPU  0; 15.11 GiB total capacity; 334.79 MiB already allocated; 474.00 MiB reserved "
             "in total by PyTorch)")
    assert _top(below)[:2] == ("not_capacity", "buffer_limit")


# tensorflow/tensorflow#37559 (TF 2.1 on an RTX 2070, fixed by TF_FORCE_GPU_ALLOW_GROWTH=true).
TF_CONV = ("tensorflow.python.framework.errors_impl.UnknownError:  Failed to get convolution algorithm. This is "
           "probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed "
           "above.")


def test_tensorflow_conv_algorithm_is_the_cudnn_handle() -> None:
    d = diagnose_text(TF_CONV)
    assert d.found_oom and d.top is not None
    assert (d.top.id, d.top.evidence.get("deciding_check")) == ("preallocation", "preallocation")
    assert d.top.confidence <= 0.7  # a library start that failed: the driver / version reading stays in the list
    assert any(c.evidence.get("deciding_check") == "driver_version" for c in d.causes)
    # "Failed to get convolution algorithm" alone names no cause and is not read.
    assert not diagnose_text("Failed to get convolution algorithm for this layer shape").found_oom
