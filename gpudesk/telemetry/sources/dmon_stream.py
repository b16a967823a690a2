"""A live ``nvidia-smi dmon`` stream from a command the user types (e.g. ``ssh lab-node nvidia-smi dmon -s umt
-o DT``), for GPU servers without a display.

The command is split with shlex (no shell), started with stdout and stderr merged, and read line by line on a
small reader thread; :meth:`DmonStreamSource.poll` parses what has arrived without blocking. :meth:`close`
terminates the process (then kills it after a grace period).
"""

from __future__ import annotations

import subprocess
import shlex
import time
from collections.abc import Callable

from gpudesk.i18n import _
from gpudesk.telemetry.formats.dmon_lines import MAX_LINE_CHARS, DmonLineParser
from gpudesk.telemetry.core.line_stream import BoundedLineReader, start_merged
from gpudesk.telemetry.core.model import DeviceInfo, SampleBatch, TelemetryError
from gpudesk.telemetry.core.source import SourceKind


class DmonStreamError(TelemetryError):
    """The stream command could not be started (empty, not found, not executable)."""


class DmonStreamSource:
    """A :class:`~gpudesk.telemetry.core.source.SampleSource` over a running dmon command.

    Raises:
        DmonStreamError: the command is empty, cannot be parsed, or cannot be started.
    """

    kind = SourceKind.DMON_STREAM

    def __init__(self, command: str | list[str], *, interval_s: float = 1.0, clock: Callable[[], float] = time.time):
        try:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:
            raise DmonStreamError(_("Cannot parse the command {command!r}: {problem}.").format(
                command=command, problem=exc), field="command") from exc
        if not argv:
            raise DmonStreamError(_("Type a command that prints dmon output, e.g. "
                                    "'ssh lab-node nvidia-smi dmon -s umt -o DT'."), field="command")
        self.command = argv
        self.interval_s = float(interval_s)
        self.parser = DmonLineParser(clock)
        self._gpus: dict[int, DeviceInfo] = {}
        self._eof = False
        try:
            self.proc = start_merged(argv)
        except FileNotFoundError as exc:
            raise DmonStreamError(_("Command not found: {command!r}.").format(command=argv[0]), field="command",
                                  remedy=_("Check the spelling or give its full path.")) from exc
        except PermissionError as exc:
            raise DmonStreamError(_("Cannot run {command!r}: permission denied.").format(command=argv[0]),
                                  field="command") from exc
        except OSError as exc:
            raise DmonStreamError(_("Cannot start {command!r}: {reason}.").format(
                command=argv[0], reason=exc.strerror or exc), field="command") from exc
        self._reader = BoundedLineReader(self.proc, thread_name="dmon-stream-reader", max_line_chars=MAX_LINE_CHARS)

    def poll(self) -> list[SampleBatch]:
        out: list[SampleBatch] = []
        for line in self._reader.available():
            out.extend(self.parser.feed(line))
        if self._reader.ended and not self._eof:
            self._eof = True
            out.extend(self.parser.flush())
        for b in out:
            b.source = self.kind
            for s in b.samples:
                if s.gpu_index not in self._gpus:
                    self._gpus[s.gpu_index] = DeviceInfo(s.gpu_index)
        return out

    def devices(self) -> list[DeviceInfo]:
        return [self._gpus[g] for g in sorted(self._gpus)]

    @property
    def finished(self) -> bool:
        """True at end of stream or after :meth:`close` (a last :meth:`poll` still returns what had arrived)."""
        return self._eof or self._reader.closed

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def describe(self) -> str:
        return "dmon stream: " + " ".join(shlex.quote(a) for a in self.command)

    def close(self, grace_s: float = 2.0) -> None:
        """Terminate the command (SIGTERM, then SIGKILL after ``grace_s``). Lines it printed before are kept
        for a last :meth:`poll`."""
        self._reader.close(grace_s)

    def problem(self) -> str | None:
        """Why the stream gave nothing usable, as one sentence: dmon unsupported there, pmon output instead of
        dmon, or the command's exit status and last words; None while it went well."""
        p = self.parser
        if p.unsupported or p.foreign_format:
            return " / ".join(p.errors)
        return None

    def last_output(self) -> str:
        """The command's last lines that were not dmon output (error messages), joined with " / "."""
        return " / ".join(self.parser.other_output)

    def end_problem(self, wait_s: float = 1.0) -> str | None:
        """Once the stream ended by itself, why it is worth a warning, as one sentence: dmon unsupported there,
        not dmon output, no samples at all, or a non-zero exit status, each with the command's last words and
        the skipped lines; None when it simply reached its end (or was closed by the user). Waits up to
        ``wait_s`` for the exited command to be reaped, so its status is known."""
        if not self._eof:
            return None
        if self.proc.poll() is None:
            try:
                self.proc.wait(wait_s)
            except subprocess.TimeoutExpired:
                pass
        status = self.proc.poll()
        problem = self.problem()
        said = " / ".join([*self.parser.errors[-3:], *self.parser.other_output])
        if problem is not None:
            text = problem
        elif not self._gpus:
            text = _("The command printed no dmon samples (exit status {status}).").format(
                status=status if status is not None else "unknown")
        elif status:
            text = _("The command stopped with exit status {status}.").format(status=status)
        else:
            return None
        if said and said not in text:
            text += " " + _("Its last output: {said}").format(said=said)
        skipped = self.parser.skipped_summary()
        if skipped:
            text += " " + skipped
        return text
