"""Nineteenth pass (issue 28): the misses of fresh-22 read as mechanisms.

* A DataLoader worker "killed by signal: Bus error" with no shared-memory hint (PyTorch before the hint of
  pytorch#5040): /dev/shm, host memory (not_capacity, host_ram check).
* PyTorch's own wording of a cuBLAS failure ("... when calling `cublasCreate(handle)`") is PyTorch's, which has no
  up-front pool: never TensorFlow's preallocation.
* ggml's CUDA backend failing to create its cuBLAS handle: the buffers llama.cpp allocated first (the context-sized KV
  cache above all) filled the GPU: kv_cache_budget with -c / -ngl.
* ComfyUI's HostBuffer (host memory it page-locks with cudaHostRegister) failing: pinned memory, with
  --disable-pinned-memory.
* A process that ends by itself with no error while loading: the OOM killer's SIGKILL (host RAM), in Chinese and
  English.
* Memory that had room at the start of the run and ran out later, said in words (Chinese "溢出显存" recognised): a leak.
* TensorFlow refusing a small variable's initial value (its "Initializer" graph node) before the first step: the GPU
  was full before the model started, another process; TensorFlow 1's "tensor of shape [...]" wording read.
* A device of 1 GiB or less in all (an APU's UMA carve-out): the job does not fit it, whatever the free figure says.
* WSL2's "dxgkio_make_resident: Ioctl failed: -12": the residency ceiling below nvidia-smi's free memory, ranked by the
  budget the text names (an engine's share first).
* A bare PyTorch "CUDA error: out of memory" raised inside a module's forward: a device allocation, not pinned host
  memory (no page-locked buffer is made inside forward).
* vLLM's profiling line with memory in use before profiling far above the weights it loaded: other processes' memory,
  which those releases charge to the instance's budget (another process first, with the utilisation that covers it).
* A notebook's kernel that died or crashed: host memory first (the OOM killer), less firmly than a kill the
  shell reports; another notebook holding the GPU second when a GPU is named.

Every text is a real message quoted from the public thread named in its comment; a variant is marked as such.
Negative cases check that each reading needs its own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text


def _top(text: str) -> tuple[str, bool, float, object]:
    d = diagnose_text(text)
    top = d.causes[0]
    return top.id, d.found_oom, top.confidence, top.evidence.get("deciding_check")


# pytorch/pytorch#5040.
WORKER_BUS = "RuntimeError: DataLoader worker (pid 13) is killed by signal: Bus error."
# QwenLM/Qwen#120 (the issue title).
TORCH_CUBLAS = "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"
# ggml-org/llama.cpp#10080.
GGML_CUBLAS = ("/home/data1/llm_agent/llama.cpp-b3985/ggml/src/ggml-cuda.cu:70: CUDA error\n"
               "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n"
               "  current device: 0, in function cublas_handle at /home/data1/llm_agent/llama.cpp-b3985/ggml/src/"
               "ggml-cuda/common.cuh:663\n  cublasCreate_v2(&cublas_handles[device])")
# Comfy-Org/ComfyUI#14250 (a commenter's error report).
COMFY_HOSTBUFFER = ("# ComfyUI Error Report\n## Error Details\n- **Node ID:** 320:283\n- **Node Type:** "
                    "SamplerCustomAdvanced\n- **Exception Type:** RuntimeError\n- **Exception Message:** RuntimeError: "
                    "HostBuffer.read_file_slice failed")
# zai-org/VisualGLM-6B#227 (the issue title).
SILENT_EXIT_ZH = "使用Lora微调加载参数时自动结束进程"
# jingyaogong/minimind#522 (the title and the reporter's words).
ROOM_AT_START_ZH = ("求问为什么训练一段时间后就会溢出显存\n如图，训练开始的时候，显存应该是有空余的，但是不到1个epoch溢出"
                    "中断训练两次")
# balancap/SSD-Tensorflow#157.
TF_INITIALIZER = (
    "ResourceExhaustedError: OOM when allocating tensor with shape[3,3,512,512]\n"
    "\t [[Node: ssd_300_vgg/conv5/conv5_1/weights/Initializer/random_uniform/RandomUniform = RandomUniform[T=DT_INT32, "
    "_class=[\"loc:@ssd_300_vgg/conv5/conv5_1/weights\"], dtype=DT_FLOAT, seed=0, seed2=0, "
    "_device=\"/job:localhost/replica:0/task:0/gpu:0\"](ssd_300_vgg/conv5/conv5_1/weights/Initializer/random_uniform/"
    "shape)]]")
# dongjun-Lee/text-classification-models-tf#4 (TensorFlow 1's "tensor of shape [...]" wording).
TF_INITIALIZER_OF_SHAPE = (
    "ResourceExhaustedError (see above for traceback): OOM when allocating tensor of shape [563354,256] and type "
    "float\n\t [[Node: embeddings/Adam/Initializer/zeros = Const[dtype=DT_FLOAT, value=Tensor<type: float shape: "
    "[563354,256] values: [0 0 0]...>, _device=\"/job:localhost/replica:0/task:0/device:GPU:0\"]()]]")


def test_worker_bus_error_is_shared_memory() -> None:
    assert _top(WORKER_BUS) == ("not_capacity", True, 0.96, "host_ram")
    assert "shm" in diagnose_text(WORKER_BUS).causes[0].fix
    # A worker killed by another signal is not /dev/shm.
    killed = diagnose_text("RuntimeError: DataLoader worker (pid 13) is killed by signal: Killed.")
    assert "/dev/shm" not in killed.causes[0].title


def test_pytorch_cublas_wording_is_not_preallocation() -> None:
    d = diagnose_text(TORCH_CUBLAS)
    assert d.found_oom and "preallocation" not in [c.id for c in d.causes]
    assert d.causes[0].id in ("allocation_outside_allocator", "genuine_shortage")
    # The bare status, as TensorFlow's log line carries it, keeps the preallocation reading.
    assert _top("CUBLAS_STATUS_NOT_INITIALIZED")[0] == "preallocation"


def test_ggml_cublas_handle_is_the_context() -> None:
    cause, found, conf, _check = _top(GGML_CUBLAS)
    assert (cause, found) == ("kv_cache_budget", True) and conf >= 0.6
    assert "-c " in diagnose_text(GGML_CUBLAS).causes[0].fix
    # The same status in PyTorch's wording is not llama.cpp's context.
    assert _top("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`")[0] \
        != "kv_cache_budget"


def test_comfyui_host_buffer_is_pinned_memory() -> None:
    assert _top(COMFY_HOSTBUFFER) == ("not_capacity", True, 0.96, "pin_memory")
    assert "--disable-pinned-memory" in diagnose_text(COMFY_HOSTBUFFER).causes[0].fix
    # Variant: the other reader's name (Comfy-Org/ComfyUI#14281).
    assert _top("RuntimeError: hostbuf_file_reader_read failed")[3] == "pin_memory"
    # A host buffer named without the failure is not recognised.
    assert not diagnose_text("HostBuffer.read_file_slice returned 4096 bytes").found_oom


def test_silent_exit_while_loading_is_the_oom_killer() -> None:
    assert _top(SILENT_EXIT_ZH) == ("not_capacity", True, 0.7, "host_ram")
    # Variant: the same in English.
    assert _top("The process exits silently while loading the checkpoint")[3] == "host_ram"
    # An exit without loading words, or loading without an exit, is not read so.
    assert not diagnose_text("训练时程序自动退出了").found_oom
    assert not diagnose_text("The process exits silently after epoch 3").found_oom
    assert not diagnose_text("Loading the checkpoint takes 3 minutes").found_oom
    # A user closing the program is not the program ending by itself.
    assert not diagnose_text("直接关闭程序后重新加载模型").found_oom


def test_room_at_start_is_a_leak() -> None:
    cause, found, conf, _check = _top(ROOM_AT_START_ZH)
    assert (cause, found) == ("leak", True) and conf >= 0.6
    # Variant: English words.
    assert _top("CUDA out of memory. At the start there was plenty of free GPU memory, it failed in epoch 1")[0] \
        == "leak"
    # Elapsed time alone, with no memory seen at the start, stays a shortage (hiyouga/LlamaFactory#922).
    assert _top("微调一段时间OOM\n单卡（32G），chatglm2微调，微调了几个小时，OOM")[0] == "genuine_shortage"
    # Memory short from the start ("一开始显存就不够用") is not room at the start.
    assert _top("一开始显存就不够用，爆显存")[0] != "leak"
    # The verb-first Chinese wording is recognised on its own.
    assert diagnose_text("为什么会溢出显存").found_oom


def test_tf_initializer_is_another_holder() -> None:
    cause, found, conf, check = _top(TF_INITIALIZER)
    assert (cause, found, check) == ("other_process", True, "other_process") and conf >= 0.6
    d = diagnose_text(TF_INITIALIZER_OF_SHAPE)
    assert d.report.requested_bytes == 563354 * 256 * 4  # "of shape [...] and type float" read
    assert d.causes[0].id == "other_process"
    # A large variable can be the model's own need; a step's activation is not an initializer.
    big = TF_INITIALIZER.replace("shape[3,3,512,512]", "shape[300000,1024]")
    assert _top(big)[0] != "other_process" or _top(big)[2] < 0.62
    step = TF_INITIALIZER.replace("/Initializer/", "/Conv2D/")
    assert _top(step)[0] == "genuine_shortage"


# ROCm/legacy-rocm-build#2014.
APU_512 = ("torch.cuda.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 MiB (GPU 0; 512.00 MiB total "
           "capacity; 150.39 MiB already allocated; 312.00 MiB free; 168.00 MiB reserved in total by PyTorch) If "
           "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
           "documentation for Memory Management and PYTORCH_HIP_ALLOC_CONF")
# microsoft/WSL#41176 (the two lines quoted in the reporter's text).
WSL_RESIDENT = "RuntimeError: CUDA driver error: device not ready\ndxgkio_make_resident: Ioctl failed: -12"


def test_small_device_is_the_device_size() -> None:
    cause, found, conf, _check = _top(APU_512)
    assert (cause, found) == ("genuine_shortage", True) and conf > 0.92
    assert "UMA" in diagnose_text(APU_512).causes[0].fix
    # The same refusal on a 16 GiB card stays a refusal with memory free.
    big = APU_512.replace("512.00 MiB total", "16.00 GiB total").replace("312.00 MiB free", "15.50 GiB free")
    assert _top(big)[0] == "not_capacity"


def test_wsl_residency() -> None:
    d = diagnose_text(WSL_RESIDENT)
    assert d.found_oom and d.causes[0].id == "genuine_shortage" and "WSL2" in d.causes[0].fix
    # Variant: the engine's budget named beside it (the reporter's setting).
    engine = "vllm serve --gpu-memory-utilization 0.88\n" + WSL_RESIDENT
    assert _top(engine)[0] == "kv_cache_budget"
    assert "--gpu-memory-utilization" in diagnose_text(engine).causes[0].fix
    # Another dxgkrnl ioctl failing (an adapter query at boot) is not a memory refusal.
    assert not diagnose_text("misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22").found_oom


# modelscope/ms-agent#99 (the end of the traceback).
FORWARD_BARE = ('s/transformers_modules/ModelScope-Agent-7B/modeling.py", line 1208, in forward\n'
                "    output = self._norm(x.float()).type_as(x)\nRuntimeError: CUDA error: out of memory\n"
                "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
                "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with "
                "`TORCH_USE_CUDA_DSA` to enable device-side assertions.")


def test_bare_error_inside_forward_is_the_device() -> None:
    assert _top(FORWARD_BARE)[:2] == ("genuine_shortage", True)
    # The same error raised outside a forward pass keeps pinned host memory first (a running job's commonest
    # allocation outside the caching allocator).
    outside = FORWARD_BARE.replace("line 1208, in forward", "line 1208, in collate")
    assert _top(outside)[:2] == ("not_capacity", True) and _top(outside)[3] == "pin_memory"


# alihaydaroglu/suite3d#51 (the title and the reporter's words).
KERNEL_CRASH = ("Kernel crashes after restarting crashed jupter notebook\nWhile running a file which was too big for the "
                "GPU we were using, the notebook crashed. After reducing file size and restarting the notebook, running "
                "the job_init_pass() crashed the kernel, which then required running the script from the start.")
# radiasoft/devops#224 (the title).
KERNEL_RESTARTS = "gpu-jupyter kernel restarts for no apparent reason"


def test_notebook_kernel_died() -> None:
    assert _top(KERNEL_CRASH) == ("not_capacity", True, 0.55, "host_ram")
    # On a GPU server, another notebook holding the GPU is the second reading.
    d = diagnose_text("The gpu-jupyter kernel died partway through the notebook")
    assert d.found_oom and [c.id for c in d.causes[:2]] == ["not_capacity", "other_process"]
    # A restart alone is not a death (a user or a scheduler restarts kernels too).
    assert not diagnose_text(KERNEL_RESTARTS).found_oom
    # Jupyter's own notice, which names no notebook.
    assert _top("The kernel appears to have died. It will restart automatically.")[3] == "host_ram"
    # A CUDA kernel's error, or an operating-system kernel, is not a notebook's kernel dying.
    assert not diagnose_text("CUDA kernel errors might be asynchronously reported").found_oom
    assert not diagnose_text("Linux kernel crashed during boot").found_oom


# Variant built from vllm-project/vllm#10533's figures (its profiling line, cut from the stored thread, showed
# initial_memory_usage=68.01GiB of 79.15GiB next to another instance; the weights line is the V0 worker's wording).
VLLM_SHARED = ("INFO worker.py:232] Memory profiling results: total_gpu_memory=79.15GiB initial_memory_usage=68.01GiB "
               "peak_torch_memory=10.02GiB memory_usage_post_profile=68.5Gib non_torch_memory=0.45GiB "
               "kv_cache_size=-62.6GiB gpu_memory_utilization=0.20\n"
               "INFO model_runner.py:1077] Loading model weights took 9.45 GB\n"
               "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
               "initializing the engine.")


def test_vllm_profile_shows_another_holder() -> None:
    d = diagnose_text(VLLM_SHARED)
    top = d.causes[0]
    assert (top.id, top.confidence) == ("other_process", 0.92)
    assert top.evidence["vllm_others_before_profile_bytes"] == round(68.01 * 2**30) - round(9.45 * 2**30)
    assert "0.91" in top.fix and [c.id for c in d.causes[:2]] == ["other_process", "kv_cache_budget"]
    # Memory in use before profiling close to the weights alone: the engine's own budget.
    alone = VLLM_SHARED.replace("initial_memory_usage=68.01GiB", "initial_memory_usage=10.01GiB")
    assert _top(alone)[0] == "kv_cache_budget"
