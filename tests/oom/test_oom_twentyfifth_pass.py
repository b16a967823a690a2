"""Twenty-fifth pass (issue 28, fresh batches 28 and 29): runtimes' own pools and budgets, and what TensorFlow's refusals
say about who took the memory.

* A pool the runtime sized itself and never grows (MuJoCo's arena, PhysX's GPU dynamics buffers, Emscripten's
  WebAssembly heap): not capacity, the runtime's own size setting as the fix (gpudesk.oom.pool_words).
* HAMi-core's "Device N OOM A / L": the pod's vGPU share; with A at 2^63 or more, its usage counter wrapped below zero
  (a garbage size) (gpudesk.oom.vgpu_words).
* The shell's "Killed" named as an error; ENOSPC beside a GPU job with no disk write named (/dev/shm).
* StreamExecutor's algorithm queries failing for want of a handle (GetConvolveAlgorithms, GetBlasGemmAlgorithms); a
  cuBLAS-only failure under XLA: preallocation before a library mismatch.
* PyTorch's out-of-memory inside vLLM's model execution with the engine's process holding most of the card: the
  engine's gpu_memory_utilization budget.
* TensorFlow's refused reservation of 95 % of the card or more: a memory fraction near 1 (preallocation); the same size
  refused again and again: its pool growing for the job's tensors (the job's own need).
* A figureless out-of-memory under nn.DataParallel: GPU 0 carries more than the others.
* An inference pass that fails only on a large set: memory kept per batch (a leak).
* A pinned buffer that failed or fell back: page-locked host memory.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# gazebosim/gz-physics#1097.
MUJOCO = ("ERROR: mj_stackAlloc: out of memory, stack overflow at mj_collision, line 618\n"
          "  max = 15728640, available = 15728616, requested = 18054040\n nefc = 0, ncon = 0")
# isaac-sim/IsaacLab#1389.
PHYSX_PATCH = ("[Error] [omni.physx.plugin] PhysX error: Patch buffer overflow detected, please increase its size to at "
               "least 167788 in the scene desc!")
# mani-skill/ManiSkill#1209.
PHYSX_STACK = ("[2025-07-31 12:53:49.591] [SAPIEN] [critical] PxgDynamicsMemoryConfig::collisionStackSize buffer overflow "
               "detected, please increase its size to at least 73774744 in the scene desc!")
# lacyyy/DZSimulator's notes on its web port (Emscripten built with ASSERTIONS: the heap size it needed, in bytes).
WASM_HEAP = ("Aborted(Cannot enlarge memory arrays to size 33558528 bytes (OOM). Either\n(1) compile with -sINITIAL_MEMORY=X "
             "with X higher than the current value\n33554432, (2) compile with -sALLOW_MEMORY_GROWTH which allows "
             "increasing\nthe size at runtime, or (3) if you want malloc to return NULL (0) instead\nof this abort, compile "
             "with -sABORTING_MALLOC=0)")
# kripken/ammo.js#296.
AMMO = ("ammo.js:73 Uncaught Error: abort(OOM). Build with -s ASSERTIONS=1 for more info.\n    at pa (ammo.js:73)\n"
        "    at emscripten_resize_heap (ammo.js:83)\n    at Fb (ammo.js:53)")


def test_runtime_fixed_pools_are_not_capacity_with_their_own_setting() -> None:
    for text, setting in ((MUJOCO, "<size memory="), (PHYSX_PATCH, "gpu_max_rigid_patch_count"),
                          (PHYSX_STACK, "set_gpu_memory_config"), (AMMO, "INITIAL_MEMORY")):
        assert _top(text) == ("not_capacity", True, "buffer_limit"), text
        cause = diagnose_text(text).causes[0]
        assert setting in cause.fix, text
        assert cause.evidence["not_capacity_kind"] == "fixed_pool"
    mujoco = diagnose_text(MUJOCO).causes[0].evidence
    assert (mujoco["pool_bytes"], mujoco["pool_available_bytes"], mujoco["requested_bytes"]) == (
        15728640, 15728616, 18054040)
    assert diagnose_text(PHYSX_STACK).causes[0].evidence["pool_needed"] == 73774744
    # Emscripten states its figure in bytes, PhysX in the buffer's own unit: two keys.
    heap = diagnose_text(WASM_HEAP).causes[0]
    assert heap.evidence["not_capacity_kind"] == "fixed_pool" and "INITIAL_MEMORY" in heap.fix
    assert heap.evidence["pool_needed_bytes"] == 33558528 and "pool_needed" not in heap.evidence


def test_fixed_pool_needs_the_runtimes_words() -> None:
    # A buffer overflow without the scene descriptor's request, an abort that is not Emscripten's OOM, an "OOM" with no
    # heap function: none is read as a fixed pool.
    for text in ("*** buffer overflow detected ***: terminated",
                 "Uncaught Error: abort(Assertion failed). Build with -s ASSERTIONS=1 for more info.",
                 "RuntimeError: CUDA out of memory. OOM at step 5"):
        assert diagnose_text(text).report.signature != "fixed_pool", text


# Project-HAMi/HAMi#1181.
HAMI_WRAPPED = "[HAMI-core ERROR (pid:1 thread=140160828682240 allocator.c:53)]: Device 0 OOM 18446744073707737660 / 24146608128"


def test_hami_wrapped_counter_is_a_garbage_size() -> None:
    assert _top(HAMI_WRAPPED) == ("not_capacity", True, "absurd_size")
    cause = diagnose_text(HAMI_WRAPPED).causes[0]
    assert "HAMi" in cause.fix and "2.6.1" in cause.fix


def test_hami_refusal_below_the_wrap_is_the_pods_share() -> None:
    text = HAMI_WRAPPED.replace("18446744073707737660", "24300000000")
    d = diagnose_text(text)
    assert d.causes[0].id == "per_process_cap"
    assert d.causes[0].evidence["vgpu_limit_bytes"] == 24146608128
    assert "nvidia.com/gpumem" in d.causes[0].fix


# anishathalye/neural-style#131 (the title).
KILLED_ERROR = "Killed error"
# ultralytics/ultralytics#1238 (the title).
ENOSPC_GPU = "No space left on device with plenty of space left on GPU"


def test_killed_error_is_the_oom_killer() -> None:
    assert _top(KILLED_ERROR) == ("not_capacity", True, "host_ram")
    assert not diagnose_text("Killed errors were logged by the scheduler").found_oom


def test_enospc_beside_a_gpu_job_is_dev_shm() -> None:
    assert _top(ENOSPC_GPU) == ("not_capacity", True, "host_ram")
    cause = diagnose_text(ENOSPC_GPU).causes[0]
    assert "--shm-size" in cause.fix
    # Inferred, not named: below a /dev/shm the text names.
    assert cause.confidence < diagnose_text("No space left on device: /dev/shm is full").causes[0].confidence


def test_enospc_while_saving_is_not_dev_shm() -> None:
    text = "torch.save(model, path) on the GPU box: OSError: [Errno 28] No space left on device"
    assert diagnose_text(text).report.signature != "dev_shm"


# jax-ml/jax#13504.
JAX_BLAS = ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: RET_CHECK failure (external/org_tensorflow/tensorflow/"
            "compiler/xla/service/gpu/gemm_algorithm_picker.cc:327) stream->parent()->GetBlasGemmAlgorithms(stream, "
            "&algorithms)")
# ymgaq/AQ#73 (the last line).
TF_CONVOLVE = ("2018-02-04 10:34:43.081099: F tensorflow/core/kernels/conv_ops.cc:672] Check failed: stream->parent()->"
               "GetConvolveAlgorithms( conv_parameters.ShouldIncludeWinogradNonfusedAlgo<T>(), &algorithms) ")


def test_algorithm_queries_without_a_handle_are_the_library_handle() -> None:
    d = diagnose_text(JAX_BLAS)
    assert d.found_oom and d.report.signature == "library_init"
    assert [c.id for c in d.causes[:1]] == ["preallocation"]
    assert "XLA_PYTHON_CLIENT_PREALLOCATE" in d.causes[0].fix
    assert diagnose_text(TF_CONVOLVE).causes[0].id == "preallocation"


def test_cudnn_words_under_jax_keep_the_library_first() -> None:
    # The 24th pass's reading of XLA's DNN library stays: a cuDNN failure under JAX is a mismatch first.
    text = "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed."
    assert _top(text)[0] == "not_capacity"


# vllm-project/vllm#9290.
VLLM_SERVING = ("ERROR 10-11 12:27:29 engine.py:157] OutOfMemoryError('CUDA out of memory. Tried to allocate 138.00 MiB. "
                "GPU 0 has a total capacity of 79.15 GiB of which 2.19 MiB is free. Including non-PyTorch memory, this "
                "process has 79.12 GiB memory in use. Of the allocated memory 71.57 GiB is allocated by PyTorch, with "
                "39.77 MiB allocated in private pools (e.g., CUDA Graphs), and 611.60 MiB is reserved by PyTorch but "
                "unallocated. If reserved but unallocated memory is large try setting "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
                "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)')")
# OpenBMB/MiniCPM-V#612.
VLLM_EXECUTION = ("[rank0]: torch.OutOfMemoryError: Error in model execution (input dumped to "
                  "/tmp/err_execute_model_input_20241010-154829.pkl): CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
                  "has a total capacity of 23.69 GiB of which 979.69 MiB is free. Process 115625 has 22.73 GiB memory in "
                  "use. Of the allocated memory 22.29 GiB is allocated by PyTorch, and 129.54 MiB is reserved by PyTorch "
                  "but unallocated. If reserved but unallocated memory is large try setting "
                  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
                  "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def test_vllm_step_with_the_engine_holding_the_card_is_its_budget() -> None:
    for text in (VLLM_SERVING, VLLM_EXECUTION):
        d = diagnose_text(text)
        assert d.causes[0].id == "kv_cache_budget", text
        assert "--gpu-memory-utilization" in d.causes[0].fix


def test_vllm_budget_needs_vllms_marks_and_a_full_process() -> None:
    # The same figures without vLLM's words: the PyTorch reading.
    bare = VLLM_EXECUTION.replace("Error in model execution (input dumped to "
                                  "/tmp/err_execute_model_input_20241010-154829.pkl): ", "")
    assert diagnose_text(bare).causes[0].id != "kv_cache_budget"
    # vLLM's words with the process holding half the card: another holder, not the engine's budget.
    half = VLLM_EXECUTION.replace("Process 115625 has 22.73 GiB", "Process 115625 has 11.73 GiB").replace(
        "22.29 GiB is allocated", "11.29 GiB is allocated")
    assert diagnose_text(half).causes[0].id != "kv_cache_budget"


# davidsandberg/facenet#402.
TF_WHOLE_CARD = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1030] Creating TensorFlow device (/gpu:0) -> (device: "
                 "0, name: GeForce GTX 1060 6GB, pci bus id: 0000:01:00.0)\nE tensorflow/stream_executor/cuda/"
                 "cuda_driver.cc:924] failed to allocate 5.93G (6365773824 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY")
# nixingyang/AdaptiveL2Regularization#14.
_TF_GROWTH_LINE = ("2021-04-23 22:03:46.322761: I tensorflow/stream_executor/cuda/cuda_driver.cc:763] failed to allocate "
                   "2.08G (2234974208 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n")
TF_GROWTH = _TF_GROWTH_LINE * 5 + "TIME : 2.737222671508789 batch :  64"


def test_tf_reservation_of_the_whole_card_is_its_fraction() -> None:
    d = diagnose_text(TF_WHOLE_CARD)
    assert d.causes[0].id == "preallocation"
    assert "gpu_memory_fraction" in d.causes[0].fix


def test_tf_reservation_below_the_card_stays_another_process() -> None:
    # Half the card, refused once: memory measured free a moment before was taken (the 4th pass's reading).
    half = TF_WHOLE_CARD.replace("5.93G (6365773824 bytes)", "2.96G (3179741184 bytes)")
    assert diagnose_text(half).causes[0].id == "other_process"


def test_tf_same_size_refused_again_and_again_is_the_jobs_own_need() -> None:
    assert diagnose_text(TF_GROWTH).causes[0].id == "genuine_shortage"
    # Twice is not yet the pattern.
    assert diagnose_text(_TF_GROWTH_LINE * 2).causes[0].id == "other_process"


# ethnhe/FFB6D#35 (the title).
DATAPARALLEL = "CUDA out of memory related to data parallel"


def test_dataparallel_named_is_gpu0_carrying_more() -> None:
    d = diagnose_text(DATAPARALLEL)
    assert d.causes[0].id == "multi_gpu_imbalance"
    assert "DistributedDataParallel" in d.causes[0].fix


def test_distributed_data_parallel_is_not_read_so() -> None:
    for text in ("CUDA out of memory with distributed data parallel",
                 "RuntimeError: CUDA out of memory in DistributedDataParallel",
                 "RuntimeError: CUDA out of memory in FullyShardedDataParallel",
                 "data_parallel_size=8\nRuntimeError: CUDA out of memory"):
        assert diagnose_text(text).causes[0].id != "multi_gpu_imbalance", text


# muellerzr/fastinference#7 (the title).
LARGE_TEST_SET = "CUDA Out of Memory When Running Inference on a Large Test Set"


def test_inference_failing_only_on_a_large_set_is_a_leak() -> None:
    d = diagnose_text(LARGE_TEST_SET)
    assert d.causes[0].id == "leak"
    assert any(".cpu()" in fix for fix in d.causes[0].more_fixes)
    # A large model at inference is not a set that grows.
    assert diagnose_text("CUDA out of memory when running inference with a large model").causes[0].id != "leak"


# ollama/ollama#17380 (the title).
PINNED_FALLBACK = ("Intermittent \"CUDA error: shared object initialization failed\" at warmup — silent CUDA_Host → CPU "
                   "pinned buffer fallback (Windows, RTX 5070 Ti, gpt-oss:20b)")


def test_pinned_buffer_fallback_is_pinned_host_memory() -> None:
    assert _top(PINNED_FALLBACK) == ("not_capacity", True, "pin_memory")


# kaldi-asr/kaldi#4374 (the title), and Kaldi's full allocator message (src/cudamatrix/cu-allocator.cc, as a
# Kaldi user quoted it in the same recipe's thread).
KALDI_TITLE = "Failed to allocate a memory region during nnet3-chain-train2"
KALDI_FULL = ("ERROR (nnet3-chain-train[5.5.313~1-203c]:AllocateNewRegion():cu-allocator.cc:519) Failed to allocate a "
              "memory region of 82837504 bytes.  Possibly this is due to sharing the GPU.  Try switching the GPUs to "
              "exclusive mode (nvidia-smi -c 3) and using the option --use-gpu=wait to scripts like "
              "steps/nnet3/chain/train.py.  Memory info: free:15M, used:11160M, total:11175M, free/total:0.00138696")


def test_kaldi_region_failure_is_its_own_jobs_sharing_the_gpu() -> None:
    for text in (KALDI_TITLE, KALDI_FULL):
        d = diagnose_text(text)
        assert d.causes[0].id == "other_process", text
        assert "nvidia-smi -c 3" in d.causes[0].fix and "--use-gpu=wait" in d.causes[0].fix
    assert diagnose_text(KALDI_FULL).causes[0].confidence > diagnose_text(KALDI_TITLE).causes[0].confidence


def test_region_words_without_kaldi_are_not_read_so() -> None:
    text = "FATAL: Arena failed to allocate a memory region. CUDA out of memory"
    assert not any("--use-gpu=wait" in cause.fix for cause in diagnose_text(text).causes)


# Project-HAMi/HAMi-core#170 (the title and the first lines of the description).
HAMI_CARD_FULL = "gpu error cuMemoryAllocate failed res=2 CUDA failure 2: out of memeory\nhami 2.6.1\n我的主机是v100 16G 两卡"


def test_card_refusal_under_a_sharing_layer_is_the_other_pods() -> None:
    d = diagnose_text(HAMI_CARD_FULL)
    assert d.causes[0].id == "other_process"
    assert "nvidia.com/gpumem" in d.causes[0].fix


def test_same_refusal_without_a_sharing_layer_keeps_the_bare_reading() -> None:
    bare = HAMI_CARD_FULL.replace("\nhami 2.6.1", "")
    assert not any("nvidia.com/gpumem" in cause.fix for cause in diagnose_text(bare).causes)
    # A user's directory of that name is not the layer.
    home = HAMI_CARD_FULL.replace("hami 2.6.1", "/home/hami/run.sh")
    assert not any("nvidia.com/gpumem" in cause.fix for cause in diagnose_text(home).causes)


# YoshitakaMo/localcolabfold#228 (the title).
QUESTION_AFTER_DOWNGRADE = "When I degraded the jax, the code can run on GPU, but Not Enough GPU memory?"


def test_colabfold_question_after_a_version_change_is_the_library() -> None:
    assert _top(QUESTION_AFTER_DOWNGRADE) == ("not_capacity", True, "driver_version")


def test_colabfold_question_with_its_error_is_read_from_the_error() -> None:
    # The exception after the question decides (sokrypton/ColabFold#186), version words or not.
    text = ("When I degraded the jax: Could not predict test_cdf7a. Not Enough GPU memory? RESOURCE_EXHAUSTED: Out of "
            "memory while trying to allocate 7866899248 bytes.")
    assert diagnose_text(text).report.signature != "library_changed"
    # The bare question without a version change is not read as the library.
    assert diagnose_text("Could not predict x. Not Enough GPU memory?").report.signature != "library_changed"
