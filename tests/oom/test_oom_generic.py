"""The tolerant extraction layer (gpudesk.oom.parsers.generic) and the signatures that decide what kind of
failure a text is (gpudesk.oom.signatures): figures in any unit and wording, runtime, backend, MIG, frames, and the
not-capacity branch with the check that tells each cause apart."""

from __future__ import annotations


import pytest

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.parsers.generic import extract
from gpudesk.oom.signatures import check_command, classify

GiB = 1024**3
MiB = 1024**2


@pytest.mark.parametrize(("text", "expected"), [
    ("Failed to allocate memory for requested buffer of size 2830172160", 2830172160),
    ("ggml_vulkan: Device memory allocation of size 118497280 failed.", 118497280),
    ("allocating 24289.03 MiB on device 0: cudaMalloc failed: out of memory", round(24289.03 * MiB)),
    ("Requested amount of GPU memory (22649242112 bytes) could not be allocated", 22649242112),
    ("RESOURCE_EXHAUSTED: Failed to allocate request for 176.00MiB (184549376B) on device ordinal 0", 176 * MiB),
    ("Out of memory allocating 805,306,368 bytes (allocated so far: 536,870,912 bytes)", 805306368),
    ("DefaultCPUAllocator: not enough memory: you tried to allocate 5077901088 bytes.", 5077901088),
    ("Attempting to allocate 180.59M. That was not possible. There are 142.58M free.", round(180.59 * MiB)),
    ("CUDA out of memory. Tried to allocate more than 1EB memory", 1024**6),
    ("Could not allocate tensor with 2025000000 bytes. There is not enough GPU video memory available!", 2025000000),
])
def test_request_in_any_wording_and_unit(text, expected):
    assert extract(text).requested_bytes == expected


def test_capacity_free_and_in_use_figures():
    xla = extract("Ran out of memory in memory space hbm. Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G.")
    assert xla.total_bytes == round(15.48 * GiB) and xla.in_use_bytes == round(21.95 * GiB)
    assert xla.exceeded_bytes == round(6.47 * GiB)
    ggml = extract("ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)")
    assert ggml.total_bytes == 110511 * MiB and ggml.free_bytes == 110357 * MiB
    tpu = extract("Attempting to reserve 3.95G at the bottom of memory. There are 1.92G free, 0B reserved.\n"
                  "HBM capacity 8.00G:")
    assert tpu.requested_bytes == round(3.95 * GiB) and tpu.free_bytes == round(1.92 * GiB)
    assert tpu.total_bytes == 8 * GiB
    assert extract("Memory usage: 2624061440 bytes free, 12524191744 bytes total.").total_bytes == 12524191744


def test_runtime_backend_mig_and_frames():
    ex = extract("onnxruntime::BFCArena::AllocateRawInternal Failed to allocate memory")
    assert ex.runtime == "onnxruntime" and ex.backend is None
    assert extract("ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory").backend == "vulkan"
    assert extract("XLA:TPU compile permanent error. Ran out of memory in memory space hbm.").backend == "tpu"
    assert extract("[METAL] Command buffer execution failed: Insufficient Memory").runtime == "mlx"
    assert extract("GPU 0: NVIDIA A100-SXM4-40GB\n  MIG 3g.20gb     Device  0:").mig_profile == "3g.20gb"
    frames = extract('  File "/vllm/v1/worker/gpu_worker.py", line 588, in compile_or_warm_up_model\n'
                     '    cuda_graph_memory_bytes = self.model_runner.capture_model()')
    assert frames.graph_capture and "/vllm/v1/worker/gpu_worker.py:compile_or_warm_up_model" in frames.frames


def test_unknown_wording_with_a_figure_is_never_not_found():
    # A runtime the doctor has no parser for, in words it has never seen, with a figure in them.
    d = diagnose_text("FooRT error: could not allocate 3.5 GiB on accelerator 0 (out of memory)")
    assert d.found_oom and d.top.id == "genuine_shortage" and d.report.requested_bytes == round(3.5 * GiB)
    assert not diagnose_text("the quick brown fox jumps over 3 lazy dogs").found_oom


def top_platform(text):
    return diagnose_text(text).report.platform


@pytest.mark.parametrize(("text", "check"), [
    ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536.",
     "shared_memory"),
    ("RuntimeError: [enforce fail at alloc_cpu.cpp:72] data. DefaultCPUAllocator: not enough memory: you tried to "
     "allocate 26214400 bytes.", "host_ram"),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory", "absurd_size"),
    ("Failed to allocate memory for requested buffer of size 4585490524328388608", "absurd_size"),
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "ecc"),
    ("NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.", "xid"),
    ("RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", "driver_version"),
    ("RuntimeError: CUDA driver error: out of memory", "expandable_segments"),
    ("ggml_metal_add_buffer: buffer 'data' size 18300780544 is larger than buffer maximum of 17179869184",
     "buffer_limit"),
    ("cpu_buf = torch.empty((1 * GB,), dtype=torch.float16, pin_memory=True)\nRuntimeError: CUDA error: out of memory",
     "pin_memory"),
])
def test_not_capacity_is_said_with_the_deciding_check(text, check):
    top = diagnose_text(text).top
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == check
    assert top.confidence >= 0.9 and check_command(check, top_platform(text)) in " ".join(top.checks)


def test_free_far_above_the_request_is_not_capacity():
    text = (".\\llama-cli.exe --list-devices\n  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 98988.40 MiB on device 0: cudaMalloc failed: "
            "out of memory")
    top = diagnose_text(text).top
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "free_exceeds_request"


def test_bare_cuda_error_gets_a_ranked_set_not_one_confident_answer():
    causes = diagnose_text("RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously "
                           "reported at some other API call").causes
    assert causes[0].confidence <= 0.5
    checks = [c.evidence.get("deciding_check") for c in causes]
    assert {"pin_memory", "other_process", "ecc", "xid"} <= set(checks)
    assert [c.confidence for c in causes] == sorted((c.confidence for c in causes), reverse=True)


def test_a_failed_cuda_context_reads_as_another_process():
    top = diagnose_text("jcuda.CudaException: CUDA_ERROR_OUT_OF_MEMORY\n    at jcuda.driver.JCudaDriver.cuCtxCreate("
                        "JCudaDriver.java:1514)").top
    assert top.id == "other_process" and top.evidence["deciding_check"] == "other_process"


def test_library_init_failure_depends_on_who_preallocates():
    tf = diagnose_text("E tensorflow/stream_executor/cuda/cuda_dnn.cc:328] Could not create cudnn handle: "
                       "CUDNN_STATUS_NOT_INITIALIZED").top
    assert tf.id == "preallocation" and "TF_FORCE_GPU_ALLOW_GROWTH" in tf.fix
    free = diagnose_text("Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\nMemory usage: 16601251840 "
                         "bytes free, 16928342016 bytes total.").top
    assert free.id == "not_capacity" and free.evidence["deciding_check"] == "driver_version"


def test_graph_capture_frames_lead_to_cuda_graph_pools():
    text = ("  File \"/vllm/v1/worker/gpu_worker.py\", line 588, in compile_or_warm_up_model\n"
            "    cuda_graph_memory_bytes = self.model_runner.capture_model()\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total capacity of "
            "22.36 GiB of which 120.88 MiB is free.")
    assert diagnose_text(text).top.id == "cuda_graph_pools"


def test_signature_classification_reads_a_huge_repetitive_paste():
    # Its time bound lives in tests/benchmarks/test_parser_scaling.py (timing checks stay out of make test).
    assert classify("x" * 10) is None
    text = ("allocation of size " * 20000) + "ErrorOutOfDeviceMemory"
    assert parse_text(text) is not None
    extract(text)


def test_words_in_a_traceback_do_not_override_the_allocators_own_message():
    text = ("  File \"train.py\", line 12, in <module>\n    loader = DataLoader(ds, batch_size=64, pin_memory=True)\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.99 GiB of which 1.00 GiB is free. Of the allocated memory 21.50 GiB is allocated by PyTorch, and "
            "0.30 GiB is reserved by PyTorch but unallocated.")
    d = diagnose_text(text)
    assert d.report.signature is None and d.top.id in ("genuine_shortage", "single_allocation_exceeds_capacity")


def test_host_memory_errors_of_any_runtime_are_host_ram():
    for text in ("MemoryError: Unable to allocate 74.5 GiB for an array with shape (100000, 100000) and data type "
                 "float64", "terminate called after throwing an instance of 'std::bad_alloc'",
                 "RuntimeError: DataLoader worker (pid 1234) is killed by signal: Killed.",
                 "java.lang.OutOfMemoryError: Failed to allocate a 96 byte allocation with 2159344 free bytes"):
        top = diagnose_text(text).top
        assert top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram", text
    assert diagnose_text("cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 1073741824 bytes").top.id \
        != "not_capacity"


def test_rocm_gets_rocm_tools_in_its_checks_and_fixes():
    d = diagnose_text("RuntimeError: HIP error: out of memory")
    assert d.report.platform == "rocm"
    text = " ".join(c.fix + " ".join(c.checks) for c in d.causes)
    assert "rocm-smi --showrasinfo all" in text and "nvidia-smi" not in text


def test_a_memory_pools_own_figures_decide_between_its_cache_and_the_request():
    # cupy#7678 (real message): 768 MiB fits the 1 GiB limit alone; the pool's 512 MiB, cache included, is in the way.
    limited = diagnose_text("cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes (allocated "
                            "so far: 536,870,912 bytes, limit set to: 1,073,741,824 bytes).")
    assert limited.top.id == "fragmentation"
    assert limited.top.evidence["pool_held_bytes"] == 536870912 and limited.top.evidence["pool_limit_bytes"] == GiB
    # The same pool, a request above the limit itself: no release of cache helps.
    over = diagnose_text("cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 2,147,483,648 bytes (allocated "
                         "so far: 536,870,912 bytes, limit set to: 1,073,741,824 bytes).")
    assert over.top.id == "single_allocation_exceeds_capacity"
    # cupy#2241 (real message, older wording): "total" is the request plus what the pool held (4096 bytes).
    alone = diagnose_text("cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 200000000000 bytes "
                          "(total 200000004096 bytes)")
    assert alone.top.id == "single_allocation_exceeds_capacity" and alone.top.evidence["pool_held_bytes"] == 4096
    # cupy#1912 (real message): the pool itself holds 11.4 GB of a 12 GB GPU: its own arrays fill it.
    full = diagnose_text("cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 1073741824 bytes "
                         "(total 12373894656 bytes)")
    assert full.top.id == "genuine_shortage"


def test_an_illegal_memory_access_is_not_a_memory_problem_and_names_its_check():
    # vllm-project/vllm#19890 (real message): NCCL reports CUDA error 700, a kernel's bad address.
    text = "enqueue.cc:1556 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'"
    d = diagnose_text(text)
    assert d.found_oom and d.top.id == "not_capacity"
    assert d.top.evidence["deciding_check"] == "illegal_address"
    assert "compute-sanitizer" in d.top.evidence["check_command"]
    # Next to an out-of-memory failure of the text's own, the illegal access is a consequence, not the reading.
    both = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.69 GiB of which 1.10 GiB is free.\nRuntimeError: CUDA error: an illegal memory access was encountered")
    assert classify(both) is None


def test_a_request_figure_next_to_a_failure_is_recognised_in_any_wording():
    # Dhar/image-dreamer#2 (real message): Caffe's host allocation; no "out of memory" in it at all.
    d = diagnose_text("F0707 02:08:35.636888  9679 syncedmem.hpp:27] Check failed: *ptr host allocation of size "
                      "141386560 failed")
    assert d.found_oom and d.report.requested_bytes == 141386560
    assert d.top.id == "not_capacity" and d.top.evidence["deciding_check"] == "host_ram"
    # A size without any failure is not an out-of-memory message.
    assert not diagnose_text("allocation of size 4096 completed in 3 ms").found_oom


def test_pytorchs_caching_host_allocator_is_pinned_memory():
    # nianticlabs/monodepth2#155 (real message): the DataLoader's pin_memory_batch on Windows.
    text = ("THCudaCheck FAIL file=..\\aten\\src\\THC\\THCCachingHostAllocator.cpp line=271 error=2 : out of memory\n"
            "  File \"D:\\Anaconda3\\lib\\site-packages\\torch\\utils\\data\\dataloader.py\", line 133, in "
            "_worker_manager_loop\n    batch = pin_memory_batch(batch)")
    d = diagnose_text(text)
    assert d.top.id == "not_capacity" and d.top.evidence["deciding_check"] == "pin_memory"


def test_tensorflows_own_cudnn_wording_reads_as_tensorflow_preallocation():
    # nickliqian/cnn_captcha#107 (real message, solved with allow_growth): no "tensorflow" in the pasted line.
    d = diagnose_text("Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR")
    assert d.report.runtime == "tensorflow" and d.top.id == "preallocation"
    # PyTorch words the same library failure differently and keeps its own reading.
    torch_side = diagnose_text("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR")
    assert torch_side.top.id != "preallocation"


def test_free_memory_when_tensorflow_started_shows_another_process():
    # tensorflow/tensorflow#8170 (real log): TF logs the device's free memory before it allocates anything.
    text = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 0 with properties: \n"
            "name: GeForce GTX 1080\nmajor: 6 minor: 1 memoryClockRate (GHz) 1.7335\npciBusID 0000:01:00.0\n"
            "Total memory: 7.92GiB\nFree memory: 190.31MiB\n"
            "E tensorflow/stream_executor/cuda/cuda_driver.cc:1002] failed to allocate 190.31M (199557120 bytes) from "
            "device: CUDA_ERROR_OUT_OF_MEMORY")
    d = diagnose_text(text)
    assert d.top.id == "other_process" and d.top.evidence["free_at_start_bytes"] == round(190.31 * MiB)
    # The TF1 wording of the same line (tensorflow#9489): most of the GPU free at start is no such sign.
    roomy = ("totalMemory: 3.94GiB freeMemory: 3.35GiB\n"
             "E tensorflow/stream_executor/cuda/cuda_blas.cc:366] failed to create cublas handle: "
             "CUBLAS_STATUS_NOT_INITIALIZED")
    assert diagnose_text(roomy).top.id != "other_process"


def test_a_named_shape_without_its_clauses_is_read_by_the_tolerant_layer():
    # pytorch/pytorch#33143 (real title): PyTorch's wording, none of its clauses, a size no device has.
    d = diagnose_text("CUDA Out of Memory when trying to allocate 16 EiB")
    assert d.report.requested_bytes == 16 * 1024**6
    assert d.top.id == "not_capacity" and d.top.evidence["deciding_check"] == "absurd_size"
