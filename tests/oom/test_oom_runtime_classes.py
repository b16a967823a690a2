"""Mechanisms read as classes, each on real messages from public threads that none of the case sets holds (issue 28,
eighth pass): NCCL's "unhandled cuda error", faiss's scratch reservation and its field-record wording, ggml's
page-locked buffers under WSL2, a buffer no GPU can hold in a ggml log, a statically planned region (TVM / MLC LLM)
and a kernel's dynamic shared memory. Each test reads the message as a user would paste it."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text
from gpudesk.oom.user_context import UserContext

# --- NCCL's ncclUnhandledCudaError: recognised, ranked, with the check that names the failing CUDA call ---------------
NCCL_UNHANDLED = {
    # https://github.com/NVIDIA/nccl-tests/issues/322 (nccl-tests on a cluster; "due to memory limitation" in the title)
    "nccl-tests#322": "HCA-14: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for "
                      "details) / '\n .. HCA-14 pid 1015577: Test failure common.cu:915",
    # https://github.com/vllm-project/vllm/issues/21661
    "vllm#21661": "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
    # https://github.com/TheAtticusProject/cuad/issues/9
    "cuad#9": "terminate called after throwing an instance of 'std::runtime_error'\n"
              "  what():  NCCL Error 1: unhandled cuda error",
}


@pytest.mark.parametrize("name", sorted(NCCL_UNHANDLED))
def test_nccl_unhandled_cuda_error_is_recognised_and_ranked_with_its_check(name):
    diagnosis = diagnose_text(NCCL_UNHANDLED[name])
    assert diagnosis.found_oom, "an NCCL CUDA failure is never 'no out-of-memory message'"
    ids = [c.id for c in diagnosis.causes]
    assert ids[:3] == ["other_process", "genuine_shortage", "not_capacity"]
    top = diagnosis.top
    assert top is not None and any("NCCL_DEBUG=WARN" in check for check in top.checks)
    assert top.confidence < 0.7, "a ranked reading, not a certain one"


def test_nccl_tests_run_alone_so_another_holder_is_read_more_firmly():
    alone = diagnose_text(NCCL_UNHANDLED["nccl-tests#322"]).top
    framework = diagnose_text(NCCL_UNHANDLED["vllm#21661"]).top
    assert alone is not None and framework is not None and alone.confidence > framework.confidence


def test_an_nccl_out_of_memory_line_keeps_its_memory_reading():
    # https://github.com/PKU-YuanGroup/Open-Sora-Plan/issues/386: NCCL's own warning names the failed cudaMalloc.
    text = ("ins-7df6eojsifuykig9:3018451:3018451 [0] enqueue.cc:1085 NCCL WARN Cuda failure 'out of memory'\n"
            "RuntimeError: NCCL Error 1: unhandled cuda error")
    assert diagnose_text(text).report.signature == "bare_cuda_error"


# --- faiss: the default scratch reservation in any wording, and the "size N bytes" field of a failed allocation ------
FAISS_SCRATCH_1_5_GIB = (
    # https://github.com/facebookresearch/faiss/issues/2580 (the allocMemory wording of faiss 1.7)
    "Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at "
    "/project/faiss/faiss/gpu/StandardGpuResources.cpp:452: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc "
    "1610612736 bytes on device 0 (error 2 out of memory")


def test_faiss_failing_at_its_default_scratch_size_is_the_up_front_reservation():
    diagnosis = diagnose_text(FAISS_SCRATCH_1_5_GIB)
    assert diagnosis.report.runtime == "faiss" and diagnosis.report.signature == "scratch_reserve"
    assert diagnosis.top is not None and diagnosis.top.id == "preallocation"


def test_faiss_failing_at_another_size_is_not_read_as_the_scratch():
    # https://github.com/facebookresearch/faiss/issues/2020: 512 MiB refused on a 24 GB GPU (whose scratch is 1.5 GiB).
    text = ("RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const "
            "faiss::gpu::AllocRequest&) at /home/conda/feedstock_root/build_artifacts/faiss-split_1618468126454/work/"
            "faiss/gpu/StandardGpuResources.cpp:443: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc "
            "536870912 bytes on device 1 (error 2 out of memory\nOutstanding allocations:")
    diagnosis = diagnose_text(text)
    assert diagnosis.report.signature is None and diagnosis.report.requested_bytes == 536870912
    top = diagnosis.top
    assert top is not None and top.id == "genuine_shortage"
    assert "useFloat16" in top.fix and "micro-batch" not in top.fix, "faiss's own knobs, not training advice"


def test_the_size_field_of_a_failed_allocation_record_is_the_request():
    # https://github.com/facebookresearch/faiss/issues/2179 (faiss logs the request as fields: type, dev, space, size)
    text = ("Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) "
            "at /home/conda/feedstock_root/build_artifacts/faiss-split_1636459980553/work/faiss/gpu/"
            "StandardGpuResources.cpp:452: Error: 'err == cudaSuccess' failed: StandardGpuResources: alloc fail type "
            "FlatData dev 2 space Device stream 0 size 2764800000 bytes (cudaMalloc error out of memory [2])")
    assert diagnose_text(text).report.requested_bytes == 2764800000


# --- ggml's page-locked host buffers: WSL2 and the runtime's own switch ------------------------------------------------
def test_a_bare_ggml_cuda_error_under_wsl_reads_as_pinned_memory_in_ggml_terms():
    # https://github.com/ggml-org/llama.cpp/issues/1735: under WSL2, fixed by GGML_CUDA_NO_PINNED=1.
    diagnosis = diagnose_text("CUDA error 2 at /home/ubuntu/llama.cpp/ggml-cuda.cu:1241: out of memory",
                              context=UserContext(host_os="wsl"))
    top = diagnosis.top
    assert top is not None and top.id == "not_capacity" and top.evidence["deciding_check"] == "pin_memory"
    assert "GGML_CUDA_NO_PINNED=1" in top.fix and "DataLoader" not in top.fix
    assert top.evidence["check_command"] == "GGML_CUDA_NO_PINNED=1"


def test_the_same_line_on_linux_stays_the_jobs_own_buffers():
    diagnosis = diagnose_text("CUDA error 2 at /home/ubuntu/llama.cpp/ggml-cuda.cu:1241: out of memory",
                              context=UserContext(host_os="linux"))
    assert diagnosis.top is not None and diagnosis.top.id == "genuine_shortage"


def test_ggmls_own_pinned_memory_warning_gets_the_ggml_fix():
    # https://github.com/abetlen/llama-cpp-python/issues/229 (WSL2; the pinned buffer's failure printed before the error)
    text = ("WARNING: failed to allocate 512.00 MB of pinned memory: out of memory\n"
            "CUDA error 2 at /tmp/pip-install-dcpg9e3d/llama-cpp-python_0b20594a2c9f4aa6a0b4bdca1b250223/vendor/"
            "llama.cpp/ggml-cuda.cu:781: out of memory")
    top = diagnose_text(text).top
    assert top is not None and top.id == "not_capacity" and "GGML_CUDA_NO_PINNED=1" in top.fix


# --- A buffer no GPU holds, in an engine's log -------------------------------------------------------------------------
def test_a_ggml_buffer_larger_than_any_gpu_is_a_single_allocation_not_the_context():
    # https://github.com/ikawrakow/ik_llama.cpp/issues/749 (273 GiB compute buffer with pipeline parallelism)
    text = ("llama_new_context_with_model: pipeline parallelism enabled (n_copies=4)\n"
            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 279356.51 MiB on device 0: cudaMalloc failed: "
            "out of memory\nggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 292926534144")
    ids = [c.id for c in diagnose_text(text).causes]
    assert ids[:2] == ["single_allocation_exceeds_capacity", "genuine_shortage"]


def test_an_ordinary_ggml_compute_buffer_keeps_the_engine_reading():
    # https://github.com/ggml-org/llama.cpp/issues/11476 (platform set): a 9.6 GiB compute buffer beside the model.
    text = ("deep-seek-1  | ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9866.00 MiB on device 1: cudaMalloc "
            "failed: out of memory\ndeep-seek-1  | ggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size "
            "10345253120\ndeep-seek-1  | llama_kv_cache_update_impl: failed to allocate compute buffers")
    top = diagnose_text(text).top
    assert top is not None and top.id == "genuine_shortage" and top.confidence == 0.8


# --- Statically planned regions and on-chip memory (TVM / MLC LLM) -----------------------------------------------------
def test_a_request_beyond_a_planned_region_is_that_regions_limit_in_mlc_terms():
    # https://github.com/mlc-ai/mlc-llm/issues/860 ("despite plenty of memory": a 24 GB GPU using 5.3 GB)
    text = ("[05:04:00] /home/local/llm/omniquant/mlc-llm/3rdparty/tvm/src/runtime/relax_vm/memory_manager.cc:115: "
            "InternalError: Check failed: (offset + needed_size <= this->buffer.size) is false: storage allocation "
            "failure, attempted to allocate 16785408 at offset 0 in region that is 16777216bytes")
    diagnosis = diagnose_text(text)
    top = diagnosis.top
    assert diagnosis.report.runtime == "mlc" and top is not None and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "buffer_limit" and "prefill_chunk_size" in top.fix


def test_a_kernels_dynamic_shared_memory_refused_is_on_chip_memory():
    # https://github.com/mlc-ai/mlc-llm/issues/2044
    diagnosis = diagnose_text("TVMError: Failed to set the allowed dynamic shared memory size to 73728")
    assert diagnosis.found_oom
    top = diagnosis.top
    assert top is not None and top.id == "not_capacity" and top.evidence["deciding_check"] == "shared_memory"


def test_an_mlc_shortage_gets_mlc_knobs():
    # https://github.com/mlc-ai/mlc-llm/issues/1462 (16 GB, a 7B q4f16_1 model at load)
    text = ("mlc-llm/tvm/src/runtime/cuda/cuda_device_api.cc:129: InternalError: Check failed: (e == cudaSuccess || "
            "e == cudaErrorCudartUnloading) is false: CUDA: out of memory")
    top = diagnose_text(text).top
    assert top is not None and top.id == "genuine_shortage" and "gpu_memory_utilization" in top.fix


# --- ONNX Runtime's arena at the session's own limit ---------------------------------------------------------------
def test_onnxruntime_arena_limit_is_the_sessions_cap_not_the_gpu():
    # https://github.com/infiniflow/ragflow/issues/10295 (answered: raise gpu_mem_limit)
    text = ("onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, "
            "onnxruntime::WaitNotificationFn) Available memory of 0 is smaller than requested bytes of 135383040")
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom and diagnosis.report.requested_bytes == 135383040
    top = diagnosis.top
    assert top is not None and top.id == "per_process_cap" and "gpu_mem_limit" in top.fix
    assert top.evidence["arena_available_bytes"] == 0


# --- A runtime's own pool reserved at start-up (AMReX's arena, Taichi's field storage) -----------------------------
@pytest.mark.parametrize("text, knob", [
    # https://github.com/taichi-dev/taichi/issues/8128 (ti.init with device_memory_fraction=0.9 on Windows)
    ("[Taichi] Starting on arch=cuda\n[E 06/02/23 16:36:21.714 12832] [taichi/rhi/cuda/cuda_driver.h:taichi::lang::"
     "CUDADriverFunction<void * *,unsigned __int64>::operator ()@92] CUDA Error CUDA_ERROR_OUT_OF_MEMORY: out of memory "
     "while calling malloc (cuMemAlloc_v2)\nTraceback (most recent call last):\n  File \"C:\\\\Python\\\\newtest\\\\"
     "taichi_test.py\", line 7, in <module>\n    ti.init(arch=ti.gpu, device_memory_GB=1, device_memory_fraction=0.9)",
     "device_memory_fraction"),
    # https://github.com/taichi-dev/taichi/issues/765 (two processes, each reserving its pool at start)
    ("[E 04/13/20 22:57:47.637] [cuda_driver.h:operator()@66] CUDA Error CUDA_ERROR_OUT_OF_MEMORY: out of memory while "
     "calling malloc (cuMemAlloc_v2)\n/tmp/taichi-iukg5cuq/taichi_core.so: taichi::lang::Program::"
     "initialize_runtime_system(taichi::l", "device_memory_GB"),
])
def test_a_runtime_start_up_pool_is_its_preallocation_in_its_own_knob(text, knob):
    diagnosis = diagnose_text(text)
    top = diagnosis.top
    assert diagnosis.report.signature == "startup_pool"
    assert top is not None and top.id == "preallocation" and knob in top.fix
    assert [c.id for c in diagnosis.causes][1] == "other_process"


def test_taichi_out_of_memory_outside_its_start_up_keeps_the_ordinary_reading():
    # https://github.com/taichi-dev/taichi/issues/2920: the failure is torch.zeros under ti.lang.ndarray, not ti.init.
    text = ("  File \"C:\\\\Users\\\\yidon\\\\anaconda3\\\\envs\\\\taichi\\\\lib\\\\site-packages\\\\taichi\\\\lang\\\\ndarray.py\", "
            "line 23, in __init__\n    self.arr = torch.zeros(shape,\nRuntimeError: CUDA out of memory.")
    assert diagnose_text(text).report.signature != "startup_pool"


# --- The failure named as a noun or a shortened verb is still recognised (AWS Neuron, Jittor) ------------------------
@pytest.mark.parametrize("text", [
    # https://github.com/vllm-project/vllm/issues/12443 (vLLM on AWS Neuron)
    "ERROR 02-11 14:20:32 engine.py:389]     return torch.ops.neuron._parallel_to_neuron(tensors)\n"
    "ERROR 02-11 14:20:32 engine.py:389] RuntimeError: nrt_tensor_allocate status=4 message=\"Allocation Failure\"",
    # https://github.com/aws-neuron/aws-neuron-samples/issues/96
    "RuntimeError: nrt_load_collectives status=4 message=\"Allocation Failure\"",
])
def test_neuron_allocation_failures_are_recognised_with_neuron_knobs(text):
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom and diagnosis.report.runtime == "neuron"
    top = diagnosis.top
    assert top is not None and top.id == "genuine_shortage" and "tp_degree" in top.fix


def test_jittors_shortened_verb_is_recognised():
    # https://github.com/Jittor/JittorLLMs/issues/86
    text = ("[w 0504 02:52:44.996000 68 cuda_device_allocator.cc:30] Unable to alloc cuda device memory, use unify "
            "memory instead. This may cause low performance.")
    assert diagnose_text(text).found_oom


# --- Host allocators named by their own words, and MLX's allocator on unified memory --------------------------------
def test_th_cpu_allocator_is_host_ram():
    # https://github.com/thuml/Xlearn/issues/6 (TH's THAlloc, TH/THGeneral.c)
    text = ("RuntimeError: $ Torch: not enough memory: you tried to allocate 0GB. Buy new RAM! at "
            "/pytorch/torch/lib/TH/THGeneral.c:270")
    top = diagnose_text(text).top
    assert top is not None and top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"


def test_mlx_malloc_or_wait_is_mlx_on_metal():
    # https://github.com/ml-explore/mlx-examples/issues/823
    text = ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [malloc_or_wait] Unable to "
            "allocate 124367104 bytes.")
    diagnosis = diagnose_text(text)
    assert diagnosis.report.runtime == "mlx" and diagnosis.report.backend == "metal"
    assert diagnosis.report.requested_bytes == 124367104
    top = diagnosis.top
    assert top is not None and "iogpu.wired_limit_mb" in top.fix


# --- A pool's own figures as fields of the error, and a pool's configured maximum ----------------------------------
def test_catboost_request_and_free_fields_are_read_and_fixed_in_catboost_terms():
    # https://github.com/catboost/catboost/issues/2750
    text = ("(NCudaLib::TOutOfMemoryError) /src/catboost/catboost/cuda/cuda_lib/memory_pool/stack_like_memory_pool.h:303"
            ": Error: Out of memory. Requested 8880 MB; Free 5902.061425 MB")
    diagnosis = diagnose_text(text)
    report = diagnosis.report
    assert report.runtime == "catboost" and report.requested_bytes == 8880 * 1024**2
    assert report.device is not None and report.device.free_bytes == round(5902.061425 * 1024**2)
    top = diagnosis.top
    assert top is not None and top.id == "genuine_shortage" and "border_count" in top.fix
    assert "micro-batch" not in " ".join([top.fix, *top.more_fixes]), "no deep-learning training advice"


def test_rmm_pool_maximum_is_the_pools_cap():
    # https://github.com/neka-nat/cupoch/issues/98 ("There is plenty of GPU mem available")
    text = ("    cph.initialize_allocator(cph.PoolAllocation, 1000000000)\nMemoryError: std::bad_alloc: RMM failure at:"
            "/home/adolf/cupoch/third_party/rmm/include/rmm/mr/device/pool_memory_resource.hpp:179: Maximum pool size "
            "exceeded")
    top = diagnose_text(text).top
    assert top is not None and top.id == "per_process_cap" and "maximum_pool_size" in top.fix


def test_rmm_arena_sized_from_the_device_keeps_the_shortage_reading():
    # https://github.com/dmlc/xgboost/issues/11457 (fresh-7): RMM's arena resource words its failure alike, but its
    # arena is the device's free memory, and the figures say the request does not fit it.
    text = ("Memory allocation error on worker 0: std::bad_alloc: out_of_memory: RMM failure at:/home/ubuntu/anaconda3/"
            "include/rmm/mr/device/arena_memory_resource.hpp:171: Maximum pool size exceeded (failed to allocate "
            "5.985840 GiB): No room in arena.\n- Free memory: 1.95398GB\n- Requested memory: 5.98584GB")
    top = diagnose_text(text).top
    assert top is not None and top.id == "genuine_shortage"


def test_a_ggml_buffer_failing_while_the_model_loads_is_the_weights():
    # https://github.com/ollama/ollama/issues/8597 (4x L40S, DeepSeek-R1: the weights placed on GPU 0 do not fit)
    text = ("Jan 26 17:50:35 ip-172-31-3-6 ollama[1418]: ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
            "45108.64 MiB on device 0: cudaMalloc failed: out of memory\nJan 26 17:50:35 ip-172-31-3-6 ollama[1418]: "
            "llama_model_load: error loading model: unable to allocate CUDA0 buffer")
    diagnosis = diagnose_text(text)
    assert diagnosis.report.parsed["ggml_buffer"] == "model"
    top = diagnosis.top
    assert top is not None and top.id == "genuine_shortage" and "num_gpu" in top.fix


def test_a_runtimes_own_fit_check_with_its_excess_is_recognised():
    # https://github.com/EricLBuehler/mistral.rs/issues/2127 (mistral.rs's device mapper, wrapped over two lines)
    text = ("CPU load failed: This model does not fit on the devices\n[\"cpu (avail: 0MB)\", \"cpu (avail: 0MB)\"], and "
            "exceeds total\ncapacity by 5706MB.")
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom and diagnosis.report.parsed["exceeded_by_bytes"] == 5706 * 1024**2
    top = diagnosis.top
    assert top is not None and top.id == "genuine_shortage" and "5.57 GiB" in top.explanation
