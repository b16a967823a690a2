"""Mechanisms that recurred across the held-back batches (issue 28, fourth pass): pastes wrapped mid-sentence, PyTorch's
shared-memory tensor files, host allocators named by their source file or wording, device allocators that throw
std::bad_alloc, PaddlePaddle's device-context start-up, cuDNN handles that could not be created (a missing or
mismatched library against memory), TGI's token budget and DataParallel's imbalance warning. Every text is a real
message quoted from the public thread in its comment."""

from __future__ import annotations

import textwrap

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.signatures import CHECKS, LIBRARY_CHECK, flatten_whitespace


def _causes(text: str) -> list[tuple[str, str | None]]:
    return [(c.id, c.evidence.get("not_capacity_kind")) for c in diagnose_text(text).causes]


def test_whitespace_runs_and_line_breaks_flatten_to_one_space():
    assert flatten_whitespace("killed by signal: Bus\nerror. It is possible\t that") == \
        "killed by signal: bus error. it is possible that"


def test_bus_error_wrapped_over_two_lines_is_still_dev_shm():
    # fastai/docker-containers#21 (the paste breaks "Bus error" and "shared memory" across lines; --shm-size fixed it).
    text = ("RuntimeError: DataLoader worker (pid 47) is killed by signal: Bus\nerror. It is possible that dataloader's "
            "workers are out of shared\nmemory. Please try to raise your shared memory limit.")
    assert _causes(text)[0] == ("not_capacity", "dev_shm")


def test_torch_shared_memory_file_errors_are_dev_shm_whatever_follows_the_name():
    # open-mmlab/mmaction2#218 (num_workers=0 made it go; maskrcnn-benchmark#103: out of shared memory).
    opened = "RuntimeError: unable to open shared memory object </torch_16550_876314950> in read-write mode"
    # NVIDIA/flownet2-pytorch#43 (--ipc=host fixed it): no "No space left on device" after the name.
    written = "Error : RuntimeError: unable to write to file </torch_18693_1954506624> at /pytorch/torch/lib/TH/THAllocator.c:271"
    for text in (opened, written):
        cause = diagnose_text(text).causes[0]
        assert (cause.id, cause.evidence["not_capacity_kind"]) == ("not_capacity", "dev_shm")
        assert cause.evidence["check_command"] == "df -h /dev/shm"


def test_host_allocators_named_by_their_source_file_or_wording_are_host_ram():
    # lhoyer/DAFormer#89: OpenCV's cv::fastMalloc (core/src/alloc.cpp), code -4.
    opencv = ("cv2.error: OpenCV(4.4.0) C:\\Users\\appveyor\\AppData\\Local\\Temp\\1\\pip-req-build-h4wtvo23\\opencv\\"
              "modules\\core\\src\\alloc.cpp:73: error: (-4:Insufficient memory) Failed to allocate 6291456 bytes in "
              "function 'cv::OutOfMemoryError'")
    # MIC-DKFZ/nnUNet#2213: NumPy's array allocation.
    numpy = ("numpy.core._exceptions._ArrayMemoryError: Unable to allocate 1.61 GiB for an array with shape "
             "(753, 536, 536) and data type float64")
    # tensorflow/models#6450: TensorFlow's CPU allocator (its GPU one is GPU_0_bfc).
    tf_cpu = ("OOM when allocating tensor with shape[24,1,2304,1152,3] and type float on "
              "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu")
    for text in (opencv, numpy, tf_cpu):
        assert _causes(text)[0] == ("not_capacity", "host_ram"), text


def test_opencv_cuda_allocation_is_not_read_as_host():
    # bytedeco/javacv#1788: OpenCV's CUDA module ("Gpu API call") is device memory.
    text = ("error: (-217:Gpu API call) out of memory in function "
            "'cv::cudev::grid_transform_detail::TransformDispatcher<false, Policy>::call'")
    assert _causes(text)[0][0] != "not_capacity"


def test_std_bad_alloc_from_a_device_allocator_is_not_host_ram():
    # NVIDIA/cccl#2092: Thrust's bad_alloc derives from std::bad_alloc.
    thrust = ("terminate called after throwing an instance of 'thrust::THRUST_200400_860_NS::system::detail::bad_alloc'\n"
              "  what():  std::bad_alloc: cudaErrorMemoryAllocation: out of memory")
    # NVIDIA/cudf#2288: RMM's failure surfaces in Python as MemoryError('std::bad_alloc') (Cython's translation).
    rmm = ("ERROR: RMM call in line 68of file /conda/envs/gdf/conda-bld/libcudf_1558047478243/work/cpp/src/hash/"
           "managed_allocator.cuh failed with result RMM_ERROR_OUT_OF_MEMORY (4) Attempted to allocate: 4000000000 "
           "bytes.\ndistributed.worker - WARNING - Compute Failed\nFunction: groupby\nException: "
           "MemoryError('std::bad_alloc')")
    assert _causes(thrust)[0][0] == "genuine_shortage"
    assert _causes(rmm)[0][0] == "genuine_shortage"
    # A plain C++ bad_alloc with no device named stays host memory (ljanyst/ssd-tensorflow#8's shape).
    assert _causes("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc")[0] == \
        ("not_capacity", "host_ram")


def test_out_of_memory_in_paddles_device_context_is_its_start_up():
    # PaddlePaddle/Paddle#25086: a killed run still held the GPU; device_context.cc creates the stream and handles.
    text = "all error stack information: out of memory at (/paddle/paddle/fluid/platform/device_context.cc:221)"
    causes = diagnose_text(text).causes
    assert causes[0].id == "other_process"
    assert causes[0].evidence["deciding_check"] == "other_process"


def test_jax_cudnn_handle_reads_as_a_missing_or_mismatched_library_first():
    # jax-ml/jax#16078: installing cuDNN fixed it.
    text = ("2023-05-20 20:06:28.373077: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Could not create "
            "cudnn handle: CUDNN_STATUS_INTERNAL_ERROR")
    causes = diagnose_text(text).causes
    assert (causes[0].id, causes[0].evidence["not_capacity_kind"]) == ("not_capacity", "library_mismatch")
    assert causes[0].evidence["deciding_check"] == "driver_version"
    assert causes[0].evidence["check_command"] == LIBRARY_CHECK.command
    assert "ldconfig -p" in causes[0].checks[0]
    assert CHECKS["driver_version"].command in LIBRARY_CHECK.command
    assert causes[1].id == "preallocation"


def test_tensorflow_cudnn_handle_stays_preallocation():
    # DeepLabCut/DeepLabCut#1299's wording: TensorFlow maps nearly the whole GPU, so its handle finds nothing left.
    text = ("2021-06-21 13:44:56.262530: E tensorflow/stream_executor/cuda/cuda_dnn.cc:336] Could not create cudnn "
            "handle: CUDNN_STATUS_INTERNAL_ERROR")
    assert diagnose_text(text).causes[0].id == "preallocation"


def test_pytorch_cudnn_not_initialized_ranks_the_library_and_memory_with_the_library_check():
    # The line alone (haotian-liu/LLaVA#458 and #392 quote the same one: a mismatched CUDA, then "merely an OOM"): the
    # library first since the thirty-fifth pass (tests/oom/test_oom_thirtyfifth_pass.py), memory right behind it.
    causes = diagnose_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED").causes
    assert [c.id for c in causes[:3]] == ["not_capacity", "genuine_shortage", "allocation_outside_allocator"]
    assert causes[0].evidence["deciding_check"] == "driver_version"
    assert causes[0].evidence["not_capacity_kind"] == "library_mismatch"


def test_cublas_alloc_failed_in_pytorch_stays_outside_the_allocator():
    # QwenLM/Qwen3#873 (an explicit allocation failure, not an ambiguous status).
    text = "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"
    assert diagnose_text(text).causes[0].id == "allocation_outside_allocator"


def test_tgi_total_token_budget_is_the_kv_cache_budget():
    # huggingface/text-generation-inference#710: decrease --max-batch-total-tokens.
    text = ("Not enough memory to handle 16000 total tokens with 2 prefill tokens. You need to decrease "
            "`--max-batch-total-tokens` or `--max-batch-prefill-tokens`")
    cause = diagnose_text(text).causes[0]
    assert cause.id == "kv_cache_budget"
    assert cause.evidence["max_batch_total_tokens"] == 16000
    assert "--max-batch-total-tokens 8000" in cause.fix


def test_dataparallel_imbalance_warning_next_to_an_oom_names_the_smaller_gpu():
    # pytorch/examples#343: soumith: exclude the weak GPU with CUDA_VISIBLE_DEVICES.
    text = ("UserWarning:\nThere is an imbalance between your GPUs. You may want to exclude GPU 0 which\nhas less than "
            "75% of the memory or cores of GPU 1. You can do so by setting\nthe device_ids argument to DataParallel, or "
            "by setting the CUDA_VISIBLE_DEVICES\nenvironment variable.\n\nRuntimeError: after cudaLaunch in "
            "triple_chevron_launcher::launch(): out of memory")
    cause = diagnose_text(text).causes[0]
    assert cause.id == "multi_gpu_imbalance"
    assert cause.evidence["smaller_gpu_index"] == 0 and "GPU 0" in cause.fix


def test_tensorflow_pool_reservation_refused_on_cuda_is_another_process_first():
    # ivineetm007/Fall-detection#4: it worked after killing the other notebook that held the GPU.
    text = ("E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 2.96G (3179741184 bytes) from "
            "device: CUDA_ERROR_OUT_OF_MEMORY: out of memory")
    causes = diagnose_text(text).causes
    assert [c.id for c in causes[:2]] == ["other_process", "preallocation"]
    assert causes[0].evidence["deciding_check"] == "other_process"


def test_tensorflow_pool_reservation_on_rocm_stays_its_own_preallocation():
    # keras-team/keras#13889 (tensorflow-rocm): HIP's free figure was not what the pool could get.
    text = ("E tensorflow/stream_executor/rocm/rocm_driver.cc:600] failed to allocate 890.06M (933298432 bytes) from "
            "device: HIP_ERROR_OutOfMemory")
    assert diagnose_text(text).causes[0].id == "preallocation"


def test_no_free_figure_but_little_held_names_a_limit_and_another_holder_with_the_device_query():
    # intel/intel-extension-for-pytorch#629: under WSL2 a 1 GiB copy fails with under 1 GiB held (a platform limit).
    text = ("RuntimeError: XPU out of memory. Tried to allocate 1.00 GiB (GPU 0; 15.56 GiB total capacity; 990.00 MiB "
            "already allocated; 990.00 MiB reserved in total by PyTorch)")
    causes = diagnose_text(text).causes
    assert [c.id for c in causes[:2]] == ["not_capacity", "other_process"]
    assert causes[0].evidence["deciding_check"] == "free_exceeds_request"
    assert causes[0].evidence["check_command"] == "xpu-smi stats -d 0"


def test_no_free_figure_with_the_device_mostly_held_by_the_process_is_not_read_as_a_limit():
    # vllm-project/vllm-omni#1199's shape: 59.36 of 60.96 GiB allocated on an Ascend NPU, message cut before "free".
    text = ("RuntimeError: NPU out of memory. Tried to allocate 52.00 MiB (NPU 0; 60.96 GiB total capacity; 59.36 GiB "
            "already allocated;")
    assert diagnose_text(text).causes[0].id != "not_capacity"


def test_a_paste_wrapped_at_a_fixed_width_is_read_as_the_unwrapped_message():
    # vllm-project/vllm#2248's error, wrapped at 60 columns as a terminal or an issue form does.
    one_line = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine.")
    wrapped = textwrap.fill(one_line, 46)
    assert "memory for the cache\nblocks" in wrapped
    report = parse_text(wrapped)
    assert report.kind == parse_text(one_line).kind == "vllm_kv_cache"
    assert report.parsed["read_unwrapped"] == 1 and report.text == wrapped
    assert diagnose_text(wrapped).causes[0].id == "kv_cache_budget"


def test_a_multi_line_format_that_reads_whole_is_not_flattened():
    # PyTorch's own message split over its natural lines reads without the unwrapped pass.
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
            "23.68 GiB of which 2.69 MiB is free.\nProcess 951046 has 23.68 GiB memory in use. Of the allocated memory "
            "22.52 GiB is allocated by PyTorch, and 609.17 MiB is reserved by PyTorch but unallocated.")
    assert "read_unwrapped" not in parse_text(text).parsed


def test_request_and_free_without_capacity_name_another_process_beside_the_job_with_the_check():
    # PaddlePaddle/PaddleOCR#1505: 13 gunicorn workers all on GPU 0 (the other workers held it).
    text = ("Out of memory error on GPU 0. Cannot allocate 25.002197MB memory on GPU 0, available memory is only "
            "15.187500MB.\n\nPlease check whether there is any other process using GPU 0.")
    causes = diagnose_text(text).causes
    assert [c.id for c in causes[:2]] == ["genuine_shortage", "other_process"]
    assert causes[1].evidence["deciding_check"] == "other_process"
    assert "nvidia-smi --query-compute-apps" in causes[1].checks[0]


def test_free_memory_covering_the_request_with_room_on_an_apu_is_a_limit():
    # lemonade-sdk/vllm-rocm#5: vLLM on a freshly rebooted Strix Halo; HIP reports 18.55 GiB free for 12.95 GiB.
    text = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 12.95 GiB. GPU 0 has a total capacity of "
            "127.00 GiB of which 18.55 GiB is free. Of the allocated memory 99.37 GiB is allocated by PyTorch, and "
            "121.80 MiB is reserved by PyTorch but unallocated.")
    cause = diagnose_text(text).causes[0]
    assert (cause.id, cause.evidence["not_capacity_kind"]) == ("not_capacity", "free_exceeds_request")
    assert cause.evidence["check_command"] == "rocm-smi --showmeminfo vram"


def test_free_memory_that_barely_covers_the_request_on_a_full_gpu_stays_a_shortage():
    # pinokiofactory/flux-webui#11: a merged FLUX model on a 24 GB RTX 4090, 45 MiB free for 20 MiB.
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
            "23.61 GiB of which 45.06 MiB is free. Including non-PyTorch memory, this process has 22.69 GiB memory in "
            "use. Of the allocated memory 21.72 GiB is allocated by PyTorch, and 520.54 MiB is reserved by PyTorch but "
            "unallocated.")
    assert diagnose_text(text).causes[0].id != "not_capacity"
