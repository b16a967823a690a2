"""Thirty-ninth pass (issue 28, fresh-40's text that came back "not found", and host memory in DeepSpeed's words).

Each reading is the runtime's own wording, read from its source:

* DeepSpeed's launcher killing the job's ranks ("[launch.py:N:sigkill_handler] Killing subprocess PID",
  deepspeed/launcher/launch.py) right after the job read its checkpoint back ("successfully read N ZeRO state_dicts for
  rank R", deepspeed/runtime/engine.py, _get_all_zero_checkpoint_state_dicts), with no error of the rank's own between:
  the rank's torch.load of the saved states outgrew RAM and the kernel's OOM killer ended it (host_ram). A rank that
  printed an error of its own before the launcher's line is not read so.
* PyTorch's CPU allocator's words "can't allocate memory" (c10/core/impl/alloc_cpu.cpp) quoted without their
  "DefaultCPUAllocator:" prefix, as DeepSpeed's ZeRO offload reports its failed start: host RAM. The same words beside
  a GPU runtime's are not read so.
* A device request 64 times the card the text names or more is a garbage size (absurd_size), between the labelled
  37x of a real edge tensor (pygod#72, a size) and 173x (yolov5#10528). A text that names no card is not read so.
* Under the 3D Gaussian-splatting rasterizer's frame (diff_gaussian_rasterization, rasterize_gaussians), a request
  above what its 32-bit (tile, Gaussian) pair count can size (2**31 x 48 bytes, 96 GiB) is a count the kernels never
  wrote: the extension was built for another GPU or toolkit (absurd_size, worded as such, with the rebuild as fix). A
  real large scene below it stays a size (2d-gaussian-splatting#97).
* llama.cpp's compute buffer refused under Ollama's own load request for a context of 32768 tokens or more
  ("KvSize:262144"): without flash attention that buffer holds the attention scores against the whole context, so the
  context, not the model, decides (kv_cache_budget). A short context stays the buffers' reading.
* Thrust's bad_alloc ("std::bad_alloc: cudaErrorMemoryAllocation") from simple-knn's distCUDA2, which needs tens of MB
  once at scene creation: the extension built for another GPU or toolkit (not_capacity, the driver/toolkit check,
  0.7, a full card second). The same Thrust error elsewhere is not read so.
* A figureless OOM from a library no loop reading knew, after a log that shows whole epochs done ("Epoch 4/10"): every
  batch fitted once, so memory kept growing is read first (leak, 0.6), as it already was for PyTorch and TensorFlow.
  The same line at the first epoch is not read so.

Every text is a real message quoted from the public thread named in its comment.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# https://github.com/deepspeedai/DeepSpeed/issues/1956 (GPT-J-6B resumed under ZeRO on 2 GPUs, "error -9. No error
# message"; the same log in huggingface/transformers#17258, where torch.load's extra CPU memory at resume was the cause)
DEEPSPEED_1956 = (
    "[INFO|deepspeed.py:449] 2022-05-15 00:12:20,447 >> Attempting to resume from finetuned/checkpoint-22\n"
    "[2022-05-15 00:12:51,292] [INFO] [engine.py:2754:_get_all_zero_checkpoint_state_dicts] successfully read 2 ZeRO "
    "state_dicts for rank 0\n"
    "[2022-05-15 00:12:57,785] [INFO] [launch.py:178:sigkill_handler] Killing subprocess 97277\n"
    "[2022-05-15 00:12:57,786] [INFO] [launch.py:178:sigkill_handler] Killing subprocess 97278")

# https://github.com/deepspeedai/DeepSpeed/issues/3869 (a rank's own CUDA OOM, then the launcher's lines)
DEEPSPEED_3869 = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 978.00 MiB (GPU 0; 4.00 GiB total capacity; "
    "1.68 GiB already allocated; 0 bytes free; 2.72 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF\n"
    "[2023-07-04 17:31:27,755] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 953850")

# https://github.com/Tencent/TencentPretrain/issues/70 (the title; ZeRO-3 offload of LLaMA-7B on a 94 GB server, solved
# on one with more RAM in the reporter's CVI-SZU/Linly#83)
TENCENTPRETRAIN_70 = "DeepSpeedZeRoOffload initialization failed (can't allocate memory)"

# https://github.com/ROCm/legacy-rocm-build/issues/1483 (HIP's own log: a device/pinned allocation, not host RAM)
ROCM_1483 = (":1:rocdevice.cpp            :1692: 0853955992 us: Failed creating memory\n"
             ":1:memory.cpp               :328 : 0853955996 us: Video memory allocation failed!\n"
             ":1:memory.cpp               :292 : 0853955998 us: Can't allocate memory size - 0x02800000 bytes!\n"
             ":3:hip_memory.cpp           :713 : 0853956016 us: 3463 : [7fd907a1e880] hipHostRegister: Returned "
             "hipErrorOutOfMemory :")

# https://github.com/sdbds/TRELLIS-for-windows/issues/5 (the prebuilt rasterizer wheel was built for sm_89 only; the
# commenter's bold markers kept)
TRELLIS_5 = (
    'TRELLIS-for-windows\\.venv\\lib\\site-packages\\diff_gaussian_rasterization\\__init__.py", line 94, in forward\n'
    "    num_rendered, color, radii, geomBuffer, binningBuffer, imgBuffer = _C.rasterize_gaussians(*args)\n"
    "RuntimeError: CUDA out of memory. **Tried to allocate 712.03 GiB**. GPU 0 has a total capacity of 24.00 GiB of "
    "which 16.66 GiB is free. Of the allocated memory 5.43 GiB is allocated by PyTorch, and 58.25 MiB is reserved by "
    "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  ")

# https://github.com/hbb1/2d-gaussian-splatting/issues/97 (a real large scene: a size above the card)
SPLATTING_2D_97 = (
    "num_rendered, color, depth, radii, geomBuffer, binningBuffer, imgBuffer = _C.rasterize_gaussians(*args)\n"
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 35.79 GiB (GPU 0; 23.49 GiB total capacity; "
    "990.78 MiB already allocated; 21.66 GiB free; 1.14 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF")

# https://github.com/ultralytics/yolov5/issues/10528 (1936 GiB on an 11 GiB card)
YOLOV5_10528 = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1936.00 GiB (GPU 1; 11.17 GiB total capacity; "
    "2.15 GiB already allocated; 7.62 GiB free; 3.02 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF")

# https://github.com/pygod-team/pygod/issues/72 (a real dense adjacency of 597 GiB on a 16 GiB card, 37x)
PYGOD_72 = ("RuntimeError: CUDA out of memory. Tried to allocate 597.53 GiB (GPU 0; 16.00 GiB total capacity; 1.32 GiB "
            "already allocated; 12.78 GiB free; 1.35 GiB reserved in total by PyTorch)")

# https://github.com/leaderj1001/Attention-Augmented-Conv2d/issues/18 (32 TiB of real attention logits, no card named)
ATTENTION_18 = "CUDA out of memory : tried to allocate 32768.00 Gib (only 10.00 Gib free)"

# https://github.com/ollama/ollama/issues/15284 (Gemma 4 31B Q4 on several GPUs, a 262144-token context)
OLLAMA_15284 = (
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 19123.94 MiB on device 1: cudaMalloc failed: out of memory\n"
    "ggml_gallocr_reserve_n_impl: failed to allocate CUDA1 buffer of size 20052907008\n"
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16990.01 MiB on device 2: cudaMalloc failed: out of memory\n"
    "ggml_gallocr_reserve_n_impl: failed to allocate CUDA2 buffer of size 17815312384\n"
    'time=2026-04-03T12:44:10.396Z level=INFO source=runner.go:1290 msg=load request="{Operation:alloc LoraPath:[] '
    "Parallel:1 BatchSize:512 FlashAttention:Disabled KvSize:262144 KvCacheType: NumThreads:16 "
    "GPULayers:31[ID:GPU-a000b5fa-b553-4068-d239-bbebd2e92d97 Layers:31(29..59)  ] MultiUserCache:false ProjectorPath: "
    'MainGPU:0 UseMmap:false}"')

# https://github.com/graphdeco-inria/gaussian-splatting/issues/740 (a 32 GB V100; binaries built for another GPU)
SPLATTING_740 = (
    'File "***/gaussian-splatting/scene/gaussian_model.py", line 134, in create_from_pcd\n'
    "    dist2 = torch.clamp_min(distCUDA2(torch.from_numpy(np.asarray(pcd.points)).float().cuda()), 0.0000001)\n"
    "MemoryError: std::bad_alloc: cudaErrorMemoryAllocation: out of memory")

# https://github.com/lhnguyen102/cuTAGI/issues/71 (device memory 3.1, 8.8, 10.2, 13.7 GiB after epochs 1-4; the
# maintainer fixed the leak)
CUTAGI_71 = ("Epoch 4/10 | training error: 43.58% | test error: 48.08%:  40%|██████████████▊                      | "
             "4/10 [25:27<38:13, 382.20s/it]CUDA Runtime Error at: /home/mf/Documents/RESNET/cuTAGI/src/"
             "data_struct_cuda.cu:83\nout of memory cudaMalloc(&this->d_jcb, size * sizeof(float))")


def test_launcher_kill_right_after_the_checkpoint_was_read_is_host_ram() -> None:
    d = diagnose_text(DEEPSPEED_1956)
    top = d.causes[0]
    assert d.found_oom and d.report.signature == "sigkill"
    assert top.id == "not_capacity"
    assert "OOM killer" in top.title
    assert "add RAM or swap" in top.fix


def test_launcher_kill_after_the_ranks_own_cuda_oom_is_not_the_oom_killer() -> None:
    d = diagnose_text(DEEPSPEED_3869)
    assert d.found_oom and d.report.signature != "sigkill"


def test_launcher_kill_alone_is_not_read_as_host_ram() -> None:
    d = diagnose_text("[2022-05-15 00:12:57,785] [INFO] [launch.py:178:sigkill_handler] Killing subprocess 97277")
    assert d.report.signature != "sigkill"


def test_cpu_allocator_words_without_its_prefix_are_host_ram() -> None:
    d = diagnose_text(TENCENTPRETRAIN_70)
    top = d.causes[0]
    assert d.found_oom and d.report.signature == "host_ram"
    assert top.id == "not_capacity" and "host RAM" in top.title
    assert "Free host RAM" in top.fix


def test_the_same_words_in_a_gpu_runtimes_log_are_not_host_ram() -> None:
    d = diagnose_text(ROCM_1483)
    assert d.report.signature != "host_ram"


def test_rasterizer_request_above_its_pair_count_is_a_build_for_another_gpu() -> None:
    d = diagnose_text(TRELLIS_5)
    top = d.causes[0]
    assert d.report.signature == "absurd_size"
    assert top.id == "not_capacity" and "rasterizer" in top.title
    assert "TORCH_CUDA_ARCH_LIST" in top.fix


def test_rasterizer_request_a_real_scene_can_make_stays_a_size() -> None:
    d = diagnose_text(SPLATTING_2D_97)
    assert d.report.signature != "absurd_size"
    assert d.causes[0].id != "not_capacity"


def test_request_64_times_the_card_is_a_garbage_size() -> None:
    d = diagnose_text(YOLOV5_10528)
    top = d.causes[0]
    assert d.report.signature == "absurd_size" and top.id == "not_capacity"
    assert "64 times this GPU" in top.explanation
    assert "print shapes" in top.fix


def test_request_37_times_the_card_stays_a_size() -> None:
    d = diagnose_text(PYGOD_72)
    assert d.report.signature != "absurd_size"
    assert d.causes[0].id == "single_allocation_exceeds_capacity"


def test_huge_request_with_no_card_named_is_not_read_as_garbage() -> None:
    d = diagnose_text(ATTENTION_18)
    assert d.report.signature != "absurd_size"


def test_ollama_compute_buffer_under_a_long_context_is_the_context() -> None:
    d = diagnose_text(OLLAMA_15284)
    top = d.causes[0]
    assert top.id == "kv_cache_budget" and "262144" in top.explanation
    assert "OLLAMA_CONTEXT_LENGTH" in top.fix


def test_ollama_compute_buffer_under_a_short_context_stays_the_buffer() -> None:
    d = diagnose_text(OLLAMA_15284.replace("KvSize:262144", "KvSize:4096"))
    assert d.causes[0].id == "genuine_shortage"


def test_thrust_bad_alloc_in_simple_knn_is_the_extension_build() -> None:
    d = diagnose_text(SPLATTING_740)
    top = d.causes[0]
    assert d.found_oom and d.report.signature == "extension_arch"
    assert top.id == "not_capacity" and top.evidence.get("deciding_check") == "driver_version"
    assert "TORCH_CUDA_ARCH_LIST" in top.fix
    assert "genuine_shortage" in [c.id for c in d.causes[1:]]


def test_thrust_bad_alloc_elsewhere_is_not_the_extension_build() -> None:
    d = diagnose_text("MemoryError: std::bad_alloc: cudaErrorMemoryAllocation: out of memory")
    assert d.report.signature != "extension_arch"


def test_oom_after_whole_epochs_in_any_library_reads_as_a_leak_first() -> None:
    d = diagnose_text(CUTAGI_71)
    top = d.causes[0]
    assert top.id == "leak" and "epoch 4" in top.explanation
    assert "genuine_shortage" in [c.id for c in d.causes[1:]]


def test_the_same_line_in_the_first_epoch_is_not_a_leak_first() -> None:
    d = diagnose_text(CUTAGI_71.replace("Epoch 4/10", "Epoch 1/10").replace("40%", "0%").replace("4/10 [", "0/10 ["))
    assert d.causes[0].id != "leak"
