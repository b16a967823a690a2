"""Build memory snapshots the way PyTorch's caching allocator writes them, for tests.

Public snapshot files with an OOM and a licence are not to be had (see tests/fixtures/oom/snapshots/ for the
real ones used), so these fixtures come from a small simulation of ``DeviceCachingAllocator`` written from
c10/cuda/CUDACachingAllocator.cpp (https://github.com/pytorch/pytorch): sizes rounded to 512 bytes; requests up
to 1 MiB served from 2 MiB small-pool segments; larger ones from best-fit cached large blocks, split when more
than 1 MiB would remain; new segments of 20 MiB for requests under 10 MiB, else the request rounded up to 2 MiB;
on a failed cudaMalloc every fully free segment is released (``segment_free``) and the malloc retried; then the
``oom`` action with ``device_free``. Frees record ``free_requested`` then ``free_completed`` and merge free
neighbours. The dict is then written in the layout of a chosen PyTorch version, key for key as
torch/csrc/cuda/memory_snapshot.cpp (2.1+) and torch/csrc/cuda/Module.cpp (2.0) write it.

Built, not captured: addresses, timings and stacks are invented; the layout and the allocator's decisions follow
the source above.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MiB = 1024 * 1024
SMALL_SIZE = MiB
SMALL_BUFFER = 2 * MiB
LARGE_BUFFER = 20 * MiB
MIN_LARGE_ALLOC = 10 * MiB
ROUND_LARGE = 2 * MiB

TORCH = "/usr/lib/python3/dist-packages/torch"


def frames(*items: tuple[str, int, str]) -> list[dict[str, Any]]:
    """A stack, innermost first, as the writer stores it."""
    return [{"filename": f, "line": line, "name": n} for f, line, n in items]


FORWARD = frames(("model.py", 31, "forward"), (f"{TORCH}/nn/modules/module.py", 1747, "_call_impl"),
                 ("train.py", 40, "train_step"), ("train.py", 88, "<module>"))
PARAMS = frames((f"{TORCH}/nn/modules/module.py", 1326, "_apply"), (f"{TORCH}/nn/modules/module.py", 1340, "to"),
                ("train.py", 20, "build_model"), ("train.py", 80, "<module>"))
LOSS_KEPT = frames(("train.py", 44, "train_step"), ("train.py", 88, "<module>"))
BIG = frames(("train.py", 52, "train_step"), ("train.py", 88, "<module>"))


class SimOOM(Exception):
    pass


@dataclass
class _Block:
    address: int
    size: int
    requested: int = 0
    allocated: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Segment:
    address: int
    size: int
    small: bool
    blocks: list[_Block] = field(default_factory=list)


class Allocator:
    """A one-device, one-stream caching allocator with a fixed capacity."""

    def __init__(self, capacity_bytes: int, device: int = 0):
        self.capacity = capacity_bytes
        self.device = device
        self.segments: list[_Segment] = []
        self.trace: list[dict[str, Any]] = []
        self._next = 0x7F00_0000_0000
        self._t = 1_700_000_000_000_000
        self.live: dict[int, int] = {}

    @property
    def reserved(self) -> int:
        return sum(s.size for s in self.segments)

    def _event(self, action: str, addr: int, size: int, stack: list[dict[str, Any]] | None) -> None:
        self._t += 150
        e: dict[str, Any] = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": self._t}
        if action == "oom":
            e["device_free"] = e.pop("addr")
        if stack:
            e["frames"] = stack
        self.trace.append(e)

    def malloc(self, requested: int, stack: list[dict[str, Any]]) -> int:
        size = max(512, (requested + 511) // 512 * 512)
        small = size <= SMALL_SIZE
        block = self._best_fit(size, small)
        if block is None:
            alloc = SMALL_BUFFER if small else (LARGE_BUFFER if size < MIN_LARGE_ALLOC
                                                else (size + ROUND_LARGE - 1) // ROUND_LARGE * ROUND_LARGE)
            if self.reserved + alloc > self.capacity:
                for seg in [s for s in self.segments if not any(b.allocated for b in s.blocks)]:
                    self.segments.remove(seg)
                    self._event("segment_free", seg.address, seg.size, stack)
            if self.reserved + alloc > self.capacity:
                self._event("oom", self.capacity - self.reserved, requested, stack)
                raise SimOOM(requested)
            seg = _Segment(self._next, alloc, small)
            self._next += alloc + 64 * MiB
            seg.blocks.append(_Block(seg.address, alloc))
            self.segments.append(seg)
            self._event("segment_alloc", seg.address, alloc, stack)
            block = seg.blocks[0]
        seg = self._segment_of(block.address)
        remaining = block.size - size
        if remaining >= (512 if small else SMALL_SIZE + 1):
            i = seg.blocks.index(block)
            seg.blocks.insert(i + 1, _Block(block.address + size, remaining))
            block.size = size
        block.allocated, block.requested, block.frames = True, requested, stack
        self.live[block.address] = requested
        self._event("alloc", block.address, requested, stack)
        return block.address

    def free(self, addr: int, stack: list[dict[str, Any]] | None = None) -> None:
        seg = self._segment_of(addr)
        block = next(b for b in seg.blocks if b.address == addr)
        self._event("free_requested", addr, block.requested, stack)
        block.allocated, block.frames, block.requested = False, [], 0
        del self.live[addr]
        i = seg.blocks.index(block)
        if i + 1 < len(seg.blocks) and not seg.blocks[i + 1].allocated:
            block.size += seg.blocks.pop(i + 1).size
        if i > 0 and not seg.blocks[i - 1].allocated:
            prev = seg.blocks[i - 1]
            prev.size += block.size
            seg.blocks.pop(i)
        self._event("free_completed", addr, 0, stack)

    def _segment_of(self, addr: int) -> _Segment:
        return next(s for s in self.segments if s.address <= addr < s.address + s.size)

    def _best_fit(self, size: int, small: bool) -> _Block | None:
        fits = [b for s in self.segments if s.small == small for b in s.blocks if not b.allocated and b.size >= size]
        return min(fits, key=lambda b: (b.size, b.address)) if fits else None

    def snapshot(self, version: str = "2.5", settings: str = "") -> dict[str, Any]:
        """The ``_snapshot()`` dict in the layout of PyTorch ``version`` ("2.0", "2.1", "2.2", "2.4", "2.5")."""
        v = tuple(int(x) for x in version.split("."))
        segs = []
        for s in sorted(self.segments, key=lambda s: s.address):
            alloc = sum(b.size for b in s.blocks if b.allocated)
            seg: dict[str, Any] = {
                "device": self.device, "address": s.address, "total_size": s.size, "allocated_size": alloc,
                "active_size": alloc, "requested_size": sum(b.requested for b in s.blocks if b.allocated),
                "stream": 0, "segment_type": "small" if s.small else "large",
            }
            if v >= (2, 1):
                seg["segment_pool_id"] = (0, 0)
                seg["is_expandable"] = False
                seg["frames"] = []
            blocks = []
            for b in s.blocks:
                state = "active_allocated" if b.allocated else "inactive"
                if v >= (2, 1):
                    blocks.append({"address": b.address, "size": b.size, "requested_size": b.requested or b.size,
                                   "state": state, "frames": b.frames})
                else:
                    blk: dict[str, Any] = {"size": b.size, "requested_size": b.requested or b.size, "state": state}
                    if b.allocated:
                        blk["history"] = [{"addr": b.address, "real_size": b.requested, "frames": b.frames}]
                    blocks.append(blk)
            seg["blocks"] = blocks
            segs.append(seg)
        trace = []
        for e in self.trace:
            e = dict(e)
            if v < (2, 2):
                e.pop("time_us")
            if v >= (2, 5):
                e["compile_context"] = ""
                e["user_metadata"] = ""
            trace.append(e)
        out: dict[str, Any] = {"segments": segs, "device_traces": [[] for _ in range(self.device)] + [trace]}
        if v >= (2, 4):
            out["allocator_settings"] = {
                "PYTORCH_CUDA_ALLOC_CONF": settings, "max_split_size": 2**64 - 1 if False else -1,
                "garbage_collection_threshold": 0.0, "expandable_segments": "expandable_segments:True" in settings,
                "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": False,
                "pinned_use_cuda_host_register": False, "roundup_power2_divisions": {"1": 0, "2": 0},
            }
        if v >= (2, 5):
            out["external_annotations"] = []
        return out


def fragmentation_oom(version: str = "2.5") -> dict[str, Any]:
    """Split 180 MiB segments leave 100 MiB and 10 MiB holes; a 150 MiB request then fails with 550 MiB
    cached free (the expected verdict: fragmentation)."""
    a = Allocator(capacity_bytes=1000 * MiB)
    first = [a.malloc(180 * MiB, PARAMS) for _ in range(5)]
    for addr in first:
        a.free(addr)
    pairs = [(a.malloc(100 * MiB, FORWARD), a.malloc(70 * MiB, FORWARD)) for _ in range(5)]
    for big, _small in pairs:
        a.free(big)
    try:
        a.malloc(150 * MiB, BIG)
    except SimOOM:
        pass
    return a.snapshot(version)


def shortage_oom(version: str = "2.5") -> dict[str, Any]:
    """Parameters 600 MiB, activations 8 x 50 MiB, then a 200 MiB request on a 1000 MiB GPU
    (expected: genuine shortage)."""
    a = Allocator(capacity_bytes=1000 * MiB)
    for _ in range(6):
        a.malloc(100 * MiB, PARAMS)
    for _ in range(7):
        a.malloc(50 * MiB, FORWARD)
    try:
        a.malloc(200 * MiB, BIG)
    except SimOOM:
        pass
    return a.snapshot(version)


def leak_run(version: str = "2.5", iterations: int = 8) -> dict[str, Any]:
    """A training loop whose loss tensors (16 MiB each) are kept in a list; activations (4 x 40 MiB) are freed
    every iteration. No OOM (expected: leak suspect train.py:44)."""
    a = Allocator(capacity_bytes=4000 * MiB)
    for _ in range(3):
        a.malloc(100 * MiB, PARAMS)
    for _ in range(iterations):
        acts = [a.malloc(40 * MiB, FORWARD) for _ in range(4)]
        a.malloc(16 * MiB, LOSS_KEPT)
        for addr in acts:
            a.free(addr)
    return a.snapshot(version)


def many_events(events: int) -> dict[str, Any]:
    """A 2.5-layout snapshot with about ``events`` trace events (alloc/free pairs cycling over 64 addresses of
    one 64 MiB segment, shared stacks as a real pickle shares them), for the benchmarks."""
    base = 0x7F00_0000_0000
    seg_size = 64 * MiB
    trace: list[dict[str, Any]] = [{"action": "segment_alloc", "addr": base, "size": seg_size, "stream": 0,
                                    "time_us": 0, "frames": FORWARD, "compile_context": "", "user_metadata": ""}]
    t = 0
    n = 0
    while len(trace) < events:
        slot = n % 64
        addr = base + slot * MiB
        size = 512 * (1 + (n * 7919) % 2048)
        t += 3
        trace.append({"action": "alloc", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": FORWARD,
                      "compile_context": "", "user_metadata": ""})
        t += 3
        trace.append({"action": "free_requested", "addr": addr, "size": size, "stream": 0, "time_us": t,
                      "frames": FORWARD, "compile_context": "", "user_metadata": ""})
        trace.append({"action": "free_completed", "addr": addr, "size": size, "stream": 0, "time_us": t,
                      "frames": FORWARD, "compile_context": "", "user_metadata": ""})
        n += 1
    segs = [{"device": 0, "address": base, "total_size": seg_size, "allocated_size": 0, "active_size": 0,
             "requested_size": 0, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
             "is_expandable": False, "frames": [],
             "blocks": [{"address": base, "size": seg_size, "requested_size": seg_size, "state": "inactive",
                         "frames": []}]}]
    return {"segments": segs, "device_traces": [trace], "allocator_settings": {}, "external_annotations": []}
