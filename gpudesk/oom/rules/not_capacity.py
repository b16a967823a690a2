"""``not_capacity``: the runtime refused an allocation that the free memory would allow.

Fires when the device reports at least twice the request free and at least a quarter of its capacity free
(ComfyUI#9529: 432 MiB refused with 7.12 of 15.92 GiB free; pytorch#175431: 2 MiB with 203 of 288 GiB free;
taggui#188: 20 MiB with 2.35 of 4 GiB free) and no per-process cap explains it. More memory, a smaller batch or
allocator settings cannot help: the refusal comes from a limit below the device's capacity (Windows WDDM / WSL
address-space limits, an APU's GTT/UMA carve-out, a MIG slice, a container's memory limit, a cap set in the
process) or a broken driver state. Confidence 0.92: it outranks fragmentation, which cannot explain a
refusal that a new segment from free memory would satisfy.

Some allocators print no free figure (Intel's XPU allocator in IPEX: "Tried to allocate 1.00 GiB (GPU 0; 15.56 GiB
total capacity; 990.00 MiB already allocated; 990.00 MiB reserved in total by PyTorch)"). What the process's own
allocator holds (reserved) still bounds it: when that is under a quarter of the capacity and the capacity minus it is
at least four times the request, the allocator would have had a new segment from free memory, so something outside
it refused: a limit of the driver or platform (WSL, Level Zero, a carve-out), 0.5, or memory another process holds,
0.45. Both are named with the one query that tells them apart: the device's free memory (IPEX#629).

Below the twice-the-request bar, free memory that still covers the request by a quarter and is a tenth of the
device, with less cached in the allocator than the request (so no cached block was going to serve it either), is a
refusal too, read less firmly (0.65, above the 0.6 a shortage gets from a full device):
the allocator asks the driver for a new segment of the request's size and the driver had it
(lemonade-sdk/vllm-rocm#5: 12.95 GiB refused with 18.55 of 127 GiB free on a Strix Halo APU, a GTT/carve-out limit).
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.units import format_bytes
from gpudesk.oom.parsers.units import to_bytes
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.signatures import CHECKS, check_command, check_line
from gpudesk import i18n
from gpudesk.i18n import _


def check(f: Facts) -> Cause | list[Cause] | None:
    if f.mps:
        return None
    if f.total is None and f.free is None:
        return _said_mostly_free(f)
    if f.requested is not None and f.total is None and f.free is not None:
        return _free_without_total(f)
    if f.requested is None or f.total is None:
        return None
    if f.free is None:
        return _free_unknown_but_unheld(f)
    if f.allowed is not None and f.allowed < f.total:
        return None  # per_process_cap explains it
    own_allocator = f.reserved is None and f.allocated is None and f.report.kind in ("generic_oom", "ggml_alloc_failed")
    if own_allocator and f.free >= 1.05 * f.requested and f.free >= f.total / 4:
        return _runtime_refusal(f)
    if f.free < 2 * f.requested or f.free < f.total / 4:
        return _covered_with_room(f)
    rocm = f.report.platform == "rocm"
    fix = (_("Not a capacity problem: look for the limit that refused it, not for memory to save — on an AMD APU raise "
           "the GPU's memory carve-out (BIOS UMA / amdgpu.gttsize), check the ROCm driver and HSA_XNACK settings, "
           "and try PYTORCH_HIP_ALLOC_CONF=expandable_segments:True")
           if rocm else
           _("Not a capacity problem: look for the limit that refused it, not for memory to save — a per-process cap "
           "(torch.cuda.set_per_process_memory_fraction), the WDDM/WSL address-space limit (update the driver, run "
           "natively on Linux), a MIG slice or container limit; then check the driver with a small CUDA sample"))
    return Cause(
        id="not_capacity",
        title=_("The allocation was refused although the GPU had the memory free"),
        # Above fragmentation's ceiling: a request that free memory covers many times needs no cached block
        # (the allocator would cudaMalloc a new segment), so a fragmented cache cannot explain the refusal.
        confidence=0.92,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total,
                          free_to_request_ratio=round(f.free / max(1, f.requested), 1),
                          free_ratio=round(f.free / f.total, 3), not_capacity_kind="free_exceeds_request",
                          deciding_check="free_exceeds_request"),
        explanation=_("The device reports {free} free ({share:.0%} of it), {times:.0f} times the {requested} that "
                      "failed: the refusal is not about capacity, so freeing memory or shrinking the batch will not "
                      "fix it.").format(free=format_bytes(f.free), share=f.free / f.total,
                                        times=f.free / max(1, f.requested), requested=format_bytes(f.requested)),
        fix=fix,
        more_fixes=[_("Run with CUDA_LAUNCH_BLOCKING=1 (HIP_LAUNCH_BLOCKING=1 on ROCm) to see the exact call that failed."),
                    (_("Compare the total capacity in the message with the device's real memory: a smaller total "
                    "means the driver exposes only part of it."))],
        checks=[_("A per-process memory fraction set by a framework or test harness."),
                _("Windows: the WDDM / WSL2 driver's own limits; the figures under WSL can be wrong."),
                check_line(command=CHECKS["free_exceeds_request"].command,
                                                     meaning=i18n._(CHECKS["free_exceeds_request"].meaning))],
    )


# The user's words for the device's free memory as a share of it, at the failure: "Out of Memory error with GPU having
# 80% of its vram free" (autonomousvision/stylegan-xl#90, whose message said 9.7 GB of 12 were left while much smaller
# allocations failed; a CUDA toolkit that did not match the extension build was the fix). Free memory that is most of
# the device is the figure the rule above reads from a message ("the device reports at least a quarter of its capacity
# free"), said in words: a refusal with most of the device free is not about capacity. Only a share of the memory named
# free, left, unused or available counts, at half the device or more; a share in use ("uses 80% of the GPU memory") is
# the opposite figure and is not read here.
_SAID_FREE_SHARE = re.compile(
    r"(?<![\d.])(\d{1,3}(?:\.\d{1,2})?)\s?%\s{0,3}(?:of\s{1,3}(?:its|the|my|his|her|their|our)\s{1,3})?"
    r"(?:gpu'?s?\s{1,3}|graphics\s{1,3}|video\s{1,3}|device\s{1,3})?(?:v?ram|memory)\s{1,3}(?:is\s{1,3}|was\s{1,3})?"
    r"(?:still\s{1,3})?(?:free|unused|left|available)\b",
    re.IGNORECASE)
SAID_FREE_MIN_SHARE = 0.5


def _said_mostly_free(f: Facts) -> Cause | None:
    """The text has no device figure, but the user says half the device's memory or more was free (``_SAID_FREE_SHARE``):
    the refusal is read as not about capacity, with the same check as the figures' reading, less firmly (0.6, above
    the figureless shortage's 0.45-0.5)."""
    if f.report.kind == "unknown":
        return None  # no out-of-memory text: a share said free refuses nothing
    m = _SAID_FREE_SHARE.search(f.report.text or "")
    if m is None:
        return None
    share = float(m.group(1)) / 100
    if not SAID_FREE_MIN_SHARE <= share <= 1:
        return None
    command = check_command("free_exceeds_request", f.report.platform)
    return Cause(
        id="not_capacity",
        title=_("The allocation was refused although most of the GPU was free"),
        confidence=0.6,
        evidence=evidence(stated_free_share=round(share, 3), described_as=m.group(0),
                          not_capacity_kind="free_exceeds_request", deciding_check="free_exceeds_request",
                          check_command=command),
        explanation=_("The text says {share:.0%} of the GPU's memory was free when the allocation failed: a request "
                      "refused with most of the device free is not refused for capacity, so a smaller batch or "
                      "freeing memory will not fix it.").format(share=share),
        fix=_("Look for what refused it rather than memory to save: a CUDA toolkit, driver or library build that does "
              "not match the one the program (or its compiled extensions) was built for, a per-process cap, or the "
              "WDDM/WSL limits; rebuild or reinstall for the installed driver and rerun"),
        checks=[check_line(command=command,
                                                     meaning=i18n._(CHECKS["free_exceeds_request"].meaning))],
    )


def _runtime_refusal(f: Facts) -> Cause:
    """A runtime that allocates device memory directly (llama.cpp, ONNX Runtime, TensorRT: no caching allocator in
    between) was refused a buffer smaller than the free memory it reported: a limit refused it, 0.7."""
    assert f.requested is not None and f.free is not None and f.total is not None
    return Cause(
        id="not_capacity",
        title=_("The allocation was refused although the GPU had the memory free"),
        confidence=0.7,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total,
                          not_capacity_kind="free_exceeds_request", deciding_check="free_exceeds_request",
                          check_command=CHECKS["free_exceeds_request"].command),
        explanation=_("The runtime reported {free} free and asked for {requested} in one buffer: capacity allows it, "
                      "so a limit refused it (a single-allocation limit of the driver or platform, such as ROCm or "
                      "WDDM on Windows, or a carve-out on an APU).").format(
                          free=format_bytes(f.free), requested=format_bytes(f.requested)),
        fix=_("Split the buffer (fewer layers or a smaller context per device, or a build that splits buffers), or "
              "run where the driver allows larger single allocations (Linux, a newer driver)"),
        checks=[check_line(command=CHECKS["free_exceeds_request"].command,
                                                     meaning=i18n._(CHECKS["free_exceeds_request"].meaning))],
    )


def _free_unknown_but_unheld(f: Facts) -> list[Cause] | None:
    """No free figure, but the process's own allocator holds little (module docstring): a limit or another holder."""
    assert f.requested is not None and f.total is not None
    held = f.reserved if f.reserved is not None else f.allocated
    if held is None or f.report.signature is not None or (f.allowed is not None and f.allowed < f.total):
        return None
    if held > f.total / 4 or f.total - held < 4 * f.requested:
        return None
    platform = f.report.platform
    command = check_command("free_exceeds_request", platform)
    limit = Cause(
        id="not_capacity",
        title=_("The allocation was refused while this process held little of the device"),
        confidence=0.5,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, reserved_bytes=held,
                          headroom_upper_bound_bytes=f.total - held, not_capacity_kind="free_exceeds_request",
                          deciding_check="free_exceeds_request", check_command=command),
        explanation=_("The message gives no free figure, but this process's allocator holds only {held} of {total}: "
                      "it would have taken a new segment of {requested} from free memory, so something outside it "
                      "refused the request, a limit of the driver or platform (WSL, Level Zero, an APU carve-out) or "
                      "memory another process holds.").format(
                          held=format_bytes(held), total=format_bytes(f.total), requested=format_bytes(f.requested)),
        fix=_("Query the device's free memory: if it is large, look for the limit that refused the request (run "
              "natively instead of under WSL, a newer driver, the platform's allocation limits); if it is small, stop "
              "the other processes on the device"),
        checks=[check_line(command=command,
                                                     meaning=i18n._(CHECKS["free_exceeds_request"].meaning))],
    )
    other = Cause(
        id="other_process",
        title=_("Another process may hold the device's memory"),
        confidence=0.45,
        evidence=evidence(requested_bytes=f.requested, total_capacity_bytes=f.total, reserved_bytes=held,
                          deciding_check="other_process", check_command=check_command("other_process", platform)),
        explanation=_("This process's allocator holds only {held} of {total}; if the device has little free, "
                      "another process holds the rest.").format(held=format_bytes(held), total=format_bytes(f.total)),
        fix=_("Stop the other processes on the device or move the job to a free one"),
        checks=[check_line(command=check_command("other_process", platform),
                                                     meaning=i18n._(CHECKS["other_process"].meaning))],
    )
    return [limit, other]


def _covered_with_room(f: Facts) -> Cause | None:
    """Free covers the request by a quarter and is a tenth of the device, the cache could not serve it (module
    docstring): a limit refused a new segment the driver had room for, 0.65."""
    assert f.requested is not None and f.free is not None and f.total is not None
    if f.free < 1.25 * f.requested or f.free < f.total / 10 or (f.unallocated or 0) >= f.requested:
        return None
    return Cause(
        id="not_capacity",
        title=_("The allocation was refused although the GPU had the memory free"),
        confidence=0.65,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, total_capacity_bytes=f.total,
                          free_to_request_ratio=round(f.free / max(1, f.requested), 2),
                          free_ratio=round(f.free / f.total, 3), not_capacity_kind="free_exceeds_request",
                          deciding_check="free_exceeds_request",
                          check_command=check_command("free_exceeds_request", f.report.platform)),
        explanation=_("The device reports {free} free ({share:.0%} of it) for a request of {requested}, and the "
                      "allocator's cache held less than the request: the new segment it asked the driver for fitted "
                      "in free memory, so a limit refused it (an APU's GTT or carve-out, WDDM/WSL, a container or "
                      "per-process cap).").format(free=format_bytes(f.free), share=f.free / f.total,
                                                  requested=format_bytes(f.requested)),
        fix=_("Look for the limit that refused it rather than memory to save: on an AMD APU raise the GPU's memory "
              "carve-out or GTT size (BIOS UMA, amdgpu.gttsize), elsewhere a per-process cap or the WDDM/WSL limit"),
        checks=[check_line(command=check_command("free_exceeds_request", f.report.platform),
                                                     meaning=i18n._(CHECKS["free_exceeds_request"].meaning))],
    )


# A program's own one-allocation report with the device's free memory and no capacity (sixty-fifth pass): "GPU max
# memory allocation: 30.30 GiB ... Free Intel GPU memory BEFORE: 32155.87 MiB / Failed to allocate 15.8 GiB on
# device!" (intel/compute-runtime#998, a 32 GB Arc Pro B70 whose malloc_device refuses one buffer above a ceiling that
# moves with host RAM, far below the advertised maximum). A direct allocation (no caching allocator between: no
# reserved or allocated figure) that free memory covers by half again was refused by a limit, not by capacity, as
# :func:`_runtime_refusal` reads it with the total; without the total it is read a little less firmly (0.65, above the
# shortage's 0.55 from the request alone). The per-allocation maximum the device reports (Level Zero's
# ze_device_properties_t.maxMemAllocSize, SYCL's info::device::max_mem_alloc_size, OpenCL's
# CL_DEVICE_MAX_MEM_ALLOC_SIZE) stated beside it makes the per-buffer limit the check (``buffer_limit``): the runtime's
# real ceiling for one buffer, below what it advertises; splitting the buffer avoids it.
FREE_WITHOUT_TOTAL_MIN_RATIO = 1.5
_STATED_MAX_ALLOCATION = re.compile(
    r"\bmax(?:imum)?\s{1,3}(?:memory\s{1,3})?alloc(?:ation)?(?:\s{1,3}size)?\s{0,3}[:=]\s{0,3}"
    r"(\d{1,15}(?:\.\d{1,6})?)\s{0,2}([KMGT]i?B|bytes?)\b", re.IGNORECASE)


def _free_without_total(f: Facts) -> Cause | None:
    """A direct allocation refused with free memory half again above it, no capacity in the text (comment above)."""
    assert f.requested is not None and f.free is not None
    direct = f.reserved is None and f.allocated is None and f.report.kind in ("generic_oom", "ggml_alloc_failed")
    if not direct or f.allowed is not None or f.free < FREE_WITHOUT_TOTAL_MIN_RATIO * f.requested:
        return None
    if f.report.signature is not None:
        return None  # a signature's own reading of the free figure (gpudesk.oom.rules.signature, ``_free_covers``)
    m = _STATED_MAX_ALLOCATION.search(f.report.text or "")
    stated_max = to_bytes(m.group(1), m.group(2)) if m is not None else None
    key = "buffer_limit" if stated_max is not None and stated_max >= f.requested else "free_exceeds_request"
    command = check_command(key, f.report.platform)
    return Cause(
        id="not_capacity",
        title=_("The allocation was refused although the GPU had the memory free"),
        confidence=0.65,
        evidence=evidence(requested_bytes=f.requested, free_bytes=f.free, stated_max_allocation_bytes=stated_max,
                          free_to_request_ratio=round(f.free / max(1, f.requested), 2),
                          not_capacity_kind="free_exceeds_request", deciding_check=key, check_command=command),
        explanation=_("The program reported {free} free and asked for {requested} in one allocation: free memory "
                      "covers it, so a limit refused it (the runtime's ceiling for one allocation, below the maximum "
                      "the device reports, or a platform limit), not the device's capacity.").format(
                          free=format_bytes(f.free), requested=format_bytes(f.requested)),
        fix=_("Split the buffer into smaller allocations (a smaller per-buffer size, more chunks), and try a newer "
              "driver or runtime; freeing memory or a larger GPU will not help"),
        checks=[check_line(command=command, meaning=i18n._(CHECKS[key].meaning))],
    )
