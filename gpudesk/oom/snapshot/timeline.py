"""Replay a device trace: allocated and reserved bytes after every event, and the lifetime of every allocation.

Allocated bytes follow the allocator's ``allocated_bytes`` statistic, which drops at ``free_requested`` (the
caller's free), not at ``free_completed`` (when other streams are done); trace sizes are the requested sizes
(``orig_size`` in ``DeviceCachingAllocator::malloc``, c10/cuda/CUDACachingAllocator.cpp). Reserved bytes rise
with ``segment_alloc`` / ``segment_map`` and fall with ``segment_free`` / ``segment_unmap``.

A trace may start after the job did (history switched on late, or the ring buffer of ``max_entries`` wrapped),
so the curve is anchored at its end: the snapshot's segments give allocated and reserved bytes at the moment
of the dump, and the baseline is that minus the net change over the trace (the same reconstruction the
memory_viz page makes, torch/utils/viz/MemoryViz.js).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpudesk.oom.snapshot.model import (
    ALLOC,
    FREE_REQUESTED,
    OOM,
    SEGMENT_ALLOC,
    SEGMENT_FREE,
    SEGMENT_MAP,
    SEGMENT_UNMAP,
    DeviceTrace,
    Segment,
)

I64 = npt.NDArray[np.int64]


@dataclass(slots=True)
class Timeline:
    """Per-event curves of one device (index i = state after event i)."""

    device: int
    allocated_bytes: I64
    reserved_bytes: I64
    time_us: I64
    baseline_allocated_bytes: int
    baseline_reserved_bytes: int
    oom_indices: npt.NDArray[np.intp]

    def __len__(self) -> int:
        return int(self.allocated_bytes.shape[0])

    @property
    def peak_index(self) -> int | None:
        """Event at which allocated bytes were highest (the first such), None for an empty trace."""
        if not len(self):
            return None
        return int(np.argmax(self.allocated_bytes))

    @property
    def last_oom_index(self) -> int | None:
        return int(self.oom_indices[-1]) if self.oom_indices.size else None


@dataclass(slots=True)
class Lifetimes:
    """Every allocation seen in the trace: created at event ``start`` (-1 = before the trace) and freed at
    ``end`` (len(trace) = still alive at the end)."""

    addr: I64
    size_bytes: I64
    start: I64
    end: I64
    stack_id: npt.NDArray[np.int32]

    def alive_at(self, index: int) -> npt.NDArray[np.bool_]:
        """Mask of the allocations alive right after event ``index``."""
        return (self.start <= index) & (self.end > index)


def build_timeline(trace: DeviceTrace, segments: list[Segment]) -> Timeline:
    """Allocated / reserved curves of ``trace``, anchored on the final ``segments`` of the same device."""
    act = trace.action
    size = trace.size_bytes
    d_alloc = np.where(act == ALLOC, size, np.where(act == FREE_REQUESTED, -size, 0)).astype(np.int64)
    grow = (act == SEGMENT_ALLOC) | (act == SEGMENT_MAP)
    shrink = (act == SEGMENT_FREE) | (act == SEGMENT_UNMAP)
    d_res = np.where(grow, size, np.where(shrink, -size, 0)).astype(np.int64)
    alloc_net = np.cumsum(d_alloc)
    res_net = np.cumsum(d_res)
    final_alloc = sum(b.requested_size_bytes for s in segments for b in s.blocks if b.is_allocated)
    final_res = sum(s.total_size_bytes for s in segments)
    base_alloc = max(0, final_alloc - (int(alloc_net[-1]) if alloc_net.size else 0))
    base_res = max(0, final_res - (int(res_net[-1]) if res_net.size else 0))
    return Timeline(
        device=trace.device,
        allocated_bytes=alloc_net + base_alloc,
        reserved_bytes=res_net + base_res,
        time_us=trace.time_us,
        baseline_allocated_bytes=base_alloc,
        baseline_reserved_bytes=base_res,
        oom_indices=np.flatnonzero(act == OOM),
    )


def build_lifetimes(trace: DeviceTrace, segments: list[Segment]) -> Lifetimes:
    """Pair every ``alloc`` with the next ``free_requested`` of the same address (vectorised).

    Frees with no alloc before them are allocations made before the trace started (start -1); allocated
    blocks of the final snapshot that the trace never mentions lived through the whole trace.
    """
    n = len(trace)
    act = trace.action
    idx = np.flatnonzero((act == ALLOC) | (act == FREE_REQUESTED))
    addr = trace.addr[idx]
    order = np.lexsort((idx, addr))
    idx, addr = idx[order], addr[order]
    is_alloc = act[idx] == ALLOC
    same_next = np.zeros(idx.shape, dtype=bool)
    if idx.size > 1:
        same_next[:-1] = addr[:-1] == addr[1:]
    nxt_free = np.zeros(idx.shape, dtype=bool)
    if idx.size > 1:
        nxt_free[:-1] = same_next[:-1] & (act[idx[1:]] == FREE_REQUESTED)
    # allocs: end at the following free of the same address, else alive at the end
    a_pos = np.flatnonzero(is_alloc)
    a_end = np.full(a_pos.shape, n, dtype=np.int64)
    paired = nxt_free[a_pos]
    a_end[paired] = idx[a_pos[paired] + 1]
    # frees whose previous entry is not an alloc of the same address: allocated before the trace
    f_pos = np.flatnonzero(~is_alloc)
    prev_alloc = np.zeros(f_pos.shape, dtype=bool)
    has_prev = f_pos > 0
    prev = f_pos[has_prev] - 1
    prev_alloc[has_prev] = (addr[prev] == addr[f_pos[has_prev]]) & is_alloc[prev]
    orphan = f_pos[~prev_alloc]
    starts = [idx[a_pos].astype(np.int64), np.full(orphan.shape, -1, dtype=np.int64)]
    ends = [a_end, idx[orphan].astype(np.int64)]
    addrs = [addr[a_pos], addr[orphan]]
    sizes = [trace.size_bytes[idx[a_pos]], trace.size_bytes[idx[orphan]]]
    stacks = [trace.stack_id[idx[a_pos]], np.full(orphan.shape, -1, dtype=np.int32)]
    # allocated blocks of the final state the trace does not account for
    alive_end = set(addrs[0][a_end == n].tolist())
    pre: list[tuple[int, int, int]] = [
        (b.address, b.requested_size_bytes, b.stack_id)
        for s in segments for b in s.blocks
        if b.is_allocated and b.address not in alive_end
    ]
    if pre:
        starts.append(np.full(len(pre), -1, dtype=np.int64))
        ends.append(np.full(len(pre), n, dtype=np.int64))
        addrs.append(np.array([p[0] for p in pre], dtype=np.int64))
        sizes.append(np.array([p[1] for p in pre], dtype=np.int64))
        stacks.append(np.array([p[2] for p in pre], dtype=np.int32))
    return Lifetimes(
        addr=np.concatenate(addrs).astype(np.int64),
        size_bytes=np.concatenate(sizes).astype(np.int64),
        start=np.concatenate(starts),
        end=np.concatenate(ends),
        stack_id=np.concatenate(stacks).astype(np.int32),
    )


def decimate_minmax(values: I64, buckets: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(x, y) with at most ``2 * buckets`` points keeping each bucket's minimum and maximum, in event order,
    so that a plot of millions of events keeps every spike (the classic min/max envelope decimation)."""
    n = int(values.shape[0])
    if n <= 2 * buckets or buckets <= 0:
        return np.arange(n, dtype=np.float64), values.astype(np.float64)
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    starts = edges[:-1]
    mins = np.minimum.reduceat(values, starts)
    maxs = np.maximum.reduceat(values, starts)
    mid = (starts + np.diff(edges) / 2.0).astype(np.float64)
    x = np.repeat(mid, 2)
    y = np.empty(2 * buckets, dtype=np.float64)
    y[0::2] = mins
    y[1::2] = maxs
    return x, y


def troughs(values: I64) -> list[int]:
    """Iteration boundaries of a training loop: the lowest points of the curve's deep dips.

    A dip counts when the curve falls by at least half its range from the high before it and then climbs by
    as much again (hysteresis). The range is the maximum minus the floor, the floor being the minimum after
    the curve first reaches halfway up (so the empty start before the model is loaded does not count). A
    training step frees its activations and falls by most of the range; within a forward pass or an optimizer
    step the curve climbs with small dips (temporaries freed between layers or parameters), which are not
    iterations. A leak shifts the dips up slowly but keeps their depth, so they still count.
    """
    out: list[int] = []
    n = int(values.shape[0])
    if n < 3:
        return out
    hi = int(values.max())
    first_mid = int(np.argmax(values >= (int(values.min()) + hi) / 2))
    floor = int(values[first_mid:].min())
    depth = (hi - floor) / 2
    if depth <= 0:
        return out
    buckets = min(n, 20_000)  # envelope of at most 40k points; minima positions are exact within a bucket
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    starts = edges[:-1]
    mins = np.minimum.reduceat(values, starts).tolist()
    maxs = np.maximum.reduceat(values, starts).tolist()
    high = maxs[0]
    low: int | None = None
    low_bucket = 0
    for b in range(buckets):
        if low is None:
            high = max(high, maxs[b])
            if mins[b] <= high - depth:
                low, low_bucket = mins[b], b
        else:
            if mins[b] < low:
                low, low_bucket = mins[b], b
            if maxs[b] >= low + depth:
                lo, hi_i = int(edges[low_bucket]), int(edges[low_bucket + 1])
                out.append(lo + int(np.argmin(values[lo:hi_i])))
                high, low = maxs[b], None
    return out


class Envelope:
    """Min/max envelope of a long curve with a precomputed level of :data:`BLOCK`-event blocks, so that a
    window of millions of events is decimated from the block minima and maxima (256 times fewer values)
    and a short window from the events themselves. Same output as :func:`decimate_minmax` up to bucket edges
    falling on block boundaries."""

    BLOCK = 256

    def __init__(self, values: I64) -> None:
        self.values = values
        n = int(values.shape[0])
        starts = np.arange(0, n, self.BLOCK)
        self.block_min = np.minimum.reduceat(values, starts) if n else values[:0]
        self.block_max = np.maximum.reduceat(values, starts) if n else values[:0]

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def window(self, lo: int, hi: int, buckets: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(x, y) of events ``lo..hi`` with at most ``2 * buckets`` points; x in event indices."""
        lo, hi = max(0, lo), min(len(self), hi)
        span = hi - lo
        if span <= 0 or buckets <= 0:
            return np.zeros(0), np.zeros(0)
        if span < 2 * self.BLOCK * buckets:
            x, y = decimate_minmax(self.values[lo:hi], buckets)
            return x + lo, y
        b_lo, b_hi = lo // self.BLOCK, -(-hi // self.BLOCK)
        edges = np.linspace(b_lo, b_hi, buckets + 1).astype(np.int64)
        starts = edges[:-1]
        rel = starts - b_lo
        mins = np.minimum.reduceat(self.block_min[b_lo:b_hi], rel)
        maxs = np.maximum.reduceat(self.block_max[b_lo:b_hi], rel)
        mid = ((starts + np.diff(edges) / 2.0) * self.BLOCK).astype(np.float64)
        x = np.repeat(mid, 2)
        y = np.empty(2 * buckets, dtype=np.float64)
        y[0::2] = mins
        y[1::2] = maxs
        return x, y
