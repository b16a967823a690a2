"""Turn the decoded snapshot dict into the typed :class:`~gpudesk.oom.snapshot.model.Snapshot`.

Layouts PyTorch has shipped (read from the writer's history in torch/csrc/cuda/memory_snapshot.cpp and, before
2.1, torch/csrc/cuda/Module.cpp; https://github.com/pytorch/pytorch):

* **segment list**: ``torch.cuda.memory_snapshot()`` (any version) -- a bare list of segments, no trace;
* **2.0**: ``{"segments", "device_traces"}``; blocks carry ``size``, ``requested_size`` (2.0.1) and
  ``history`` = ``[{"addr", "real_size", "frames"}]`` (newest first), no block address (it is the segment's
  address plus the sizes of the blocks before it);
* **2.1**: blocks carry ``address``, ``frames``, ``requested_size``; segments ``segment_pool_id``,
  ``is_expandable``, ``frames``; trace actions gain ``segment_map`` / ``segment_unmap`` (expandable segments);
* **2.2**: trace entries carry ``time_us``;
* **2.4**: top-level ``allocator_settings`` (``PYTORCH_CUDA_ALLOC_CONF``, max_split_size, expandable_segments...);
* **2.5+**: trace entries carry ``compile_context`` and ``user_metadata``; later ``external_annotations`` and
  ``pool_id``. Keys not listed here are ignored and named in the snapshot's notes.

A block state written as ``active_awaiting_free`` (the name in the Python docstring) is read as
``active_pending_free`` (the name the C++ writer uses).

Every field is checked for type and range before analysis sees it (a :class:`SnapshotFormatError` names the
field): whole numbers must be ints (a float such as 1e308, a bool or a string is refused), addresses and sizes
are never negative and fit the allocator's 64-bit words, text fields are strings, and a segment's blocks may not
overlap (the writer lists them in address order, each starting where the previous one ends). Nothing is walked
recursively, so a list nested a million levels deep where a frame or a setting belongs is refused, not a
RecursionError.

A pickle read by :mod:`gpudesk.oom.snapshot.stream_pickle` holds each device trace as
:class:`~gpudesk.oom.snapshot.stream_pickle.TraceColumns` (the events already in columns, checked for type and
range as they were read); only the stacks are interned here, and the same checks on negative values apply.

Expansion bound: a pickle can refer to one object many times (its memo), so a small file can describe a trace of
billions of events. Every segment, block and trace event the conversion reads costs at least one byte of the
decoded file when it is not such a repeat, so more of them than ``max_items`` (the decoded size) is refused
before any array is sized.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from gpudesk.i18n import _
from gpudesk.oom.snapshot.errors import SnapshotCancelled, SnapshotFormatError
from gpudesk.oom.snapshot.model import (
    ACTION_CODE,
    NO_STACK,
    AllocatorSettings,
    Block,
    DeviceTrace,
    Frame,
    Segment,
    Snapshot,
    Stack,
)
from gpudesk.oom.snapshot.stream_pickle import TraceColumns

ProgressFn = Callable[[int, int, str], None]

OOM_CODE = ACTION_CODE["oom"]
STATE_ALIASES = {"active_awaiting_free": "active_pending_free"}
KNOWN_TOP_KEYS = {"segments", "device_traces", "allocator_settings", "external_annotations"}
PROGRESS_EVERY_EVENTS = 200_000
MIN_ITEMS_BUDGET = 1_000_000  # a small file may still hold this many items (tests, hand-written JSON)
MAX_WORD = 2**63 - 1  # addresses, sizes, streams and times are stored as int64 columns
MAX_DEVICE = 2**16
MAX_LINE = 2**31


def _describe(value: Any) -> str:
    """A short description of a value for a message, never recursing into it."""
    if isinstance(value, (list, tuple, dict, set)):
        return _("a {kind} of {n} items").format(kind=type(value).__name__, n=len(value))
    if isinstance(value, (str, bytes)):
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    if isinstance(value, (int, float, bool)) or value is None:
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return type(value).__name__


class _Stacks:
    """Interns stacks: the same list object (pickle memo) or the same frames (JSON) get one id."""

    def __init__(self) -> None:
        self.stacks: list[Stack] = []
        self._by_id: dict[int, tuple[object, int]] = {}
        self._by_value: dict[Stack, int] = {}
        self._frames: dict[int, tuple[object, Frame]] = {}

    def frame(self, raw: Any) -> Frame:
        hit = self._frames.get(id(raw))
        if hit is not None and hit[0] is raw:
            return hit[1]
        if not isinstance(raw, dict):
            raise SnapshotFormatError(_("A stack frame in the snapshot is not a dict."))
        filename, name, line = raw.get("filename", ""), raw.get("name", ""), raw.get("line", 0)
        for key, text in (("filename", filename), ("name", name)):
            if not isinstance(text, str):
                raise SnapshotFormatError(_("A stack frame's {key} should be text, found {value}.").format(
                    key=key, value=_describe(text)), field=f"frames.{key}")
        frame = Frame(filename, line if type(line) is int and 0 <= line < MAX_LINE else 0, name)
        self._frames[id(raw)] = (raw, frame)
        return frame

    def intern(self, raw: Any) -> int:
        if not raw:
            return NO_STACK
        hit = self._by_id.get(id(raw))
        if hit is not None and hit[0] is raw:
            return hit[1]
        if not isinstance(raw, list):
            raise SnapshotFormatError(_("A stack ('frames') in the snapshot is not a list."))
        stack = tuple(self.frame(f) for f in raw)
        sid = self._by_value.get(stack)
        if sid is None:
            sid = len(self.stacks)
            self.stacks.append(stack)
            self._by_value[stack] = sid
        self._by_id[id(raw)] = (raw, sid)  # keeps raw alive so its id is not reused
        return sid


def _int(value: Any, what: str, low: int = 0, high: int = MAX_WORD) -> int:
    """``value`` as an int in ``[low, high]``; anything else (a float, a bool, text, out of range) is refused."""
    if type(value) is not int:
        raise SnapshotFormatError(
            _("The snapshot field {field} should be a whole number, found {value}.").format(
                field=what, value=_describe(value)),
            field=what,
        )
    if not low <= value <= high:
        raise SnapshotFormatError(
            _("The snapshot field {field} is {value}, outside {low}..{high}.").format(
                field=what, value=_describe(value), low=low, high=high),
            field=what,
        )
    return value


def _count_items(raw_segments: list[Any], raw_traces: list[Any], max_items: int) -> None:
    """Refuse a snapshot whose segments, blocks and trace events outnumber ``max_items`` (see the module
    docstring: more of them than decoded bytes means the file repeats objects through its memo)."""
    items = len(raw_segments) + sum(len(t) for t in raw_traces if isinstance(t, (list, TraceColumns)))
    items += sum(len(b) for s in raw_segments if isinstance(s, dict) and isinstance(b := s.get("blocks"), list))
    if items > max_items:
        raise SnapshotFormatError(
            _("The snapshot describes {items} segments, blocks and trace events, more than its {limit} decoded bytes "
              "can hold: it repeats the same objects by reference to look larger (a decompression bomb), so it was "
              "not expanded.").format(items=items, limit=max_items),
            field="device_traces",
            remedy=_("Open a snapshot written by torch.cuda.memory._dump_snapshot()."))


def to_snapshot(
    raw: Any,
    *,
    source_name: str = "",
    file_size_bytes: int = 0,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    max_items: int | None = None,
) -> Snapshot:
    """The typed snapshot of a decoded ``_snapshot()`` value. Raises SnapshotFormatError when it is not one.

    ``max_items``: the most segments + blocks + trace events accepted (the decoded size in bytes; at least
    :data:`MIN_ITEMS_BUDGET`); None = no bound (a value built in memory)."""
    notes: list[str] = []
    stacks = _Stacks()
    if isinstance(raw, list) and not (raw and all(isinstance(x, dict) and ("blocks" in x or "total_size" in x)
                                                  for x in raw)):
        # torch.cuda.memory_snapshot() returns a list of segment dicts, each with its "blocks"; an empty list or
        # a list of anything else is some other JSON
        raise SnapshotFormatError(
            _("The file {name} holds a JSON list that is not a list of memory segments: it is not a PyTorch "
              "memory snapshot.").format(name=source_name) if raw else
            _("The file {name} holds an empty list: it is not a PyTorch memory snapshot.").format(name=source_name),
            field=source_name,
            remedy=_("Write the snapshot with torch.cuda.memory._dump_snapshot(path) after "
                     "torch.cuda.memory._record_memory_history()."),
        )
    if isinstance(raw, list):
        raw_segments: Any = raw
        raw_traces: Any = []
        raw_settings: Any = None
        features = ["segment list"]
    elif isinstance(raw, dict) and "segments" in raw:
        raw_segments = raw.get("segments")
        raw_traces = raw.get("device_traces", [])
        raw_settings = raw.get("allocator_settings")
        features = []
        extra = sorted(k if isinstance(k, str) else _describe(k) for k in raw if k not in KNOWN_TOP_KEYS)
        if extra:
            notes.append(_("Keys not used: {keys}.").format(keys=", ".join(extra[:10])))
    else:
        raise SnapshotFormatError(
            _("The file {name} holds no 'segments': it is not a PyTorch memory snapshot.").format(name=source_name),
            field=source_name,
            remedy=_("Write the snapshot with torch.cuda.memory._dump_snapshot(path) after "
                     "torch.cuda.memory._record_memory_history()."),
        )
    if not isinstance(raw_segments, list) or not isinstance(raw_traces, list):
        raise SnapshotFormatError(_("The snapshot's 'segments' and 'device_traces' must be lists."), field=source_name)
    if max_items is not None:
        _count_items(raw_segments, raw_traces, max(max_items, MIN_ITEMS_BUDGET))
    segments = [_segment(s, i, stacks, features) for i, s in enumerate(raw_segments)]
    total_events = sum(len(t) for t in raw_traces if isinstance(t, (list, TraceColumns)))
    traces: list[DeviceTrace] = []
    done = 0
    for device, entries in enumerate(raw_traces):
        if isinstance(entries, TraceColumns):
            if cancel is not None and cancel.is_set():
                raise SnapshotCancelled(_("Opening the snapshot was cancelled."))
            if progress is not None and total_events:
                progress(done, total_events, _("Reading trace events"))
            traces.append(_trace_from_columns(device, entries, stacks, features))
            done += len(entries)
            continue
        if not isinstance(entries, list):
            raise SnapshotFormatError(_("A device trace in the snapshot is not a list."), field="device_traces")
        traces.append(_trace(device, entries, stacks, features, done, total_events, progress, cancel))
        done += len(entries)
    settings = _settings(raw_settings) if isinstance(raw_settings, dict) else None
    if settings is not None:
        features.append("allocator_settings")
    return Snapshot(
        segments=segments,
        traces=traces,
        stacks=stacks.stacks,
        allocator_settings=settings,
        format_version=_version(features),
        source_name=source_name,
        file_size_bytes=file_size_bytes,
        notes=notes,
    )


def _version(features: list[str]) -> str:
    """A plain label of the layout: the oldest PyTorch that writes every feature seen."""
    seen = set(features)
    if "segment list" in seen:
        return "segment list (torch.cuda.memory_snapshot())"
    if "block history" in seen:
        return "torch 2.0 (block history)"
    if "user_metadata" in seen or "compile_context" in seen:
        return "torch 2.5+ (user_metadata)"
    if "allocator_settings" in seen:
        return "torch 2.4+ (allocator_settings)"
    if "time_us" in seen:
        return "torch 2.2+ (timestamps)"
    return "torch 2.1+ (block frames)"


def _segment(raw: Any, index: int, stacks: _Stacks, features: list[str]) -> Segment:
    if not isinstance(raw, dict):
        raise SnapshotFormatError(_("Segment {index} of the snapshot is not a dict.").format(index=index),
                                  field="segments")
    where = f"segments[{index}]"
    address = _int(raw.get("address", 0), where + ".address")
    pool = raw.get("segment_pool_id", (0, 0))
    pool_id = (_int(pool[0], where + ".segment_pool_id[0]", -MAX_WORD), _int(pool[1], where + ".segment_pool_id[1]",
                                                                            -MAX_WORD)) \
        if isinstance(pool, (list, tuple)) and len(pool) == 2 else (0, 0)
    requested = raw.get("requested_size")
    segment_type = raw.get("segment_type", "large")
    if not isinstance(segment_type, str):
        raise SnapshotFormatError(_("The snapshot field {field} should be text, found {value}.").format(
            field=where + ".segment_type", value=_describe(segment_type)), field=where + ".segment_type")
    seg = Segment(
        device=_int(raw.get("device", 0), where + ".device", 0, MAX_DEVICE),
        address=address,
        total_size_bytes=_int(raw.get("total_size", 0), where + ".total_size"),
        allocated_size_bytes=_int(raw.get("allocated_size", 0), where + ".allocated_size"),
        active_size_bytes=_int(raw.get("active_size", 0), where + ".active_size"),
        requested_size_bytes=None if requested is None else _int(requested, where + ".requested_size"),
        stream=_int(raw.get("stream", 0), where + ".stream"),
        segment_type=segment_type,
        pool_id=pool_id,
        is_expandable=bool(raw.get("is_expandable", False)),
        stack_id=stacks.intern(raw.get("frames")),
    )
    blocks = raw.get("blocks", [])
    if not isinstance(blocks, list):
        raise SnapshotFormatError(_("The blocks of a segment are not a list."), field=where)
    cursor = address
    end = address  # where the previous block ends: the next one may not start before it
    for j, b in enumerate(blocks):
        if not isinstance(b, dict):
            raise SnapshotFormatError(_("A block of the snapshot is not a dict."), field=f"{where}.blocks[{j}]")
        raw_size = b.get("size", 0)
        if type(raw_size) is int and raw_size < 0:
            at = b.get("address", cursor)
            raise SnapshotFormatError(
                _("The block at {address} in the segment at {segment:#x} has a negative size ({size} B); no allocator "
                  "writes that.").format(address=f"{at:#x}" if type(at) is int else _describe(at), segment=address,
                                         size=raw_size),
                field=f"{where}.blocks[{j}].size")
        size = _int(raw_size, f"{where}.blocks[{j}].size")
        frames = b.get("frames")
        requested_b = b.get("requested_size")
        history = b.get("history")
        if isinstance(history, list) and history and isinstance(history[0], dict):
            # 2.0: the newest history entry describes the current allocation of the block.
            if "block history" not in features:
                features.append("block history")
            frames = frames if frames is not None else history[0].get("frames")
            if requested_b is None:
                requested_b = history[0].get("real_size")
        state = b.get("state", "inactive")
        if not isinstance(state, str):
            raise SnapshotFormatError(_("The snapshot field {field} should be text, found {value}.").format(
                field=f"{where}.blocks[{j}].state", value=_describe(state)), field=f"{where}.blocks[{j}].state")
        state = STATE_ALIASES.get(state, state)
        block_address = b.get("address")
        at = cursor if block_address is None else _int(block_address, f"{where}.blocks[{j}].address")
        if at < end:
            raise SnapshotFormatError(
                _("The block at {address:#x} in the segment at {segment:#x} overlaps the block before it, which ends at "
                  "{end:#x}; blocks of a segment never overlap.").format(address=at, segment=address, end=end),
                field=f"{where}.blocks[{j}].address")
        seg.blocks.append(Block(
            address=at,
            size_bytes=size,
            requested_size_bytes=size if requested_b is None else _int(requested_b, f"{where}.blocks[{j}].requested"),
            state=state,
            stack_id=stacks.intern(frames),
        ))
        cursor = at + size
        end = at + size
    return seg


def _trace(
    device: int,
    entries: list[Any],
    stacks: _Stacks,
    features: list[str],
    done: int,
    total: int,
    progress: ProgressFn | None,
    cancel: threading.Event | None,
) -> DeviceTrace:
    if progress is not None and total:
        progress(done, total, _("Reading trace events"))
    fast = _trace_columns(device, entries, stacks)
    if fast is not None:
        trace, has_time, has_meta = fast
        if has_time and "time_us" not in features:
            features.append("time_us")
        if has_meta and "user_metadata" not in features:
            features.append("user_metadata")
        _check_trace(trace)
        return trace
    n = len(entries)
    action = np.empty(n, dtype=np.int8)
    addr = np.empty(n, dtype=np.int64)
    size = np.empty(n, dtype=np.int64)
    stream = np.empty(n, dtype=np.int64)
    time_us = np.zeros(n, dtype=np.int64)
    stack_id = np.empty(n, dtype=np.int32)
    codes = ACTION_CODE
    intern = stacks.intern
    has_time = has_meta = False
    for i, e in enumerate(entries):
        if i % PROGRESS_EVERY_EVENTS == 0:
            if cancel is not None and cancel.is_set():
                raise SnapshotCancelled(_("Opening the snapshot was cancelled."))
            if progress is not None and total:
                progress(done + i, total, _("Reading trace events"))
        try:
            code = codes[e["action"]]
            a = e.get("addr")
            if a is None:
                a = e.get("device_free", 0)
            action[i] = code
            where = f"device_traces[{device}][{i}]"
            addr[i] = _int(a, where + ".addr", -MAX_WORD)
            size[i] = _int(e.get("size", 0), where + ".size", -MAX_WORD)
            stream[i] = _int(e.get("stream", 0), where + ".stream", -MAX_WORD)
            t = e.get("time_us")
            if t is not None:
                time_us[i] = _int(t, where + ".time_us", -MAX_WORD)
                has_time = True
            stack_id[i] = intern(e.get("frames"))
        except (KeyError, TypeError, AttributeError, ValueError, OverflowError) as exc:
            raise SnapshotFormatError(
                _("Trace event {index} of device {device} is not a valid allocator action.").format(
                    index=i, device=device),
                field=f"device_traces[{device}][{i}]",
                detail=f"{type(exc).__name__}: {str(exc)[:200]}",
            ) from exc
        if not has_meta and ("user_metadata" in e or "compile_context" in e):
            has_meta = True
    if has_time and "time_us" not in features:
        features.append("time_us")
    if has_meta and "user_metadata" not in features:
        features.append("user_metadata")
    trace = DeviceTrace(device, action, addr, size, stream, time_us, stack_id)
    _check_trace(trace)
    return trace


def _trace_from_columns(device: int, columns: TraceColumns, stacks: _Stacks, features: list[str]) -> DeviceTrace:
    """A trace the streaming decoder (:mod:`gpudesk.oom.snapshot.stream_pickle`) already wrote into columns:
    only the stacks are interned here, once per distinct ``frames`` object."""
    action, addr, size, stream, time_us, frame_ref = columns.arrays()
    # the stack of each distinct frames object, in the order first seen (the order _trace_columns interns in)
    refs, first_rows = np.unique(frame_ref[frame_ref >= 0], return_index=True)
    order = refs[np.argsort(first_rows, kind="stable")]
    sid_of = np.full(len(columns.frames_objects) + 1, NO_STACK, np.int32)  # the last slot: frame_ref -1
    for ref in order.tolist():
        sid_of[ref] = stacks.intern(columns.frames_objects[ref])
    stack_id = sid_of[frame_ref]
    if columns.first_has_time and "time_us" not in features:
        features.append("time_us")
    if columns.first_has_meta and "user_metadata" not in features:
        features.append("user_metadata")
    trace = DeviceTrace(device, action, addr, size, stream, time_us, stack_id)
    _check_trace(trace)
    return trace


def _check_trace(trace: DeviceTrace) -> None:
    """Refuse negative sizes, addresses and times (vectorised), naming the first such event."""
    for column, key in ((trace.size_bytes, "size"), (trace.addr, "addr"), (trace.time_us, "time_us")):
        bad = np.flatnonzero(column < 0)
        if bad.size:
            i = int(bad[0])
            raise SnapshotFormatError(
                _("Trace event {index} of device {device} has a negative {key} ({value}); no allocator action "
                  "has one.").format(index=i, device=trace.device, key=key, value=int(column[i])),
                field=f"device_traces[{trace.device}][{i}].{key}")


def _int_column(values: list[Any], n: int) -> npt.NDArray[np.int64] | None:
    """``values`` as an int64 column when every one is a Python int in range, else None (the per-event loop
    then names the bad one). np.fromiter alone would truncate 1.5 to 1 and read "3" as 3."""
    if not set(map(type, values)) <= _INT_TYPE:
        return None
    try:
        return np.fromiter(values, np.int64, n)
    except OverflowError:
        return None


_INT_TYPE = frozenset({int})


def _trace_columns(device: int, entries: list[Any], stacks: _Stacks) -> tuple[DeviceTrace, bool, bool] | None:
    """The columns of a well-formed trace, built with C-level iteration (``map`` + ``np.fromiter``); None when
    any entry is malformed, so that the per-event loop can say which one."""
    n = len(entries)
    get = dict.get
    try:
        action = np.fromiter(map(ACTION_CODE.__getitem__, map(itemgetter("action"), entries)), np.int8, n)
        oom = np.flatnonzero(action == OOM_CODE).tolist()
        columns = []
        for key in ("addr", "size", "stream", "time_us"):
            values = list(map(get, entries, repeat(key, n), repeat(0, n)))
            if key == "addr":
                for i in oom:  # the writer puts device_free in place of addr
                    values[i] = entries[i].get("device_free", 0)
            column = _int_column(values, n)
            del values
            if column is None:
                return None
            columns.append(column)
        addr, size, stream, time_us = columns
        stack_id = np.fromiter(map(stacks.intern, map(get, entries, repeat("frames", n))), np.int32, n)
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError, SnapshotFormatError):
        return None
    has_time = bool(n) and "time_us" in entries[0]
    has_meta = bool(n) and ("user_metadata" in entries[0] or "compile_context" in entries[0])
    return DeviceTrace(device, action, addr, size, stream, time_us, stack_id), has_time, has_meta


def _settings(raw: dict[str, Any]) -> AllocatorSettings:
    def opt_int(key: str) -> int | None:
        v = raw.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    gc = raw.get("garbage_collection_threshold")
    roundup = raw.get("roundup_power2_divisions")
    known = {"PYTORCH_CUDA_ALLOC_CONF", "max_split_size", "garbage_collection_threshold", "expandable_segments",
             "roundup_power2_divisions"}
    conf = raw.get("PYTORCH_CUDA_ALLOC_CONF")
    expandable = raw.get("expandable_segments")
    return AllocatorSettings(
        alloc_conf=conf if isinstance(conf, str) and conf else None,
        max_split_size_bytes=opt_int("max_split_size"),
        garbage_collection_threshold=float(gc) if isinstance(gc, (int, float)) and not isinstance(gc, bool)
        and math.isfinite(gc) else None,
        expandable_segments=expandable if isinstance(expandable, bool) else None,
        roundup_power2_divisions={_text(k): int(v) for k, v in roundup.items() if type(v) is int}
        if isinstance(roundup, dict) else {},
        other={_text(k): _text(v)[:200] for k, v in raw.items() if k not in known},
    )


def _text(value: Any) -> str:
    """A setting as text: scalars as written, containers described (never recursed into)."""
    if isinstance(value, str):
        return value
    if type(value) in (int, float, bool) or value is None:
        return str(value)
    return _describe(value)
