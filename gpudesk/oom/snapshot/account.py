"""A snapshot's analysis as the OOM doctor's memory account (:class:`MemoryReport`), and its diagnosis.

The account of the analysed GPU is taken at the OOM event (or at the end of the trace): reserved bytes are
the segments' sizes, allocated bytes the blocks held by tensors, ``largest_free_block_bytes`` the largest
cached free block that could serve the failed request (same pool and stream), ``free_bytes`` the
``device_free`` the allocator recorded with the OOM. The curve of allocated bytes at the iteration troughs
becomes memory samples, so the leak rule reads it as it reads a launched job's samples. The diagnosis rules
then rank the causes as for any other report; leak suspects found by stack (allocations of one stack made in
several iterations and all alive at the peak) add a ``leak`` cause when the curve alone did not.
"""

from __future__ import annotations

from gpudesk import i18n
from gpudesk.i18n import _
from gpudesk.oom.cause import Cause, Diagnosis
from gpudesk.oom.diagnose import diagnose
from gpudesk.units import format_bytes
from gpudesk.oom.report import DeviceMemory, MemoryReport, MemorySample
from gpudesk.oom.rules import genuine_shortage as shortage_rule
from gpudesk.oom.snapshot.analysis import DeviceAnalysis, SnapshotAnalysis

US_PER_S = 1_000_000


def snapshot_report(
    analysis: SnapshotAnalysis, device: int | None = None, *, total_bytes: int | None = None
) -> MemoryReport:
    """The memory account of ``device`` (default: the GPU with the OOM, else the first). A snapshot does not
    record the GPU's capacity; pass ``total_bytes`` when it is known from elsewhere (NVML during a launch)."""
    dev = analysis.device(device)
    snap = analysis.snapshot
    report = MemoryReport(source="snapshot", framework="pytorch", kind="snapshot")
    report.notes.append(_("Memory snapshot {name}, layout {version}, {events} trace events.").format(
        name=snap.source_name, version=snap.format_version, events=snap.event_count))
    report.notes.extend(snap.notes)
    if snap.allocator_settings is not None:
        report.alloc_conf = snap.allocator_settings.as_conf()
    if dev is None:
        report.status = _("The snapshot holds no segments and no trace events.")
        return report
    report.device_index = dev.device
    f = dev.fragmentation
    memory = DeviceMemory(
        index=dev.device,
        total_bytes=total_bytes,
        allocated_bytes=f.allocated_bytes,
        reserved_bytes=f.reserved_bytes,
        # as the OOM message's "allocated in private pools": tensor bytes in CUDA graph / MemPool segments
        private_pool_bytes=f.private_pool_allocated_bytes or None,
        peak_allocated_bytes=dev.peak_allocated_bytes,
        peak_reserved_bytes=dev.peak_reserved_bytes,
        largest_free_block_bytes=(f.largest_usable_free_block_bytes if f.largest_usable_free_block_bytes is not None
                                  else f.largest_free_block_bytes),
        num_ooms=dev.ooms_total if dev.event_count else None,
    )
    if dev.oom is not None:
        report.requested_bytes = dev.oom.requested_bytes
        memory.free_bytes = dev.oom.device_free_bytes
        report.parsed["requested_bytes"] = dev.oom.requested_bytes
        report.parsed["device_free_bytes"] = dev.oom.device_free_bytes
    report.parsed["reserved_bytes"] = f.reserved_bytes
    report.parsed["allocated_bytes"] = f.allocated_bytes
    report.parsed["largest_free_block_bytes"] = memory.largest_free_block_bytes or 0
    report.parsed["free_pieces"] = f.free_piece_count
    report.devices.append(memory)
    report.samples = _trough_samples(dev)
    report.status = " ".join(dev.explanation[:1])
    return report


def _trough_samples(dev: DeviceAnalysis) -> list[MemorySample]:
    """Allocated bytes at each iteration trough (and at the peak), timed in seconds from the first event.
    Only for traces with timestamps (PyTorch 2.2+): without them there is no time axis to put samples on."""
    tl = dev.timeline
    if not len(tl) or not tl.time_us.any():
        return []
    t0 = int(tl.time_us[0])
    points = list(dev.iteration_troughs)
    return [
        MemorySample(t_s=(int(tl.time_us[i]) - t0) / US_PER_S, device_index=dev.device,
                     allocated_bytes=int(tl.allocated_bytes[i]), reserved_bytes=int(tl.reserved_bytes[i]))
        for i in points
    ]


def diagnose_snapshot(
    analysis: SnapshotAnalysis, device: int | None = None, *, total_bytes: int | None = None
) -> Diagnosis:
    """Ranked causes for a snapshot, as :func:`gpudesk.oom.diagnose` ranks them for any report, plus what
    only a snapshot can show:

    * no allocation failed (no ``oom`` event): a fragmentation cause, which says a request failed for want of
      one contiguous block, is not ranked; the idle cache stays in the account and the notes;
    * a failed request that even a perfectly packed cache plus the GPU's free memory could not hold, when the
      GPU's capacity is unknown (the genuine-shortage rule needs it): a ``genuine_shortage`` cause from the
      snapshot's own numbers, with that rule's confidence for a negative margin (0.85) and its fixes;
    * leak suspects by stack: a ``leak`` cause when the curve alone did not give one.
    """
    report = snapshot_report(analysis, device, total_bytes=total_bytes)
    diagnosis = diagnose(report)
    dev = analysis.device(device)
    if dev is None:
        return diagnosis
    causes = diagnosis.causes
    if dev.oom is None and any(c.id == "fragmentation" for c in causes):
        causes[:] = [c for c in causes if c.id != "fragmentation"]
        f = dev.fragmentation
        report.notes.append(_("No allocation failed in this snapshot, so fragmentation is not ranked as a cause; "
                              "the cache holds {cached} free in {pieces} pieces.").format(
            cached=format_bytes(f.cached_free_bytes), pieces=f.free_piece_count))
    if dev.verdict == "genuine_shortage" and not any(c.id == "genuine_shortage" for c in causes):
        causes.append(_shortage_cause(dev))
    if dev.leak_suspects and not any(c.id == "leak" for c in causes):
        causes.append(_leak_cause(dev))
    order = {id(c): i for i, c in enumerate(causes)}
    causes.sort(key=lambda c: (-c.confidence, order[id(c)]))
    for cause in causes:
        cause.refresh_labels(report.framework)
    return diagnosis


def _shortage_cause(dev: DeviceAnalysis) -> Cause:
    assert dev.oom is not None  # the verdict is only "genuine_shortage" at an OOM event
    f = dev.fragmentation
    headroom = (f.usable_free_bytes or 0) + dev.oom.device_free_bytes
    top = dev.top_frames[0] if dev.top_frames else None
    return Cause(
        id="genuine_shortage",
        title=_("Not enough GPU memory for this step"),
        confidence=0.85,
        evidence={
            "requested_bytes": dev.oom.requested_bytes,
            "free_bytes": dev.oom.device_free_bytes,
            "reserved_unallocated_bytes": f.cached_free_bytes,
            "allocated_bytes": f.allocated_bytes,
            "shortfall_bytes": dev.oom.requested_bytes - headroom,
            "largest_holder_frame": top.label if top else None,
            "largest_holder_bytes": top.bytes if top else None,
        },
        explanation=_("Even a perfectly packed cache plus the GPU's free memory ({headroom}) is smaller than the "
                      "request ({req}): live tensors take the memory.").format(
            headroom=format_bytes(headroom), req=format_bytes(dev.oom.requested_bytes)),
        fix=i18n._(shortage_rule.FIX),
        more_fixes=[i18n._(m) for m in shortage_rule.MORE],
        checks=[i18n._(c) for c in shortage_rule.CHECKS],
    )


def _leak_cause(dev: DeviceAnalysis) -> Cause:
    top = dev.leak_suspects[0]
    total = sum(s.bytes for s in dev.leak_suspects)
    share = total / dev.peak_allocated_bytes if dev.peak_allocated_bytes else 0.0
    # 0.45 for a small share of the peak, up to 0.85 when the suspects hold most of it.
    confidence = round(min(0.85, 0.45 + 0.5 * share), 2)
    cause = Cause(
        id="leak",
        title=_("Allocations from one place survive every iteration"),
        confidence=confidence,
        evidence={
            "leak_suspect_bytes": total,
            "leak_suspect_share_ratio": round(share, 3),
            "leak_suspect_allocations": top.count,
            "leak_suspect_iterations": top.iterations,
            "leak_suspect_frame": top.label,
            "peak_allocated_bytes": dev.peak_allocated_bytes,
        },
        explanation=_("{count} allocations made at {where} in {iters} different iterations are all still alive "
                      "at the peak: something keeps references to them.").format(
            count=top.count, where=top.label or _("code without a recorded stack"), iters=top.iterations),
        fix=_("Keep scalars, not tensors, across steps (loss.item() or loss.detach()), and drop outputs that "
              "carry the autograd graph."),
        checks=[_("Open the named line: a list or dict that grows each step, or a tensor kept with its graph.")],
    )
    return cause
