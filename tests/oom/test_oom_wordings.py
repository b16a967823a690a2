"""Allocation failures in the wordings of runtimes the named parsers do not read (issue 28, third pass): PaddlePaddle's
allocators in English and in a Chinese translation, MXNet, CTranslate2 and OpenCV's CUDA modules, DataLoader workers
killed for shared memory, and WSL read from the paths in the paste. Every text is a real message, quoted from the
public thread in its comment; none is in a fresh (held-back) set except where said."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text

MiB = 1024**2
GiB = 1024**3


def _first(text: str):
    return diagnose_text(text).causes[0]


def test_paddle_legacy_allocator_cannot_malloc_is_read_with_its_request():
    # PaddlePaddle/models#2046 (system_allocator.cc / legacy_allocator.cc, Paddle 1.3.2).
    text = ("W0413 13:19:50.571400 16109 system_allocator.cc:122] Cannot malloc 9999.6 MB GPU memory. Please shrink "
            "FLAGS_fraction_of_gpu_memory_to_use environment variable to a lower value. Current value is 0.92")
    report = parse_text(text)
    assert report.kind == "generic_oom" and report.requested_bytes == round(9999.6 * MiB)
    assert report.runtime == "paddle"


def test_paddle_out_of_memory_error_reads_request_in_use_and_available():
    # PaddlePaddle/PaddleOCR#7091 (cuda_allocator.cc, PADDLE_THROW_BAD_ALLOC).
    text = ("Out of memory error on GPU 0. Cannot allocate 56.000000MB memory on GPU 0, 7.782776GB memory has been "
            "allocated and available memory is only 12.750000MB.")
    report = parse_text(text)
    assert report.requested_bytes == 56 * MiB
    assert report.device is not None and report.device.free_bytes == round(12.75 * MiB)
    assert report.parsed["in_use_bytes"] == round(7.782776 * GiB)
    assert _first(text).id == "genuine_shortage"


def test_paddle_message_translated_to_chinese_is_read():
    # jm12138/CPM-Generate-Paddle#7: Paddle's message as a translation tool rendered it.
    text = "GPU 0上出现内存不足错误。无法在GPU 0上分配50.000000MB内存，已分配11.999512 GB内存，可用内存仅为0.000000B。"
    report = parse_text(text)
    assert report.kind == "generic_oom"
    assert report.requested_bytes == 50 * MiB
    assert report.device is not None and report.device.free_bytes == 0
    assert report.parsed["in_use_bytes"] == round(11.999512 * GiB)


def test_paddle_up_front_chunk_larger_than_available_is_its_preallocation():
    # PaddlePaddle/Paddle#15458 (gpu_info.cc GpuMaxChunkSize; in the fresh-4 set, scored before this reading existed).
    text = ("paddle.fluid.core.EnforceNotMet: Enforce failed. Expected allocating <= available, but received "
            "allocating:20998686233 > available:19587333888.\nInsufficient GPU memory to allocation. at "
            "[/paddle/paddle/fluid/platform/gpu_info.cc:170]")
    report = parse_text(text)
    assert report.signature == "pool_chunk"
    assert report.requested_bytes == 20998686233 and report.device is not None
    assert report.device.free_bytes == 19587333888
    cause = _first(text)
    assert cause.id == "preallocation" and "FLAGS_fraction_of_gpu_memory_to_use" in cause.fix


def test_dataloader_bus_error_with_shared_memory_is_dev_shm_with_its_fix():
    # msr-fiddle/pipedream#28 (torch/csrc/DataLoader.cpp SIGBUS handler) and PaddlePaddle/Paddle#24708
    # (torch/utils/data/dataloader.py's message).
    for text in ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
                 "memory (shm).\nRuntimeError: DataLoader worker (pid 325) is killed by signal: Bus error.",
                 "RuntimeError: DataLoader worker (pid 3002) is killed by signal: Bus error. It is possible that "
                 "dataloader's workers are out of shared memory. Please try to raise your shared memory limit."):
        report = parse_text(text)
        assert report.signature == "dev_shm" and report.kind == "signature"
        cause = _first(text)
        assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "host_ram"
        assert cause.evidence["check_command"] == "df -h /dev/shm"
        assert "--shm-size" in cause.fix and "--ipc=host" in cause.fix


def test_torch_shared_file_without_space_is_dev_shm():
    # idiap/ESLAM#20 (fresh-5, scored after this reading was written): torch.multiprocessing's file in /dev/shm.
    text = "RuntimeError: unable to write to file </torch_31911_952036340_6686>: No space left on device (28)"
    assert parse_text(text).signature == "dev_shm"


def test_one_line_cuda_errors_of_mxnet_ctranslate2_and_opencv_get_a_ranked_set():
    texts = (
        # apache/mxnet#5340 (src/storage/pooled_storage_manager.h)
        "[20:01:42] src/storage/./pooled_storage_manager.h:80: cudaMalloc failed: out of memory",
        # SYSTRAN/faster-whisper#442 (CTranslate2's CUDA_CHECK)
        '  File "/home/coder/.local/lib/python3.8/site-packages/faster_whisper/transcribe.py", line 584, in '
        "generate_with_fallback\n    result = self.model.generate(\nRuntimeError: CUDA failed with error out of memory",
        # opencv/opencv#15128 (cudaSafeCall, cv::Error::GpuApiCallError)
        "gpu_mat.cu:116: error: (-217:Gpu API call) out of memory in function '<unnamed>::DefaultAllocator::allocate'",
    )
    for text, runtime in zip(texts, ("mxnet", "ctranslate2", "opencv"), strict=True):
        report = parse_text(text)
        assert report.signature == "bare_cuda_error" and report.runtime == runtime
        causes = diagnose_text(text).causes
        assert [c.id for c in causes[:2]] == ["genuine_shortage", "other_process"]
        assert causes[0].confidence <= 0.5


def test_wsl_is_read_from_the_paths_in_the_paste():
    # open-mmlab/denseflow#28: WSL Ubuntu on Windows (the paths are /mnt/d/...), OpenCV's page-locked host buffer.
    text = ("python build_rawframes.py /mnt/d/Data/ava/videos_15min/ /mnt/d/Data/ava/rawframes/ --task flow --level 1\n"
            "terminate called after throwing an instance of 'cv::Exception'\n  what():  OpenCV(4.2.0) "
            "/home/user/opencv-4.2.0/modules/core/src/cuda_host_mem.cpp:95: error: (-217:Gpu API call) out of memory "
            "in function 'allocate'")
    cause = _first(text)
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "pin_memory"
    # The same error without the WSL paths is not read as pinned memory first.
    assert _first(text.split("\n", 1)[1]).id != "not_capacity"


def test_an_allocation_word_next_to_a_size_is_a_request_in_any_wording():
    # ggml-org/llama.cpp#8101 (fresh-5; ggml's CPU buffer) and Tencent/TencentPretrain#70's title.
    assert parse_text("ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 137438953504"
                      ).requested_bytes == 137438953504
    report = parse_text("W0413 13:19:50.571779 16109 legacy_allocator.cc:191] Cannot allocate 196.000000MB in GPU 0, "
                        "available 1.214539GB")  # PaddlePaddle/models#2046
    assert report.requested_bytes == 196 * MiB
    assert report.device is not None and report.device.free_bytes == round(1.214539 * GiB)


def test_a_hexadecimal_size_of_a_failed_allocation_is_its_request():
    # sophgo/LLM-TPU#8: bmlib logs the raw argument of the failed device allocation.
    report = parse_text("[bmlib_memory][error] bm_alloc_gmem failed, dev_id = 0, size = 0xc0fb4000")
    assert report.kind == "generic_oom" and report.requested_bytes == 0xC0FB4000


def test_rust_allocator_failure_is_host_ram():
    # gcarq/rusty-blockparser#54: "I just don't have enough ram+swap" (Rust's default_alloc_error_hook).
    text = "memory allocation of 2181038096 bytes failed[1]    1606 abort (core dumped)  rusty-blockparser"
    report = parse_text(text)
    assert report.signature == "host_ram" and report.requested_bytes == 2181038096
    cause = _first(text)
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "host_ram"
