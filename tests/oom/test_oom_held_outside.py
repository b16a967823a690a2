"""Mechanisms added after the first three fresh batches (issue 28, second pass), each on the real message that
showed it (the URL names the thread): memory outside this process's allocator read as another process when the
figures say so, a TensorRT tactic's workspace, a one-line CUDA error, a bare cuDNN/cuBLAS status, a request near the
largest GPU, ONNX Runtime on the CPU provider, a leak described in words, a paste cut inside "out of memory"."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.rules.held_outside import OWN_NON_ALLOCATOR_BYTES
from gpudesk.oom.rules.single_allocation_exceeds_capacity import largest_gpu_bytes

GiB = 1024**3


def _ids(text: str) -> list[str]:
    return [c.id for c in diagnose_text(text).causes]


def test_remainder_far_above_a_context_is_another_process_with_the_deciding_check():
    # phamquiluan/ResidualMaskingNetwork#15: 9.7 of 10.76 GiB neither free nor PyTorch's.
    d = diagnose_text("RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 10.76 GiB total "
                      "capacity; 996.23 MiB already allocated; 8.81 MiB free; 1010.00 MiB reserved in total by "
                      "PyTorch)")
    top = d.causes[0]
    assert top.id == "other_process" and top.evidence["deciding_check"] == "other_process"
    assert "nvidia-smi --query-compute-apps" in top.evidence["check_command"]
    assert top.evidence["held_by_others_estimate_bytes"] == top.evidence["outside_allocator_bytes"] - OWN_NON_ALLOCATOR_BYTES
    own = next(c for c in d.causes if c.id == "allocation_outside_allocator")
    assert own.confidence < top.confidence and any("nvidia-smi --query-compute-apps" in line for line in own.checks)


def test_old_cached_wording_counts_the_cache_as_this_process():
    # erikguo/yolov3#4 ("cached" is the unallocated cache in that release): 2.3 GiB outside, 1.1 GiB beyond a context.
    assert _ids("RuntimeError: CUDA out of memory. Tried to allocate 338.00 MiB (GPU 0; 3.95 GiB total capacity; "
                "1.62 GiB already allocated; 23.00 MiB free; 9.10 MiB cached)")[0] == "other_process"


def test_an_in_process_holder_named_in_the_text_keeps_this_process_first():
    # The same figures with NCCL in the traceback: the communicators' buffers are this process's own.
    text = ("RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 10.76 GiB total capacity; "
            "996.23 MiB already allocated; 8.81 MiB free; 1010.00 MiB reserved in total by PyTorch)\n"
            "  File \"train.py\", line 40, in <module>\n    torch.distributed.init_process_group('nccl')")
    assert _ids(text)[0] == "allocation_outside_allocator"


def test_amd_apu_remainder_stays_outside_the_allocator():
    # kyuz0/amd-strix-halo-image-video-toolboxes#3: unified memory, the remainder is other programs' RAM.
    assert _ids("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.31 GiB. GPU 0 has a total capacity "
                "of 128.00 GiB of which 780.24 MiB is free. Of the allocated memory 57.70 GiB is allocated by "
                "PyTorch, and 75.82 MiB is reserved by PyTorch but unallocated.")[0] == "allocation_outside_allocator"


def test_tensorrt_tactic_workspace_is_one_request_with_the_workspace_fix():
    # enazoe/yolo-tensorrt#169: 4 GiB workspace on a 4 GB GeForce 940MX.
    d = diagnose_text("WARNING: Requested amount of GPU memory (4294967296 bytes) could not be allocated. There may "
                      "not be enough free memory for allocation to succeed.\nWARNING: Skipping tactic 1 due to "
                      "insuficient memory on requested size of 4294967296 detected for tactic 0.\nTry decreasing the "
                      "workspace size with IBuilderConfig::setMaxWorkspaceSize()")
    top = d.causes[0]
    assert top.id == "single_allocation_exceeds_capacity" and top.evidence["tactic_workspace_bytes"] == 4 * GiB
    assert "set_memory_pool_limit" in top.fix


def test_one_line_cuda_error_reads_as_the_jobs_need_with_the_check():
    # chenxi116/DeepLabv3.pytorch#16: fixed by fitting the job (a 16 GB GPU was assumed).
    d = diagnose_text("RuntimeError: CUDA error: out of memory")
    assert [c.id for c in d.causes[:2]] == ["genuine_shortage", "other_process"]
    assert d.causes[0].evidence["deciding_check"] == "other_process" and 0.4 <= d.causes[0].confidence < 0.5
    assert any(c.id == "not_capacity" and c.evidence["not_capacity_kind"] == "pin_memory" for c in d.causes)


def test_cuda_error_with_the_asynchronous_note_is_outside_the_allocator():
    # OpenMOSS/MOSS#328: a release whose allocator words its own failures "Tried to allocate".
    d = diagnose_text("RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported "
                      "at some other API call, so the stacktrace below might be incorrect.")
    assert d.causes[0].id == "not_capacity" and d.causes[0].evidence["not_capacity_kind"] == "pin_memory"


def test_bare_library_status_reads_as_a_preallocating_framework():
    # tensorflow/tensorflow#14345: fixed by allow_growth.
    assert _ids("CUBLAS_STATUS_ALLOC_FAILED")[0] == "preallocation"
    # PyTorch's own wording keeps its reading (QwenLM/Qwen3#873).
    assert _ids("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`")[0] == \
        "allocation_outside_allocator"


def test_request_near_the_largest_gpu_is_a_single_allocation():
    # google-deepmind/alphafold#185: 275 GiB for a 7,000-residue complex.
    d = diagnose_text("RuntimeError: Resource exhausted: Out of memory while trying to allocate 294970604000 bytes.")
    assert d.causes[0].id == "single_allocation_exceeds_capacity" and not d.causes[0].evidence.get("bogus_size")
    assert largest_gpu_bytes() > 200 * GiB
    # sokrypton/ColabFold#186: 7.3 GiB stays a shortage.
    assert _ids("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 7866899248 bytes.")[0] == "genuine_shortage"


def test_onnxruntime_nchwc_node_is_host_memory():
    # DayBreak-u/chineseocr_lite#355: the CPU provider's NCHWc node.
    d = diagnose_text("Non-zero status code returned while running Conv node. Name:'347_nchwc' Status Message: "
                      "D:\\a\\_work\\1\\s\\onnxruntime\\core\\framework\\bfc_arena.cc:330 onnxruntime::BFCArena::"
                      "AllocateRawInternal Failed to allocate memory for requested buffer of size 285081600")
    assert d.causes[0].id == "not_capacity" and d.causes[0].evidence["deciding_check"] == "host_ram"
    # The same arena failure on a CUDA-provider session is GPU memory.
    cuda = diagnose_text("onnxruntime::BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer "
                         "of size 285081600 CUDAExecutionProvider CPUExecutionProvider")
    assert cuda.causes[0].evidence.get("deciding_check") != "host_ram"


def test_leak_in_words():
    # microsoft/SpareNet#12: losses kept with their graphs.
    d = diagnose_text("GPU memory leakage (CUDA out of memory after 2 epochs)")
    assert d.causes[0].id == "leak" and d.causes[0].evidence["described_as"] == "leakage"
    assert diagnose_text("RuntimeError: CUDA out of memory after 3 epochs").causes[0].id == "leak"


def test_paste_cut_inside_out_of_memory_is_recognised():
    # taki0112/FUNIT-Tensorflow#3.
    d = diagnose_text("Allocator (GPU_0_bfc) ran out of memo")
    assert d.found_oom and d.report.framework == "tensorflow" and d.causes[0].id == "genuine_shortage"


def test_out_of_memory_in_a_runtime_init_file_is_its_start_up():
    # soumith/dcgan.torch#65: cutorch initialised on a GPU another job had filled.
    d = diagnose_text("THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1-28/cutorch/init.c line=261 error=2 : "
                      "out of memory")
    assert d.report.signature == "context_init" and d.causes[0].id == "other_process"
    # NCCL's own INFO trace through init.cc on other lines is not the failing line (NVIDIA/nccl#1235).
    assert diagnose_text("ng30903:3063025:3066048 [0] NCCL INFO init.cc:1079 -> 3\n"
                         "ng30903:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'"
                         ).report.signature != "context_init"
