"""Thirty-sixth pass (issue 28, fresh-37 and the misses over every fresh batch).

Two readings that the figures of the text decide:

* nccl-tests' notice "Reducing maxBytes to N due to memory limitation" (src/common.cu ``run()``): the benchmark sizes
  its send, receive and check buffers from the GPU's total memory and leaves 1 GiB for everything else, so NCCL's
  "unhandled cuda error" after it is NCCL's own buffers not fitting in that room (allocation_outside_allocator), not a
  GPU that someone else holds, which stays the first reading of an nccl-tests failure without the notice.
* PyTorch's live tensors holding four fifths of the GPU or more beside a cache under 15 % of the reserved memory: the
  job's working set fills the card (genuine_shortage), above fragmentation's reading of a small cache that merely
  covers the request. A large cache beside fewer live tensors stays fragmentation.

Every text is a real message quoted from the public thread named in its comment; the negative cases check that each
reading needs its own figures or wording.
"""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.rules import genuine_shortage
from gpudesk.oom.rules.base import Facts

# https://github.com/NVIDIA/nccl-tests/issues/322 (all_reduce across many nodes; every rank fails after the 16 GiB size)
NCCL_TESTS_CAPPED = (
    "Reducing maxBytes to 27951912277 due to memory limitation\n"
    "  8589934592    2147483648     float     sum      -1    47078  182.46  364.57      0    46939  183.00  365.65      0\n"
    " 17179869184    4294967296     float     sum      -1    93457  183.83  367.29      0    93420  183.90  367.44      0\n"
    "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n"
    " .. HCA-128 pid 757466: Test failure common.cu:915")

# https://github.com/scitix/sichek/issues/71 (nccl-tests on GPUs a training job held; no cap notice)
NCCL_TESTS_PLAIN = "Test NCCL failure common.cu:1294 'unhandled cuda error ...'\nexit status 3"

# https://github.com/city-super/Octree-GS/issues/58 (a 2000-image scene on a 24 GB card; fixed by data_device=cpu and
# downsampling)
OCTREE_GS = (
    "RuntimeError: CUDA out of memory. Tried to allocate 18.00 MiB (GPU 0; 23.70 GiB total capacity; 20.71 GiB already "
    "allocated; 1.38 MiB free; 22.63 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
    "setting max_split_size_mb to avoid fragmentation. See documentation for Memory Management and "
    "PYTORCH_CUDA_ALLOC_CONF")

# https://github.com/RVC-Project/Retrieval-based-Voice-Conversion-WebUI/issues/934 (the reply: reduce batch_size)
RVC_934 = (
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 MiB (GPU 0; 16.00 GiB total capacity; "
    "13.60 GiB already allocated; 0 bytes free; 15.32 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF")

# https://github.com/OpenTalker/SadTalker/issues/229 (fragmentation: 41 % of the GPU live, half of reserved cached)
SADTALKER = (
    "CUDA out of memory. Tried to allocate 5.27 GiB (GPU 0; 15.73 GiB total capacity; 6.50 GiB already allocated; "
    "1.47 GiB free; 12.69 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
    "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")


def test_nccl_tests_cap_notice_reads_nccl_buffers_outside_the_test_buffers_first() -> None:
    d = diagnose_text(NCCL_TESTS_CAPPED)
    top = d.causes[0]
    assert d.found_oom and top.id == "allocation_outside_allocator"
    assert top.evidence["nccl_tests_max_bytes"] == 27951912277
    assert top.evidence["nccl_tests_headroom_bytes"] == 1 << 30
    assert "-e" in top.fix and "-c 0" in top.fix
    # a value to type: half of the 26.03 GiB cap, in whole GiB as nccl-tests' -e reads "13G"
    assert "-e 13G" in top.fix and "27,951,912,277 bytes" in top.fix
    assert any("NCCL_DEBUG=WARN" in c for c in top.checks)
    # Another holder stays named right behind it.
    assert d.causes[1].id == "other_process"


def test_nccl_tests_failure_without_the_notice_stays_another_process() -> None:
    d = diagnose_text(NCCL_TESTS_PLAIN)
    assert d.causes[0].id == "other_process"
    assert all(c.id != "allocation_outside_allocator" or c.confidence < d.causes[0].confidence for c in d.causes)


def test_live_tensors_filling_the_gpu_read_as_the_jobs_working_set() -> None:
    for text, live in ((OCTREE_GS, "20.71 GiB"), (RVC_934, "13.60 GiB")):
        d = diagnose_text(text)
        top = d.causes[0]
        assert top.id == "genuine_shortage", text
        assert top.confidence == genuine_shortage.LIVE_FILL_CONFIDENCE
        assert live in top.explanation
        assert "batch" in top.fix.lower()
        assert genuine_shortage.live_tensors_fill(Facts.of(d.report))
        # Fragmentation is still named, below it.
        assert "fragmentation" in [c.id for c in d.causes[1:]]


def test_a_large_cache_beside_fewer_live_tensors_stays_fragmentation() -> None:
    d = diagnose_text(SADTALKER)
    assert d.causes[0].id == "fragmentation"
    assert not genuine_shortage.live_tensors_fill(Facts.of(d.report))
