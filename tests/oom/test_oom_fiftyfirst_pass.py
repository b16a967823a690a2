"""Fifty-first pass (issue 28): messages whose own words name the mechanism, read for it.

* A size and the word "free" count as a free figure only on one line: TensorFlow's device discovery prints "Total
  memory: T" above "Free memory: F", and T is not free memory. With the free figure right, the start-up line says
  another process held the card before TensorFlow allocated anything.
* CUDA's "unknown error" (cudaErrorUnknown, 30 before CUDA 10.1, 999 after) in the words of Torch7's THCudaCheck and
  of OpenCV's cudaSafeCall in GpuMat::allocate is a runtime/driver fault, not a refused size.
* MXNet's page-locked host storage (pinned_memory_storage.h, cudaMallocHost) failing is pinned host memory.
* PyTorch's caching allocator asserting on an expandable segment is an allocator bug under expandable_segments
  combined with other options (pytorch#134338), not the shortage's message.
* cudaErrorDevicesUnavailable ("CUDA-capable device(s) is/are busy or unavailable"): another process owns the GPU.
* DeepSpeed's launcher killing its ranks right after "Before initializing optimizer states" with no rank error: the
  optimizer states built in host memory, the OOM killer.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# openai/InfoGAN#5 (TensorFlow 2016: 24.5 MiB refused; device discovery found 496 MiB free of 12 GiB).
INFOGAN = (
    "W tensorflow/core/common_runtime/bfc_allocator.cc:271] Ran out of memory trying to allocate 24.50MiB.  See logs "
    "for memory state.\nW tensorflow/core/framework/op_kernel.cc:909] Resource exhausted: OOM when allocating tensor "
    "with shape[6272,1024]\nI tensorflow/core/common_runtime/gpu/gpu_init.cc:102] Found device 0 with properties:\n"
    "name: GeForce GTX TITAN X\nmajor: 5 minor: 2 memoryClockRate (GHz) 1.076\npciBusID 0000:06:00.0\n"
    "Total memory: 12.00GiB\nFree memory: 496.40MiB")
# torch/cutorch#197 (Atari DQN on a GTX 570 after ~300,000 steps).
CUTORCH_UNKNOWN = ("luajit: cuda runtime error (30) : unknown error at "
                   "/tmp/luarocks_cutorch-scm-1-9927/cutorch/lib/THC/THCStorage.c:113")
# fixstars/libSGM#30 (OpenCV CUDA GpuMat on a Jetson TX2, built for another architecture).
OPENCV_UNKNOWN = (
    "OpenCV Error: Gpu API call (unknown error) in allocate, file "
    "/home/nvidia/workspace/opencv/modules/core/src/cuda/gpu_mat.cu, line 116\n"
    "/home/nvidia/workspace/opencv/modules/core/src/cuda/gpu_mat.cu:116: error: (-217) unknown error in function "
    "allocate")
# apache/mxnet#8041 (train_mnist.py on Windows Server 2016).
MXNET_PINNED = (
    "[17:45:39] G:\\deeplearn\\mxnet\\dmlc-core\\include\\dmlc/logging.h:308: [17:45:39] "
    "g:\\deeplearn\\mxnet\\src\\storage\\./pinned_memory_storage.h:54: Check failed: e == cudaSuccess || "
    "e == cudaErrorCudartUnloading CUDA: out of memory")
# pytorch/pytorch#119452 (expandable_segments with other allocator options near a full GPU).
EXPANDABLE_ASSERT = ('RuntimeError: !block->expandable_segment_ INTERNAL ASSERT FAILED at '
                     '"../c10/cuda/CUDACachingAllocator.cpp":2814, please report a bug to PyTorch.')
# artidoro/qlora#70 (leftover processes kept holding the GPUs; the paste starts mid-word as posted).
DEVICES_BUSY = (
    "untimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\nCUDA kernel errors might be "
    "asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
# deepspeedai/DeepSpeed#3160 (ZeRO-2 GPT-J-6B on one GPU: killed 38 s after the optimizer-state line).
DEEPSPEED_STATES = (
    "Rank: 0 partition count [1] and sizes[(6049711186, False)]\n"
    "[2023-04-07 13:08:55,468] [INFO] [utils.py:829:see_memory_usage] Before initializing optimizer states\n"
    "[2023-04-07 13:08:55,469] [INFO] [utils.py:830:see_memory_usage] MA 11.76 GB         Max_MA 11.76 GB         "
    "CA 11.77 GB         Max_CA 12 GB\n"
    "[2023-04-07 13:08:55,469] [INFO] [utils.py:838:see_memory_usage] CPU Virtual Memory:  used = 28.43 GB, "
    "percent = 22.6%\n"
    "[2023-04-07 13:09:33,201] [INFO] [launch.py:318:sigkill_handler] Killing subprocess 80\n"
    "[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] ['/usr/bin/python3', '-u', 'run_clm.py', "
    "'--local_rank=0', '--deepspeed', 'ds_config_stage2_hf.json']")


def test_total_above_a_free_label_is_not_free_memory() -> None:
    d = diagnose_text(INFOGAN)
    assert d.report.parsed["free_bytes"] == d.report.parsed["free_at_start_bytes"]
    assert d.report.parsed["free_bytes"] < 600 * 1024**2
    assert d.causes[0].id == "other_process"
    assert all(c.evidence.get("deciding_check") != "free_exceeds_request" for c in d.causes[:1])


def test_size_then_free_on_one_line_still_read() -> None:
    d = diagnose_text("CUDA error: out of memory while allocating 2.00 GiB, 512.00 MiB free")
    assert d.report.parsed.get("free_bytes") == 512 * 1024**2


def test_cuda_unknown_error_in_wrappers_is_the_runtime() -> None:
    for text in (CUTORCH_UNKNOWN, OPENCV_UNKNOWN):
        d = diagnose_text(text)
        assert d.found_oom
        top = d.causes[0]
        assert top.id == "not_capacity"
        assert top.evidence["deciding_check"] == "driver_version"


def test_bare_unknown_error_without_an_allocation_site_is_not_read() -> None:
    # The THC wording counts only where the failing call is the storage/allocator code (twenty-seventh pass keeps a
    # bare "unknown error" unrecognised).
    assert not diagnose_text("cuda runtime error (30) : unknown error").found_oom
    assert not diagnose_text("cuda runtime error (999) : unknown error at /tmp/cutorch/lib/THC/THCGeneral.c:70")\
        .found_oom


def test_cutorch_out_of_memory_is_not_the_unknown_error() -> None:
    d = diagnose_text("THCudaCheck FAIL file=/home/gpu/torch/extra/cutorch/lib/THC/generic/THCStorage.cu line=66 "
                      "error=2 : out of memory\ncuda runtime error (2) : out of memory at "
                      "/home/gpu/torch/extra/cutorch/lib/THC/generic/THCStorage.cu:66")
    assert d.report.signature != "runtime_unusable"


def test_mxnet_pinned_storage_is_pinned_host_memory() -> None:
    d = diagnose_text(MXNET_PINNED)
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "pin_memory"


def test_expandable_segment_assert_is_the_allocator_option() -> None:
    d = diagnose_text(EXPANDABLE_ASSERT)
    assert d.found_oom
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "expandable_segments"
    assert "expandable_segments" in top.fix
    # The NVML assert of a MIG slice stays the shortage it was.
    nvml = diagnose_text('RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at '
                         '"/pytorch/c10/cuda/CUDACachingAllocator.cpp":1154')
    assert nvml.causes[0].id == "genuine_shortage"


def test_devices_busy_or_unavailable_is_another_process() -> None:
    d = diagnose_text(DEVICES_BUSY)
    assert d.found_oom
    top = d.causes[0]
    assert top.id == "other_process"
    assert top.evidence["deciding_check"] == "other_process"
    assert "nvidia-smi -c 0" in top.fix


def test_launcher_kill_while_building_optimizer_states_is_host_ram() -> None:
    d = diagnose_text(DEEPSPEED_STATES)
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "host_ram"


def test_rank_error_before_the_kill_is_not_read_so() -> None:
    text = DEEPSPEED_STATES.replace(
        "[2023-04-07 13:09:33,201] [INFO]",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n[2023-04-07 13:09:33,201] [INFO]")
    d = diagnose_text(text)
    assert d.report.signature != "sigkill"


# LlamaChinese/Llama-Chinese#123 (Llama-2-7b-chat in 8 bits on a 16 GB T4; bitsandbytes' CPU-only library loaded).
BNB_CPU_BUILD = (
    "C:\\ProgramData\\anaconda3\\envs\\llama2\\lib\\site-packages\\bitsandbytes\\cextension.py:34: UserWarning: The "
    "installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and "
    "GPU quantization are unavailable.\n"
    "  warn(\"The installed version of bitsandbytes was compiled without GPU support. \"\n"
    "'NoneType' object has no attribute 'cadam32bit_grad_fp32'\n"
    "Traceback (most recent call last):\n"
    "  File \"C:\\Llama2-Chinese\\examples\\chat_gradio.py\", line 86, in <module>\n"
    "    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path,device_map='auto',"
    "torch_dtype=torch.float16,load_in_8bit=True)\n"
    "ValueError:\n"
    "                        Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit\n"
    "                        the quantized model. If you want to dispatch the model on")


def test_dispatch_refusal_beside_a_cpu_only_bitsandbytes_is_the_installation() -> None:
    d = diagnose_text(BNB_CPU_BUILD)
    top = d.causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "driver_version"
    # Without the CPU-build warning the same refusal stays the quantized model not fitting (unsloth#1629's reading).
    alone = BNB_CPU_BUILD[BNB_CPU_BUILD.index("Traceback"):]
    assert diagnose_text(alone).causes[0].id == "genuine_shortage"
