"""A live ``dcgmi dmon`` stream from a command the user types (e.g. ``ssh node dcgmi dmon -e 203,1001,1002``):
the command is split with shlex (no shell), read line by line on a reader thread, parsed as it arrives; each tick
is stamped with the time its first row arrived. :meth:`close` terminates the command."""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable

from gpudesk.i18n import _
from gpudesk.telemetry.formats.dcgmi_dmon import MAX_LINE_CHARS, DcgmiDmonParser
from gpudesk.telemetry.fleet.fleet import GpuKey
from gpudesk.telemetry.fleet.fleet_http import FleetError
from gpudesk.telemetry.core.line_stream import BoundedLineReader, start_merged
from gpudesk.telemetry.core.model import SampleBatch
from gpudesk.telemetry.core.source import SourceKind


class DcgmiStreamError(FleetError):
    """The stream command could not be started."""


class DcgmiStreamSource:
    kind = SourceKind.DCGMI_STREAM

    def __init__(self, command: str, *, host: str = "", clock: Callable[[], float] = time.time) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise DcgmiStreamError(_("The command could not be read: {why}.").format(why=exc), field="command") \
                from exc
        if not argv:
            raise DcgmiStreamError(_("Type a command that prints dcgmi dmon output, e.g. 'ssh node dcgmi dmon -e "
                                     "203,1001'."), field="command")
        self.command = argv
        self.parser = DcgmiDmonParser(host=host, clock=clock)
        self._eof = False
        try:
            self.proc = start_merged(argv)
        except OSError as exc:
            raise DcgmiStreamError(_("Could not start {cmd}.").format(cmd=argv[0]), field="command",
                                   detail=exc.strerror or str(exc),
                                   remedy=_("Check the spelling or give the program's full path.")) from exc
        self._reader = BoundedLineReader(self.proc, thread_name="dcgmi-stream-reader", max_line_chars=MAX_LINE_CHARS)

    def poll(self) -> list[SampleBatch]:
        """The ticks finished since the last call (the last, open tick is returned at end of stream)."""
        out: list[SampleBatch] = []
        for line in self._reader.available():
            batch = self.parser.feed(line)
            if batch is not None:
                out.append(batch)
        if self._reader.ended and not self._eof:
            self._eof = True
            last = self.parser.finish()
            if last is not None:
                out.append(last)
        return out

    @property
    def keys(self) -> list[GpuKey]:
        return self.parser.index.keys

    @property
    def finished(self) -> bool:
        return self._eof

    def close(self, grace_s: float = 2.0) -> None:
        self._reader.close(grace_s)
