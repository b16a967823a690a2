"""Explain a snapshot: per device, the memory account at the OOM (or at the end), the fragmentation picture,
what was alive at the peak and from where, leak suspects, and plain sentences that say what it shows.

The OOM path of the caching allocator (``DeviceCachingAllocator::malloc``, c10/cuda/CUDACachingAllocator.cpp):
look for a cached free block of the request's pool and stream that is large enough; else cudaMalloc a new
segment (the request rounded up to 2 MiB, or a 20 MiB segment for requests of 1-10 MiB); if that fails, free
every cached segment that holds no live block and try again; then raise the OOM (trace action ``oom`` with
``device_free``). So at the ``oom`` event the free cache that is left sits inside partly used segments, and
the request failed because no free piece was as large as the request *and* the GPU's free memory was below
the new segment's size. The request would have fitted in a perfectly packed cache when
``largest free piece < request <= free cache + device free``: fragmentation; when even that sum is smaller,
live tensors simply take the memory: a genuine shortage.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from gpudesk.i18n import _
from gpudesk.units import format_bytes
from gpudesk.oom.snapshot.convert import ProgressFn
from gpudesk.oom.snapshot.errors import SnapshotCancelled
from gpudesk.oom.snapshot.layout import (
    SMALL_SIZE_BYTES,
    SegmentState,
    layout_at,
    layout_at_end,
)
from gpudesk.oom.snapshot.model import (
    ALLOC,
    FREE_REQUESTED,
    OOM,
    SEGMENT_ALLOC,
    SEGMENT_FREE,
    SEGMENT_MAP,
    SEGMENT_UNMAP,
    Segment,
    Snapshot,
)
from gpudesk.oom.snapshot.stacks import CATEGORIES, category, stack_label
from gpudesk.oom.snapshot.timeline import (
    Lifetimes,
    Timeline,
    build_lifetimes,
    build_timeline,
    troughs,
)

TOP_N = 20
MEMORY_ACTIONS = (ALLOC, FREE_REQUESTED, SEGMENT_ALLOC, SEGMENT_FREE, SEGMENT_MAP, SEGMENT_UNMAP, OOM)
LEAK_MIN_ITERATIONS = 3


@dataclass(slots=True)
class StackBytes:
    """Bytes alive at the peak grouped by the frame that names them."""

    label: str
    bytes: int
    count: int
    stack_id: int
    category: str


@dataclass(slots=True)
class Allocation:
    """One allocation alive at the peak: address, bytes, event that created it (-1 = before the trace)."""

    address: int
    size_bytes: int
    created_at: int
    stack_id: int
    label: str
    category: str


@dataclass(slots=True)
class LeakSuspect:
    """A stack whose allocations made in several iterations are all still alive at the peak."""

    label: str
    stack_id: int
    bytes: int
    count: int
    iterations: int


@dataclass(slots=True)
class Fragmentation:
    """Free memory of the cache at the analysed moment, in numbers."""

    reserved_bytes: int
    allocated_bytes: int
    cached_free_bytes: int
    free_piece_count: int
    segments_with_free: int
    largest_free_block_bytes: int
    usable_free_bytes: int | None
    largest_usable_free_block_bytes: int | None
    private_pool_bytes: int
    private_pool_allocated_bytes: int
    expandable: bool
    segments: list[SegmentState] = field(default_factory=list)


@dataclass(slots=True)
class OomEvent:
    index: int
    requested_bytes: int
    device_free_bytes: int
    stream: int
    stack_id: int
    time_us: int


@dataclass(slots=True)
class DeviceAnalysis:
    """Everything the snapshot says about one device."""

    device: int
    event_count: int
    timeline: Timeline
    at_index: int | None
    at_kind: str  # "oom" or "end"
    oom: OomEvent | None
    ooms_total: int
    fragmentation: Fragmentation
    peak_index: int | None
    peak_allocated_bytes: int
    peak_reserved_bytes: int
    top_allocations: list[Allocation]
    top_frames: list[StackBytes]
    composition_bytes: dict[str, int]
    leak_suspects: list[LeakSuspect]
    iteration_troughs: list[int]
    verdict: str
    explanation: list[str]


@dataclass(slots=True)
class SnapshotAnalysis:
    snapshot: Snapshot
    devices: list[DeviceAnalysis]

    def device(self, index: int | None = None) -> DeviceAnalysis | None:
        """The device asked for; by default the one with an OOM, else the one with the most reserved memory."""
        if index is not None:
            return next((d for d in self.devices if d.device == index), None)
        with_oom = [d for d in self.devices if d.oom is not None]
        if with_oom:
            return with_oom[0]
        if not self.devices:
            return None
        return max(self.devices, key=lambda d: (d.fragmentation.reserved_bytes, d.event_count, -d.device))


def analyse(
    snap: Snapshot,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> SnapshotAnalysis:
    """Analyse every device of ``snap``."""
    out = []
    devices = snap.devices
    for n, dev in enumerate(devices):
        if cancel is not None and cancel.is_set():
            raise SnapshotCancelled(_("Opening the snapshot was cancelled."))
        if progress is not None:
            progress(n, len(devices), _("Analysing device {device}").format(device=dev))
        out.append(analyse_device(snap, dev))
    return SnapshotAnalysis(snap, out)


def analyse_device(snap: Snapshot, device: int) -> DeviceAnalysis:
    segments = snap.segments_of(device)
    trace = snap.trace_of(device)
    timeline = build_timeline(trace, segments)
    lifetimes = build_lifetimes(trace, segments)
    oom_index = timeline.last_oom_index
    oom = None
    if oom_index is not None:
        oom = OomEvent(oom_index, int(trace.size_bytes[oom_index]), int(trace.addr[oom_index]),
                       int(trace.stream[oom_index]), int(trace.stack_id[oom_index]), int(trace.time_us[oom_index]))
        states = layout_at(segments, trace, lifetimes, oom_index)
    else:
        states = layout_at_end(segments)
    frag = _fragmentation(states, oom)
    # A trace of only "snapshot" markers (history recorded with max_entries=1, or switched off) says nothing
    # about a peak: the analysis is then the snapshot's own blocks.
    peak = timeline.peak_index if np.isin(trace.action, MEMORY_ACTIONS).any() else None
    if peak is not None and oom_index is not None:
        peak = int(np.argmax(timeline.allocated_bytes[: oom_index + 1]))
    peak_alloc = int(timeline.allocated_bytes[peak]) if peak is not None else frag.allocated_bytes
    peak_res = int(timeline.reserved_bytes[peak]) if peak is not None else frag.reserved_bytes
    alive = _alive(snap, lifetimes, peak, segments)
    top_alloc = sorted(alive, key=lambda a: -a.size_bytes)[:TOP_N]
    frames = _by_frame(alive)
    composition = {c: 0 for c in CATEGORIES}
    for a in alive:
        composition[a.category] += a.size_bytes
    limit = oom_index + 1 if oom_index is not None else len(timeline)
    bounds = troughs(timeline.allocated_bytes[:limit]) if peak is not None else []
    leaks = _leaks(alive, bounds)
    dev = DeviceAnalysis(
        device=device, event_count=len(trace), timeline=timeline, at_index=oom_index,
        at_kind="oom" if oom is not None else "end", oom=oom, ooms_total=int(timeline.oom_indices.size),
        fragmentation=frag, peak_index=peak, peak_allocated_bytes=peak_alloc, peak_reserved_bytes=peak_res,
        top_allocations=top_alloc, top_frames=frames[:TOP_N], composition_bytes=composition,
        leak_suspects=leaks, iteration_troughs=bounds, verdict="", explanation=[],
    )
    dev.verdict, dev.explanation = explain(dev, snap)
    return dev


def _fragmentation(states: list[SegmentState], oom: OomEvent | None) -> Fragmentation:
    pieces = [p for s in states for p in s.free_pieces]
    usable: int | None = None
    largest_usable: int | None = None
    if oom is not None:
        ok = [s for s in states if s.can_serve(oom.requested_bytes, oom.stream)]
        usable = sum(s.free_bytes for s in ok)
        largest_usable = max((s.largest_free_bytes for s in ok), default=0)
    return Fragmentation(
        reserved_bytes=sum(s.total_size_bytes for s in states),
        allocated_bytes=sum(s.allocated_bytes for s in states),
        cached_free_bytes=sum(size for _a, size in pieces),
        free_piece_count=len(pieces),
        segments_with_free=sum(1 for s in states if s.free_pieces),
        largest_free_block_bytes=max((size for _a, size in pieces), default=0),
        usable_free_bytes=usable,
        largest_usable_free_block_bytes=largest_usable,
        private_pool_bytes=sum(s.total_size_bytes for s in states if s.pool_id != (0, 0)),
        private_pool_allocated_bytes=sum(s.allocated_bytes for s in states if s.pool_id != (0, 0)),
        expandable=any(s.is_expandable for s in states),
        segments=states,
    )


def _alive(snap: Snapshot, life: Lifetimes, peak: int | None, segments: list[Segment]) -> list[Allocation]:
    labels: dict[int, tuple[str, str]] = {}

    def described(stack_id: int) -> tuple[str, str]:
        hit = labels.get(stack_id)
        if hit is None:
            stack = snap.stack(stack_id)
            hit = (stack_label(stack), category(stack))
            labels[stack_id] = hit
        return hit

    if peak is None:  # no trace: what the snapshot's blocks hold
        out = []
        for s in segments:
            for b in s.blocks:
                if b.is_allocated:
                    label, cat = described(b.stack_id)
                    out.append(Allocation(b.address, b.requested_size_bytes, -1, b.stack_id, label, cat))
        return out
    mask = life.alive_at(peak)
    out = []
    for addr, size, start, sid in zip(life.addr[mask].tolist(), life.size_bytes[mask].tolist(),
                                      life.start[mask].tolist(), life.stack_id[mask].tolist()):
        label, cat = described(sid)
        if not label and start < 0:
            label = _("allocated before the trace started")
        out.append(Allocation(addr, size, start, sid, label, cat))
    return out


def _by_frame(alive: list[Allocation]) -> list[StackBytes]:
    groups: dict[str, StackBytes] = {}
    for a in alive:
        key = a.label
        g = groups.get(key)
        if g is None:
            groups[key] = StackBytes(a.label, a.size_bytes, 1, a.stack_id, a.category)
        else:
            g.bytes += a.size_bytes
            g.count += 1
    return sorted(groups.values(), key=lambda g: -g.bytes)


def _leaks(alive: list[Allocation], bounds: list[int]) -> list[LeakSuspect]:
    if len(bounds) < LEAK_MIN_ITERATIONS - 1:
        return []
    edges = np.asarray(bounds, dtype=np.int64)
    per_stack: dict[int, list[Allocation]] = defaultdict(list)
    for a in alive:
        if a.created_at >= 0 and a.stack_id >= 0:
            per_stack[a.stack_id].append(a)
    out = []
    for sid, allocs in per_stack.items():
        epochs = np.unique(np.searchsorted(edges, np.array([a.created_at for a in allocs]), side="right"))
        if epochs.size >= LEAK_MIN_ITERATIONS:
            out.append(LeakSuspect(allocs[0].label, sid, sum(a.size_bytes for a in allocs), len(allocs),
                                   int(epochs.size)))
    return sorted(out, key=lambda s: -s.bytes)


def explain(dev: DeviceAnalysis, snap: Snapshot) -> tuple[str, list[str]]:
    """A verdict id ("fragmentation", "genuine_shortage", "unexplained", "leak", "no_oom") and the sentences
    that explain it."""
    f = dev.fragmentation
    lines: list[str] = []
    verdict = "no_oom"
    fb = format_bytes
    if dev.oom is not None:
        req, free = dev.oom.requested_bytes, dev.oom.device_free_bytes
        usable = f.usable_free_bytes or 0
        largest = f.largest_usable_free_block_bytes or 0
        lines.append(_("PyTorch asked for {req} on GPU {device} while the GPU had {free} free, and the allocator "
                       "held {reserved} of which {alloc} was in use by tensors.").format(
            req=fb(req), device=dev.device, free=fb(free), reserved=fb(f.reserved_bytes), alloc=fb(f.allocated_bytes)))
        pool = _("large-pool") if req > SMALL_SIZE_BYTES else _("small-pool")
        if not f.free_piece_count:
            lines.append(_("The allocator's cache held no free block: every cached byte was in use by tensors."))
        elif not usable:
            lines.append(_("The cache had {cached} free in {pieces} pieces spread over {segs} segments, but none of "
                           "it could serve this request ({pool}, same stream).").format(
                cached=fb(f.cached_free_bytes), pieces=f.free_piece_count, segs=f.segments_with_free, pool=pool))
        else:
            lines.append(_("The cache had {cached} free in {pieces} pieces spread over {segs} segments; {usable} of "
                           "it could serve this request ({pool}, same stream) but its largest free block was "
                           "{largest}.").format(
                cached=fb(f.cached_free_bytes), pieces=f.free_piece_count, segs=f.segments_with_free,
                usable=fb(usable), pool=pool, largest=fb(largest)))
        if largest >= req:
            verdict = "unexplained"
            lines.append(_("A free cached block of {largest} was large enough, yet the allocation failed: the "
                           "block may be kept for another stream or a private pool, or be larger than "
                           "max_split_size (such blocks are not split for smaller requests), or the layout rebuilt "
                           "from the trace differs from the allocator's.").format(largest=fb(largest)))
        elif largest < req <= usable + free:
            verdict = "fragmentation"
            lines.append(_("So the memory existed but not in one piece: packed together, the free cache plus the "
                           "GPU's free memory ({total}) would have held the request. This is fragmentation.").format(
                total=fb(usable + free)))
        else:
            verdict = "genuine_shortage"
            lines.append(_("Even packed together, the free cache plus the GPU's free memory ({total}) is smaller "
                           "than the request: live tensors take the memory. This is a genuine shortage.").format(
                total=fb(usable + free)))
        if dev.ooms_total > 1:
            lines.append(_("The trace holds {count} OOM events; this analysis is at the last one.").format(
                count=dev.ooms_total))
    else:
        if f.free_piece_count:
            lines.append(_("The snapshot has no OOM event on GPU {device}: figures are at the end of the trace "
                           "({reserved} reserved, {alloc} allocated, {cached} cached free in {pieces} pieces, largest "
                           "{largest}).").format(
                device=dev.device, reserved=fb(f.reserved_bytes), alloc=fb(f.allocated_bytes),
                cached=fb(f.cached_free_bytes), pieces=f.free_piece_count, largest=fb(f.largest_free_block_bytes)))
        else:
            lines.append(_("The snapshot has no OOM event on GPU {device}: figures are at the end of the trace "
                           "({reserved} reserved, {alloc} allocated, no free block in the cache).").format(
                device=dev.device, reserved=fb(f.reserved_bytes), alloc=fb(f.allocated_bytes)))
    if dev.peak_index is not None:
        lines.append(_("Allocated memory peaked at {peak} (reserved {reserved}) at trace event #{index:,} of the "
                       "{events:,} on GPU {device} (numbered from 0, as on the timeline).").format(
            peak=fb(dev.peak_allocated_bytes), reserved=fb(dev.peak_reserved_bytes), index=dev.peak_index,
            events=dev.event_count, device=dev.device))
    if dev.top_frames:
        top = dev.top_frames[0]
        where = top.label or _("code without a recorded stack")
        if dev.peak_index is not None:
            lines.append(_("The largest holder at the peak is {where}: {bytes} in {count} allocations.").format(
                where=where, bytes=fb(top.bytes), count=top.count))
        else:
            lines.append(_("The largest holder is {where}: {bytes} in {count} allocations.").format(
                where=where, bytes=fb(top.bytes), count=top.count))
    if dev.leak_suspects:
        s = dev.leak_suspects[0]
        lines.append(_("Possible leak: {count} allocations from {where} ({bytes}) were made in {iters} different "
                       "iterations and are all still alive at the peak.").format(
            count=s.count, where=s.label or _("code without a recorded stack"), bytes=fb(s.bytes), iters=s.iterations))
        if verdict == "no_oom":
            verdict = "leak"
    if f.private_pool_bytes:
        lines.append(_("{bytes} is reserved in private pools (CUDA graphs or MemPool), which other allocations "
                       "cannot use.").format(bytes=fb(f.private_pool_bytes)))
    settings = snap.allocator_settings
    if settings is not None:
        lines.append(_("Allocator settings in force: {conf}.").format(
            conf=", ".join(f"{k}={v}" for k, v in settings.as_conf().items()) or _("defaults")))
    return verdict, lines
