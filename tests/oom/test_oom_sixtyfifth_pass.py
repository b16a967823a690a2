"""Sixty-fifth pass of the OOM doctor (issue 28): the figures a message carries decide. Triton's per-kernel resource
refusal re-raised by PyTorch Inductor under the kernel's name (required above the hardware limit: the SM's shared
memory, not device memory), and a Tenstorrent L1 share that the empty bank would hold refused beside the L1 buffers
already there (the working set: a shortage, the on-chip placement second). Every positive text is a real message
quoted from the public thread in its comment (held-out sets fresh-96 and fresh-98, scored before this pass); the
negatives keep the words and change the figures."""

from __future__ import annotations

from gpudesk.oom import diagnose_text
from gpudesk.oom.limit_words import kernel_resource_limit
from gpudesk.oom.signatures import classify


def _causes(text: str):
    diagnosis = diagnose_text(text)
    assert diagnosis.found_oom, text
    return diagnosis.causes


# --- Triton's OutOfResources under Inductor's kernel name ------------------------------------------------------------

INDUCTOR_OUT_OF_RESOURCE = (
    "torch._inductor.exc.InductorError: RuntimeError: No valid triton configs. \n"
    "OutOfMemoryError: out of resource: triton_per_fused_add_div_expand_mul_pow_slice_split_sum_view_7\n"
    "Required: 327768 Hardware limit:232448 Reducing block sizes or `num_stages` may help.")
TRITON_OWN_WORDS = ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, "
                    "Hardware limit: 101376. Reducing block sizes or `num_stages` may help.")


def test_inductor_out_of_resource_with_figures_is_the_sm_shared_memory():
    # pytorch/pytorch#175250 (fresh-96): FlexAttention backward under torch.compile on an H100 80GB.
    assert kernel_resource_limit(INDUCTOR_OUT_OF_RESOURCE)
    assert classify(INDUCTOR_OUT_OF_RESOURCE) == "shared_memory"
    cause = _causes(INDUCTOR_OUT_OF_RESOURCE)[0]
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "shared_memory"


def test_triton_own_wording_still_reads_as_shared_memory():
    assert kernel_resource_limit(TRITON_OWN_WORDS)
    assert classify(TRITON_OWN_WORDS) == "shared_memory"


def test_out_of_resource_within_the_limit_or_without_figures_is_not_the_kernel_limit():
    within = INDUCTOR_OUT_OF_RESOURCE.replace("Required: 327768", "Required: 132768")
    assert not kernel_resource_limit(within)
    assert not kernel_resource_limit("RuntimeError: out of resource: triton_poi_fused_0")
    assert not kernel_resource_limit("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. "
                                     "Required: 327768 bytes")


# --- Tenstorrent L1: a share the empty bank holds, refused beside the buffers already there ----------------------------

TT_L1_FULL_BANK = (
    "RuntimeError: conv2d out of memory with (height, width, in_channels, out_channels) = (1024, 1024, 128, 3)\n"
    "and mesh_shape = (1, 4): Not enough space to allocate 76087296 B L1 buffer across 64 banks,\n"
    "where each bank needs to store 1188864 B, but bank size is 1362656 B\n"
    "(allocated: 1057792 B, free: 304864 B, largest free block: 304864 B)")


def test_l1_share_above_free_but_within_the_bank_is_a_shortage_first():
    # tenstorrent/tt-metal PR 40097 (fresh-98): fixed by more slices, a smaller working set per slice.
    causes = _causes(TT_L1_FULL_BANK)
    assert causes[0].id == "genuine_shortage"
    assert any(c.id == "not_capacity" and c.evidence.get("deciding_check") == "shared_memory" for c in causes[1:])


def test_l1_share_without_figures_stays_the_on_chip_limit():
    # tenstorrent/tt-metal#11695 (fresh-59): the older message ends at the share.
    text = ("Out of Memory: Not enough space to allocate 33554432 B L1 buffer across 64 banks, where each bank "
            "needs to store 524288 B")
    cause = _causes(text)[0]
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "shared_memory"


def test_l1_share_larger_than_the_bank_and_fragmented_l1_keep_their_readings():
    larger = TT_L1_FULL_BANK.replace("bank size is 1362656 B", "bank size is 1048576 B")
    assert _causes(larger)[0].id == "single_allocation_exceeds_capacity"
    # tenstorrent/tt-xla#4395 (fresh-30): free above the share, largest block below it.
    fragmented = ("TT_FATAL: Out of Memory: Not enough space to allocate 38928384 B L1 buffer across 64 banks, where "
                  "each bank needs to store 608256 B, but bank size is 1329888 B (allocated: 323936 B, free: 1005952 B, "
                  "largest free block: 591872 B)")
    assert _causes(fragmented)[0].id == "fragmentation"


# --- A one-allocation test program: free memory above the request, no capacity in the text --------------------------

ONE_ALLOCATION_TEST = ("./alloc_20gb 15.8\nSYCL device: Intel(R) Arc(TM) Pro B70 Graphics\n\n"
                       "GPU max memory allocation: 30.30 GiB\n\nStarting allocations...\n\n"
                       "=== Allocation 15.80(GiB) ===\nFree Intel GPU memory BEFORE: 32155.87 MiB\n"
                       "Failed to allocate 15.8 GiB on device!")


def test_free_memory_covering_the_request_is_a_per_allocation_limit():
    # intel/compute-runtime#998 (fresh-98): malloc_device refused 15.8 GiB with 31.4 GiB free on a 32 GB Arc Pro B70.
    diagnosis = diagnose_text(ONE_ALLOCATION_TEST)
    assert diagnosis.report.parsed["free_bytes"] > 30 * 2**30
    cause = diagnosis.causes[0]
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "buffer_limit"
    assert cause.evidence["stated_max_allocation_bytes"] > cause.evidence["requested_bytes"]


def test_free_memory_covering_the_request_without_a_stated_maximum_checks_the_free_memory():
    text = ONE_ALLOCATION_TEST.replace("GPU max memory allocation: 30.30 GiB\n", "")
    cause = _causes(text)[0]
    assert cause.id == "not_capacity" and cause.evidence["deciding_check"] == "free_exceeds_request"


def test_free_memory_below_half_again_the_request_is_not_read_as_a_refusal():
    text = ONE_ALLOCATION_TEST.replace("32155.87 MiB", "18000.00 MiB")
    assert _causes(text)[0].id != "not_capacity"
