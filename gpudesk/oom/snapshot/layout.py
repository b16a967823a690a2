"""The segments of a device and their free pieces at one moment of the trace (the fragmentation picture).

At the end of the trace the snapshot's own blocks are used as they are. At an earlier event (the OOM) the
layout is rebuilt: segments that ``segment_alloc``-ed after the event are taken away and those that
``segment_free``-d after it are put back; the occupied ranges are the allocations alive at the event,
each rounded up to the allocator's 512-byte block granularity (``kMinBlockSize`` / ``round_size`` in
c10/cuda/CUDACachingAllocator.cpp); the gaps between them are the free pieces, except a gap of at most 1 MiB
after an allocation in a large-pool segment, which is the unsplit tail of that allocation's block. A segment of exactly 2 MiB
belongs to the small pool (``kSmallBuffer``); the allocator serves requests above 1 MiB (``kSmallSize``) only
from large-pool blocks of the same stream and pool (``get_free_block``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpudesk.oom.snapshot.model import (
    SEGMENT_ALLOC,
    SEGMENT_FREE,
    SEGMENT_MAP,
    SEGMENT_UNMAP,
    DeviceTrace,
    Segment,
)
from gpudesk.oom.snapshot.timeline import Lifetimes

MIN_BLOCK_BYTES = 512
SMALL_SIZE_BYTES = 1024 * 1024
SMALL_BUFFER_BYTES = 2 * 1024 * 1024


@dataclass(slots=True)
class SegmentState:
    """One segment at a moment: its free pieces (address, bytes) and occupied ranges (address, bytes, stack)."""

    address: int
    total_size_bytes: int
    segment_type: str
    stream: int
    pool_id: tuple[int, int]
    is_expandable: bool
    free_pieces: list[tuple[int, int]] = field(default_factory=list)
    occupied: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def free_bytes(self) -> int:
        return sum(size for _a, size in self.free_pieces)

    @property
    def allocated_bytes(self) -> int:
        return sum(size for _a, size, _s in self.occupied)

    @property
    def largest_free_bytes(self) -> int:
        return max((size for _a, size in self.free_pieces), default=0)

    def can_serve(self, request_bytes: int, stream: int | None) -> bool:
        """Whether this segment's pool and stream may serve a request of this size (not whether it fits)."""
        large_request = request_bytes > SMALL_SIZE_BYTES
        if large_request != (self.segment_type == "large"):
            return False
        if self.pool_id != (0, 0):
            return False
        return stream is None or self.stream == stream


def layout_at_end(segments: list[Segment]) -> list[SegmentState]:
    """The final layout, straight from the snapshot's blocks."""
    out = []
    for s in sorted(segments, key=lambda s: s.address):
        state = SegmentState(s.address, s.total_size_bytes, s.segment_type, s.stream, s.pool_id, s.is_expandable)
        for b in s.blocks:
            if b.is_free:
                state.free_pieces.append((b.address, b.size_bytes))
            else:
                state.occupied.append((b.address, b.size_bytes, b.stack_id))
        out.append(state)
    return out


def layout_at(segments: list[Segment], trace: DeviceTrace, lifetimes: Lifetimes, index: int) -> list[SegmentState]:
    """The layout right after event ``index`` (see the module docstring)."""
    ranges: dict[int, tuple[int, str, int, tuple[int, int], bool]] = {
        s.address: (s.total_size_bytes, s.segment_type, s.stream, s.pool_id, s.is_expandable) for s in segments
    }
    act = trace.action
    later = np.flatnonzero(
        (act[index + 1:] == SEGMENT_ALLOC) | (act[index + 1:] == SEGMENT_FREE)
        | (act[index + 1:] == SEGMENT_MAP) | (act[index + 1:] == SEGMENT_UNMAP)
    ) + index + 1
    for i in later[::-1].tolist():  # undo from the end back to the event
        addr, size, a = int(trace.addr[i]), int(trace.size_bytes[i]), int(act[i])
        if a == SEGMENT_ALLOC:
            ranges.pop(addr, None)
        elif a == SEGMENT_FREE:
            seg_type = "small" if size == SMALL_BUFFER_BYTES else "large"
            ranges[addr] = (size, seg_type, int(trace.stream[i]), (0, 0), False)
        # segment_map / segment_unmap change the mapped extent of an expandable segment; its final extent
        # is kept, which can only overstate the free room of that segment.
    alive = lifetimes.alive_at(index)
    a_addr = lifetimes.addr[alive]
    a_size = lifetimes.size_bytes[alive]
    a_stack = lifetimes.stack_id[alive]
    order = np.argsort(a_addr)
    a_addr, a_size, a_stack = a_addr[order], a_size[order], a_stack[order]
    rounded = ((a_size + MIN_BLOCK_BYTES - 1) // MIN_BLOCK_BYTES) * MIN_BLOCK_BYTES
    rounded = np.maximum(rounded, MIN_BLOCK_BYTES)
    out: list[SegmentState] = []
    for seg_addr in sorted(ranges):
        total, seg_type, stream, pool, expandable = ranges[seg_addr]
        state = SegmentState(seg_addr, total, seg_type, stream, pool, expandable)
        lo = int(np.searchsorted(a_addr, seg_addr, side="left"))
        hi = int(np.searchsorted(a_addr, seg_addr + total, side="left"))
        cursor = seg_addr
        end = seg_addr + total
        # In a large-pool segment (not expandable) a block is split only when more than 1 MiB would remain
        # (``should_split``), so every free block there is larger than 1 MiB: a gap of at most 1 MiB right after
        # an allocation is that allocation's unsplit tail, not a free block.
        unsplit_tail = SMALL_SIZE_BYTES if seg_type == "large" and not expandable else 0
        for addr, size, stack in zip(a_addr[lo:hi].tolist(), rounded[lo:hi].tolist(), a_stack[lo:hi].tolist()):
            if addr > cursor:
                _gap(state, cursor, addr - cursor, unsplit_tail)
            size = min(size, end - addr)
            state.occupied.append((addr, size, stack))
            cursor = max(cursor, addr + size)
        if cursor < end:
            _gap(state, cursor, end - cursor, unsplit_tail)
        out.append(state)
    return out


def _gap(state: SegmentState, address: int, size: int, unsplit_tail: int) -> None:
    """Record the gap at ``address`` as a free piece, or as the tail of the allocation just before it."""
    if state.occupied and size <= unsplit_tail:
        prev_addr, prev_size, prev_stack = state.occupied[-1]
        if prev_addr + prev_size == address:
            state.occupied[-1] = (prev_addr, prev_size + size, prev_stack)
            return
    state.free_pieces.append((address, size))
