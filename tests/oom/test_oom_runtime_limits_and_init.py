"""Fifth pass (issue 28): mechanisms the held-back batch fresh-6 showed, fixed as classes rather than wordings: a
runtime's own per-allocation limit stated in words, a runtime's check of the model against system RAM, a runtime's
start-up failing, cuDNN/cuBLAS handles created eagerly by frameworks without a pool, host memory registered
(page-locked) for the GPU, and device figures no device can hold. Every text is a real message quoted from the public
thread named in its comment."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.parsers.generic import MAX_PLAUSIBLE_DEVICE_BYTES, extract
from gpudesk.oom.signatures import LIBRARY_CHECK

GiB = 1024**3


def _top(text: str) -> tuple[str, str | None, str | None]:
    cause = diagnose_text(text).causes[0]
    return cause.id, cause.evidence.get("not_capacity_kind"), cause.evidence.get("deciding_check")


def test_a_runtime_stating_its_per_allocation_limit_is_that_limit_with_the_figure_read():
    # intel/ipex-llm#11248: fixed by keeping one block under the 4 GB single-allocation limit.
    text = "can NOT allocate memory block with size larger than 4GB"
    assert _top(text) == ("not_capacity", "buffer_limit", "buffer_limit")
    assert parse_text(text).parsed["buffer_limit_bytes"] == 4 * GiB


def test_a_runtime_checking_the_model_against_system_ram_is_host_memory():
    # ollama/ollama#10920 (a 16 GB board) and continuedev/continue#9668 (maintainer: more RAM than the system has).
    for text in ("Error: model requires more system memory (164.8 GiB) than is available (13.4 GiB)",
                 '"model requires more system memory (19.3 GiB) than is available (14.8 GiB)"'):
        assert _top(text) == ("not_capacity", "host_ram", "host_ram")


def test_a_runtime_start_up_failure_without_memory_words_is_recognised_and_ranked_honestly():
    # mindspore-lab/mindyolo#236: the NPU's memory was held when MindSpore's runtime opened the device.
    d = diagnose_text("RuntimeError: Ascend kernel runtime initialization failed. The details refer to "
                      "'Ascend Error Message'.")
    assert d.found_oom
    assert [c.id for c in d.causes[:2]] == ["other_process", "not_capacity"]
    assert d.causes[0].confidence < 0.8  # no memory word in the text: not the confident context reading


def test_cudnn_not_initialized_from_an_eagerly_initialising_framework_is_a_library_mismatch_first():
    # karpathy/neuraltalk2#122 (Torch7: cuDNN 5.0.5 replaced by 5.1.3) and NVIDIA/gpu-rest-engine#23 (Caffe in
    # Docker: the image's cuDNN fixed).
    for text in ("Error in CuDNN: CUDNN_STATUS_NOT_INITIALIZED",
                 "Check failed: status == CUDNN_STATUS_SUCCESS (1 vs. 0) CUDNN_STATUS_NOT_INITIALIZED"):
        cause = diagnose_text(text).causes[0]
        assert (cause.id, cause.evidence["deciding_check"]) == ("not_capacity", "driver_version")
        assert cause.evidence["check_command"] == LIBRARY_CHECK.command
        assert diagnose_text(text).causes[1].id == "genuine_shortage"


def test_the_bare_tensorflow_status_still_reads_as_preallocation():
    # The status alone, as clipped from TensorFlow's StreamExecutor log (tensorflow#14345, whose status is cuBLAS's
    # ALLOC_FAILED): no eager caller's words. (cuDNN's NOT_INITIALIZED alone reads as the library's start since the
    # forty-third pass: tests/oom/test_oom_fortythird_pass.py.)
    assert _top("CUBLAS_STATUS_ALLOC_FAILED")[0] == "preallocation"
    assert _top("CUDNN_STATUS_ALLOC_FAILED")[0] == "preallocation"


def test_mxnet_cublas_handle_failure_is_recognised_and_read_as_the_jobs_need():
    # awslabs/sockeye#897 (MXNet): resolved by a smaller model.
    d = diagnose_text("Check failed: err == CUBLAS_STATUS_SUCCESS (1 vs. 0) : Create cublas handle failed")
    assert d.found_oom and d.causes[0].id == "genuine_shortage"


def test_host_memory_registered_for_the_gpu_is_pinned_memory():
    # ROCm/legacy-rocm-build#1483: hipHostRegister refused (a host-registration problem of the application).
    text = (":1:rocdevice.cpp            :1692: 0853955992 us: Failed creating memory\n"
            ":1:memory.cpp               :328 : 0853955996 us: Video memory allocation failed!\n"
            ":1:memory.cpp               :292 : 0853955998 us: Can't allocate memory size - 0x02800000 bytes!\n"
            ":3:hip_memory.cpp           :713 : 0853956016 us: 3463 : [7fd907a1e880] hipHostRegister: Returned "
            "hipErrorOutOfMemory :")
    assert _top(text)[:2] == ("not_capacity", "pin_memory")


def test_a_device_figure_no_device_holds_is_dropped_and_a_tiny_request_leads_to_the_holder_check():
    # PaddlePaddle/PaddleOCR#6197: "127.994262TB" (about 2**47 bytes, an underflowed counter); a leftover Paddle
    # process held the GPU.
    text = ("RuntimeError: ResourceExhaustedError:\n\nOut of memory error on GPU 0. Cannot allocate 2.250000kB memory "
            "on GPU 0, 127.994262TB memory has been allocated and available memory is only 0.000000B.")
    assert extract(text).in_use_bytes is None
    assert "in_use_bytes" not in parse_text(text).parsed
    assert _top(text) == ("other_process", None, "other_process")


def test_a_large_but_real_device_figure_is_kept():
    # 80 GiB in use on an 80 GB card stays a reading (PaddlePaddle's wording with a plausible figure).
    text = ("Out of memory error on GPU 0. Cannot allocate 1.000000GB memory on GPU 0, 79.000000GB memory has been "
            "allocated and available memory is only 200.000000MB.")
    assert extract(text).in_use_bytes == 79 * GiB
    assert 79 * GiB < MAX_PLAUSIBLE_DEVICE_BYTES


def test_a_large_request_with_plenty_already_held_stays_the_jobs_own_need():
    # The tiny-request rule leaves a real request alone (PyTorch summary: the job's own allocations fill the GPU).
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 290.00 MiB (GPU 0; 31.75 GiB total capacity; "
            "29.78 GiB already allocated; 113.50 MiB free; 30.27 GiB reserved in total by PyTorch)")
    assert _top(text)[0] == "genuine_shortage"


def test_windows_commit_limit_in_any_wording_is_host_memory():
    # Comfy-Org/ComfyUI#7069 (set the page file to system-managed), YYuX-1145/Bert-VITS2-Integration-package#5 (fewer
    # workers), cszn/KAIR#127 (fewer workers, pin_memory=False): Windows system error 1455.
    for text in ("showing error  ( os error 1455 )\nthe paging file is too small for this operation to complete",
                 "OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading \"D:\\Bert-VITS2-Integration-Package\\venv"
                 "\\lib\\site-packages\\torch\\lib\\cublas64_11.dll\" or one of its dependencies.",
                 "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "
                 "\"D:\\Anaconda\\envs\\swin-train\\lib\\site-packages\\torch\\lib\\shm.dll\" or one of its dependencies."):
        assert _top(text) == ("not_capacity", "host_ram", "host_ram")


def test_a_memory_error_about_device_memory_is_the_device():
    # keras-team/keras#1548: Theano's MemoryError for a GPU array on a 2 GB card (a Theano developer: the model is too
    # big for the card).
    text = ("MemoryError: ('Error allocating 255974400 bytes of device memory (out of memory).', \"you might consider "
            "using 'theano.shared(..., borrow=True)'\")")
    assert _top(text)[0] != "not_capacity"
    # taolei87/rcnn#5: Theano on the CPU (TensorType) raising MemoryError: host RAM.
    cpu = ("MemoryError: failed to alloc sm output\nInputs types: [TensorType(float64, matrix), "
           "TensorType(float64, vector), TensorType(int32, vector)]")
    assert _top(cpu)[:2] == ("not_capacity", "host_ram")


def test_xgboost_figures_are_read_and_free_memory_covering_a_bare_error_is_not_capacity():
    # dmlc/xgboost#7140: 47996 bytes refused with 11.3 GB free; the maintainer: the error happened before the
    # allocation (run compute-sanitizer).
    text = ("xgboost.core.XGBoostError: [13:55:26] /workspace/xgboost/src/c_api/../data/../common/device_helpers.cuh:414:"
            " Memory allocation error on worker 0: std::bad_alloc: cudaErrorMemoryAllocation: out of memory\n"
            "- Free memory: 11310923776\n- Requested memory: 47996")
    report = parse_text(text)
    assert (report.requested_bytes, report.device.free_bytes) == (47996, 11310923776)
    causes = diagnose_text(text).causes
    assert (causes[0].id, causes[0].evidence["not_capacity_kind"]) == ("not_capacity", "free_exceeds_request")
    assert "illegal_address" in [c.evidence.get("not_capacity_kind") for c in causes[1:3]]
    # dmlc/xgboost#8484: 32 MiB refused with 7.75 MiB free: the free figure does not cover it, no such reading.
    short = ("../src/tree/updater_gpu_hist.cu:784: Exception in gpu_hist: [11:01:50] ../src/c_api/../data/../common/"
             "device_helpers.cuh:431: Memory allocation error on worker 0: std::bad_alloc: cudaErrorMemoryAllocation: "
             "out of memory\n- Free memory: 8126464\n- Requested memory: 33554432\n")
    assert parse_text(short).requested_bytes == 33554432
    assert diagnose_text(short).causes[0].id != "not_capacity"
