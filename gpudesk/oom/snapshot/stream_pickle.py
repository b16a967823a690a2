"""Decode a snapshot pickle with the trace events written straight into columns (no dict per event).

The standard unpickler builds one dict per trace event (about 410 bytes each) before any column exists, so a
1 GB snapshot of 20 M events needs about 8 GB. This reader interprets the pickle opcodes itself (the opcode
table and argument layouts are documented in CPython's Lib/pickletools.py) and, inside the lists held under the
top-level ``device_traces`` key, writes each event's fields into typed arrays as they are read: action code,
address, size, stream, time and a reference to its ``frames`` list (shared through the pickle memo, so one
object per distinct stack). Everything else (segments, blocks, allocator settings) is built as plain Python
values and handed to :func:`gpudesk.oom.snapshot.convert.to_snapshot` with all its checks.

Only the opcodes ``pickle.dump`` uses for plain dicts, lists, tuples, strings, numbers, None and booleans are
read (protocols 2 to 5). Any other opcode (a global, a persistent id, bytes, text-mode protocol 0...), an event
field of an unexpected type, an event object reached twice through the memo, or a damaged stream raises
:class:`NotStreamable`: the caller then reads the file again with the restricted standard unpickler
(:mod:`gpudesk.oom.snapshot.unpickle`), whose answer (value or error message) is the reference. So this module
never decides that a file is unsafe or damaged; it only makes the common, well-formed case fast and small.

Three loops, fastest first:

* **runs**: a trace's events repeat one byte layout (the same keys as the same memo references, the same
  constant values) and differ only in their numbers and in which memo entry their action and frames name. Once an
  event has been read, its layout becomes a regular expression (:class:`_Template`); a whole run of events (up to
  the next APPENDS or protocol-4 FRAME) is then found with one ``findall``, shown to be contiguous by comparing
  the matched bytes with the stream, and its numbers decoded as byte matrices with numpy;
* **one event**: an event read opcode by opcode, its fields straight into the columns (numbers, text, None and
  memo references);
* **general**: everything else, as an iterative stack machine (no recursion, so nesting depth is no risk).

Memo entries for event dicts are counted, never stored (20 M of them would cost about 2 GB); empty frame lists
read by the fast loops are marked in a byte table. Anything that would read such an entry again is NotStreamable.

Event semantics follow :func:`gpudesk.oom.snapshot.convert._trace_columns` exactly: a missing field is 0, an
``oom`` event's address is its ``device_free``, the last of repeated keys wins, and ``time_us`` /
``user_metadata`` / ``compile_context`` presence is taken from a trace's first event.
"""

from __future__ import annotations

import re
import struct
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from gpudesk.oom.snapshot.model import ACTION_CODE, OOM

ReadFn = Callable[[int], bytes]

MAX_WORD = 2**63 - 1
CHUNK_BYTES = 8 * 2**20
# An event read by the fast loop must start at least this far before the end of the window: a longer event is
# read by the general loop, which refills the window per opcode.
MARGIN_BYTES = 64 * 1024

# Opcodes (names as in pickletools)
MARK, STOP, POP = 0x28, 0x2E, 0x30
BININT, BININT1, BININT2, LONG1, LONG4, BINFLOAT = 0x4A, 0x4B, 0x4D, 0x8A, 0x8B, 0x47
NONE, NEWTRUE, NEWFALSE = 0x4E, 0x88, 0x89
SHORT_BINUNICODE, BINUNICODE, BINUNICODE8 = 0x8C, 0x58, 0x8D
EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE = 0x7D, 0x5D, 0x29
TUPLE, TUPLE1, TUPLE2, TUPLE3 = 0x74, 0x85, 0x86, 0x87
APPEND, APPENDS, SETITEM, SETITEMS = 0x61, 0x65, 0x73, 0x75
LIST, DICT = 0x6C, 0x64
BINGET, LONG_BINGET, BINPUT, LONG_BINPUT, MEMOIZE = 0x68, 0x6A, 0x71, 0x72, 0x94
PROTO, FRAME = 0x80, 0x95

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")
_F64 = struct.Struct(">d")
_MISSING = object()


class NotStreamable(Exception):
    """The file uses something this reader does not handle; read it with the standard restricted unpickler."""


class _Event:
    """The memo's stand-in for an event dict that was never built (reaching it again is NotStreamable)."""


_EVENT = _Event()
# The memo's stand-in for an empty list read by the fast loop as an event's value (no stack recorded): reaching it
# again from the general loop is NotStreamable, as it might be filled later.
_EMPTY_LIST = _Event()
MAX_TEXT_BYTES = 256 * 2**20
_BIT = _Event()  # a journal entry: the memo index was marked in the empty-list table
MAX_EMPTY_INDEX = 2**27


class TraceColumns:
    """One device's trace events as columns, filled while the pickle is read."""

    __slots__ = ("action", "addr", "size", "stream", "time_us", "frame_ref", "frames_objects", "_frame_index",
                 "appended", "first_has_time", "first_has_meta")

    def __init__(self) -> None:
        self.action = array("b")
        self.addr = array("q")
        self.size = array("q")
        self.stream = array("q")
        self.time_us = array("q")
        self.frame_ref = array("i")  # index into frames_objects, -1 = no "frames" key or a None value
        self.frames_objects: list[Any] = []
        self._frame_index: dict[int, int] = {}
        self.appended = 0
        self.first_has_time = False
        self.first_has_meta = False

    def __len__(self) -> int:
        return len(self.action)

    def frame_ref_of(self, frames: Any) -> int:
        if frames is None:
            return -1
        ref = self._frame_index.get(id(frames))
        if ref is None:
            ref = len(self.frames_objects)
            self.frames_objects.append(frames)  # keeps it alive, so its id is not reused
            self._frame_index[id(frames)] = ref
        return ref

    def add(self, fields: dict[Any, Any]) -> None:
        """One event given as a dict (an event the fast loop left to the general one)."""
        action = fields.get("action", _MISSING)
        if type(action) is not str or action not in ACTION_CODE:
            raise NotStreamable
        code = ACTION_CODE[action]
        values = []
        for key in ("device_free" if code == OOM else "addr", "size", "stream", "time_us"):
            v = fields.get(key, 0)
            if type(v) is not int or not -MAX_WORD <= v <= MAX_WORD:
                raise NotStreamable
            values.append(v)
        frames = fields.get("frames")
        if frames is not None and type(frames) is not list:
            raise NotStreamable
        if not len(self.action):
            self.first_has_time = "time_us" in fields
            self.first_has_meta = "user_metadata" in fields or "compile_context" in fields
        self.action.append(code)
        self.addr.append(values[0])
        self.size.append(values[1])
        self.stream.append(values[2])
        self.time_us.append(values[3])
        self.frame_ref.append(self.frame_ref_of(frames))

    def arrays(self) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64], npt.NDArray[np.int64],
                              npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int32]]:
        """The columns as numpy arrays over the same memory (not copied; the columns can no longer grow)."""
        return (np.frombuffer(self.action, np.int8), np.frombuffer(self.addr, np.int64),
                np.frombuffer(self.size, np.int64), np.frombuffer(self.stream, np.int64),
                np.frombuffer(self.time_us, np.int64), np.frombuffer(self.frame_ref, np.int32))


class _Pending:
    """An event dict built by the general loop: its row is reserved when the dict is made, filled on append."""

    __slots__ = ("row", "trace", "fields")

    def __init__(self, row: int, trace: TraceColumns) -> None:
        self.row = row
        self.trace = trace
        self.fields: dict[Any, Any] = {}


class _Reader:
    def __init__(self, read: ReadFn) -> None:
        self._read = read
        self.buf = b""
        self.pos = 0
        self.eof = False
        self.memo: dict[int, Any] = {}
        self.count = 0  # entries stored by MEMOIZE (its next index); event dicts are counted, never stored
        self.binput_seen = False
        self.templates: list[_Template] = []
        self.slice_bytes = MIN_SLICE_BYTES
        self.empty = bytearray()  # 1 at the memo indexes of empty lists the fast loop did not store
        self.materialised: set[int] = set()
        self.learn_budget = MAX_LEARNED  # layouts learned at most (each costs a regex compilation)
        self.traces: list[TraceColumns] = []
        self.traces_list: list[Any] | None = None

    def refill(self, need: int) -> None:
        """Make at least ``need`` bytes available from ``pos`` (or all that is left), dropping what was read."""
        chunks = [self.buf[self.pos:]]
        have = len(chunks[0])
        while not self.eof and have < max(need, MARGIN_BYTES):
            data = self._read(CHUNK_BYTES)
            if not data:
                self.eof = True
                break
            chunks.append(data)
            have += len(data)
        self.buf = b"".join(chunks)
        self.pos = 0
        if have < need:
            raise NotStreamable  # truncated: the standard unpickler names it

    # ------------------------------------------------------------------ the general loop

    def run(self) -> Any:  # noqa: C901 - one opcode table
        stack: list[Any] = []
        marks: list[int] = []
        memo = self.memo
        self.refill(2)
        buf, p = self.buf, self.pos
        if buf[p] != PROTO or not 2 <= buf[p + 1] <= 5:
            raise NotStreamable
        p += 2
        while True:
            if p + MARGIN_BYTES > len(buf) and not self.eof:
                self.pos = p
                self.refill(1)
                buf, p = self.buf, self.pos
            if p >= len(buf):
                raise NotStreamable
            op = buf[p]
            if op == EMPTY_DICT:
                trace = self._trace_below(stack, marks)
                if trace is not None:
                    self.pos = p
                    if self.templates and self.template_run(trace, stack):
                        buf, p = self.buf, self.pos
                        continue
                    if self.fast_event(trace, self.learn_budget > 0):
                        stack.append(_EVENT)
                        buf, p = self.buf, self.pos
                        continue
                    buf, p = self.buf, self.pos
                    stack.append(_Pending(len(trace.action), trace))
                    for column in (trace.action, trace.addr, trace.size, trace.stream, trace.time_us,
                                   trace.frame_ref):
                        column.append(0)
                else:
                    stack.append({})
                p += 1
            elif op in (BINGET, LONG_BINGET):
                if op == BINGET:
                    key = buf[p + 1]
                    p += 2
                else:
                    key = _U32.unpack_from(buf, p + 1)[0]
                    p += 5
                value = memo.get(key, _MISSING)
                if value is _EMPTY_LIST or (value is _MISSING and self.empty_at(key)):
                    value = []  # an empty list first read by the fast loop, reached here: made real from now on
                    memo[key] = value
                    if key < len(self.empty):
                        self.empty[key] = 0
                    self.materialised.add(id(value))
                if value is _MISSING or type(value) in (_Event, _Pending, TraceColumns):
                    raise NotStreamable  # a trace reached twice is left to the standard path's checks
                stack.append(value)
            elif op in (MEMOIZE, BINPUT, LONG_BINPUT):
                if op == MEMOIZE:
                    if self.binput_seen:
                        raise NotStreamable  # pickle.dump uses one or the other, never both
                    key = self.count
                    self.count += 1
                    p += 1
                else:
                    if self.count:
                        raise NotStreamable
                    self.binput_seen = True
                    if op == BINPUT:
                        key = buf[p + 1]
                        p += 2
                    else:
                        key = _U32.unpack_from(buf, p + 1)[0]
                        p += 5
                if not stack or self.empty_at(key):
                    raise NotStreamable
                if key in memo:
                    self.templates.clear()  # a learned event layout may name the entry replaced here
                memo[key] = stack[-1]
            elif op == MARK:
                marks.append(len(stack))
                p += 1
            elif op in (SETITEMS, SETITEM):
                if op == SETITEMS:
                    if not marks:
                        raise NotStreamable
                    start = marks.pop()
                else:
                    start = len(stack) - 2
                if start < 1 or (len(stack) - start) % 2:
                    raise NotStreamable
                items = stack[start:]
                del stack[start:]
                target = stack[-1]
                if type(target) is _Pending:
                    target = target.fields
                elif type(target) is not dict:
                    raise NotStreamable
                for i in range(0, len(items), 2):
                    key, value = items[i], items[i + 1]
                    if value is _EVENT or type(value) is _Pending or type(key) in (list, dict, _Pending, _Event):
                        raise NotStreamable
                    target[key] = value
                p += 1
            elif op in (APPENDS, APPEND):
                if op == APPENDS:
                    if not marks:
                        raise NotStreamable
                    start = marks.pop()
                else:
                    start = len(stack) - 1
                if start < 1:
                    raise NotStreamable
                items = stack[start:]
                del stack[start:]
                target = stack[-1]
                if type(target) is TraceColumns:
                    self._append_events(target, items)
                elif type(target) is list:
                    if id(target) in self.materialised:
                        raise NotStreamable  # events read before saw it empty
                    for item in items:
                        if item is _EVENT or type(item) is _Pending:
                            raise NotStreamable
                    target.extend(items)
                else:
                    raise NotStreamable
                p += 1
            elif op == EMPTY_LIST:
                if self._starts_trace(stack, marks):
                    trace = TraceColumns()
                    self.traces.append(trace)
                    stack.append(trace)
                else:
                    stack.append([])
                    if self._is_traces_key(stack, marks):
                        self.traces_list = stack[-1]
                p += 1
            elif op in (SHORT_BINUNICODE, BINUNICODE, BINUNICODE8):
                if op == SHORT_BINUNICODE:
                    n, head = buf[p + 1], 2
                elif op == BINUNICODE:
                    n, head = _U32.unpack_from(buf, p + 1)[0], 5
                else:
                    n, head = _U64.unpack_from(buf, p + 1)[0], 9
                if n > MAX_TEXT_BYTES:
                    raise NotStreamable
                if p + head + n > len(buf):
                    self.pos = p
                    self.refill(head + n)
                    buf, p = self.buf, self.pos
                stack.append(buf[p + head:p + head + n].decode("utf-8", "surrogatepass"))
                p += head + n
            elif op == BININT1:
                stack.append(buf[p + 1])
                p += 2
            elif op == BININT2:
                stack.append(buf[p + 1] | buf[p + 2] << 8)
                p += 3
            elif op == BININT:
                stack.append(_I32.unpack_from(buf, p + 1)[0])
                p += 5
            elif op == LONG1:
                n = buf[p + 1]
                if p + 2 + n > len(buf):
                    raise NotStreamable
                stack.append(int.from_bytes(buf[p + 2:p + 2 + n], "little", signed=True))
                p += 2 + n
            elif op == LONG4:
                n = _I32.unpack_from(buf, p + 1)[0]
                if n < 0 or n > 1024 or p + 5 + n > len(buf):  # a 8,000-bit number is no snapshot field
                    raise NotStreamable
                stack.append(int.from_bytes(buf[p + 5:p + 5 + n], "little", signed=True))
                p += 5 + n
            elif op == NONE:
                stack.append(None)
                p += 1
            elif op in (NEWTRUE, NEWFALSE):
                stack.append(op == NEWTRUE)
                p += 1
            elif op == BINFLOAT:
                stack.append(_F64.unpack_from(buf, p + 1)[0])
                p += 9
            elif op in (LIST, DICT):
                if not marks:
                    raise NotStreamable
                start = marks.pop()
                items = stack[start:]
                for item in items:
                    if type(item) in (_Event, _Pending, TraceColumns):
                        raise NotStreamable
                del stack[start:]
                if op == LIST:
                    stack.append(items)
                elif len(items) % 2:
                    raise NotStreamable
                else:
                    stack.append(dict(zip(items[::2], items[1::2], strict=True)))
                p += 1
            elif op == EMPTY_TUPLE:
                stack.append(())
                p += 1
            elif op in (TUPLE1, TUPLE2, TUPLE3, TUPLE):
                if op == TUPLE:
                    if not marks:
                        raise NotStreamable
                    start = marks.pop()
                else:
                    start = len(stack) - (op - TUPLE1 + 1)
                if start < 0 or (marks and start < marks[-1]):
                    raise NotStreamable
                items = stack[start:]
                for item in items:
                    if item is _EVENT or type(item) in (_Pending, TraceColumns):
                        raise NotStreamable
                del stack[start:]
                stack.append(tuple(items))
                p += 1
            elif op == FRAME:
                p += 9
            elif op == STOP:
                if len(stack) != 1 or marks:
                    raise NotStreamable
                self._check_counts()
                self._check_placement(stack[0])
                return stack[0]
            else:
                raise NotStreamable
            if marks and len(stack) < marks[-1]:
                raise NotStreamable

    # ------------------------------------------------------------------ trace recognition

    def _is_traces_key(self, stack: list[Any], marks: list[int]) -> bool:
        """The list just pushed is the value of the root dict's ``device_traces`` key."""
        if len(stack) < 3 or stack[-2] != "device_traces" or type(stack[0]) is not dict:
            return False
        if not marks:
            return len(stack) == 3
        return marks == [1] and (len(stack) - 3) % 2 == 0

    def _starts_trace(self, stack: list[Any], marks: list[int]) -> bool:
        """An empty list pushed as an item of the ``device_traces`` list is one device's trace."""
        outer = self.traces_list
        if outer is None or not stack:
            return False
        if stack[-1] is outer:
            return True
        return bool(marks) and marks[-1] >= 1 and stack[marks[-1] - 1] is outer

    def _trace_below(self, stack: list[Any], marks: list[int]) -> TraceColumns | None:
        """The trace an item pushed now would be appended to (None when it is not inside a trace)."""
        if not stack:
            return None
        if type(stack[-1]) is TraceColumns:
            return stack[-1]
        if marks and marks[-1] >= 1:
            below = stack[marks[-1] - 1]
            if type(below) is TraceColumns:
                return below
        return None

    def _append_events(self, trace: TraceColumns, items: list[Any]) -> None:
        if items.count(_EVENT) == len(items):  # all read by the fast paths (list.count compares identity first)
            trace.appended += len(items)
            if trace.appended > len(trace.action):
                raise NotStreamable
            return
        for item in items:
            if item is _EVENT:
                trace.appended += 1
                continue
            if type(item) is _Pending and item.trace is trace:
                self._fill_pending(item)
            else:
                raise NotStreamable
            trace.appended += 1
        if trace.appended > len(trace.action):
            raise NotStreamable

    def _fill_pending(self, pending: _Pending) -> None:
        trace = pending.trace
        scratch = TraceColumns()
        scratch.add(pending.fields)
        row = pending.row
        trace.action[row] = scratch.action[0]
        trace.addr[row] = scratch.addr[0]
        trace.size[row] = scratch.size[0]
        trace.stream[row] = scratch.stream[0]
        trace.time_us[row] = scratch.time_us[0]
        frames = scratch.frames_objects[0] if scratch.frame_ref[0] >= 0 else None
        trace.frame_ref[row] = trace.frame_ref_of(frames)
        if row == 0:
            trace.first_has_time = scratch.first_has_time
            trace.first_has_meta = scratch.first_has_meta
        pending.trace = None  # type: ignore[assignment]  # a second append is not an event of this trace

    def _check_placement(self, root: Any) -> None:
        """Every trace read as columns is an item of the root's ``device_traces`` list, and nowhere else."""
        if not self.traces:
            return
        if type(root) is not dict or root.get("device_traces") is not self.traces_list:
            raise NotStreamable
        held = {id(t) for t in self.traces_list or ()}
        if any(id(t) not in held for t in self.traces):
            raise NotStreamable

    def _check_counts(self) -> None:
        for trace in self.traces:
            if trace.appended != len(trace.action):
                raise NotStreamable

    # ------------------------------------------------------------------ the fast loop for one event

    def fast_event(self, trace: TraceColumns, learn: bool) -> bool:  # noqa: C901 - one event's opcodes
        """Read the event dict at ``pos`` into ``trace``'s columns; False (nothing changed) when it needs the
        general loop (a value other than a number, text, None or a memo reference, or near the window's end)."""
        buf, p = self.buf, self.pos
        if p + MARGIN_BYTES > len(buf) and not self.eof:
            return False
        memo = self.memo
        journal: list[tuple[int, Any]] = []
        start = p
        p += 1
        op = buf[p]
        count0 = self.count
        event_put = op
        if op == MEMOIZE:
            if self.binput_seen:
                return False
            self.count += 1  # the event's index: counted, not stored (a memo get of it is NotStreamable)
            p += 1
        elif op in (BINPUT, LONG_BINPUT):
            key = buf[p + 1] if op == BINPUT else _U32.unpack_from(buf, p + 1)[0]
            if self.count or key in memo or self.empty_at(key):
                return False
            self.binput_seen = True
            p += 2 if op == BINPUT else 5
        if buf[p] != MARK:
            self.count = count0
            return False
        p += 1
        tokens: list[tuple[bytes, str, bytes, int]] | None = [] if learn else None
        action: Any = _MISSING
        addr = size = stream = time_us = device_free = 0
        frames: Any = None
        has_time = has_meta = False
        limit = len(buf) - 1024  # every opcode of the fast loop reads less than this; near the end: the general loop
        ok = False
        while p < limit:
            op = buf[p]
            if op == SETITEMS:
                p += 1
                ok = True
                break
            if op == FRAME:  # protocol 4 starts a new frame before any object, also inside an event
                p += 9
                tokens = None
                continue
            key_at = p
            # the key
            if op == BINGET:
                name = memo.get(buf[p + 1])
                p += 2
            elif op == LONG_BINGET:
                name = memo.get(_U32.unpack_from(buf, p + 1)[0])
                p += 5
            elif op in (SHORT_BINUNICODE, BINUNICODE):
                head = 2 if op == SHORT_BINUNICODE else 5
                n = buf[p + 1] if op == SHORT_BINUNICODE else _U32.unpack_from(buf, p + 1)[0]
                if n > 255:
                    break
                name = buf[p + head:p + head + n].decode("utf-8", "surrogatepass")
                p += head + n
                op = buf[p]
                if op in (MEMOIZE, BINPUT):
                    p = self._put_in_event(op, buf, p, name, journal)
                    if p < 0:
                        break
                tokens = None  # a key written out in full is memoised: later events name it by memo
            else:
                break
            if type(name) is not str:
                break
            # the value
            if buf[p] == FRAME:
                p += 9
                tokens = None
            value_at = p
            op = buf[p]
            kind = _KIND_INT
            if op == BININT1:
                value: Any = buf[p + 1]
                p += 2
            elif op == BINGET:
                value = memo.get(buf[p + 1], _MISSING)
                if value is _MISSING and self.empty_at(buf[p + 1]):
                    value = _EMPTY_LIST
                p += 2
                kind = _KIND_REF
            elif op == BININT:
                value = _I32.unpack_from(buf, p + 1)[0]
                p += 5
            elif op == LONG1:
                n = buf[p + 1]
                if n > 8:
                    break
                value = int.from_bytes(buf[p + 2:p + 2 + n], "little", signed=True)
                p += 2 + n
            elif op == BININT2:
                value = buf[p + 1] | buf[p + 2] << 8
                p += 3
            elif op == LONG_BINGET:
                key = _U32.unpack_from(buf, p + 1)[0]
                value = memo.get(key, _MISSING)
                if value is _MISSING and self.empty_at(key):
                    value = _EMPTY_LIST
                p += 5
                kind = _KIND_REF
            elif op in (SHORT_BINUNICODE, BINUNICODE):
                head = 2 if op == SHORT_BINUNICODE else 5
                n = buf[p + 1] if op == SHORT_BINUNICODE else _U32.unpack_from(buf, p + 1)[0]
                if n > 255:
                    break
                value = buf[p + head:p + head + n].decode("utf-8", "surrogatepass")
                p += head + n
                kind = _KIND_OTHER
            elif op == NONE:
                value = None
                p += 1
                kind = _KIND_OTHER
            elif op == EMPTY_LIST:
                value = _EMPTY_LIST
                p += 1
                kind = _KIND_OTHER
            else:
                break
            if value is _MISSING or value is _EVENT or type(value) is _Pending:
                break
            if tokens is not None:
                tokens.append((buf[key_at:value_at], name, buf[value_at:p], kind))
            op = buf[p]
            if op in (MEMOIZE, BINPUT):
                p = self._put_in_event(op, buf, p, value, journal)
                if p < 0:
                    break
                tokens = None
            if name == "action":
                action = value
            elif name == "addr":
                addr = value
            elif name == "size":
                size = value
            elif name == "stream":
                stream = value
            elif name == "time_us":
                time_us = value
                has_time = True
            elif name == "frames":
                frames = value
            elif name == "device_free":
                device_free = value
            elif name in _META_KEYS:
                has_meta = True
        if frames is _EMPTY_LIST:
            frames = None
        code = ACTION_CODE.get(action) if type(action) is str else None
        if code == OOM:
            addr = device_free
        if (not ok or code is None or (frames is not None and type(frames) is not list)
                or not all(type(v) is int and -MAX_WORD <= v <= MAX_WORD for v in (addr, size, stream, time_us))):
            self._undo(journal)
            self.count = count0
            self.pos = start
            return False
        if not len(trace.action):
            trace.first_has_time = has_time
            trace.first_has_meta = has_meta
        trace.action.append(code)
        trace.addr.append(addr)
        trace.size.append(size)
        trace.stream.append(stream)
        trace.time_us.append(time_us)
        trace.frame_ref.append(trace.frame_ref_of(frames))
        self.pos = p
        if tokens is not None and not journal:
            template = _Template.learn(event_put, tokens)
            self.learn_budget -= 1
            if template is not None:
                self.templates.insert(0, template)
                del self.templates[MAX_TEMPLATES:]
        return True

    def _put_in_event(self, op: int, buf: bytes, p: int, value: Any, journal: list[tuple[int, Any]]) -> int:
        """Store ``value`` by the MEMOIZE / BINPUT at ``p``; the position after it, or -1 when the fast loop
        should leave this event to the general loop (the two memo styles mixed)."""
        memo = self.memo
        if op == MEMOIZE:
            if self.binput_seen:
                return -1
            key = self.count
            self.count += 1
            p += 1
        else:
            if self.count:
                return -1
            self.binput_seen = True
            key = buf[p + 1]
            p += 2
        if key in memo or self.empty_at(key):
            return -1  # pickle.dump never stores twice at one index
        if value is _EMPTY_LIST and key < MAX_EMPTY_INDEX:
            # an empty list (an event without a stack) is marked in a byte table, not stored: millions of them
            # would otherwise cost a memo entry each
            if key >= len(self.empty):
                self.empty.extend(bytes(max(key + 1, 2 * len(self.empty)) - len(self.empty)))
            self.empty[key] = 1
            journal.append((key, _BIT))
            return p
        journal.append((key, _MISSING))
        memo[key] = value
        return p

    def empty_at(self, key: int) -> bool:
        """Whether memo index ``key`` holds an empty list marked by the fast loop."""
        return key < len(self.empty) and self.empty[key] == 1

    def _undo(self, journal: list[tuple[int, Any]]) -> None:
        for key, old in reversed(journal):
            if old is _BIT:
                self.empty[key] = 0
            elif old is _MISSING:
                del self.memo[key]
            else:
                self.memo[key] = old

    # ------------------------------------------------------------------ repeated event layouts

    def template_run(self, trace: TraceColumns, stack: list[Any]) -> int:
        """Read consecutive events at ``pos`` that repeat a learned layout byte for byte but for their numbers and
        memo references, all at once (one regular-expression scan, numpy decoding); the number read (``pos``
        moves past them). Raises NotStreamable when one of them is not a valid event."""
        buf, p = self.buf, self.pos
        end = min(len(buf) - 1024, p + self.slice_bytes)
        if end <= p:
            return 0
        for index, template in enumerate(self.templates):
            rows = template.regex.findall(buf, p, end)
            if not rows:
                continue
            columns = list(zip(*rows, strict=True))
            del rows
            wholes = columns[0]
            lengths = np.fromiter(map(len, wholes), np.int64, len(wholes))
            ends = np.cumsum(lengths)
            joined = b"".join(wholes)
            if joined != buf[p:p + len(joined)]:
                # the matches are contiguous from p up to the first byte that differs (each alternative of the
                # layout is decided by its own bytes, so equal bytes at p mean the same match at p)
                differ = np.frombuffer(joined, np.uint8) != np.frombuffer(buf, np.uint8, len(joined), p)
                count = int(np.searchsorted(ends, int(np.flatnonzero(differ)[0]), side="right"))
                if not count:
                    continue
                columns = [c[:count] for c in columns]
            count = len(columns[0])
            self._store_run(trace, template, columns[1:], count)
            if index:
                self.templates.insert(0, self.templates.pop(index))
            taken = int(ends[count - 1])
            if count == len(wholes):  # stopped by the slice: look further next time
                self.slice_bytes = min(MAX_SLICE_BYTES, 2 * self.slice_bytes)
            else:  # stopped where the run ends (the next APPENDS): runs repeat in size
                self.slice_bytes = min(MAX_SLICE_BYTES, max(MIN_SLICE_BYTES, taken + MIN_SLICE_BYTES))
            stack.extend([_EVENT] * count)
            self.pos = p + taken
            return count
        self.slice_bytes = MIN_SLICE_BYTES
        return 0

    def _store_run(self, trace: TraceColumns, template: _Template, groups: list[tuple[bytes, ...]],
                   count: int) -> None:
        memo = self.memo
        if template.put == MEMOIZE:
            if self.binput_seen:
                raise NotStreamable
            self.count += count
        elif template.put:
            if self.count:
                raise NotStreamable
            indexes = {t[0] if len(t) == 1 else _U32.unpack(t)[0] for t in groups[0]}
            if len(indexes) != count or not indexes.isdisjoint(memo) or any(map(self.empty_at, indexes)):
                raise NotStreamable
            self.binput_seen = True
        ints = [np.zeros(count, np.int64) for _ in range(5)]  # addr, size, stream, time_us, device_free
        action: npt.NDArray[np.int8] | None = None
        frame_ref = np.full(count, -1, np.int32)
        for slot, tokens in zip(template.slots, groups[template.first_group:], strict=True):
            if slot >= 0:
                ints[slot] = _int_tokens(tokens)
                continue
            resolved = {t: self._resolve(t[1] if t[0] == BINGET else _U32.unpack_from(t, 1)[0])
                        for t in set(tokens)}
            if slot == _SLOT_ACTION:
                codes = {t: ACTION_CODE.get(v) if type(v) is str else None for t, v in resolved.items()}
                if None in codes.values():
                    raise NotStreamable
                action = np.fromiter(map(codes.__getitem__, tokens), np.int8, count)
            else:
                refs = {}
                for t, v in resolved.items():
                    if v is _EMPTY_LIST:
                        refs[t] = -1
                    elif type(v) is list:
                        refs[t] = trace.frame_ref_of(v)
                    else:
                        raise NotStreamable
                frame_ref = np.fromiter(map(refs.__getitem__, tokens), np.int32, count)
        if action is None:
            raise NotStreamable
        addr = np.where(action == OOM, ints[4], ints[0])
        if not len(trace.action):
            trace.first_has_time = template.has_time
            trace.first_has_meta = template.has_meta
        trace.action.frombytes(action.tobytes())
        trace.addr.frombytes(addr.tobytes())
        trace.size.frombytes(ints[1].tobytes())
        trace.stream.frombytes(ints[2].tobytes())
        trace.time_us.frombytes(ints[3].tobytes())
        trace.frame_ref.frombytes(frame_ref.tobytes())


    def _resolve(self, key: int) -> Any:
        value = self.memo.get(key, _MISSING)
        if value is _MISSING and self.empty_at(key):
            return _EMPTY_LIST
        return value


_KIND_INT, _KIND_REF, _KIND_OTHER = 0, 1, 2
_META_KEYS = frozenset({"user_metadata", "compile_context"})
_INT_SLOTS = {"addr": 0, "size": 1, "stream": 2, "time_us": 3, "device_free": 4}
_SLOT_ACTION, _SLOT_FRAMES = -1, -2
MAX_TEMPLATES = 8
MAX_LEARNED = 256
MIN_SLICE_BYTES, MAX_SLICE_BYTES = 4096, 2**20  # the bytes one run of events is looked for in
# an integer argument: BININT1, BININT2, BININT, or LONG1 of at most 8 bytes (every column is 64-bit)
_INT_RE = (b"(K.|M..|J.{4}|\x8a(?:\x00|\x01.|\x02.{2}|\x03.{3}|\x04.{4}|\x05.{5}|\x06.{6}|\x07.{7}"
           b"|\x08.{8}))")
_REF_RE = b"(h.|j.{4})"


def _int_tokens(tokens: tuple[bytes, ...]) -> npt.NDArray[np.int64]:
    """The values of integer opcodes with their arguments (as matched by ``_INT_RE``), decoded together: the
    tokens are grouped by width and opcode, and each group is decoded as one byte matrix."""
    n = len(tokens)
    data = np.frombuffer(b"".join(tokens), np.uint8)
    widths = set(map(len, tokens))
    if len(widths) == 1:
        width = widths.pop()
        return _decode_same_width(data.reshape(n, width), width)
    lengths = np.fromiter(map(len, tokens), np.int64, n)
    starts = np.cumsum(lengths) - lengths
    values = np.empty(n, np.int64)
    for width in sorted(widths):
        where = np.flatnonzero(lengths == width)
        values[where] = _decode_same_width(data[starts[where][:, None] + np.arange(width)], width)
    return values


def _decode_same_width(rows: npt.NDArray[np.uint8], width: int) -> npt.NDArray[np.int64]:
    """Integer tokens of one width, one per row (opcode byte first)."""
    ops = rows[:, 0]
    codes = np.unique(ops)
    if codes.size > 1:  # e.g. BININT1 and an empty LONG1 are both 2 bytes
        values = np.empty(rows.shape[0], np.int64)
        for code in codes.tolist():
            where = np.flatnonzero(ops == code)
            values[where] = _decode_one_opcode(rows[where], int(code), width)
        return values
    return _decode_one_opcode(rows, int(codes[0]), width)


def _decode_one_opcode(rows: npt.NDArray[np.uint8], code: int, width: int) -> npt.NDArray[np.int64]:
    """Integer tokens of one opcode and width: little-endian bytes, sign-extended for BININT and LONG1."""
    matrix = np.zeros((rows.shape[0], 8), np.uint8)
    if code == BININT1:
        matrix[:, 0] = rows[:, 1]
    elif code == BININT2:
        matrix[:, :2] = rows[:, 1:3]
    else:
        skip = 1 if code == BININT else 2
        nbytes = width - skip
        if nbytes:
            matrix[:, :nbytes] = rows[:, skip:]
            if nbytes < 8:
                matrix[rows[:, width - 1] >= 0x80, nbytes:] = 0xFF  # sign extension
    values: npt.NDArray[np.int64] = matrix.view("<i8").reshape(rows.shape[0])
    if code == LONG1 and width == 10 and (values == np.iinfo(np.int64).min).any():
        raise NotStreamable  # -2**63: outside the columns' range as convert._int reads it
    return values


class _Template:
    """The byte layout of an event read by the fast loop, as a regular expression: its keys (memo references)
    and its constant values literally, its numbers, action and frames (memo references) as groups."""

    __slots__ = ("regex", "put", "first_group", "slots", "has_time", "has_meta")

    def __init__(self, regex: re.Pattern[bytes], put: int, slots: tuple[int, ...], has_time: bool,
                 has_meta: bool) -> None:
        self.regex = regex
        self.put = put
        self.first_group = 1 if put in (BINPUT, LONG_BINPUT) else 0  # of the groups after the whole event
        self.slots = slots
        self.has_time = has_time
        self.has_meta = has_meta

    @classmethod
    def learn(cls, put: int, tokens: list[tuple[bytes, str, bytes, int]]) -> _Template | None:
        parts = [b"\\}"]
        if put == MEMOIZE:
            parts.append(b"\\x94")
        elif put == BINPUT:
            parts.append(b"q(.)")
        elif put == LONG_BINPUT:
            parts.append(b"r(.{4})")
        else:
            put = 0
        parts.append(b"\\(")
        slots = []
        for key_token, name, value_token, kind in tokens:
            parts.append(re.escape(key_token))
            if name in _INT_SLOTS:
                if kind != _KIND_INT:
                    return None
                parts.append(_INT_RE)
                slots.append(_INT_SLOTS[name])
            elif name in ("action", "frames"):
                if kind != _KIND_REF:
                    return None
                parts.append(_REF_RE)
                slots.append(_SLOT_ACTION if name == "action" else _SLOT_FRAMES)
            else:
                parts.append(re.escape(value_token))
        parts.append(b"u")
        names = {t[1] for t in tokens}
        return cls(re.compile(b"(" + b"".join(parts) + b")", re.DOTALL), put, tuple(slots), "time_us" in names,
                   bool(names & _META_KEYS))


def decode_pickle_columns(read: ReadFn) -> Any:
    """The snapshot value of a pickle read with ``read(n)``, with each device trace as :class:`TraceColumns`.

    Raises NotStreamable when the file needs the standard restricted unpickler (see the module docstring);
    errors of ``read`` itself (cancelled, over the cap) pass through."""
    try:
        return _Reader(read).run()
    except (IndexError, KeyError, struct.error, UnicodeDecodeError, OverflowError, ValueError, TypeError) as exc:
        raise NotStreamable from exc
