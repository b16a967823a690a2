"""The memory account (gpudesk.oom.account): terms add up to the total, each marked measured / derived /
unknown, and impossible inputs are flagged instead of used."""

from __future__ import annotations

from gpudesk.oom import diagnose_text, parse_text
from gpudesk.oom.account import DERIVED, MEASURED, UNKNOWN, account_of, accounts_of
from gpudesk.oom.report import DeviceMemory, ProcessMemory

GiB = 1024**3


def test_nvml_message_accounts_for_every_byte():
    # VGen#104-like: total, free, this process (NVML), allocated + unallocated.
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 550.00 MiB. GPU 0 has a total capacity of "
            "23.64 GiB of which 81.06 MiB is free. Including non-PyTorch memory, this process has 23.55 GiB memory in "
            "use. Of the allocated memory 20.37 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but "
            "unallocated.")
    acc = accounts_of(parse_text(text))[0]
    by = {t.name: t for t in acc.terms}
    assert by["allocated"].status == MEASURED and by["cached"].status == DERIVED
    assert by["non_pytorch"].value_bytes == round(23.55 * GiB) - (round(20.37 * GiB) + GiB)
    assert by["unattributed"].status == DERIVED
    known = sum(t.value_bytes for t in acc.terms if t.value_bytes is not None)
    assert abs(known - acc.total_bytes) <= 2  # rounding of the printed figures only
    assert not acc.flags


def test_free_larger_than_total_is_flagged_and_not_used():
    acc = account_of(DeviceMemory(index=0, total_bytes=4 * GiB, free_bytes=6 * GiB, allocated_bytes=GiB))
    assert acc.value("free") is None and any("larger than the total" in f for f in acc.flags)


def test_sentinel_is_flagged_and_not_a_total():
    acc = account_of(DeviceMemory(index=0, total_bytes=2**64, free_bytes=GiB))
    assert acc.total_bytes is None and acc.total_status == UNKNOWN
    assert any("not available" in f for f in acc.flags)


def test_terms_over_the_total_are_flagged_not_drawn():
    dev = DeviceMemory(index=0, total_bytes=8 * GiB, free_bytes=4 * GiB, allocated_bytes=5 * GiB, reserved_bytes=6 * GiB,
                       other_processes=[ProcessMemory(pid=7, used_bytes=GiB)])
    acc = account_of(dev)
    assert acc.value("outside_allocator") is None and any("more than the total" in f for f in acc.flags)


def test_outside_allocator_is_its_own_cause_not_live_tensors():
    # kyuz0/amd-strix-halo#3: 69 of 128 GiB neither free nor in this process's allocator.
    text = ("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.31 GiB. GPU 0 has a total capacity of "
            "128.00 GiB of which 780.24 MiB is free. Of the allocated memory 57.70 GiB is allocated by PyTorch, and "
            "75.82 MiB is reserved by PyTorch but unallocated.")
    d = diagnose_text(text)
    assert d.top.id == "allocation_outside_allocator"
    assert d.to_dict()["accounts"][0]["terms"][-1]["name"] == "free"
    assert d.to_dict()["platform"] == "rocm"


def test_tiny_request_with_most_memory_free_is_not_capacity():
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
            "79.25 GiB of which 60.00 GiB is free. Of the allocated memory 10.00 GiB is allocated by PyTorch, and "
            "9.00 GiB is reserved by PyTorch but unallocated.")
    top = diagnose_text(text).top
    assert top.id == "not_capacity" and "Not a capacity problem" in top.fix
