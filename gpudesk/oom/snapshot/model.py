"""The typed form of a PyTorch CUDA memory snapshot (``torch.cuda.memory._snapshot()``).

Keys and meanings follow the writer, torch/csrc/cuda/memory_snapshot.cpp (``_memory_snapshot_pickled``,
https://github.com/pytorch/pytorch/blob/main/torch/csrc/cuda/memory_snapshot.cpp), and the documented types in
``torch.cuda.memory._snapshot`` (torch/cuda/memory.py):

* a **segment** is one cudaMalloc (or, with expandable segments, one mapped range); reserved memory is the sum of
  the segments' ``total_size``; each segment is cut into **blocks** that are ``active_allocated`` (a tensor),
  ``active_pending_free`` (freed, waiting for another stream) or ``inactive`` (cached, free for reuse);
* ``device_traces`` (one list per device) holds the allocator's actions when history was recorded;
* ``allocator_settings`` (PyTorch 2.4+) holds the ``PYTORCH_CUDA_ALLOC_CONF`` in force.

Stacks are stored once in :attr:`Snapshot.stacks` and referred to by index (-1 = no stack recorded); trace
events are columns of numpy arrays so that millions of events stay compact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

# Trace actions in the order of c10::cuda::CUDACachingAllocator::TraceEntry::Action; codes index this tuple.
ACTIONS = (
    "alloc",
    "free_requested",
    "free_completed",
    "segment_alloc",
    "segment_free",
    "segment_map",
    "segment_unmap",
    "snapshot",
    "oom",
)
ACTION_CODE = {name: code for code, name in enumerate(ACTIONS)}
ALLOC, FREE_REQUESTED, FREE_COMPLETED, SEGMENT_ALLOC, SEGMENT_FREE, SEGMENT_MAP, SEGMENT_UNMAP, SNAPSHOT, OOM = range(9)

BLOCK_STATES = ("active_allocated", "active_pending_free", "inactive")
NO_STACK = -1


@dataclass(frozen=True, slots=True)
class Frame:
    """One stack frame as the snapshot records it (C++ frames have ``line`` 0 and a .cpp or '??' filename)."""

    filename: str
    line: int
    name: str

    @property
    def is_python(self) -> bool:
        """A Python source frame: a .py file, or code without a file (``<string>``, ``<stdin>``) at a line."""
        return self.filename.endswith(".py") or (self.filename.startswith("<") and self.line > 0)

    def label(self) -> str:
        return f"{self.filename}:{self.line} {self.name}" if self.line else f"{self.filename} {self.name}"


Stack = tuple[Frame, ...]


@dataclass(slots=True)
class Block:
    """A piece of a segment. ``requested_size_bytes`` is what the caller asked for (size is rounded up)."""

    address: int
    size_bytes: int
    requested_size_bytes: int
    state: str
    stack_id: int = NO_STACK

    @property
    def is_allocated(self) -> bool:
        return self.state == "active_allocated"

    @property
    def is_free(self) -> bool:
        return self.state == "inactive"


@dataclass(slots=True)
class Segment:
    """One cudaMalloc'd (or mapped) range of a device, with its blocks in address order."""

    device: int
    address: int
    total_size_bytes: int
    allocated_size_bytes: int
    active_size_bytes: int
    requested_size_bytes: int | None
    stream: int
    segment_type: str
    pool_id: tuple[int, int] = (0, 0)
    is_expandable: bool = False
    stack_id: int = NO_STACK
    blocks: list[Block] = field(default_factory=list)

    @property
    def free_bytes(self) -> int:
        """Bytes of the segment in inactive blocks (cached, not held by a tensor)."""
        return sum(b.size_bytes for b in self.blocks if b.is_free)

    @property
    def largest_free_block_bytes(self) -> int:
        return max((b.size_bytes for b in self.blocks if b.is_free), default=0)

    @property
    def in_private_pool(self) -> bool:
        """A segment of a CUDA graph or MemPool private pool (pool id other than (0, 0))."""
        return self.pool_id != (0, 0)


@dataclass(slots=True)
class DeviceTrace:
    """The recorded allocator actions of one device, as parallel arrays (one row per event, oldest first).

    ``addr`` holds ``device_free`` for ``oom`` rows (the writer puts it in the address slot); ``time_us`` is
    0 where the snapshot predates timestamps (PyTorch < 2.2).
    """

    device: int
    action: npt.NDArray[np.int8]
    addr: npt.NDArray[np.int64]
    size_bytes: npt.NDArray[np.int64]
    stream: npt.NDArray[np.int64]
    time_us: npt.NDArray[np.int64]
    stack_id: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return int(self.action.shape[0])

    @classmethod
    def empty(cls, device: int) -> DeviceTrace:
        return cls(
            device=device,
            action=np.zeros(0, dtype=np.int8),
            addr=np.zeros(0, dtype=np.int64),
            size_bytes=np.zeros(0, dtype=np.int64),
            stream=np.zeros(0, dtype=np.int64),
            time_us=np.zeros(0, dtype=np.int64),
            stack_id=np.zeros(0, dtype=np.int32),
        )

    @property
    def has_times(self) -> bool:
        return bool(len(self) and self.time_us.any())


@dataclass(slots=True)
class AllocatorSettings:
    """``allocator_settings`` of the snapshot (PyTorch 2.4+); ``None`` fields were not recorded."""

    alloc_conf: str | None = None
    max_split_size_bytes: int | None = None
    garbage_collection_threshold: float | None = None
    expandable_segments: bool | None = None
    roundup_power2_divisions: dict[str, int] = field(default_factory=dict)
    other: dict[str, str] = field(default_factory=dict)

    def as_conf(self) -> dict[str, str]:
        """Option -> value, as ``MemoryReport.alloc_conf`` holds it (only what the snapshot recorded)."""
        out: dict[str, str] = {}
        if self.alloc_conf:
            for item in self.alloc_conf.split(","):
                key, sep, value = item.partition(":")
                if sep and key.strip():
                    out[key.strip()] = value.strip()
        if self.expandable_segments is not None:
            out.setdefault("expandable_segments", "True" if self.expandable_segments else "False")
        # The writer stores SIZE_MAX when max_split_size is not set (CUDAAllocatorConfig.h).
        if self.max_split_size_bytes is not None and 0 < self.max_split_size_bytes < 2**62:
            out.setdefault("max_split_size_mb", str(self.max_split_size_bytes // (1024 * 1024)))
        if self.garbage_collection_threshold:
            out.setdefault("garbage_collection_threshold", str(self.garbage_collection_threshold))
        return out


@dataclass(slots=True)
class Snapshot:
    """A whole snapshot: segments of every device, traces per device, stacks, settings, and what was read.

    ``format_version`` names the layout recognised (see :mod:`gpudesk.oom.snapshot.convert`);
    ``source_name`` the file it came from; ``notes`` plain remarks (unknown keys, repaired values).
    """

    segments: list[Segment]
    traces: list[DeviceTrace]
    stacks: list[Stack]
    allocator_settings: AllocatorSettings | None
    format_version: str
    source_name: str = ""
    file_size_bytes: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def devices(self) -> list[int]:
        """Devices that have segments or trace events, in order."""
        found = {s.device for s in self.segments} | {t.device for t in self.traces if len(t)}
        return sorted(found)

    def segments_of(self, device: int) -> list[Segment]:
        return [s for s in self.segments if s.device == device]

    def trace_of(self, device: int) -> DeviceTrace:
        for t in self.traces:
            if t.device == device:
                return t
        return DeviceTrace.empty(device)

    def stack(self, stack_id: int) -> Stack:
        return self.stacks[stack_id] if 0 <= stack_id < len(self.stacks) else ()

    @property
    def event_count(self) -> int:
        return sum(len(t) for t in self.traces)
