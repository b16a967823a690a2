"""Mechanisms read from the wording rather than from one case (issue 28, fresh-set misses)."""

from __future__ import annotations

from gpudesk.oom.diagnose import diagnose_text


def _ids(text: str) -> list[str]:
    return [c.id for c in diagnose_text(text).causes]


def test_xla_autotuner_failure_reads_as_preallocation_before_a_library_mismatch():
    # jax#8506 / elixir-nx/nx#1000: the handle was created; the autotuner's scratch memory was not there.
    for text in ("RuntimeError: UNKNOWN: Failed to determine best cudnn convolution algorithm",
                 "Failed to determine best cudnn convolution algorithm"):
        ids = _ids(text)
        assert ids[0] == "preallocation", ids
        assert "not_capacity" in ids[1:]
    # A handle that could not be created at all keeps the library reading first under JAX.
    init = _ids("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.")
    assert init[0] == "not_capacity"


def test_cache_smaller_than_the_request_on_a_full_device_is_the_jobs_need():
    # OPIXray#5: 264 MiB refused on a 2 GiB GPU with 256 MiB cached: no cached block could have served it.
    text = ("CUDA out of memory. Tried to allocate 264.00 MiB (GPU 0; 2.00 GiB total capacity; 788.51 MiB already "
            "allocated; 145.93 MiB free; 1.02 GiB reserved in total by PyTorch)")
    assert _ids(text)[0] == "genuine_shortage"
    # The same shape with the cache covering the request stays fragmentation (Vad-R1#11-like figures, in the wording of
    # an allocator with max_split_size_mb: before 1.10 a cache smaller than the live tensors is the job's peak,
    # tests/oom/test_oom_fifteenth_pass.py).
    frag = ("CUDA out of memory. Tried to allocate 14.06 GiB (GPU 0; 79.15 GiB total capacity; 57.00 GiB already "
            "allocated; 6.96 GiB free; 71.15 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
            "memory try setting max_split_size_mb to avoid fragmentation.")
    assert _ids(frag)[0] == "fragmentation"


def test_single_listed_process_holding_all_used_memory_is_this_process():
    # vllm#1949, cut before the allocator figures: Process 2722 holds every used byte, none is left for the
    # process that raised the error, so it is that process under its host PID, not another one.
    text = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacty "
            "of 23.64 GiB of which 1.42 GiB is free. Process 2722 has 22.22 GiB memory in use. Of the allocate")
    d = diagnose_text(text)
    assert d.report.device is not None and d.report.device.other_processes[0].is_target
    assert d.top is not None and d.top.id != "other_process"
    # Another process that leaves room for this one's context stays another process.
    other = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacty "
             "of 23.64 GiB of which 1.42 GiB is free. Process 2722 has 18.00 GiB memory in use. Of the allocate")
    assert not diagnose_text(other).report.device.other_processes[0].is_target


def test_sigkill_reads_as_the_host_oom_killer_with_its_check():
    for text in ("Killed", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: exitcode: -9",
                 "subprocess.CalledProcessError: Command died with <Signals.SIGKILL: 9>."):
        d = diagnose_text(text)
        assert d.found_oom and d.top is not None and d.top.id == "not_capacity", text
        assert d.top.evidence["deciding_check"] == "host_ram" and "dmesg" in d.top.evidence["check_command"]
    # Its own out-of-memory words decide instead of the kill that followed.
    d = diagnose_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\nKilled")
    assert d.top is not None and d.top.evidence.get("not_capacity_kind") != "oom_killer"


def test_streamexecutor_host_allocation_is_pinned_memory():
    text = ("E external/xla/xla/stream_executor/cuda/cuda_driver.cc:1030] failed to alloc 34359738368 bytes on host: "
            "CUDA_ERROR_OUT_OF_MEMORY: out of memory")
    top = diagnose_text(text).top
    assert top is not None and top.id == "not_capacity" and top.evidence["deciding_check"] == "pin_memory"


def test_no_free_figure_bounds_free_memory_by_the_live_tensors():
    # Intel's XPU allocator prints no free figure; 13.2 of 15.56 GiB live leaves at most 2.36 GiB for a 2 GiB request.
    text = ("XPU out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.56 GiB total capacity; 13.20 GiB already "
            "allocated; 13.50 GiB reserved in total by PyTorch)")
    d = diagnose_text(text)
    dev = d.report.device
    assert d.top is not None and d.top.id == "genuine_shortage" and dev is not None
    assert dev.total_bytes is not None and dev.allocated_bytes is not None
    assert d.top.evidence["headroom_upper_bound_bytes"] == dev.total_bytes - dev.allocated_bytes
    # Little held (IPEX#629's shape) leaves the reading to the not-capacity rule instead.
    held_little = ("XPU out of memory. Tried to allocate 1.00 GiB (GPU 0; 15.56 GiB total capacity; 990.00 MiB already "
                   "allocated; 990.00 MiB reserved in total by PyTorch)")
    assert diagnose_text(held_little).top.id == "not_capacity"


def test_bfc_line_without_its_stats_block_is_a_shortage_not_a_partial_message():
    text = ("W external/xla/xla/tsl/framework/bfc_allocator.cc:482] Allocator (GPU_0_bfc) ran out of memory trying "
            "to allocate 4.00GiB (rounded to 4294967296)requested by op")
    top = diagnose_text(text).top
    assert top is not None and top.id == "genuine_shortage"


def test_vllm_startup_free_memory_check():
    # vllm/v1/worker/gpu_worker.py: the free memory before loading is below utilization x total.
    held = diagnose_text("ValueError: Free memory on device (10.5/79.2 GiB) on startup is less than desired GPU memory "
                         "utilization (0.9, 71.3 GiB). Decrease GPU memory utilization or reduce GPU memory used by "
                         "other processes.")
    assert held.found_oom and held.top is not None and held.top.id == "other_process"
    assert held.top.evidence["free_at_start_bytes"] == int(10.5 * 1024**3)
    assert "0.13" in held.top.fix
    budget = diagnose_text("ValueError: Free memory on device (76.0/79.2 GiB) on startup is less than desired GPU "
                           "memory utilization (0.98, 77.6 GiB).")
    assert budget.top is not None and budget.top.id == "kv_cache_budget" and "0.95" in budget.top.fix


def test_new_wordings_with_their_mechanism():
    cases = {
        "RuntimeError: Invalid buffer size: 18.00 GB": ("not_capacity", "buffer_limit"),
        "[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'": ("not_capacity", "buffer_limit"),
        "std::runtime_error: [metal::malloc] Resource limit (499000) exceeded.": ("not_capacity", "buffer_limit"),
        "Memory access fault by GPU node-1 (Agent handle: 0x55d0c0c0) on address 0x7f0000000000. Reason: Page not "
        "present or supervisor privilege.": ("not_capacity", "illegal_address"),
        "RuntimeError: CUDA error: misaligned address": ("not_capacity", "illegal_address"),
    }
    for text, (cause, check) in cases.items():
        top = diagnose_text(text).top
        assert top is not None and top.id == cause and top.evidence["deciding_check"] == check, text
    for text in ("RuntimeError: Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES)",
                 "vkAllocateMemory failed -2",
                 "InternalError: Failed copying input tensor from /job:localhost/replica:0/task:0/device:CPU:0 to "
                 "/job:localhost/replica:0/task:0/device:GPU:0 in order to run _EagerConst: Dst tensor is not "
                 "initialized."):
        assert diagnose_text(text).found_oom, text


def test_host_kill_and_enomem_wordings():
    for text in ("Error: llama runner process has terminated: signal: killed", "exited with code 137",
                 "[launch.py:316:sigkill_handler] ['/usr/bin/python', '-u', 'train.py'] exits with return code = -9"):
        top = diagnose_text(text).top
        assert top is not None and top.evidence.get("not_capacity_kind") == "oom_killer", text
    for text in ("Last State: Terminated\n      Reason: OOMKilled\n      Exit Code: 137",
                 "OSError: [Errno 12] Cannot allocate memory", "Your session crashed after using all available RAM."):
        top = diagnose_text(text).top
        assert top is not None and top.id == "not_capacity" and top.evidence["not_capacity_kind"] == "host_ram", text


def test_out_of_memory_while_creating_the_cuda_context_reads_as_another_holder():
    text = ("RuntimeError: CUDA error: out of memory\n  File \"/usr/lib/python3/site-packages/torch/cuda/__init__.py\", "
            "line 293, in _lazy_init\n    torch._C._cuda_init()")
    top = diagnose_text(text).top
    assert top is not None and top.id == "other_process"


def test_mindspore_pool_wording_is_recognised():
    text = ("Device(id:0) memory isn't enough and alloc failed, kernel name: Default/network/MatMul-op1, alloc size: "
            "1073741824B.")
    assert diagnose_text(text).found_oom


def test_sglang_capture_failure_is_cuda_graph_capture():
    text = ("Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total "
            "capacity of 79.10 GiB of which 300.00 MiB is free.")
    assert diagnose_text(text).report.graph_capture


def test_vllm_startup_check_that_names_the_device():
    # pytorch/pytorch#175666: newer vLLM prints the device in the same check.
    d = diagnose_text("ValueError: Free memory on device cuda:1 (19.77/22.05 GiB) on startup is less than desired GPU "
                      "memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used "
                      "by other processes.")
    assert d.report.kind == "engine_startup_free" and d.top is not None and d.top.id == "other_process"


def test_ggml_metal_failed_command_buffer_is_recognised():
    d = diagnose_text("ggml_metal_graph_compute: command buffer 0 failed with status 5")
    assert d.found_oom and d.top is not None and d.top.id == "genuine_shortage"


def test_a_refused_virtual_address_reservation_is_not_capacity():
    # llama.cpp's VMM pool (ggml_cuda_pool_vmm) reserves its range with cuMemAddressReserve (llama.cpp#4680).
    text = ("CUDA error: out of memory\n  current device: 0, in function ggml_cuda_pool_vmm::alloc at ggml-cuda.cu:8589\n"
            "  cuMemAddressReserve(&pool_addr, CUDA_POOL_VMM_MAX_SIZE, 0, 0, 0)\nGGML_ASSERT: ggml-cuda.cu:243: !\"CUDA error\"")
    top = diagnose_text(text).top
    assert top is not None and top.id == "not_capacity"
    assert (top.evidence["not_capacity_kind"], top.evidence["deciding_check"]) == ("va_reserve", "free_exceeds_request")
    assert "GGML_CUDA_POOL_VMM_MAX_SIZE" in top.fix
    # The physical allocation of the same pool (cuMemCreate) is memory: not this reading.
    create = diagnose_text(text.replace("cuMemAddressReserve(&pool_addr, CUDA_POOL_VMM_MAX_SIZE, 0, 0, 0)",
                                        "cuMemCreate(&handle, reserve_size, &prop, 0)")).top
    assert create is not None and create.evidence.get("not_capacity_kind") != "va_reserve"


def test_cupy_pinned_staging_buffer_is_pinned_host_memory_with_cupys_fix():
    text = ("  File \"cupy/cuda/pinned_memory.pyx\", line 186, in cupy.cuda.pinned_memory.alloc_pinned_memory\n"
            "  File \"cupy/cuda/runtime.pyx\", line 215, in cupy.cuda.runtime.check_status\n"
            "cupy.cuda.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory")
    top = diagnose_text(text).top
    assert top is not None and top.evidence.get("not_capacity_kind") == "pin_memory"
    assert "pinned_memory_pool" in top.fix and "DataLoader" not in top.fix
    # Without the pinned frames the same line is device memory.
    bare = diagnose_text("cupy.cuda.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory").top
    assert bare is not None and bare.evidence.get("not_capacity_kind") != "pin_memory"


def test_free_just_above_the_request_beside_a_large_in_use_figure_is_a_full_device():
    # PaddleVideo#502 (seen after fresh-9 was scored): 80 MB refused with 108.75 MB free and 10.65 GB in use.
    text = ("Out of memory error on GPU 0. Cannot allocate 80.000000MB memory on GPU 0, 10.647278GB memory has been "
            "allocated and available memory is only 108.750000MB.")
    top = diagnose_text(text).top
    assert top is not None and top.id == "genuine_shortage"
    # Free memory many times the request is not this reading.
    roomy = text.replace("108.750000MB", "2048.000000MB")
    assert all(c.id != "genuine_shortage" or c.confidence < 0.6 for c in diagnose_text(roomy).causes)


def test_faiss_scratch_reservation_reads_as_an_up_front_reservation_with_its_own_check():
    text = ("Faiss assertion 'err == cudaSuccess' failed in faiss::gpu::StackDeviceMemory::Stack::Stack(int, size_t) "
            "at utils/StackDeviceMemory.cpp:33")
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom
    top = diagnosis.top
    assert top is not None and top.id == "preallocation"
    assert "setTempMemory" in top.evidence["check_command"] and "XLA" not in top.checks[0]
