"""Twelfth pass (issue 28): the classes behind the misses of the held-out batch fresh-15, each read as a mechanism:
memory shortages and OS kills worded in Chinese, an engine's KV-pool refusal whose own counts show the room (SGLang's
page bookkeeping), vLLM's sleep-mode allocator waking up beside a trainer (the engine's budget), MLX refusing a
request of a few bytes (the step's own need, not the limit), and cuDNN/cuBLAS statuses in the CudaCall format that
CNTK and ONNX Runtime share (an allocation status reads as a full GPU, a library status as a mismatched install).
Every text is a real message quoted from the public thread named in its comment; a variant is marked as such and keeps
the mechanism's own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.user_context import UserContext


def _ranked(text: str, **context: object) -> list[tuple[str, str | None]]:
    d = diagnose_text(text, context=UserContext(**context) if context else None)  # type: ignore[arg-type]
    assert d.found_oom, text
    return [(c.id, c.evidence.get("deciding_check")) for c in d.causes]


# --- Chinese wordings ---------------------------------------------------------------------------------------------

def test_a_loader_killed_by_the_system_in_chinese_is_host_ram():
    # zai-org/ChatGLM3#107: the issue title, the only error text; WSL2's memory cap was the fix.
    ranked = _ranked("在 Windows WSL2 16G RAM 和 6G VRAM RTX3060 GPU 环境中的模型加载进程被系统终止", host_os="wsl")
    assert ranked[0] == ("not_capacity", "host_ram")


def test_bash_killed_line_under_a_chinese_locale_is_the_oom_killer_reading():
    # Variant: bash's job report under zh_CN ("已杀死" is glibc's translated "Killed").
    assert _ranked("Loading checkpoint shards:  67%|██████▋   | 2/3\n已杀死")[0] == ("not_capacity", "host_ram")


def test_chinese_ram_shortage_is_host_memory_but_video_memory_is_the_gpu():
    # Variants of the wordings Chinese users paste: 内存 (RAM) vs 显存 (video memory).
    assert _ranked("加载模型时内存不足")[0] == ("not_capacity", "host_ram")
    assert _ranked("OSError: [Errno 12] 无法分配内存")[0] == ("not_capacity", "host_ram")
    assert _ranked("训练时显存不足，程序报错")[0][0] == "genuine_shortage"
    # "GPU内存" is the GPU's memory: not host RAM.
    assert _ranked("推理时GPU内存不足")[0][0] == "genuine_shortage"


def test_chinese_wordings_from_one_thread_tell_ram_from_video_memory():
    # InternLM/InternLM#55 (loading InternLM-7B): the reporter's RAM grew to 21 GB and the process was killed; another
    # user's 32 GB of RAM "blew up"; others ran out of video memory on 24 GB cards.
    assert _ranked("模型加载到内存中，内存快速增长到21GB之后，进程被killed了，导致模型加载失败")[0] == (
        "not_capacity", "host_ram")
    assert _ranked("遇到同样的问题，加载模型中，32G内存爆掉。")[0] == ("not_capacity", "host_ram")
    for said in ("我3090也爆显存了。", "24G显存不够？？？"):
        assert _ranked(said)[0][0] == "genuine_shortage", said
    # HauLiang/DAMAS-FISTA-Net#2: "显存溢出" (video memory overflowed) while training.
    assert _ranked("我在训练模型时出现了显存溢出的问题")[0][0] == "genuine_shortage"


def test_chinese_words_next_to_a_pytorch_message_leave_its_figures_in_charge():
    # A Chinese remark pasted above PyTorch's own message (figures of Okery/YOLOv5-PyTorch#5's kind): the GPU reading.
    ranked = _ranked("内存不足\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 8.00 GiB total "
                     "capacity; 5.00 GiB already allocated; 1.00 GiB free; 6.00 GiB reserved in total by PyTorch)")
    assert ranked[0][0] != "not_capacity"


def test_chinese_text_without_a_shortage_or_a_kill_stays_not_found():
    for text in ("请问如何设置内存", "进程被终止了", "显存是多少？"):
        assert not diagnose_text(text).found_oom, text


# --- SGLang's token pool ------------------------------------------------------------------------------------------

SGLANG_DECODE = ("RuntimeError: Decode out of memory. Try to lower your batch size.\nTry to allocate 148 tokens.\n"
                 "Avaliable tokens: 2048\nself.token_to_kv_pool_allocator.available_size()=2048\n"
                 "self.tree_cache.evictable_size()=0")


def test_sglang_refusal_with_the_tokens_available_is_page_bookkeeping():
    # sgl-project/sglang#4602 (--page-size 64), fixed by sgl-project/sglang#4913.
    d = diagnose_text(SGLANG_DECODE)
    top = d.causes[0]
    assert (top.id, top.evidence["deciding_check"]) == ("not_capacity", "free_exceeds_request")
    assert "--page-size 1" in top.fix and top.evidence["check_command"] == "--page-size 1"


def test_sglang_refusal_with_fewer_tokens_available_is_not_called_bookkeeping():
    # Variant: the pool really short of tokens (available below the request).
    text = SGLANG_DECODE.replace("Avaliable tokens: 2048", "Avaliable tokens: 64")
    assert diagnose_text(text).causes[0].id != "not_capacity"


# --- vLLM's sleep mode --------------------------------------------------------------------------------------------

VLLM_WAKE_UP = ("(ActorModelRayActor pid=348952)   File \"/usr/local/lib/python3.10/dist-packages/vllm/device_allocator/"
                "cumem.py\", line 207, in wake_up\n(ActorModelRayActor pid=348952)     create_and_map(handle)\n"
                "(ActorModelRayActor pid=348952)   File \"/usr/local/lib/python3.10/dist-packages/vllm/device_allocator/"
                "cumem.py\", line 75, in create_and_map\n(ActorModelRayActor pid=348952)     python_create_and_map("
                "*allocation_handle)\n(ActorModelRayActor pid=348952) RuntimeError: CUDA Error: out of memory at "
                "/workspace/csrc/cumem_allocator.cpp:62")


def test_vllm_waking_up_beside_a_trainer_is_the_engines_budget():
    # TideDra/lmm-r1#43: a lower vLLM memory utilisation fixed it.
    d = diagnose_text(VLLM_WAKE_UP)
    assert d.causes[0].id == "kv_cache_budget" and "gpu_memory_utilization" in d.causes[0].fix


def test_a_bare_cuda_error_without_vllms_allocator_is_not_the_engines_budget():
    # pytorch/pytorch#18313: the bare error in loss.backward(), no engine in the text.
    text = ("  File \"info.py\", line 409, in <module>\n    loss.backward()\nRuntimeError: CUDA error: out of memory")
    assert "kv_cache_budget" not in [c.id for c in diagnose_text(text).causes]


# --- MLX ----------------------------------------------------------------------------------------------------------

def test_mlx_refusing_a_few_bytes_is_the_steps_own_need():
    # ml-explore/mlx-examples#70: LoRA on a 7B model in float32 on a 32 GB Mac; float16 and a smaller batch fixed it.
    d = diagnose_text("libc++abi: terminating due to uncaught exception of type std::runtime_error: [malloc_or_wait] "
                      "Unable to allocate 12 bytes.")
    ids = [c.id for c in d.causes]
    assert ids[0] == "genuine_shortage" and "per_process_cap" in ids[1:]
    assert "smaller model" in d.causes[0].fix and "set_memory_limit" not in d.causes[0].fix


def test_mlx_refusing_a_large_buffer_stays_its_memory_limit():
    # ml-explore/mlx-examples#21: 128 MiB refused with 4 GB free, raising the limit fixed it.
    d = diagnose_text("[malloc_or_wait] Unable to allocate 134217728 bytes.")
    assert d.causes[0].id == "per_process_cap"


# --- CudaCall format (CNTK, ONNX Runtime) -------------------------------------------------------------------------

ORT_CUBLAS = ("onnxruntime.capi.onnxruntime_pybind11_state.RuntimeException: [ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION "
              ": Exception during initialization: D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_call.cc:121 "
              "onnxruntime::CudaCall D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_call.cc:114 "
              "onnxruntime::CudaCall CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=GRA5ITER ; "
              "file=D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\cuda_execution_provider.cc ; line=164 ; "
              "expr=cublasCreate(&cublas_handle_);")


def test_onnxruntime_cublas_handle_alloc_failed_is_a_full_gpu_with_the_library_check_ranked():
    # FurkanGozukara/Stable-Diffusion#27: a 4 GB GTX 1650; the maintainer: VRAM not sufficient.
    ranked = _ranked(ORT_CUBLAS, host_os="windows")
    assert ranked[0][0] == "genuine_shortage"
    assert ("not_capacity", "driver_version") in ranked  # C0untFloyd/roop-unleashed#1065: a mismatched CUDA install


def test_cntk_cudnn_internal_error_is_a_full_gpu_not_preallocation():
    # Azure/ObjectDetectionUsingCntk#2: a ResNet on a 2 GB GPU; the maintainer: out of GPU memory.
    ranked = _ranked("cuDNN failure 4: CUDNN_STATUS_INTERNAL_ERROR")
    assert ranked[0][0] == "genuine_shortage" and "preallocation" not in [r[0] for r in ranked]


def test_cudacall_library_status_reads_as_a_mismatched_install_first():
    # Variant: the same format with a status that names the library itself.
    ranked = _ranked("cuDNN failure 1: CUDNN_STATUS_NOT_INITIALIZED ; GPU=0 ; hostname=host ; expr=cudnnCreate(&h);")
    assert ranked[0] == ("not_capacity", "driver_version")


def test_cudacall_status_under_tensorflow_keeps_the_preallocation_reading():
    # Variant: a TensorFlow process in the text: its up-front pool stays first.
    ranked = _ranked("tensorflow/stream_executor/cuda/cuda_dnn.cc:329] cuDNN failure 4: CUDNN_STATUS_INTERNAL_ERROR")
    assert ranked[0][0] == "preallocation"


def test_onnxruntime_cudacall_driver_version_and_cudamalloc_wordings():
    # ONNX Runtime's CudaCall (onnxruntime/core/providers/cuda/cuda_call.cc) prints cudaGetErrorString for CUDA
    # failures: error 35 is the driver older than the runtime, error 2 a cudaMalloc of the provider that failed.
    old_driver = ("onnxruntime::CudaCall CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version ; "
                  "GPU=0 ; hostname=X ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc"
                  " ; line=245 ; expr=cudaSetDevice(info_.device_id);")
    assert _ranked(old_driver)[0] == ("not_capacity", "driver_version")
    malloc = ("onnxruntime::CudaCall CUDA failure 2: out of memory ; GPU=0 ; hostname=X ; file=/onnxruntime_src/"
              "onnxruntime/core/providers/cuda/cuda_allocator.cc ; line=47 ; expr=cudaMalloc((void**)&p, size);")
    assert _ranked(malloc)[0][0] == "genuine_shortage"


# --- Memory growth in words ---------------------------------------------------------------------------------------

MONOGS = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.68 GiB total capacity; 18.25 GiB "
          "already allocated; 22.06 MiB free; 19.86 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
          "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
          "PYTORCH_CUDA_ALLOC_CONF")


def test_memory_growth_described_in_words_ranks_the_leak_first():
    # muskie82/MonoGS#101: the reporter saw VRAM accumulate frame after frame (his words, variants in two languages).
    assert _ranked(MONOGS)[0][0] == "genuine_shortage"  # the figures alone: a near-full card
    for said in ("VRAM usage grows with every frame until it fails", "memory keeps increasing every iteration",
                 "显存随帧数不断增加，最后报错", "显存泄漏", "每个epoch后显存增加"):
        assert _ranked(said + "\n" + MONOGS)[0][0] == "leak", said


def test_words_that_describe_no_growth_leave_the_shortage_first():
    for said in ("显存是多少", "memory usage is 18 GB", "the step increases the learning rate"):
        assert _ranked(said + "\n" + MONOGS)[0][0] == "genuine_shortage", said


# --- A second framework's pool in a PyTorch process ---------------------------------------------------------------

TF_INPUT_PIPELINE = ("  File \"/usr/lib/python3/dist-packages/tensorflow/python/data/ops/iterator_ops.py\", line 766, in "
                     "__next__\n    return self._next_internal()\n  File \"train.py\", line 120, in train\n"
                     "    loss.backward()\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB "
                     "total capacity; 1.20 GiB already allocated; 12.50 MiB free; 1.30 GiB reserved in total by PyTorch)")


def test_tensorflow_in_a_pytorch_process_is_its_preallocated_pool():
    # Variant of geoelements/gns#10 (a TensorFlow dataloader in a PyTorch trainer; forcing it onto the CPU fixed it):
    # the PyTorch figures leave 14 GiB outside PyTorch and the traceback runs through tf.data.
    d = diagnose_text(TF_INPUT_PIPELINE)
    assert d.causes[0].id == "preallocation" and "set_visible_devices" in d.causes[0].fix


def test_the_same_figures_without_a_second_framework_are_another_holder():
    d = diagnose_text(TF_INPUT_PIPELINE.replace("tensorflow/python/data", "mylib/data"))
    assert d.causes[0].id == "other_process"


# --- DirectML on Windows ------------------------------------------------------------------------------------------

def test_directml_allocator_without_figures_keeps_the_commit_limit_in_the_ranked_set():
    # lshqqytiger/stable-diffusion-webui-amdgpu#174: the issue title; the page file capped at 8 GB was the cause.
    d = diagnose_text("DML allocator out of memory!", context=UserContext(host_os="windows"))
    assert d.report.backend == "directml"
    assert ("not_capacity", "host_ram") in [(c.id, c.evidence.get("deciding_check")) for c in d.causes]


def test_directml_with_its_figures_is_not_given_the_commit_limit_reading():
    # microsoft/DirectML#34: TensorFlow-DirectML's own figures (a tensor shape on device DML:0).
    d = diagnose_text("Resource exhausted: OOM when allocating tensor with shape[16,128,98,98] and type float on "
                      "/job:localhost/replica:0/task:0/device:DML:0 by allocator DmlAllocator")
    assert d.causes[0].id == "genuine_shortage"
    assert "page_file" not in [c.evidence.get("not_capacity_kind") for c in d.causes]


# --- Allocations spilled past the card --------------------------------------------------------------------------

def test_many_small_allocations_spilled_past_the_card_are_the_jobs_need_with_the_spill_next():
    # Xilluill/KV-Edit#16: FLUX on a 6 GB GPU, 20.56 GiB held by PyTorch; the maintainer: it needs 24 GB.
    text = ("Edit failed: CUDA out of memory. Tried to allocate 252.00 MiB. GPU 0 has a total capacity of 6.00 GiB of "
            "which 0 bytes is free. Of the allocated memory 20.56 GiB is allocated by PyTorch, and 25.86 MiB is "
            "reserved by PyTorch but unallocated.")
    ids = [c.id for c in diagnose_text(text).causes]
    assert ids[0] == "genuine_shortage" and "sysmem_fallback" in ids


def test_one_request_as_large_as_the_card_served_by_the_spill_stays_the_fallback():
    # microsoft/WSL#11050: a 30 GiB tensor on a 16 GB GPU under WSL2, the second one refused.
    text = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 GiB. GPU 0 has a total capacty of "
            "15.99 GiB of which 0 bytes is free. Of the allocated memory 30.00 GiB is allocated by PyTorch, and 0 bytes "
            "is reserved by PyTorch but unallocated.")
    assert diagnose_text(text).causes[0].id == "sysmem_fallback"
