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

Event semantics follow :func:`gpudesk.oom.snapshot.convert._trace_columns` exactly: a missing field is 0, an
``oom`` event's address is its ``device_free``, the last of repeated keys wins, and ``time_us`` /
``user_metadata`` / ``compile_context`` presence is taken from a trace's first event.
"""

from __future__ import annotations

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
        """The columns as numpy arrays (copied; the growing arrays are released)."""
        out = (np.array(self.action, np.int8), np.array(self.addr, np.int64), np.array(self.size, np.int64),
               np.array(self.stream, np.int64), np.array(self.time_us, np.int64),
               np.array(self.frame_ref, np.int32))
        for name in ("action", "addr", "size", "stream", "time_us", "frame_ref"):
            setattr(self, name, array(getattr(self, name).typecode))
        return out


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
                    if self.fast_event(trace):
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
                if value is _MISSING or type(value) is _Event or type(value) is _Pending:
                    raise NotStreamable
                stack.append(value)
            elif op in (MEMOIZE, BINPUT, LONG_BINPUT):
                if op == MEMOIZE:
                    key = len(memo)
                    p += 1
                elif op == BINPUT:
                    key = buf[p + 1]
                    p += 2
                else:
                    key = _U32.unpack_from(buf, p + 1)[0]
                    p += 5
                if not stack:
                    raise NotStreamable
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
        for item in items:
            if item is _EVENT:
                pass
            elif type(item) is _Pending and item.trace is trace:
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

    def _check_counts(self) -> None:
        for trace in self.traces:
            if trace.appended != len(trace.action):
                raise NotStreamable

    # ------------------------------------------------------------------ the fast loop for one event

    def fast_event(self, trace: TraceColumns) -> bool:  # noqa: C901 - one event's opcodes
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
        if op in (MEMOIZE, BINPUT, LONG_BINPUT):
            if op == MEMOIZE:
                key = len(memo)
                p += 1
            elif op == BINPUT:
                key = buf[p + 1]
                p += 2
            else:
                key = _U32.unpack_from(buf, p + 1)[0]
                p += 5
            journal.append((key, memo.get(key, _MISSING)))
            memo[key] = _EVENT
        if buf[p] != MARK:
            self._undo(journal)
            return False
        p += 1
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
            # the key
            if op == BINGET:
                name = memo.get(buf[p + 1])
                p += 2
            elif op == SHORT_BINUNICODE:
                n = buf[p + 1]
                name = buf[p + 2:p + 2 + n].decode("utf-8", "surrogatepass")
                p += 2 + n
                op = buf[p]
                if op in (MEMOIZE, BINPUT):
                    key = len(memo) if op == MEMOIZE else buf[p + 1]
                    p += 1 if op == MEMOIZE else 2
                    journal.append((key, memo.get(key, _MISSING)))
                    memo[key] = name
            elif op == LONG_BINGET:
                name = memo.get(_U32.unpack_from(buf, p + 1)[0])
                p += 5
            elif op == BINUNICODE:
                n = _U32.unpack_from(buf, p + 1)[0]
                if n > 255:
                    break
                name = buf[p + 5:p + 5 + n].decode("utf-8", "surrogatepass")
                p += 5 + n
                op = buf[p]
                if op in (MEMOIZE, BINPUT):
                    key = len(memo) if op == MEMOIZE else buf[p + 1]
                    p += 1 if op == MEMOIZE else 2
                    journal.append((key, memo.get(key, _MISSING)))
                    memo[key] = name
            else:
                break
            if type(name) is not str:
                break
            # the value
            op = buf[p]
            if op == BININT1:
                value: Any = buf[p + 1]
                p += 2
            elif op == BINGET:
                value = memo.get(buf[p + 1], _MISSING)
                p += 2
            elif op == BININT:
                value = _I32.unpack_from(buf, p + 1)[0]
                p += 5
            elif op == LONG1:
                n = buf[p + 1]
                value = int.from_bytes(buf[p + 2:p + 2 + n], "little", signed=True)
                p += 2 + n
            elif op == BININT2:
                value = buf[p + 1] | buf[p + 2] << 8
                p += 3
            elif op == LONG_BINGET:
                value = memo.get(_U32.unpack_from(buf, p + 1)[0], _MISSING)
                p += 5
            elif op == SHORT_BINUNICODE:
                n = buf[p + 1]
                value = buf[p + 2:p + 2 + n].decode("utf-8", "surrogatepass")
                p += 2 + n
            elif op == BINUNICODE:
                n = _U32.unpack_from(buf, p + 1)[0]
                if n > 255:
                    break
                value = buf[p + 5:p + 5 + n].decode("utf-8", "surrogatepass")
                p += 5 + n
            elif op == NONE:
                value = None
                p += 1
            elif op == EMPTY_LIST:
                value = _EMPTY_LIST
                p += 1
            else:
                break
            if value is _MISSING or value is _EVENT or type(value) is _Pending:
                break
            op = buf[p]
            if op in (MEMOIZE, BINPUT):
                key = len(memo) if op == MEMOIZE else buf[p + 1]
                p += 1 if op == MEMOIZE else 2
                journal.append((key, memo.get(key, _MISSING)))
                memo[key] = value
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
            elif name == "user_metadata" or name == "compile_context":
                has_meta = True
        if frames is _EMPTY_LIST:
            frames = None
        if not ok or type(action) is not str or (frames is not None and type(frames) is not list):
            self._undo(journal)
            self.pos = start
            return False
        code = ACTION_CODE.get(action)
        if code is None:
            self._undo(journal)
            self.pos = start
            return False
        if code == OOM:
            addr = device_free
        for v in (addr, size, stream, time_us):
            if type(v) is not int or not -MAX_WORD <= v <= MAX_WORD:
                self._undo(journal)
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
        return True

    def _undo(self, journal: list[tuple[int, Any]]) -> None:
        for key, old in reversed(journal):
            if old is _MISSING:
                del self.memo[key]
            else:
                self.memo[key] = old


def decode_pickle_columns(read: ReadFn) -> Any:
    """The snapshot value of a pickle read with ``read(n)``, with each device trace as :class:`TraceColumns`.

    Raises NotStreamable when the file needs the standard restricted unpickler (see the module docstring);
    errors of ``read`` itself (cancelled, over the cap) pass through."""
    try:
        return _Reader(read).run()
    except (IndexError, KeyError, struct.error, UnicodeDecodeError, OverflowError, ValueError, TypeError) as exc:
        raise NotStreamable from exc
