"""Decode a snapshot file without running any code from it.

``torch.cuda.memory._dump_snapshot()`` writes ``pickle.dump(torch.cuda.memory._snapshot())``
(torch/cuda/memory.py): a pickle of plain dicts, lists, tuples, strings, numbers and booleans only. A pickle can
also name any importable global (``GLOBAL`` / ``STACK_GLOBAL`` / extension-registry opcodes) and call it
(``REDUCE``, ``NEWOBJ``, ``BUILD``); every such call needs a global first, and every global goes through
:meth:`pickle.Unpickler.find_class`, which :class:`PlainUnpickler` refuses outright, as it refuses persistent ids.
What remains can only build containers and scalars (see the opcode table of the standard library's
``pickletools``). The same dict saved as JSON is read with :mod:`json`.

Reading goes through :class:`ProgressReader`, which reports the bytes read and checks a cancel flag at every
read call the unpickler makes (frames of about 64 KiB in pickle protocol 4+), so a multi-GB file shows progress
and stops promptly when cancelled.
"""

from __future__ import annotations

import io
import json
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

from gpudesk.i18n import _
from gpudesk.oom.snapshot.errors import (
    SnapshotCancelled,
    SnapshotError,
    SnapshotFormatError,
    SnapshotTooLarge,
    SnapshotUnsafe,
)
from gpudesk.oom.snapshot.stream_pickle import decode_pickle_columns

ProgressFn = Callable[[int, int, str], None]

PICKLE_PROTO_OPCODE = 0x80
REPORT_EVERY_BYTES = 8 * 1024 * 1024
JSON_SPACE = (b" ", b"\n", b"\r", b"\t")
# json.dump writes no leading space and a pretty-printed snapshot indents by a few bytes; 64 KiB of nothing but
# blanks before the first value is padding (or a decompression bomb of spaces), not a snapshot.
MAX_LEADING_SPACE_BYTES = 64 * 1024
# Measured (tests/benchmarks/test_snapshot_scale.py, opening and analysing a 47-byte-per-event pickle): the standard
# unpickler peaks at 1.23 GB for 3 M events, about 410 bytes per event (one dict per event before the columns are
# made); the streaming decoder (columns=True) at 2.05 GB for 20 M events, about 105 bytes per event.
MEMORY_PER_EVENT_BYTES = 410
MEMORY_PER_EVENT_BYTES_COLUMNS = 105
PICKLE_BYTES_PER_EVENT = 47


class BinaryReadable(Protocol):
    """What the reader needs of a file: ``read`` and ``readline`` (files, gzip streams, BytesIO)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def readline(self, size: int = -1, /) -> bytes: ...


class ProgressReader(io.RawIOBase):
    """A read-only file wrapper that reports progress and raises :class:`SnapshotCancelled` when asked to stop."""

    def __init__(
        self,
        raw: BinaryReadable,
        total_bytes: int,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
        limit_bytes: int | None = None,
        limit_error: SnapshotTooLarge | None = None,
    ) -> None:
        super().__init__()
        self._raw = raw
        self.total_bytes = total_bytes
        self.done_bytes = 0
        self._limit = limit_bytes
        self._limit_error = limit_error
        self._progress = progress
        self._cancel = cancel
        self._next_report = 0

    def readable(self) -> bool:
        return True

    def _count(self, n: int) -> None:
        if self._cancel is not None and self._cancel.is_set():
            raise SnapshotCancelled(_("Opening the snapshot was cancelled."))
        self.done_bytes += n
        if self._limit is not None and self.done_bytes > self._limit:
            raise self._limit_error or SnapshotTooLarge(_("The snapshot is larger than the reading cap."))
        if self._progress is not None and (self.done_bytes >= self._next_report or n == 0):
            self._next_report = self.done_bytes + REPORT_EVERY_BYTES
            self._progress(self.done_bytes, self.total_bytes, _("Reading the snapshot"))

    def read(self, size: int | None = -1) -> bytes:
        data = self._raw.read(-1 if size is None else size)
        self._count(len(data))
        return data

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._raw.read(len(view))
        view[: len(data)] = data
        self._count(len(data))
        return len(data)

    def readline(self, size: int | None = -1) -> bytes:
        data = self._raw.readline(-1 if size is None else size)
        self._count(len(data))
        return data

    def peek(self, size: int = 0) -> bytes:
        return b""


class PlainUnpickler(pickle.Unpickler):
    """An unpickler that builds only containers and scalars: any global or persistent id is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise SnapshotUnsafe(
            _("This pickle is not a plain memory snapshot: it asks to load {what}, so it was not opened.").format(
                what=f"{module}.{name}"[:200]
            ),
            detail=_("A pickle that loads Python objects can run code on this computer."),
            remedy=_("Open only snapshots written by torch.cuda.memory._dump_snapshot(), or save the snapshot "
                     "dict as JSON and open that."),
        )

    def persistent_load(self, pid: Any) -> Any:
        raise SnapshotUnsafe(
            _("This pickle refers to outside objects (persistent ids), so it is not a plain memory snapshot."),
            remedy=_("Open only snapshots written by torch.cuda.memory._dump_snapshot()."),
        )


def decode(
    stream: BinaryReadable,
    total_bytes: int,
    *,
    name: str,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    limit_bytes: int | None = None,
    limit_error: SnapshotTooLarge | None = None,
    columns: bool = False,
) -> Any:
    """The plain Python value held by a snapshot pickle or JSON file, read from ``stream``.

    ``columns``: read a pickle with :func:`~gpudesk.oom.snapshot.stream_pickle.decode_pickle_columns` (each
    device trace as columns, no dict per event); it raises
    :class:`~gpudesk.oom.snapshot.stream_pickle.NotStreamable` when the file needs this standard path instead
    (the caller then reads the file again with ``columns=False``).

    ``limit_bytes`` stops the reading with ``limit_error`` once more bytes than that came out of ``stream``
    (a compressed file's cap). Raises SnapshotUnsafe (a global in the pickle), SnapshotCancelled,
    SnapshotTooLarge, SnapshotError (damaged file).
    """
    reader = ProgressReader(stream, total_bytes, progress, cancel, limit_bytes, limit_error)
    buffered = io.BufferedReader(reader, buffer_size=1024 * 1024)
    first = buffered.peek(1)[:1]
    if not first:
        raise SnapshotFormatError(_("The file {name} is empty.").format(name=name), field=name)
    if first in JSON_SPACE:
        head = buffered.peek(MAX_LEADING_SPACE_BYTES)
        if len(head) >= MAX_LEADING_SPACE_BYTES and not head[:MAX_LEADING_SPACE_BYTES].strip():
            raise SnapshotFormatError(
                _("The file {name} starts with more than {limit} KiB of blank space, so it is not a memory "
                  "snapshot.").format(name=name, limit=MAX_LEADING_SPACE_BYTES // 1024),
                field=name, remedy=_("Write the snapshot with torch.cuda.memory._dump_snapshot(path)."))
    try:
        if first[0] == PICKLE_PROTO_OPCODE and columns:
            value = decode_pickle_columns(buffered.read)
        elif first[0] == PICKLE_PROTO_OPCODE:
            value = PlainUnpickler(buffered).load()
        elif first in (b"{", b"[", *JSON_SPACE):
            value = json.load(io.TextIOWrapper(buffered, encoding="utf-8"))
        else:
            raise SnapshotFormatError(
                _("The file {name} is neither a pickle nor JSON, so it is not a memory snapshot.").format(name=name),
                field=name,
                remedy=_("Write the snapshot with torch.cuda.memory._dump_snapshot(path)."),
            )
    except SnapshotError:
        raise
    except RecursionError as exc:  # the JSON decoder recurses once per nested list or object
        raise SnapshotFormatError(
            _("The file {name} nests lists or objects deeper than {limit} levels; a memory snapshot nests about "
              "six, so it is not one.").format(name=name, limit=sys.getrecursionlimit()),
            field=name) from exc
    except MemoryError as exc:  # a large valid snapshot on a small machine: not "damaged"
        per_event = MEMORY_PER_EVENT_BYTES_COLUMNS if columns else MEMORY_PER_EVENT_BYTES
        raise SnapshotTooLarge(
            _("Not enough memory to open {name}: it ran out after {done} of the file's {total} bytes were read. "
              "Opening a snapshot takes about {per_event} bytes of memory per trace event (about {ratio} times "
              "the size of the pickle).").format(name=name, done=reader.done_bytes, total=total_bytes,
                                                 per_event=per_event,
                                                 ratio=round(per_event / PICKLE_BYTES_PER_EVENT)),
            field=name,
            remedy=_("Open it on a machine with more memory, or record a shorter history "
                     "(torch.cuda.memory._record_memory_history(max_entries=...))."),
        ) from exc
    except (pickle.UnpicklingError, EOFError, ValueError, UnicodeDecodeError, IndexError, KeyError,
            TypeError, AttributeError, OverflowError) as exc:
        # json.JSONDecodeError is a ValueError; a truncated pickle raises EOFError or UnpicklingError.
        raise SnapshotError(
            _("The file {name} is damaged or truncated and cannot be read as a snapshot.").format(name=name),
            field=name,
            detail=f"{type(exc).__name__}: {str(exc)[:300]}",
            remedy=_("Copy the file again in full; a snapshot cut short cannot be opened."),
        ) from exc
    if progress is not None:
        progress(reader.done_bytes, total_bytes, _("Reading the snapshot"))
    return value
