"""Fifty-sixth pass (issue 28): not-capacity said by the call that failed, where the doctor read a shortage.

Each reading needs the evidence in the text itself (gpudesk.oom.rules.runtime_refusals), never a project's name:

* a stream-ordered allocation (hipMallocAsync / cudaMallocAsync) refused while the plain call works -> driver_version;
* "exceeds limits for a single allocation" -> buffer_limit;
* vkAllocateMemory's -10 (VK_ERROR_TOO_MANY_OBJECTS, the allocation-count limit) -> buffer_limit;
* Level Zero's out-of-device-memory returned by a barrier -> driver_version;
* a TensorFlow BFC dump whose limit is exactly 64 GiB, the pinned host pool's default -> pin_memory.

Every positive text is a real message quoted from the public thread named in its comment; the negatives keep a
ranked set without a confident not-capacity answer."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text

# kokkos/kokkos#8008 (the issue's own sentence; fixed in ROCm 7.0).
ASYNC_VS_PLAIN = ("there is a problem with `hipMallocAsync` which errors out with `hipErrorOutOfMemory` while "
                  "`hipMalloc` works fine.")
# JuliaGPU/AMDGPU.jl#938 (the C reproducer of AMDGPU.jl#901 on an MI300A).
ASYNC_TABLE = ("./test-hipMalloc \nDevice: AMD Instinct MI300A  arch: gfx942:sramecc+:xnack-\n\n[hipMalloc]             OK\n"
               "[hipMallocAsync]        out of memory\n[hipMallocFromPoolAsync] out of memory")
# CHIP-SPV/chipStar#1448 (hipCUB radix sort on an Arc A380).
SINGLE_ALLOCATION = "hipErrorOutOfMemory, 'Allocation size exceeds limits for a single allocation'"
# nihui/realcugan-ncnn-vulkan#41 (Radeon 6900 XT, about 4 of 16 GB in use).
VK_MINUS_TEN = ("When I set tile-size to <= 65, error message `vkAllocateMemory failed -10` shows up; when I set it above "
                "that or left the parameter out, the program starts up but then ends without any output result or "
                "warning message.")
# CHIP-SPV/chipStar#612 (immediate command lists on an iGPU).
BARRIER = (" 1        -75.0806426354        75.0806426354        0.185        0.0357\n"
           "CHIP error [TID 152291] [1693481190.609691528] : hipErrorTbd (ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ) in "
           "/home/pjaaskel/src/chip-spv/src/backend/Level0/CHIPBackendLevel0.cc:1374:enqueueBarrierImpl\n\n"
           "CHIP error [TID 152291] [1693481190.609878222] : Caught Error: hipErrorTbd\n")
# tensorflow/tensorflow#11915 ("Out of memory due to cuda_host_bfc allocator").
TF_HOST_POOL = ("2017-07-31 11:36:02.749700: I tensorflow/core/common_runtime/bfc_allocator.cc:700] Sum Total of in-use "
                "chunks: 64.00GiB\n2017-07-31 11:36:02.749702: I tensorflow/core/common_runtime/bfc_allocator.cc:702] "
                "Stats: \nLimit:                 68719476736\nInUse:                 68719476736\nMaxInUse:              "
                "68719476736\nNumAllocs:                      32\nMaxAllocSize:           6359738368\n\n"
                "2017-07-31 11:36:02.749753: W tensorflow/core/common_runtime/bfc_allocator.cc:277] "
                "*************************************************x***********************************************xxx")


@pytest.mark.parametrize(("text", "check", "at_least"), [
    (ASYNC_VS_PLAIN, "driver_version", 0.8),
    (ASYNC_TABLE, "driver_version", 0.8),
    (SINGLE_ALLOCATION, "buffer_limit", 0.85),
    (VK_MINUS_TEN, "buffer_limit", 0.75),
    (BARRIER, "driver_version", 0.6),
    (TF_HOST_POOL, "pin_memory", 0.7),
])
def test_refusal_marks_read_as_not_capacity(text: str, check: str, at_least: float) -> None:
    top = diagnose_text(text).top
    assert top is not None and top.id == "not_capacity"
    assert top.evidence["deciding_check"] == check
    assert top.confidence >= at_least
    assert top.checks and top.fix


# Negatives: the same calls without the mark that the memory was there.
ASYNC_ALONE = "hipMallocAsync failed with hipErrorOutOfMemory"  # no plain call said to work
PLAIN_FAILS_TOO = ("[hipMalloc]             out of memory\n[hipMallocAsync]        out of memory")
VK_OUT_OF_DEVICE = "vkAllocateMemory failed -2"  # VK_ERROR_OUT_OF_DEVICE_MEMORY: the memory itself
ZE_ALLOC = ("CHIP error : hipErrorOutOfMemory (ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ) in "
            "CHIPBackendLevel0.cc:1200:allocateImpl")  # a data allocation, not a barrier
TF_DEVICE_POOL = ("I tensorflow/core/common_runtime/bfc_allocator.cc:702] Stats: \nLimit:                 10968950375\n"
                  "InUse:                 10968950375\nMaxInUse:              10968950375\n")  # a device pool's limit


@pytest.mark.parametrize("text", [ASYNC_ALONE, PLAIN_FAILS_TOO, VK_OUT_OF_DEVICE, ZE_ALLOC, TF_DEVICE_POOL])
def test_without_the_mark_no_refusal_reading(text: str) -> None:
    diagnosis = diagnose_text(text)
    refusal_kinds = {"stream_ordered_refused", "single_allocation_limit", "runtime_object_refused", "tf_host_pool"}
    assert not any(c.evidence.get("not_capacity_kind") in refusal_kinds for c in diagnosis.causes)
    # the allocation-count reading (limit_words.vulkan_allocation_count) needs -10 / VK_ERROR_TOO_MANY_OBJECTS
    assert not any("maxMemoryAllocationCount" in str(c.evidence.get("check_command")) for c in diagnosis.causes)


def test_bare_message_keeps_a_ranked_set() -> None:
    diagnosis = diagnose_text("RuntimeError: CUDA out of memory.")
    top = diagnosis.top
    assert top is not None and top.confidence < 0.7
    assert len(diagnosis.causes) >= 2


def test_named_host_allocator_in_a_dump() -> None:
    text = ("W tensorflow/core/common_runtime/bfc_allocator.cc:275] Allocator (cuda_host_bfc) ran out of memory trying "
            "to allocate 4.00GiB.  Current allocation summary follows.\n" + TF_HOST_POOL)
    top = diagnose_text(text).top
    assert top is not None and top.id == "not_capacity" and top.evidence["deciding_check"] == "pin_memory"


def test_zh_cn_strings() -> None:
    from gpudesk import i18n
    before = i18n.current_language()
    try:
        i18n.set_language("zh_CN")
        causes = [diagnose_text(text).top for text in (ASYNC_VS_PLAIN, SINGLE_ALLOCATION, VK_MINUS_TEN, BARRIER,
                                                          TF_HOST_POOL)]
    finally:
        i18n.set_language(before)
    for top in causes:
        assert top is not None
        for shown in (top.title, top.explanation, top.fix, *top.checks):
            assert any("\u4e00" <= ch <= "\u9fff" for ch in shown), shown
