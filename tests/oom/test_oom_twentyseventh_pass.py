"""Twenty-seventh pass (issue 28): the mechanisms fresh_cases_30 showed, each read from its runtime's own words or figures.

* Tenstorrent's banked allocator (tt-metal ``bank_manager.cpp``): free memory per bank above the share each bank must
  store but a largest free block below it is fragmentation; the L1_SMALL and TRACE regions are sized when the device
  is opened (a setting, ``buffer_limit``).
* The Windows commit limit named by its own words: ``VirtualAlloc`` failing, a request to increase the "virtual memory"
  (Windows' name for the page file), and a miner's DAG allocation failing as a bare CUDA error on Windows.
* A request of 64 TiB or more is a garbage size (no machine has it).
* Apple MPS refusing a request that its own figures fit under "max allowed": the per-process cap.
* PyTorch's era-1 tuple with an "inactive" clause after "cached"; figures replaced by placeholders.
* cudaMemGetInfo's figures as a common CUDA sample prints them, beside "cudaMalloc failed buffer A 4GB!".
* cuSPARSE's status numbers, and its legacy csr2csc conversion (the CUDA version decides).
* cudaErrorOperatingSystem (304): page-locked host memory refused.
* Level Zero's DEVICE_LOST read as an out-of-memory without figures.
* cudaCreateTextureObject refused for memory: texture objects never destroyed.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# tenstorrent/tt-xla#4395.
TT_L1_FRAGMENTED = ("TT_FATAL: Out of Memory: Not enough space to allocate 38928384 B L1 buffer across 64 banks, where "
                    "each bank needs to store 608256 B, but bank size is 1329888 B (allocated: 323936 B, free: 1005952 "
                    "B, largest free block: 591872 B)")
# tenstorrent/tt-forge#855.
TT_DRAM_FRAGMENTED = ("| critical |          Always | TT_FATAL: Out of Memory: Not enough space to allocate 1050673152 B "
                      "DRAM buffer across 12 banks, where each bank needs to store 87556096 B, but bank size is "
                      "1073741792 B (allocated: 943941568 B, free: 129800224 B, largest free block: 34201600 B)")
# tenstorrent/tt-mlir#5556.
TT_L1_SMALL = ("RuntimeError: TT_FATAL @ /__w/tt-xla/tt-xla/third_party/tt-mlir/src/tt-mlir/third_party/tt-metal/src/"
               "tt-metal/tt_metal/impl/allocator/bank_manager.cpp:431: address.has_value()\ninfo:\nOut of Memory: Not "
               "enough space to allocate 16384 B L1_SMALL buffer across 64 banks, where each bank needs to store 256 B, "
               "but bank size is only 32768 B")


def test_tenstorrent_banks_free_but_split_are_fragmentation() -> None:
    for text in (TT_L1_FRAGMENTED, TT_DRAM_FRAGMENTED):
        assert _top(text)[0] == "fragmentation"
    cause = diagnose_text(TT_L1_FRAGMENTED).causes[0]
    assert cause.evidence["largest_free_block_bytes"] == 591872
    assert cause.evidence["per_bank_request_bytes"] == 608256
    assert "largest free block" in cause.explanation


def test_tenstorrent_region_sized_at_open_is_a_setting() -> None:
    assert _top(TT_L1_SMALL) == ("not_capacity", True, "buffer_limit")
    cause = diagnose_text(TT_L1_SMALL).causes[0]
    assert "l1_small_size" in cause.fix


def test_tenstorrent_nearly_full_banks_are_the_jobs_need() -> None:
    # A tt-xla remediation note (a 32B model in bf16 on a 32 GB Blackhole p150b): 1.5 % of each bank free, its largest
    # block below the share; the weights fill the device.
    nearly_full = ("TT_FATAL @ bank_manager.cpp:439: false\nOut of Memory: Not enough space to allocate 283115520 B DRAM "
                   "buffer across 8 banks,\nwhere each bank needs to store 35389440 B, but bank size is 4273390016 B\n"
                   "(allocated: 4209221952 B, free: 64168064 B, largest free block: 26546624 B)")
    causes = diagnose_text(nearly_full).causes
    assert causes[0].id == "genuine_shortage"
    assert [c.id for c in causes].index("fragmentation") > 0
    # A share above what the bank has free (a GLM-4.7 prefill at 64k tokens) is the job's need too.
    over = ("TT_FATAL: Out of Memory: Not enough space to allocate 402653184 B DRAM buffer across 8 banks,\nwhere each "
            "bank needs to store 50331648 B, but bank size is 4228587904 B\n(allocated: 4196763008 B, free: 31824896 B, "
            "largest free block: 20877312 B) (assert.hpp:104)")
    assert _top(over)[0] != "fragmentation"


# nicehash/NiceHashMiner-Archived#652 (title).
VIRTUALALLOC = ("memory alloc failed: virtualalloc failed. happened when there are a lot of programs running at the "
                "same times")
# nanopool/nanominer#20 (the reporter's words).
VIRTUAL_MEMORY = ("I am mining eth with 12 gtx 1070 cards rig. I am getting 2 errors. One out of memory please increased "
                  "the virtual memory.")
# nicehash/excavator#311 (title; Windows 10 Pro).
DAG_BARE = "CUDA error out of memory in func cuda_daggerhashimoto"


def test_windows_commit_limit_in_its_own_words() -> None:
    assert _top(VIRTUALALLOC) == ("not_capacity", True, "host_ram")
    assert _top(VIRTUAL_MEMORY) == ("not_capacity", True, "host_ram")


def test_virtual_memory_without_the_advice_is_not_the_page_file() -> None:
    text = "CUDA out of memory while mapping virtual memory for the DAG"
    assert _top(text)[2] != "host_ram"


def test_a_miners_dag_on_windows_is_the_commit_limit_first() -> None:
    assert _top(DAG_BARE, host_os="windows") == ("not_capacity", True, "host_ram")
    causes = diagnose_text(DAG_BARE).causes
    assert causes[0].id == "genuine_shortage"  # the OS unsaid: the card's own memory
    # A workflow's DAG is not a miner's.
    assert _top("CUDA error out of memory in task train of DAG nightly_models", host_os="windows")[0] == \
        "genuine_shortage"
    # A bare CUDA error from another runtime on Windows keeps the shortage first (Purfview/whisper-standalone-win#255).
    assert _top("RuntimeError: CUDA failed with error out of memory", host_os="windows")[0] == "genuine_shortage"


# JuliaGPU/CUDA.jl#1668.
CUDA_JL_TIB = ("Error During Test at /var/lib/buildkite-agent/builds/gpuci-9/julialang/cuda-dot-jl/test/cusparse.jl:157\n"
               "  Test threw exception\n  Expression: sparse(rows, cols, vals, fmt = :coo) isa CuSparseMatrixCOO{Float32}\n"
               "  Out of GPU memory trying to allocate 127.781 TiB")


def test_a_request_of_tens_of_tib_is_garbage() -> None:
    assert _top(CUDA_JL_TIB) == ("not_capacity", True, "absurd_size")
    assert _top(CUDA_JL_TIB.replace("127.781 TiB", "1.781 TiB"))[2] != "absurd_size"


# kitzeslab/opensoundscape#850.
MPS_UNDER_FIGURES = ("FAILED tests/test_cnn.py::test_predict_posixpath_missing_files - RuntimeError: MPS backend out of "
                     "memory (MPS allocated: 0 bytes, other allocations: 0 bytes, max allowed: 1.70 GB). Tried to "
                     "allocate 0 bytes on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit "
                     "for memory allocations (may cause system failure).")


def test_mps_cap_refusing_under_its_own_figures() -> None:
    assert _top(MPS_UNDER_FIGURES)[0] == "per_process_cap"
    cause = diagnose_text(MPS_UNDER_FIGURES).causes[0]
    assert "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0" in cause.fix


def test_mps_figures_over_the_limit_stay_the_jobs_need() -> None:
    text = MPS_UNDER_FIGURES.replace("MPS allocated: 0 bytes", "MPS allocated: 1.60 GB").replace(
        "allocate 0 bytes", "allocate 256.00 MB")
    assert _top(text)[0] == "genuine_shortage"


# horovod/horovod#2719.
HOROVOD = ("RuntimeError: CUDA out of memory. Tried to allocate 14.00 MiB (GPU 1; 15.78 GiB total capacity; 2.68 GiB "
           "already allocated; 53.75 MiB free; 77.13 MiB cached; 0 bytes inactive)")
# pyannote/pyannote-audio#1036 (figures replaced by the reporter).
PLACEHOLDERS = ("CUDA out of memory. Tried to allocate xxx GiB (GPU 0; x.xx GiB total capacity; x.xx GiB already "
                "allocated; 0 bytes free")


def test_cached_clause_with_inactive_figure_is_read() -> None:
    assert _top(HOROVOD) == ("other_process", True, "other_process")
    report = diagnose_text(HOROVOD).report
    assert report.era is not None and report.era.startswith("<=1.3")


def test_placeholder_figures_read_as_the_one_line() -> None:
    top, found, _check = _top(PLACEHOLDERS)
    assert (top, found) == ("genuine_shortage", True)
    assert diagnose_text(PLACEHOLDERS).report.parsed["request_redacted"] == 1
    # Real figures are weighed as before.
    real = PLACEHOLDERS.replace("xxx GiB", "2.00 GiB").replace("x.xx GiB total", "10.76 GiB total").replace(
        "x.xx GiB already", "2.10 GiB already") + "; 2.20 GiB reserved in total by PyTorch)"
    assert "request_redacted" not in diagnose_text(real).report.parsed


# mozkomor/GrinGoldMiner#26.
GRIN_SOLVER = ("Starting CUDA solver process on device 0\nCurrently available amount of device memory: 7005339648 bytes\n"
               "Total amount of device memory: 8589934592 bytes\nstatus: out of memory\ncudaMalloc failed buffer A 4GB!\n"
               "CUDA terminating...")


def test_cudamemgetinfo_figures_show_the_memory_free() -> None:
    assert _top(GRIN_SOLVER, host_os="windows") == ("not_capacity", True, "free_exceeds_request")
    report = diagnose_text(GRIN_SOLVER).report
    assert report.requested_bytes == 4 * 1024**3
    assert report.device is not None and report.device.free_bytes == 7005339648


def test_cudamemgetinfo_figures_below_the_request_are_not_a_refusal() -> None:
    # 2.0 GB free under a 4 GB request: the request does not fit what is free (the doctor's single-allocation reading).
    text = GRIN_SOLVER.replace("7005339648", "2005339648")
    assert _top(text)[0] in ("genuine_shortage", "single_allocation_exceeds_capacity")


# dmlc/dgl#2548.
DGL_CSR2CSC = ("dgl._ffi.base.DGLError: [09:57:10] /opt/dgl/src/array/cuda/csr_transpose.cc:83: Check failed: e == "
               "CUSPARSE_STATUS_SUCCESS: CUSPARSE ERROR: 2")


def test_legacy_csr2csc_alloc_failure_is_the_cuda_version() -> None:
    assert _top(DGL_CSR2CSC) == ("not_capacity", True, "driver_version")
    assert "cusparseCsr2cscEx2" in diagnose_text(DGL_CSR2CSC).causes[0].fix


def test_cusparse_status_two_elsewhere_is_found_but_not_the_version() -> None:
    text = DGL_CSR2CSC.replace("csr_transpose.cc", "spmm.cu")
    top, found, check = _top(text)
    assert found and check != "driver_version"
    # Another status number of cuSPARSE (3, INVALID_VALUE) is not an allocation failure.
    assert not diagnose_text(DGL_CSR2CSC.replace("ERROR: 2", "ERROR: 3")).found_oom


# FalkonML/falkon#31 (title).
OS_CALL_FAILED = "cuda runtime error (304) : OS call failed or operation not supported on this OS"


def test_os_call_failed_is_pinned_host_memory() -> None:
    assert _top(OS_CALL_FAILED) == ("not_capacity", True, "pin_memory")
    assert not diagnose_text("cuda runtime error (999) : unknown error").found_oom


# intel/torch-xpu-ops#2990.
XPU_DEVICE_LOST = ("  File \"/tmp/xpu-tool/Python/3.10.20/x64/lib/python3.10/site-packages/torch/xpu/__init__.py\", line "
                   "488, in synchronize\n    return torch._C._xpu_synchronize(device)\nRuntimeError: level_zero backend "
                   "failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)")


def test_level_zero_device_lost_reads_as_an_out_of_memory() -> None:
    assert _top(XPU_DEVICE_LOST)[:2] == ("genuine_shortage", True)
    # Another Level Zero failure is not read so.
    assert not diagnose_text(XPU_DEVICE_LOST.replace("DEVICE_LOST", "INVALID_ARGUMENT")).found_oom


# lammps/lammps#1473.
KOKKOS_TEXTURE = ("warning: Cuda API error detected: cudaCreateTextureObject returned (0x2)\n\n"
                  "terminate called after throwing an instance of 'std::runtime_error'\n"
                  "  what():  cudaCreateTextureObject( & tex_obj , & resDesc, & texDesc, NULL ) error( "
                  "cudaErrorMemoryAllocation): out of memory /home/david/git/lammps-clean/lib/kokkos/core/src/Cuda/"
                  "Kokkos_CudaSpace.cpp:290\nTraceback functionality not available")


def test_texture_object_refused_is_objects_never_destroyed() -> None:
    assert _top(KOKKOS_TEXTURE)[0] == "leak"
    assert "cudaDestroyTextureObject" in diagnose_text(KOKKOS_TEXTURE).causes[0].fix


def test_kokkos_device_allocation_is_not_read_as_texture_objects() -> None:
    text = ("terminate called after throwing an instance of 'Kokkos::Experimental::CudaRawMemoryAllocationFailure'\n"
            "  what():  cudaMalloc( &ptr, arg_alloc_size ) error( cudaErrorMemoryAllocation): out of memory "
            "Kokkos_CudaSpace.cpp:123")
    assert _top(text)[0] != "leak"
