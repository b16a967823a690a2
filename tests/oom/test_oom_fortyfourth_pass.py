"""Forty-fourth pass (issue 28, the misses over every fresh batch, no new set): the groups whose text decides.

* The RAPIDS Accelerator for Spark sizing its RMM pool at executor start ("Initial RMM allocation(P MB) is larger than
  free memory(F MB)", "The initial allocation of ... and F MB free memory) was less than the minimum allocation of ...
  and T MB total memory", NVIDIA/spark-rapids GpuDeviceManager.scala): the executor holds nothing yet, so memory not
  free then is another process's (a second executor on the same GPU), as at vLLM's start-up check; with the GPU
  (nearly) the executor's own, the pool's fraction (allocFraction) is what does not fit (``preallocation``).
* An allocator's refusal as labelled fields, RELION's custom allocator ("[requestedSpace: N B]" then
  "[totalFreeSpace: T B]", src/acc/cuda/custom_allocator.cuh): the request and the pool's free memory, so a 2^63-byte
  request is a garbage size (not_capacity, absurd_size) instead of a shortage without figures.
* vLLM's start-up check quoted without its figures ("Free memory on device on startup is less than desired GPU memory
  utilization (0.8)"): free below 0.8 of the device with nothing loaded means more than a fifth was held, another
  holder's (0.75); a share above 0.9 leaves the budget itself first.
* The compilers of a CUDA build out of memory in their own words ("ptxas fatal   : Memory allocation failure",
  cudafe++'s "catastrophic error : out of memory", cc1plus's "out of memory allocating N bytes"): host programs, so
  host RAM (fewer parallel jobs).
* TensorFlow before 1.0 naming the failing node's placement "/job:localhost/replica:0/task:0/cpu:0" with no GPU device
  in the text: the CPU allocator, host RAM.

The positive texts are real messages quoted from the public threads named in their comments; the negatives built from
a real message or from the runtime's own format string say so.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.need_have import find
from gpudesk.oom.parsers.detect import parse_text

# https://github.com/NVIDIA/cudf-spark/issues/636 (two executors per V100 server under YARN, 2020)
RAPIDS_636 = (
    "20/09/01 17:47:16 INFO RapidsExecutorPlugin: Initializing memory from Executor Plugin\n"
    "20/09/01 17:47:22 WARN GpuDeviceManager: Initial RMM allocation(13736.4248046875 MB) is larger than free "
    "memory(74.4375 MB)\n"
    "20/09/01 17:47:22 INFO GpuDeviceManager: Initializing RMM POOLED 13736.4248046875 MB on gpuId 0\n"
    "20/09/01 17:47:22 ERROR GpuDeviceManager: Could not initialize RMM\n"
    "ai.rapids.cudf.CudfException: RMM failure at: /usr/local/rapids/include/rmm/mr/device/pool_memory_resource.hpp:100: "
    "Initial pool size exceeds the maximum pool size!\n"
    "        at ai.rapids.cudf.Rmm.initializeInternal(Native Method)")

# https://github.com/NVIDIA/cudf-spark/issues/2847 (12 executors on 3 nodes x 4 GPUs, 2021)
RAPIDS_2847 = (
    "21/07/01 09:02:54 INFO RapidsExecutorPlugin: Initializing memory from Executor Plugin\n"
    "21/07/01 09:02:54 ERROR RapidsExecutorPlugin: Exception in the executor plugin\n"
    "java.lang.IllegalArgumentException: The initial allocation of 1319.9619140625 MB (calculated from "
    "spark.rapids.memory.gpu.allocFraction (=0.9) and 1466.625 MB free memory) was less than the minimum allocation of "
    "4031.90625 (calculated from spark.rapids.memory.gpu.minAllocFraction (=0.25) and 16127.625 MB total memory)\n"
    "\tat com.nvidia.spark.rapids.GpuDeviceManager$.computeRmmInitSizes(GpuDeviceManager.scala:181)")

# Negative, built from RAPIDS_636's line with the free memory of a GPU the executor has alone (the pool,
# 0.9 of a 16 GB card, above a free memory that misses it only by the driver's and the context's share).
RAPIDS_ALONE = ("WARN GpuDeviceManager: Initial RMM allocation(13736.4248046875 MB) is larger than free "
                "memory(13520.5 MB)")

# Later releases' wording of the same check (the format string of GpuDeviceManager.computeRmmPoolSize,
# NVIDIA/spark-rapids): 1.2 GiB free of a 16 GB card at start.
RAPIDS_POOL_WORDING = (
    "java.lang.IllegalArgumentException: The pool allocation of 1100.5 MiB (gpu.free: 1222.75,"
    "spark.rapids.memory.gpu.allocFraction: (=1.0,spark.rapids.memory.gpu.reserve: 671088640 => (gpu.free - reserve) "
    "* allocFraction = 1100.5) was less than allocation of 4031.5 MiB (gpu.total: 16127.625 MiB, "
    "spark.rapids.memory.gpu.minAllocFraction: 0.25 => gpu.total *minAllocFraction = 4031.5 MiB). Please ensure that "
    "the GPU has enough free memory, or adjust configuration accordingly.")

# https://github.com/tensorflow/tensorflow/issues/576 (TensorFlow 0.6's MNIST tutorial on CPU in a 3 GB VM)
TF_576 = (
    "W tensorflow/core/kernels/conv_ops.cc:178] Resource exhausted: OOM when allocating tensor with shapedim "
    "{ size: 5000 } dim { size: 28 } dim { size: 28 } dim { size: 32 }\n"
    "W tensorflow/core/common_runtime/executor.cc:1076] 0x579eaa0 Compute status: Resource exhausted: OOM when "
    "allocating tensor with shapedim { size: 5000 } dim { size: 28 } dim { size: 28 } dim { size: 32 }\n"
    "\t [[Node: Conv2D_2 = Conv2D[T=DT_FLOAT, padding=\"SAME\", strides=[1, 1, 1, 1], use_cudnn_on_gpu=true, "
    "_device=\"/job:localhost/replica:0/task:0/cpu:0\"](Cons")

# balancap/SSD-Tensorflow#157: the same era's node placed on the GPU.
TF_GPU_NODE = (
    "ResourceExhaustedError: OOM when allocating tensor with shape[3,3,512,512]\n"
    "\t [[Node: ssd_300_vgg/conv5/conv5_1/weights/Initializer/random_uniform/RandomUniform = RandomUniform[T=DT_INT32, "
    "_class=[\"loc:@ssd_300_vgg/conv5/conv5_1/weights\"], dtype=DT_FLOAT, seed=0, seed2=0, "
    "_device=\"/job:localhost/replica:0/task:0/gpu:0\"](ssd_300_vgg/conv5/conv5_1/weights/Initializer/random_uniform/"
    "shape)]]")

# Negative, built from TF_576: a GPU job's log in which a node placed on the CPU receives from the GPU (TensorFlow 1's
# _Recv node, send_device on /gpu:0): the placement is one node of many.
TF_RECV_ON_CPU = (
    "W tensorflow/core/common_runtime/bfc_allocator.cc:274] Ran out of memory trying to allocate 1.2KiB.\n"
    "Resource exhausted: OOM when allocating tensor with shape[5000,28,28,32]\n"
    "\t [[Node: Mean/_21 = _Recv[client_terminated=false, recv_device=\"/job:localhost/replica:0/task:0/cpu:0\", "
    "send_device=\"/job:localhost/replica:0/task:0/gpu:0\", send_device_incarnation=1, tensor_name=\"edge_80_Mean\", "
    "tensor_type=DT_FLOAT, _device=\"/job:localhost/replica:0/task:0/cpu:0\"]()]]")

def test_rmm_pool_start_with_the_gpu_held_is_another_process() -> None:
    for text in (RAPIDS_636, RAPIDS_2847, RAPIDS_POOL_WORDING):
        d = diagnose_text(text)
        top = d.causes[0]
        assert d.found_oom and top.id == "other_process", text
        assert top.evidence["deciding_check"] == "other_process"
        assert "one executor per GPU" in top.fix and "allocFraction" in top.more_fixes[0]
    # Without the total, the bound comes from the pool: 74 MiB free against a 13.4 GiB pool.
    assert diagnose_text(RAPIDS_636).causes[0].evidence["held_at_start_min_ratio"] > 0.99
    report = parse_text(RAPIDS_2847)
    assert report.kind == "rmm_pool_startup_free"
    assert report.parsed["total_at_start_bytes"] == int(16127.625 * 1024 * 1024)
    assert report.parsed["free_at_start_bytes"] == int(1466.625 * 1024 * 1024)
    assert parse_text(RAPIDS_POOL_WORDING).parsed["free_at_start_bytes"] == int(1222.75 * 1024 * 1024)


def test_rmm_pool_start_alone_on_the_gpu_is_the_pool_fraction() -> None:
    d = diagnose_text(RAPIDS_ALONE)
    assert parse_text(RAPIDS_ALONE).kind == "rmm_pool_startup_free"
    # The GPU was the executor's own: the pool's fraction is what does not fit.
    assert [c.id for c in d.causes] == ["preallocation"]
    assert "allocFraction" in d.causes[0].fix
    # Built from RAPIDS_2847 with the GPU free and allocFraction set below minAllocFraction: a configuration that
    # refuses itself, neither another process nor a pool set larger than the free memory.
    own_setting = RAPIDS_2847.replace("(=0.9) and 1466.625 MB", "(=0.1) and 15466.625 MB")
    assert parse_text(own_setting).kind == "rmm_pool_startup_free"
    assert {c.id for c in diagnose_text(own_setting).causes}.isdisjoint({"other_process", "preallocation"})


def test_tensorflow_node_placed_on_the_cpu_is_host_ram() -> None:
    top = diagnose_text(TF_576).causes[0]
    assert (top.id, top.evidence.get("deciding_check")) == ("not_capacity", "host_ram")
    # A node on the GPU, or a CPU node in a log that names the GPU, is not read so.
    for text in (TF_GPU_NODE, TF_RECV_ON_CPU):
        d = diagnose_text(text)
        assert d.found_oom and d.causes[0].evidence.get("deciding_check") != "host_ram", text


# https://github.com/veg/hyphy/issues/1587 (RELION 3.1.3's HIP port on a DCU, filed in the wrong repository)
RELION_HIP_1587 = (
    "cudaCustomAllocator out of memory\n"
    "[requestedSpace:             9223372036854775808 B]\n"
    "[largestContinuousFreeSpace: 16273066496 B]\n"
    "[totalFreeSpace:             16273066496 B]\n"
    "[16273066496B] = 16273066496B\n"
    "ERROR: HipCustomAllocator out of memory\n"
    "[requestedSpace:             9223372036854775808 B]\n"
    "[largestContinuousFreeSpace: 16273066496 B]\n"
    "[totalFreeSpace:             16273066496 B]\n"
    "[16273066496B] = 16273066496B\n"
    "ERROR:\n"
    "You ran out of memory on the GPU(s).")


def test_allocator_fields_give_the_request_and_the_free_memory() -> None:
    found = find(RELION_HIP_1587)
    assert found is not None and (found.need_bytes, found.have_bytes) == (2**63, 16273066496)
    top = diagnose_text(RELION_HIP_1587).causes[0]
    assert (top.id, top.evidence.get("deciding_check")) == ("not_capacity", "absurd_size")
    # Built from it: a plausible request above the pool's free memory is read as the job's need, with its figures.
    sane = RELION_HIP_1587.replace("9223372036854775808", "21474836480")
    d = diagnose_text(sane)
    assert d.found_oom and d.causes[0].id != "not_capacity" and d.report.requested_bytes == 21474836480
    # A request the pool's free memory covers in total (refused only for its largest free piece) states no shortage.
    assert find(RELION_HIP_1587.replace("9223372036854775808", "4294967296")) is None


# https://github.com/verl-project/verl/issues/4229 (the issue title: fully-async rollout worker, vLLM at 0.8)
VERL_4229 = ("vLLMAsyncRollout _loop_forever error: Free memory on device on startup is less than desired GPU memory "
             "utilization (0.8)")


def test_vllm_start_check_without_figures_reads_the_share_held() -> None:
    d = diagnose_text(VERL_4229)
    top = d.causes[0]
    assert d.found_oom and top.id == "other_process" and top.evidence["held_at_start_min_ratio"] == 0.2
    assert "20%" in top.explanation and "gpu-memory-utilization" in top.fix
    # Built from it: at 0.95 the driver and the context alone can leave less free, so the share is first.
    high = diagnose_text(VERL_4229.replace("(0.8)", "(0.95)")).causes[0]
    assert high.id == "kv_cache_budget" and high.evidence["deciding_check"] == "other_process"


# https://github.com/microsoft/onnxruntime/issues/25377 (build.bat --parallel, CUDA 12.8 on Windows 10)
ORT_BUILD_25377 = (
    "19:03:36   Compiling CUDA source file ..\\..\\..\\onnxruntime\\contrib_ops\\cuda\\bert\\flash_attention\\"
    "flash_fwd_hdim32_bf16_sm80.cu...\n"
    "19:03:37   ptxas fatal   : Memory allocation failure\n"
    "19:03:37 D:\\workspace\\ONNX-Runtime\\src\\build\\Windows\\Debug\\_deps\\cutlass-src\\include\\cute/atom/"
    "mma_traits_sm100.hpp(3324): catastrophic error : out of memory [D:\\workspace\\ONNX-R")

# desihub/redrock#235: CuPy's own "Out of memory allocating N bytes", device memory (another process held it).
REDROCK_235 = ("rrdesi_mpi --gpu out of memory errors unless specifying --max-gpuprocs 4\n"
               "Proc 32: cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 333,274,112 bytes (allocated so "
               "far: 1,974,255,616 bytes).")


def test_cuda_build_compilers_out_of_memory_is_host_ram() -> None:
    top = diagnose_text(ORT_BUILD_25377).causes[0]
    assert (top.id, top.evidence.get("deciding_check")) == ("not_capacity", "host_ram")
    assert "parallel" in top.fix and "compiler" in top.explanation
    # Each compiler's line alone says the same: ptxas's line from ORT_BUILD_25377, and cc1plus's built from
    # libiberty's format string (xmalloc_failed, libiberty/xmalloc.c) with figures of our own.
    assert diagnose_text("ptxas fatal   : Memory allocation failure").causes[0].evidence.get("deciding_check") == \
        "host_ram"
    cc1 = "cc1plus: out of memory allocating 65536 bytes after a total of 3207376896 bytes"
    assert diagnose_text(cc1).causes[0].evidence.get("deciding_check") == "host_ram"
    # A device allocator's "Out of memory allocating N bytes" is not a compiler's.
    assert diagnose_text(REDROCK_235).causes[0].evidence.get("deciding_check") != "host_ram"
