"""Thirty-third pass (issue 28, the misses of fresh batch 35): what the text carries that the doctor ignored.

* IREE's HAL drivers refuse a kernel whose shared memory per block exceeds the device's ("requested shared memory size
  of N [bytes] larger than allowed size of M [bytes]", runtime/src/iree/hal/drivers/cuda/native_executable.c): a
  per-block limit, not device memory (``shared_memory``).
* PyTorch/XLA in the same process as PyTorch's CUDA allocator (a traceback through ``torch_xla/...``): its PJRT GPU
  client preallocates 75 % of the device, which PyTorch's figures show as memory this process holds outside its
  allocator ("Process N has X memory in use" far above PyTorch's reserved memory): ``preallocation`` with the PJRT knobs.
* A CUDA allocation call named as the one that failed ("Unable to cudaMallocPitch"): an out-of-memory with no figure.
* An Ethash miner's DAG size is the request of its one device buffer (Phoenix Miner "Allocating DAG (3.33) GB",
  lolMiner "size of new DAG: 4184 MByte" under its "Memory: 4096 MByte" device row, ethminer "Generating DAG + Light").

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text
from gpudesk.units import GIB, MIB


# iree-org/iree#12975 (a torch-mlir module compiled by IREE for CUDA; the kernel asks for 800 KiB of shared memory).
IREE_SHARED_MEMORY = (
    "iree-vivekkhandelwal1/runtime/src/iree/hal/drivers/cuda/native_executable.c:133: INTERNAL; CUDA driver error: "
    "Requested shared memory size of 819200 larger than allowed size of 166912; while invoking native function "
    "hal.executable.create; while calling import; \n"
    "[ 1]   native hal.executable.create:0 -\n"
    "[ 0] bytecode module.__init:238 cuda_failure.mlir:9:10\n"
    "      at cuda_failure.mlir:4:3")


def test_iree_shared_memory_above_the_sm_limit_is_not_capacity() -> None:
    d = diagnose_text(IREE_SHARED_MEMORY)
    top = d.causes[0]
    assert d.found_oom and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "shared_memory"


def test_iree_current_wording_with_bytes_is_read_too() -> None:
    # The driver's current format (native_executable.c: "requested shared memory size of %d bytes larger than
    # allowed size of %d bytes").
    current = "INTERNAL; requested shared memory size of 819200 bytes larger than allowed size of 166912 bytes"
    assert _top(current)[0::2] == ("not_capacity", "shared_memory")


def test_shared_memory_size_without_a_refusal_is_not_the_limit() -> None:
    # A size report that exceeds nothing is not the per-block limit.
    plain = "INTERNAL; CUDA driver error: out of memory; requested shared memory size of 819200 bytes"
    assert _top(plain)[2] != "shared_memory"


# pytorch/xla#6971 (a maintainer's torchbench run: openxla dynamo backend with XLA_FALLBACK_CUDA=1 on a 16 GB GPU).
TORCH_XLA_SAME_PROCESS = (
    '  File "/ansible/pytorch/xla/torch_xla/core/dynamo_bridge.py", line 165, in _maybe_move_tensors_to_device\n'
    "    moved_tensor = tensor.to(target_device)\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 158.00 MiB. GPU 0 has a total capacity of 15.77 GiB "
    "of which 79.88 MiB is free. Process 32460 has 15.69 GiB memory in use. Of the allocated memory 3.28 GiB is "
    "allocated by PyTorch, and 227.89 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
    "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
    "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def test_torch_xla_in_the_traceback_with_memory_outside_pytorch_is_its_preallocation() -> None:
    d = diagnose_text(TORCH_XLA_SAME_PROCESS)
    top = d.causes[0]
    assert top.id == "preallocation"
    # 15.69 GiB in this process, 3.28 + 0.22 GiB of it PyTorch's: about 12.2 GiB held by the other runtime.
    assert 12.0 * GIB < top.evidence["non_pytorch_bytes"] < 12.4 * GIB
    assert "PJRT_ALLOCATOR_PREALLOCATE=false" in top.fix and "PJRT_ALLOCATOR_FRACTION" in top.fix


def test_same_figures_without_a_second_runtime_are_not_preallocation() -> None:
    no_xla = TORCH_XLA_SAME_PROCESS.replace("/ansible/pytorch/xla/torch_xla/core/dynamo_bridge.py", "/work/train.py")
    assert diagnose_text(no_xla).causes[0].id != "preallocation"


def test_torch_xla_named_with_pytorch_holding_the_card_is_not_preallocation() -> None:
    # PyTorch's own reserved memory is most of what the process holds: no room for another pool.
    own = TORCH_XLA_SAME_PROCESS.replace("Of the allocated memory 3.28 GiB", "Of the allocated memory 14.98 GiB")
    assert diagnose_text(own).causes[0].id != "preallocation"


# jczarnowski/DeepFactors#2 (dense SLAM whose GPU buffers grow with the keyframes; the maintainer: limit the keyframes).
CUDA_MALLOC_PITCH = "Exception in slam: CUDAException: Unable to cudaMallocPitch"


def test_a_failed_cuda_allocation_call_is_an_out_of_memory() -> None:
    d = diagnose_text(CUDA_MALLOC_PITCH)
    assert d.found_oom and d.causes[0].id == "genuine_shortage"


def test_an_allocation_call_that_did_not_fail_is_not_an_out_of_memory() -> None:
    assert not diagnose_text("CUDAException: unable to open the file; cudaMallocPitch is used for images").found_oom


# nicehash/NiceHashMiner#1857 (Phoenix Miner on a 4 GB GTX 1050 Ti; Windows keeps part of the card).
PHOENIX_DAG = (
    "Phoenix Miner 4.7c Windows/msvc - Release build\n"
    "GPU1: GeForce GTX 1050 Ti (pcie 2), CUDA cap. 6.1, 4 GB VRAM, 6 CUs\n"
    "GPU1: Allocating DAG (3.33) GB; good for epoch up to #298\n"
    "CUDA error in CudaProgram.cu:373 : out of memory (2)\n"
    "GPU1: CUDA memory: 4.00 GB total, 3.30 GB free\n"
    "GPU1 initMiner error: out of memory")
# Lolliedieb/lolMiner-releases#271 (an MX150 with 4096 MB and an epoch-395 DAG of 4184 MB).
LOLMINER_DAG = (
    "    Memory:  4096 MByte\n"
    "     Done (2546 ms), size of new DAG: 4184 MByte\n"
    "GPU 0: insufficient memory for DAG epoch 395.\n"
    "GPU 0: will be in Zombie mode with reduced hashrate.\n"
    "GPU 0: Allocation of DAG failed with error: Memory object allocation failure\n"
    "GPU 0: will be stopped.")


def test_phoenix_dag_above_what_is_free_is_the_shortage_with_its_figures() -> None:
    d = diagnose_text(PHOENIX_DAG)
    top = d.causes[0]
    assert top.id == "genuine_shortage"
    assert d.report.requested_bytes == round(3.33 * GIB)
    assert top.evidence["shortfall_bytes"] == round(3.33 * GIB) - round(3.30 * GIB)


def test_lolminer_dag_larger_than_the_card_is_one_allocation_beyond_capacity() -> None:
    d = diagnose_text(LOLMINER_DAG)
    top = d.causes[0]
    assert top.id == "single_allocation_exceeds_capacity"
    assert (d.report.requested_bytes, top.evidence["total_capacity_bytes"]) == (4184 * MIB, 4096 * MIB)


def test_lolminer_dag_smaller_than_the_card_is_not_beyond_capacity() -> None:
    fits = LOLMINER_DAG.replace("size of new DAG: 4184 MByte", "size of new DAG: 3184 MByte")
    assert diagnose_text(fits).causes[0].id != "single_allocation_exceeds_capacity"


def test_a_memory_row_inside_a_sentence_is_not_the_cards_total() -> None:
    prose = LOLMINER_DAG.replace("    Memory:  4096 MByte\n", "The card reports Memory: 4096 MByte here\n")
    d = diagnose_text(prose)
    assert d.causes[0].id != "single_allocation_exceeds_capacity"


# Kaggle/docker-rstats#182 (R torch's GPU test after TensorFlow had mapped the GPU in the same R session): the error
# quotes the tensor constructor's signature, whose last parameter is named pin_memory (FALSE unless asked).
R_TORCH_SIGNATURE = (
    "Error (test_torch.R:15:3): gpu imports\n"
    "<Rcpp::exception/C++Error/error/condition>\n"
    "Error in `torch_tensor_cpp(data, dtype, device, requires_grad, pin_memory)`: CUDA error: out of memory")


def test_a_parameter_named_pin_memory_is_not_pinned_memory() -> None:
    d = diagnose_text(R_TORCH_SIGNATURE)
    assert d.found_oom
    assert d.causes[0].evidence.get("deciding_check") != "pin_memory"


def test_pin_memory_set_off_is_not_pinned_memory() -> None:
    off = "loader = DataLoader(ds, batch_size=8, pin_memory=False)\nRuntimeError: CUDA error: out of memory"
    assert _top(off)[2] != "pin_memory"


def test_pin_memory_turned_on_is_still_read_first() -> None:
    on = "loader = DataLoader(ds, batch_size=8, pin_memory=True)\nRuntimeError: CUDA error: out of memory"
    assert _top(on)[0::2] == ("not_capacity", "pin_memory")


# LMCache/LMCache#1051 (the reporter's words; the log is a screenshot).
LMCACHE_WORDS = ("device：4090 48G；  memory：500GB\n"
                 "When I run the cpu-offloading.py file in the documentation, enabling lmcache causes an error, "
                 "indicating that memory cannot be allocated.")


def test_memory_that_cannot_be_allocated_is_recognised() -> None:
    assert diagnose_text(LMCACHE_WORDS).found_oom


def test_a_passive_without_an_allocation_is_not_recognised() -> None:
    assert not diagnose_text("The port cannot be opened; the file cannot be read.").found_oom


# nicehash/excavator#25 (DaggerHashimoto on a GTX 1060 3 GB under Windows 10; the developer: set enough virtual
# memory) and ethereum-mining/ethminer#1891 (CUDA_SAFE_CALL's wording): a program's own check of a CUDA call.
EXCAVATOR = ("[09:09:04][0x000018ac][fatal] wrkr0-0 | CUDA error 'out of memory' in func 'cuda_daggerhashimoto::run' "
             "line 1292")
ETHMINER = "Unexpected error CUDA error in func initEpoch_internal at line 123 out of memory on CUDA device 03:00.0"


def test_a_miners_dag_on_windows_is_the_commit_limit_first() -> None:
    assert _top(EXCAVATOR, host_os="windows")[0::2] == ("not_capacity", "host_ram")


def test_the_same_line_off_windows_is_the_cards_memory() -> None:
    assert _top(EXCAVATOR)[0] == "genuine_shortage"


def test_a_call_sites_cuda_error_is_a_bare_cuda_error() -> None:
    from gpudesk.oom.signatures import classify
    assert classify(ETHMINER) == "bare_cuda_error"
    assert classify(EXCAVATOR) == "bare_cuda_error"
    assert classify("CUDA error in func initEpoch_internal at line 123 invalid device ordinal") != "bare_cuda_error"


def test_nccl_system_error_beside_the_word_oom_is_not_read_as_nccl_alone() -> None:
    # The word OOM (bounded) beside NCCL's system error: the host or device memory named, not /dev/shm's transport.
    from gpudesk.oom.signatures import classify
    nccl = "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, unhandled system error"
    assert classify(nccl) == "nccl_system_error"
    assert classify(nccl + "\nThe job was OOM killed on node 3") != "nccl_system_error"
