"""Twenty-fourth pass (issue 28, fresh batch 28): runtimes' own wordings of failures that are not the GPU running out.

* XLA's own words for a DNN/solver library it could not start ("DNN library initialization failed", the compiler's
  RET_CHECK "dnn != nullptr", jaxlib's cusolverDnCreate), with or without JAX's name in the text: a jaxlib built for
  another CUDA/cuDNN first (``driver_version``), preallocation second.
* A CUDA library function missing from the library loaded at run time ("cudaGetErrorString symbol not found."): a
  version mismatch, never an allocation.
* Ollama's runner ending on llama.cpp's bare "unable to allocate backend buffer" with no device allocator's line: the
  CPU-side buffer of the layers that did not fit VRAM (host RAM).
* PaddlePaddle's 2017 GpuMaxChunkSize check ("enforce allocating <= available failed, A > F"): its up-front chunk.
* A runtime's fixed-size pool refusing and falling back to other memory (Triton's CNMEM pool, a pinned staging pool):
  the pool's size, not the GPU.
* SGLang's comparison of its ranks' free memory ("The memory capacity is unbalanced"): uneven GPUs first, another
  process second.
* DeepSpeed's launcher killing its ranks right after its own host-memory line showed RAM at 80 % or more: the OOM killer.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# YoshitakaMo/localcolabfold#236.
DNN_INIT = ("2024-05-11 16:05:21,977 Could not predict test. Not Enough GPU memory? FAILED_PRECONDITION: DNN library "
            "initialization failed. Look at the errors above for more details.")
# sokrypton/ColabFold#405.
DNN_MISSING = ("  Not Enough GPU memory? INTERNAL: RET_CHECK failure (ex\nternal/org_tensorflow/tensorflow/compiler/xla/"
               "service/gpu/gpu_compiler.cc:627) dnn != nullptr")
# nrbennet/dl_binder_design#38.
CUSOLVER = "RuntimeError: jaxlib/cusolver.cc:51: operation cusolverDnCreate(&handle) failed: cuSolver internal error"
# sokrypton/ColabFold#532.
SYMBOL_MISSING = ("Not Enough GPU memory? INTERNAL: CustomCall failed: jaxlib/gpu/prng_kernels.cc:33: operation "
                  "gpuGetLastError() failed: cudaGetErrorString symbol not found.")


def test_xla_library_words_are_a_library_mismatch_first() -> None:
    for text in (DNN_INIT, DNN_MISSING, CUSOLVER):
        d = diagnose_text(text)
        assert _top(text) == ("not_capacity", True, "driver_version"), text
        assert [c.id for c in d.causes[:2]] == ["not_capacity", "preallocation"], text
        assert "libcudnn" in d.causes[0].evidence["check_command"]


def test_missing_cuda_symbol_is_a_version_mismatch() -> None:
    assert _top(SYMBOL_MISSING) == ("not_capacity", True, "driver_version")
    assert "driver" in diagnose_text(SYMBOL_MISSING).causes[0].fix.lower()


def test_library_words_need_their_own_failure() -> None:
    # A real XLA allocator failure is read from its figures, not as a library problem.
    text = ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
            "17179869184 bytes.")
    assert diagnose_text(text).causes[0].evidence.get("deciding_check") != "driver_version"
    # "symbol not found" of something that is not a CUDA library is not read so.
    assert diagnose_text("ImportError: dlopen: foo_bar symbol not found").report.signature != "driver_version"


# ollama/ollama#6606 and #5958.
OLLAMA_BUFFER = ("PS C:\\Users\\Admin> ollama run mistral-nemo\nError: llama runner process has terminated: error loading "
                 "model: unable to allocate backend buffer")
OLLAMA_BUFFER_TITLE = "Error: llama runner process has terminated: error loading model: unable to allocate backend buffer"
# ollama/ollama#3683 (a labelled shortage): the device allocator's own line beside it.
OLLAMA_CUDA = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 24289.03 MiB on device 0: cudaMalloc failed: out "
               "of memory\nllama_model_load: error loading model: unable to allocate backend buffer\n"
               "Error: llama runner process has terminated: error loading model: unable to allocate backend buffer")


def test_ollama_bare_backend_buffer_is_host_ram() -> None:
    for text in (OLLAMA_BUFFER, OLLAMA_BUFFER_TITLE):
        assert _top(text) == ("not_capacity", True, "host_ram"), text
    cause = diagnose_text(OLLAMA_BUFFER).causes[0]
    fix = cause.fix.lower()
    assert "ram" in fix or "page file" in fix
    # An inference from Ollama's scheduler, below a host allocator that names itself.
    assert cause.confidence < diagnose_text("RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. "
                                            "DefaultCPUAllocator: not enough memory").causes[0].confidence


def test_ollama_backend_buffer_with_a_device_line_is_not_host_ram() -> None:
    assert diagnose_text(OLLAMA_CUDA).causes[0].evidence.get("deciding_check") != "host_ram"


# PaddlePaddle/Paddle#7227.
PADDLE_CHUNK = ("terminate called after throwing an instance of 'paddle::platform::EnforceNotMet'\n"
                "  what():  enforce allocating <= available failed, 10484135494 > 3030253312\n"
                " at [/paddle/paddle/platform/gpu_info.cc:89]\nPaddlePaddle Call Stacks:\n"
                "0             0x7600e8p paddle::platform::GpuMaxChunkSize() + 5080\n")


def test_paddle_legacy_chunk_check_is_preallocation() -> None:
    d = diagnose_text(PADDLE_CHUNK)
    assert (d.causes[0].id, d.found_oom) == ("preallocation", True)
    assert d.report.requested_bytes == 10484135494
    assert d.report.devices[0].free_bytes == 3030253312
    assert "FLAGS_fraction_of_gpu_memory_to_use" in d.causes[0].fix


# triton-inference-server/server#1765.
TRITON_POOL = ("Failed to allocate CUDA memory with byte size 78643200 on GPU 0: CNMEM_STATUS_OUT_OF_MEMORY, falling "
               "back to pinned system memory")
# LuisaGroup/LuisaRender#20.
STAGING_POOL = "[warning] Failed to allocate x bytes from CUDAHostBufferPool. Falling back to ad-hoc allocation."


def test_pool_fallback_is_the_pools_size() -> None:
    for text in (TRITON_POOL, STAGING_POOL):
        assert _top(text) == ("not_capacity", True, "buffer_limit"), text
    cause = diagnose_text(TRITON_POOL).causes[0]
    assert "--cuda-memory-pool-byte-size" in cause.fix
    assert cause.evidence["check_command"].startswith("nvidia-smi")


def test_pool_fallback_needs_the_fallback() -> None:
    # A pool's refusal with no fallback failed the job: not read as a warning.
    assert diagnose_text("Failed to allocate CUDA memory with byte size 78643200 on GPU 0: "
                         "CNMEM_STATUS_OUT_OF_MEMORY").report.signature != "pool_fallback"


# sgl-project/sglang#4233 and #1533.
SGLANG_FULL = "The memory capacity is unbalanced. Some GPUs may be occupied by other processes."
SGLANG_SHORT = "ValueError: The memory capacity is unbalanced"


def test_sglang_rank_check_is_uneven_free_memory_then_another_process() -> None:
    for text in (SGLANG_FULL, SGLANG_SHORT):
        d = diagnose_text(text)
        assert d.found_oom, text
        assert [c.id for c in d.causes[:2]] == ["multi_gpu_imbalance", "other_process"], text
    assert "nvidia-smi" in diagnose_text(SGLANG_FULL).causes[0].fix


def test_unbalanced_needs_the_engines_words() -> None:
    assert not diagnose_text("The dataset is unbalanced between classes").found_oom


# deepspeedai/DeepSpeed#4571.
DEEPSPEED_KILL = ("[2024-01-22 16:50:44,316] [INFO] [utils.py:799:see_memory_usage] CPU Virtual Memory: used = 26.4 GB, "
                  "percent = 84.6%\n[2024-01-22 16:50:49,553] [INFO] [launch.py:315:sigkill_handler] Killing subprocess "
                  "1080504")


def test_deepspeed_launcher_kill_with_full_host_ram_is_the_oom_killer() -> None:
    assert _top(DEEPSPEED_KILL) == ("not_capacity", True, "host_ram")
    assert "dmesg" in diagnose_text(DEEPSPEED_KILL).causes[0].evidence["check_command"]


def test_deepspeed_launcher_kill_needs_host_ram_nearly_full() -> None:
    calm = DEEPSPEED_KILL.replace("percent = 84.6%", "percent = 31.0%")
    assert diagnose_text(calm).report.signature != "sigkill"


# NVIDIA/TensorRT#4258 and #2643.
TRT_PIECE = ("[11/22/2024-13:40:47] [E] Error[1]: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of "
             "memory)\n[11/22/2024-13:40:47] [W] [TRT] Requested amount of GPU memory (15485030400 bytes) could not be "
             "allocated. There may not be enough free memory for allocation to succeed.")
TRT_PIECE_64G = ("[E] 2: [virtualMemoryBuffer.cpp::resizePhysical::145] Error Code 2: OutOfMemory (no further information)\n"
                 "[W] Requested amount of GPU memory (68719476736 bytes) could not be allocated. There may not be enough "
                 "free memory for allocation to succeed.")


def test_tensorrt_large_single_piece_exceeds_the_gpu() -> None:
    for text in (TRT_PIECE, TRT_PIECE_64G):
        d = diagnose_text(text)
        assert d.causes[0].id == "single_allocation_exceeds_capacity", text
        assert "set_memory_pool_limit" in d.causes[0].fix


def test_tensorrt_small_piece_is_not_read_so() -> None:
    small = TRT_PIECE.replace("15485030400", "1048576000")
    assert diagnose_text(small).causes[0].id != "single_allocation_exceeds_capacity"


# googlecolab/colabtools#5126.
TPU_HBM = ("RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate "
           "129.50M. That was not possible. There are 78.17M free.; (0x0x0_HBM0)")


def test_tpu_hbm_refusal_is_the_jobs_own_need() -> None:
    d = diagnose_text(TPU_HBM)
    assert [c.id for c in d.causes[:2]] == ["genuine_shortage", "other_process"]
    assert "jax.checkpoint" in d.causes[0].fix


def test_same_words_off_tpu_keep_another_process_beside() -> None:
    # Without the TPU's HBM named, the platform is not a TPU and the TPU reading does not apply.
    gpu = TPU_HBM.replace("; (0x0x0_HBM0)", "")
    assert diagnose_text(gpu).causes[0].title != "Not enough TPU memory (HBM) for this computation"
