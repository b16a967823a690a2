"""Tenstorrent's banked allocator (tt-metal, ``tt_metal/impl/allocator/bank_manager.cpp``, ``BankManager::allocate_buffer``).

tt-metal interleaves a buffer over the banks of one memory region (DRAM, L1, L1_SMALL, TRACE) and asks every bank
for the same page-aligned share. When a bank cannot give it, the fatal error reads (tenstorrent/tt-metal, the
``TT_FATAL`` in ``bank_manager.cpp``)::

    Out of Memory: Not enough space to allocate 38928384 B L1 buffer across 64 banks, where each bank needs to
    store 608256 B, but bank size is 1329888 B (allocated: 323936 B, free: 1005952 B, largest free block: 591872 B)

The figures are per bank. Two readings come from them alone:

* ``fragmentation``: each bank has the share free in total, but its largest free block is smaller than the share
  (tt-xla#4395: 1,005,952 B free, 591,872 B largest block, 608,256 B needed; tt-forge#855 in DRAM): the allocation
  order left the region in pieces (both threads: a compiler change in where tensors are placed, reverted);
* ``not_capacity`` + ``buffer_limit`` for the L1_SMALL and TRACE regions: these are carved out of each core's L1 at
  device open, sized by ``CreateDevice(..., l1_small_size, trace_region_size)`` (``ttnn.open_device(l1_small_size=)``),
  so their size is a setting, not the chip's memory (tt-mlir#5556: 16384 B refused in a 32768 B L1_SMALL bank, gone
  with L1_SMALL_SIZE=64KB; "bank size is 0 B" when the region was not opened at all).

* ``single_allocation_exceeds_capacity`` when the share one bank must store is larger than the whole bank (fifty-ninth
  pass): ``size_per_bank`` is the buffer spread over the banks and is placed in one bank's allocator
  (``BankManager::allocate_buffer``, tenstorrent/tt-metal at 00a6e7f8ef9da1e1301f1b09be53cb8a08d45fa6), so a share
  above ``bank_size()`` fits no bank however empty the region is: one buffer larger than the region can hold
  (tt-xla#1722: 33,792 B per bank against a 32,768 B L1_SMALL bank). In a region sized at device open the setting
  is the second reading (a larger region holds it).

A DRAM share above the free figure is the job's own need: the shortage rule reads it from the request; so is an L1
share above the free figure that the empty bank would hold (sixty-fifth pass, the on-chip reading second). So is a
bank with under 5 % of it free (:data:`NEARLY_FULL_SHARE`): fragmentation is then the second reading. An L1 share
that is not fragmentation and not that (refused with no figures) is ``not_capacity`` with the
``shared_memory`` check (fifty-second pass): L1 is each core's on-chip SRAM, and the tensor's memory config, not the
chip's DRAM, put it there.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.units import format_bytes
from gpudesk.i18n import _

_BANK_OOM = re.compile(
    r"Not enough space to allocate (\d{1,20}) B (DRAM|L1_SMALL|L1|TRACE) buffer across (\d{1,6}) banks?,\s{1,3}where "
    r"each bank needs to store (\d{1,20}) B(?:,\s{1,3}but bank size is (?:only )?(\d{1,20}) B"
    r"(?:\s{1,3}\(allocated: (\d{1,20}) B, free: (\d{1,20}) B(?:, largest free block: (\d{1,20}) B)?\))?)?")
# (Older tt-metal releases end the message at the share: "... where each bank needs to store 524288 B",
# tenstorrent/tt-metal#11695, allocator.cpp in 2024; the bank size and the free figures came later.)
# Below this share of a bank free, the banks are nearly full: however the free memory lay, the job's buffers fill the
# device, and fragmentation is only the second reading (0.45, under the shortage's 0.55). A tt-xla remediation note
# (deepseek_r1_qwen_2_5_32b GGUF on a Blackhole p150b): 64,168,064 B free of a 4,273,390,016 B bank (1.5 %), a
# 35,389,440 B share, a 26,546,624 B largest block; the weights took 31 of the 32 GB, a capacity mismatch. tt-forge#855
# (12 % free) and tt-xla#4395 (76 %) were placements that a reverted compiler change had split.
NEARLY_FULL_SHARE = 0.05
# An L1 share above the bank's free figure but within the bank: the on-chip placement ranked below the shortage's 0.55.
SECOND_READING_L1 = 0.5
# Regions sized when the device is opened (tt-metal ``CreateDevice`` / ``ttnn.open_device`` arguments).
_SIZED_AT_OPEN = {"L1_SMALL": "l1_small_size", "TRACE": "trace_region_size"}


def check(f: Facts) -> Cause | list[Cause] | None:
    m = _BANK_OOM.search(f.report.text or "")
    if m is None:
        return None
    region = m.group(2)
    per_bank = int(m.group(4))
    bank_size = int(m.group(5)) if m.group(5) else None
    free = int(m.group(7)) if m.group(7) else None
    largest = int(m.group(8)) if m.group(8) else None
    figures = evidence(requested_bytes=int(m.group(1)), bank_region=region, banks=int(m.group(3)),
                       per_bank_request_bytes=per_bank, bank_size_bytes=bank_size, bank_free_bytes=free,
                       largest_free_block_bytes=largest)
    larger_than_bank = _share_larger_than_bank(region, per_bank, bank_size, figures)
    if larger_than_bank is not None and region not in _SIZED_AT_OPEN:
        return larger_than_bank
    if region in _SIZED_AT_OPEN and bank_size is not None:
        option = _SIZED_AT_OPEN[region]
        region_cause = Cause(
            id="not_capacity",
            title=_("Not a capacity problem: the {region} region set when the device was opened is full").format(
                region=region),
            confidence=0.9,
            evidence={**figures, "not_capacity_kind": "device_region", "deciding_check": "buffer_limit"},
            explanation=_("The {region} region is carved out of each core's memory when the device is opened, "
                          "{bank} per bank here; its size is the {option} setting, not the chip's memory, and each "
                          "bank needed {need} more.").format(region=region, bank=format_bytes(bank_size),
                                                             option=option, need=format_bytes(per_bank)),
            fix=_("Open the device with a larger {option} (ttnn.open_device({option}=...), or the runtime's own "
                  "option for it), or run the operation with less of that region").format(option=option),
            checks=[_("The bank size in the message is the region's size per bank: if it is 0 B the region was not "
                      "opened at all.")],
        )
        if larger_than_bank is not None:
            region_cause.confidence = 0.6  # the buffer alone is larger than the region: its size is the first reading
            return [larger_than_bank, region_cause]
        return region_cause
    if free is None or largest is None or not largest < per_bank <= free:
        if region == "L1":
            # An L1 share that the banks do not have, or one refused with no figures to tell how the bank lay: L1 is
            # each Tensix core's on-chip SRAM (one bank per core), so the tensor placed there (its memory config) is
            # larger per core than L1 holds beside the other L1 buffers, whatever the DRAM (tenstorrent/tt-metal#14840:
            # "the tests pass with DRAM memory config"; #11695; pytorch2.0_ttnn#846). The on-chip limit, as a GPU SM's
            # shared memory (signatures ``shared_memory``).
            from gpudesk.oom.rules.signature import on_chip_limit
            cause = on_chip_limit(f)
            cause.evidence = {**figures, **cause.evidence}
            if free is not None and bank_size is not None and free < per_bank <= bank_size:
                # The bank's own figures (sixty-fifth pass): the share fits an empty bank but not beside the L1
                # buffers already allocated in it ("allocated" + "free" = the bank, BankManager::allocate_buffer's
                # free-list state), so the op's working set in L1 is the shortage, read from the request as in
                # DRAM (the shortage rule, 0.55); the tensor's placement in L1 stays the second reading
                # (tenstorrent/tt-metal#40090: 1,188,864 B per bank with 304,864 B free of 1,362,656 B, fixed by
                # more slices, a smaller working set per slice).
                cause.confidence = SECOND_READING_L1
            return cause
        return None
    nearly_full = bank_size is not None and free < NEARLY_FULL_SHARE * bank_size
    return Cause(
        id="fragmentation",
        title=(_("Possibly fragmented device memory, on banks that are nearly full") if nearly_full else
               _("Fragmented device memory: free in each bank, but not in one block")),
        confidence=0.45 if nearly_full else 0.88,
        evidence=figures,
        explanation=_("Each {region} bank has {free} free, more than the {need} it must store, but its largest free "
                      "block is {largest}: the memory exists in pieces, left by the order in which buffers were "
                      "placed and freed.").format(region=region, free=format_bytes(free), need=format_bytes(per_bank),
                                                  largest=format_bytes(largest)),
        fix=_("Change the placement, not the model: move long-lived tensors out of {region} or allocate them first, "
              "deallocate intermediates sooner, or try the compiler or runtime release before the placement "
              "changed").format(region=region),
        checks=[_("Rerun with the previous compiler or runtime release: if it fits there, the new placement "
                  "fragments the banks.")],
    )


def _share_larger_than_bank(region: str, per_bank: int, bank_size: int | None,
                            figures: dict[str, object]) -> Cause | None:
    """One buffer whose share per bank is larger than the whole bank (module docstring), or None."""
    if bank_size is None or bank_size <= 0 or per_bank <= bank_size:
        return None  # a region of 0 B was not opened at all: the region reading says so
    return Cause(
        id="single_allocation_exceeds_capacity",
        title=_("One buffer is larger than the whole {region} region can hold").format(region=region),
        confidence=0.9,
        evidence={**figures, "deciding_check": "buffer_limit"},
        explanation=_("The buffer is spread over the {region} banks and each bank must store {need} of it, but a "
                      "bank holds only {bank} in all: it fits no bank however empty the region is, so freeing "
                      "other buffers cannot help.").format(region=region, need=format_bytes(per_bank),
                                                           bank=format_bytes(bank_size)),
        fix=_("Make that one buffer smaller or spread it wider: shard it over more cores or devices, split the "
              "operation, or place the tensor in a larger region (DRAM instead of L1)"),
        checks=[_("Compare the two figures in the message: the share each bank needs above the bank size means "
                  "one buffer larger than the region, not a full or fragmented one.")],
    )
