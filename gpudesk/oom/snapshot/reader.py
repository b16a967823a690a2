"""Open a snapshot file: :func:`load_snapshot` (pickle from ``_dump_snapshot()`` or the dict saved as JSON).

Never imports torch and never runs code from the file (see :mod:`gpudesk.oom.snapshot.unpickle`). Progress is
reported as ``progress(done, total, text)``: bytes while decoding, then events while converting; setting
``cancel`` stops it with :class:`~gpudesk.oom.snapshot.errors.SnapshotCancelled`.
"""

from __future__ import annotations

import gc
import gzip
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gpudesk.file_limits import InputFileError, display_path, open_input
from gpudesk.i18n import _
from gpudesk.oom.snapshot.convert import ProgressFn, to_snapshot
from gpudesk.oom.snapshot.errors import SnapshotError, SnapshotTooLarge
from gpudesk.oom.snapshot.model import Snapshot
from gpudesk.oom.snapshot.stream_pickle import NotStreamable
from gpudesk.oom.snapshot.unpickle import decode
from gpudesk.units import format_bytes

GZIP_MAGIC = b"\x1f\x8b"
# The most a gzip snapshot may inflate to: GZIP_MAX_RATIO times its compressed size, and never less than
# GZIP_MIN_CAP_BYTES. A snapshot pickle compresses 5-10 times and its JSON form 20-50 times (the repeated stack
# frames; measured on snapshots of the test builder); DEFLATE itself reaches about 1032:1 (RFC 1951's longest
# match of 258 bytes per 2-bit code, https://www.zlib.net/zlib_tech.html), which is what a bomb uses.
GZIP_MAX_RATIO = 100
GZIP_MIN_CAP_BYTES = 64 * 2**20
# The largest snapshot file opened (compressed or not): PyTorch's own viewer gives up near 1 GB (about 20 M trace
# events); twice that still opens within the memory of a workstation.
MAX_SNAPSHOT_FILE_BYTES = 2 * 2**30


def gzip_cap_bytes(compressed_bytes: int) -> int:
    """The decompressed size a gzip snapshot of ``compressed_bytes`` may reach before reading stops."""
    return max(GZIP_MIN_CAP_BYTES, GZIP_MAX_RATIO * int(compressed_bytes))


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of dicts are built: it would otherwise scan them
    again and again (a 2M-event snapshot decodes in 1.6 s instead of 5.4 s). Reference counting still frees
    memory meanwhile; the collector's previous state is restored afterwards. Process-wide, for seconds."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_snapshot(
    path: str | Path,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    columns: bool = True,
) -> Snapshot:
    """The snapshot in ``path`` (``.pickle``, ``.json``, either gzip-compressed). Raises SnapshotError.

    A pickle is read by the streaming decoder that writes trace events straight into columns
    (:mod:`gpudesk.oom.snapshot.stream_pickle`: 37 bytes of columns per event; opening and analysing peak at
    about 105 bytes per event); a pickle it does not handle is read
    again by the standard restricted unpickler, as is every pickle when ``columns`` is False (the reference path)."""
    path = Path(path)
    with _no_cyclic_gc():
        if columns:
            try:
                return _load(path, progress, cancel, columns=True)
            except NotStreamable:
                pass
        return _load(path, progress, cancel, columns=False)


def _load(path: Path, progress: ProgressFn | None, cancel: threading.Event | None, *, columns: bool) -> Snapshot:
    name = display_path(path.name)
    try:
        with open_input(path, MAX_SNAPSHOT_FILE_BYTES, _("the snapshot")) as fh:
            size = os.fstat(fh.fileno()).st_size
            gz = fh.read(2) == GZIP_MAGIC
            fh.seek(0)
            if gz:
                cap = gzip_cap_bytes(size)
                too_large = SnapshotTooLarge(
                    _("The compressed file {name} inflates to more than {cap} ({ratio} times its {size}): reading "
                      "stopped there. A real snapshot compresses about 5 to 50 times; this looks like a "
                      "decompression bomb.").format(name=name, cap=format_bytes(cap), ratio=GZIP_MAX_RATIO,
                                                    size=format_bytes(size)),
                    field=str(path),
                    remedy=_("Open the uncompressed snapshot, or decompress it yourself (gunzip) if you trust it."))
                with gzip.open(fh, "rb") as inner:
                    raw = decode(inner, size * 4, name=name, progress=progress, cancel=cancel, limit_bytes=cap,
                                 limit_error=too_large, columns=columns)
            else:
                raw = decode(fh, size, name=name, progress=progress, cancel=cancel, columns=columns)
    except InputFileError as exc:
        shown = display_path(path)
        if isinstance(exc.__cause__, FileNotFoundError):
            raise SnapshotError(_("The snapshot file {name} does not exist.").format(name=shown), field=shown,
                                remedy=_("Check the path.")) from exc
        if isinstance(exc.__cause__, PermissionError):
            raise SnapshotError(_("Permission denied reading {name}.").format(name=shown), field=shown) from exc
        if os.path.isdir(path):
            raise SnapshotError(_("{name} is a folder, not a snapshot file.").format(name=shown), field=shown) from exc
        raise SnapshotError(exc.message, field=shown) from exc
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise SnapshotError(_("The snapshot file {name} could not be read.").format(name=str(path)), field=str(path),
                            detail=str(exc)[:300]) from exc
    # gzip: the decoded size is at most the cap; plain: the file's size
    decoded_max = gzip_cap_bytes(size) if gz else size
    return to_snapshot(raw, source_name=name, file_size_bytes=size, progress=progress, cancel=cancel,
                       max_items=decoded_max)
