"""Twenty-first pass (issue 28): the mechanisms behind fresh-23/24/25's remaining misses, each read as a family.

* SGLang's later wording of its KV-pool check ("Loaded weights leave no GPU memory for the KV cache under
  --mem-fraction-static=F"), with the "Load weight end" figures: kv_cache_budget and the smallest fraction.
* The shell's "Killed" with the user's punctuation; growth said with an adverb of pace ("gradually increasing each
  run"); memory left on the GPU by processes that crashed or exited (other_process).
* The first GPU compared with the others in words, and "used/total" figures of several GPUs in one sentence.
* A per-allocation limit stated with the request above it ("allocation limit is N bytes, so the M-byte request
  fails") on an Intel GPU named by its Level Zero backend: not capacity, buffer_limit, in Intel's terms.
* Host allocations of a CPU library (SuperLU's SUPERLU_MALLOC); shared GPU memory on an AMD GPU (a gfx target) is
  the AMD driver's placement, not NVIDIA's fallback policy; cuDNN's EXECUTION_FAILED under XLA is its memory outside
  the preallocated pool.
* A leak in an inference runtime gets that runtime's fix, not the training loop's (loss.item()).
* "tpu" is a word, not the letters inside "output".

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.parsers import condense


def _top(text: str) -> tuple[str, bool]:
    d = diagnose_text(text)
    return d.causes[0].id, d.found_oom


# SemiAnalysisAI/InferenceX#2128.
SGLANG_NO_KV = ("Load weight end. quant=fp8, fmt=e4m3, avail mem=12.25 GB, mem usage=125.65 GB.\n# non-MTP:\n"
                "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88.")


def test_sglang_weights_leave_no_kv_pool() -> None:
    d = diagnose_text(SGLANG_NO_KV)
    top = d.causes[0]
    assert d.found_oom and top.id == "kv_cache_budget"
    # 1 − 12.25 / (12.25 + 125.65) = 0.911: SGLang's own "minimum viable" fraction, rounded up.
    assert top.evidence["mem_fraction_static_minimum_ratio"] == 0.92
    assert top.evidence["mem_fraction_static_ratio"] == 0.88
    assert "--mem-fraction-static above 0.92" in top.fix
    # The figures line alone is no failure.
    assert not diagnose_text(SGLANG_NO_KV.splitlines()[0]).found_oom


# Tangshitao/QuadTreeAttention#25.
KILLED_ZH = ("Killed！\n请问一下，这是正常的嘛，随着训练内存占用越来越大，是我64G内存条硬件不够用嘛，要通过升级内存条解决嘛，"
             "还是其他层面的问题")


def test_killed_with_punctuation_is_the_oom_killer() -> None:
    d = diagnose_text(KILLED_ZH)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"
    # "Killed" inside a sentence is not the shell's line.
    assert not diagnose_text("The job was Killed by the scheduler for running too long.").found_oom


# ggml-org/llama.cpp#23446.
LLAMA_SERVER_CREEP = "Misc. bug: llama-server vram usage gradually increasing each run until OOM"
# numz/ComfyUI-SeedVR2_VideoUpscaler#20.
COMFY_RUNS = ("VRAM Leak / Cumulative Memory Growth in seedvr2 Node When Batch Queuing Leads to OOM\n"
              "With each consecutive run of the same workflow, the VRAM peak usage steadily increases.\n"
              "Run 1: 31.46GB\nRun 2: 35.39GB\nRun 5 (Failure): 46.14GB\n"
              "    return F.linear(input, self.weight, self.bias)\ntorch.OutOfMemoryError: Allocation on device \n\n"
              "Got an OOM, unloading all loaded models.")


def test_growth_with_an_adverb_is_a_leak_in_the_runtimes_terms() -> None:
    llama = diagnose_text(LLAMA_SERVER_CREEP).causes[0]
    assert llama.id == "leak"
    assert "llama-server" in llama.fix and "loss.item()" not in llama.fix
    assert not any("torch" in c for c in llama.checks)
    comfy = diagnose_text(COMFY_RUNS).causes[0]
    assert comfy.id == "leak" and "/free" in comfy.fix and "loss.item()" not in comfy.fix
    # immich-app/immich#31675: ONNX Runtime's arena, in its own options.
    ort = diagnose_text("Face Detection GPU VRAM leak (CUBLAS_STATUS_ALLOC_FAILED / BFCArena) on v3.1.0 and v3.2.2 — "
                        "isolated to buffalo_l recognition, unrelated to job concurrency setting").causes[0]
    assert ort.id == "leak" and "memory.enable_memory_arena_shrinkage" in ort.fix
    # A training loop keeps the training fix.
    assert "loss.item()" in diagnose_text("GPU memory gradually increasing each epoch until CUDA out of memory").causes[0].fix
    # An adverb without growth is no leak.
    assert _top("llama-server: CUDA out of memory; the load gradually finished")[0] != "leak"


# BVLC/caffe#3136.
ORPHANED = ("Repeated python crashes can produce GPU Out-Of-Memory Error\nIf Python exits improperly during execution of "
            "script that creates a GPU convnet, this can produce an out-of-memory error on the GPU. It appears that the "
            "memory is orphaned on the GPU when pycaffe exits unexpectedly.")


def test_memory_left_by_processes_that_ended() -> None:
    d = diagnose_text(ORPHANED)
    top = d.causes[0]
    assert d.found_oom and top.id == "other_process" and top.evidence["deciding_check"] == "other_process"
    assert "--query-compute-apps" in top.fix
    # Memory not released between runs of a living process is a leak's wording, not an ended process.
    assert _top("VRAM leak\nAfter each video tracking run, about 2GB of VRAM usage is added and it never gets "
                "released, eventually leading to OOM.")[0] == "leak"


# openai/train-procgen#5.
FIRST_GPU = ("GPU OOM when running on manually specified devices\nWhen running with manually specified "
             "`CUDA_VISIBLE_DEVICES` variable, the code seems to use much more memory in the first gpu than others, "
             "leading to OOM error.")
# InternLM/lmdeploy#1563.
USED_OF_TOTAL = ("[Bug] Parallel GPU Memory Capacity unbalance\nWhen I use the official repo to deploy the model, it "
                 "took around 32GB/46GB，33GB/46GB on two A40 GPUs. But When I use lmdeploy, it took 43G/46G and "
                 "32G/46G for the same two A40 GPUs.\nThis is actually reduce the capability for high concurrency "
                 "because for the 43G/46G GPU, it can easily OOM for more than 2 requests")


def test_first_gpu_against_the_others() -> None:
    assert _top(FIRST_GPU) == ("multi_gpu_imbalance", True)
    top = diagnose_text(USED_OF_TOTAL).causes[0]
    assert top.id == "multi_gpu_imbalance"
    assert top.evidence["busiest_gpu_bytes"] == 43 * 1024**3 and top.evidence["least_gpu_bytes"] == 32 * 1024**3
    decimals = diagnose_text("CUDA out of memory: it took 43.5G/46G and 30.2G/46G on two A40 GPUs").causes[0]
    assert decimals.id == "multi_gpu_imbalance" and decimals.evidence["imbalance_ratio"] == 1.44
    # Balanced figures, or one GPU's figures over time, are not an imbalance.
    assert _top("It took 32GB/46GB and 33GB/46GB on two A40 GPUs, then CUDA out of memory")[0] != "multi_gpu_imbalance"
    assert _top("Memory went from 12G/24G to 23G/24G, then CUDA out of memory")[0] != "multi_gpu_imbalance"


# CHIP-SPV/chipStar#1186.
ALLOCATION_LIMIT = ("hipMalloc failure should not silently produce null pointers that crash kernels\nHeCBench `flip` "
                    "benchmark with default args (`3 1024 100`) allocates 4GB (1024^3 × 4 bytes). chipStar's allocation "
                    "limit is 4294959104 bytes, so the 4294967296-byte request fails. The kernel runs with null device "
                    "pointers and produces garbage output.\n- Intel Arc A770 (8GB VRAM)\n- Level Zero backend")


def test_stated_allocation_limit_on_an_intel_gpu() -> None:
    d = diagnose_text(ALLOCATION_LIMIT)
    top = d.causes[0]
    assert d.report.platform == "xpu"
    assert d.report.requested_bytes == 4294967296 and d.report.parsed["buffer_limit_bytes"] == 4294959104
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "buffer_limit"
    assert "clinfo" in top.fix and "GGML_VK" not in top.fix
    # A request under the stated limit is not refused by it.
    under = ALLOCATION_LIMIT.replace("4294967296-byte", "1073741824-byte")
    assert diagnose_text(under).report.signature != "buffer_limit"


# MarcoForte/closed-form-matting#21.
SUPERLU = ('    solution = scipy.sparse.linalg.spsolve(left_hand, right_hand).reshape(2, *image.shape)\n'
           '  File "/home/u/anaconda3/lib/python3.8/site-packages/scipy/sparse/linalg/dsolve/linsolve.py", line 203, in '
           'spsolve\n    x, info = _superlu.gssv(N, A.nnz, A.data, A.indices, A.indptr,\n'
           "RuntimeError: SUPERLU_MALLOC fails for buf in intCalloc() at line 159 in file "
           "scipy/sparse/linalg/dsolve/SuperLU/SRC/memory.c")
# ROCm/TheRock#3032.
AMD_SHARED = "[Issue]: [gfx1151] pytorch is allocating vram but then loads in shared GPU memory instead, causing OOM"
# jax-ml/jax#12461.
JAX_CUDNN = ("jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: CUDNN_STATUS_EXECUTION_FAILED\n"
             "in external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_dnn.cc(4023): 'cudnnConvolutionForward( "
             "cudnn.handle(), alpha, input_nd_.handle(), input_data.opaque(), filter_.handle(), filter_data.opaque(), "
             "conv_.handle(), ToConvForwardAlgo(algo), scratch_memory.opaque(), scratch_memory.size(), beta, "
             "output_nd_.handle(), output_data.opaque())'")


def test_host_heap_of_a_cpu_library() -> None:
    d = diagnose_text(SUPERLU)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity" and top.evidence["deciding_check"] == "host_ram"


def test_shared_memory_on_amd_is_the_drivers_placement() -> None:
    d = diagnose_text(AMD_SHARED)
    top = d.causes[0]
    assert d.report.platform == "rocm"
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "driver_version"
    assert "AMD" in top.fix and "NVIDIA Control Panel" not in top.fix
    # The same words on an NVIDIA card keep NVIDIA's policy.
    nvidia = diagnose_text("pytorch on RTX 4090 loads in shared GPU memory instead, causing OOM").causes[0]
    assert nvidia.id == "sysmem_fallback" and "Sysmem Fallback Policy" in nvidia.fix


def test_cudnn_execution_failure_under_xla() -> None:
    d = diagnose_text(JAX_CUDNN)
    top = d.causes[0]
    assert d.found_oom and d.report.framework == "jax"
    assert top.id == "preallocation" and "XLA_PYTHON_CLIENT_PREALLOCATE=false" in top.fix
    # Outside a preallocating framework the status is as often a kernel fault: not read as memory.
    assert not diagnose_text("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED").found_oom


def test_tpu_is_a_word() -> None:
    # jax-ml/jax#27354: a GPU allocator's log whose "input/output" holds the letters.
    text = ("E external/xla/xla/service/gpu/gpu_hlo_schedule.cc:654] The byte size of input/output arguments "
            "(1374526449600) exceeds the base limit (25554419712).\nW external/xla/xla/tsl/framework/"
            "bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.25TiB (rounded to "
            "1374521760000)requested by op ")
    assert diagnose_text(text).report.backend != "tpu"
    assert diagnose_text("RESOURCE_EXHAUSTED: TPU ran out of memory in memory space hbm").report.backend == "tpu"


def test_long_log_is_condensed_but_kept_whole() -> None:
    steps = "\n".join(f"step {i}: loss=2.{i:04d} lr=3e-4" for i in range(8000))
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "23.65 GiB of which 1.02 GiB is free. Of the allocated memory 21.80 GiB is allocated by PyTorch, and 312.00 "
           "MiB is reserved by PyTorch but unallocated.")
    text = steps + "\n" + oom
    assert len(text) > condense.CONDENSE_MIN_CHARS
    read = condense.repeated_lines(text)
    assert read.splitlines()[:3] == steps.splitlines()[:3]
    assert read.splitlines()[-4:] == steps.splitlines()[-3:] + [oom]
    d = diagnose_text(text)
    assert d.report.text == text  # nothing lost
    assert d.causes[0].id == diagnose_text("\n".join(steps.splitlines()[-3:]) + "\n" + oom).causes[0].id
    # A short text is read whole.
    assert condense.repeated_lines(oom) is oom
    # A series of failures is kept whole (its falls as well as its rises), however often its shape repeats.
    series = "\n".join(f"{steps}\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB ({n}.00 GiB already "
                       f"allocated)" for n in (12, 14, 13, 15, 16, 11, 17, 18))
    assert condense.repeated_lines(series).count("CUDA out of memory") == 8
