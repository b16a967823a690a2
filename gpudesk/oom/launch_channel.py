"""What a launched job reports while it runs, read by :func:`gpudesk.oom.launch.launch_job` in its thread:

* :class:`JobChannel`: the JSON lines the job's processes append to ``<out>/<pid>.jsonl`` (see
  :mod:`gpudesk.oom.launch_bootstrap` for the line types);
* :class:`JobWatcher`: non-invasive evidence (NVML per-process GPU memory, child process states);
* :class:`JobCollector`: turns the lines into MemorySamples, status messages and the final MemoryReport.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import psutil

from gpudesk.i18n import _
from gpudesk.oom.errors import OomInputError, ProbeResultError
from gpudesk.oom.evidence import merge_into
from gpudesk.oom.parsers import parse_text
from gpudesk.oom.probe_result import clean_figure, report_from_probe
from gpudesk.oom.report import MemoryReport, MemorySample, ProcessMemory, WorkerState

if TYPE_CHECKING:
    from gpudesk.nvml.nvml_processes import ProcessListing

MAX_LINE_BYTES = 64 * 1024 * 1024  # one probe line (memory_summary included) is far below this


class JobChannel:
    """Reads the JSON lines the job's processes append (keeps per-file offsets; partial lines wait)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.offsets: dict[Path, int] = {}
        self.partial: dict[Path, bytes] = {}
        self.bad_lines = 0

    def read(self) -> list[dict[str, Any]]:
        docs: list[dict[str, Any]] = []
        for path in sorted(self.folder.glob("*.jsonl")):
            with open(path, "rb") as fh:
                fh.seek(self.offsets.get(path, 0))
                data = self.partial.pop(path, b"") + fh.read()
                self.offsets[path] = fh.tell()
            *lines, rest = data.split(b"\n")
            if len(rest) > MAX_LINE_BYTES:  # no newline for 64 MiB: not a probe line; dropped, counted
                self.bad_lines += 1
                rest = b""
            if rest:
                self.partial[path] = rest
            for line in lines:
                try:
                    doc = json.loads(line)
                except (ValueError, RecursionError):  # not JSON, or nested past the decoder's stack
                    self.bad_lines += 1
                    continue
                if isinstance(doc, dict):
                    docs.append(doc)
                else:
                    self.bad_lines += 1
        return docs


class JobWatcher:
    """Non-invasive evidence while the job runs: NVML per-process memory and child process states."""

    def __init__(self, pid: int, nvml: ModuleType | None):
        self.pid = pid
        self.nvml = nvml
        self.enabled = True
        self.notes: list[str] = []
        self.listing: ProcessListing | None = None
        self.job_pids: set[int] = {pid}
        self.workers: dict[int, WorkerState] = {}

    def poll(self, proc: psutil.Process) -> None:
        try:
            children = proc.children(recursive=True)
        except psutil.NoSuchProcess:
            return
        for child in children:
            self.job_pids.add(child.pid)
            try:
                status, name = child.status(), child.name()
            except psutil.NoSuchProcess:
                status, name = "dead", None
            except psutil.AccessDenied:
                status, name = "unknown", None
            worker = self.workers.get(child.pid) or WorkerState(pid=child.pid, status=status, name=name)
            if worker.status not in ("zombie", "dead"):
                worker.status = status
            self.workers[child.pid] = worker
        if not self.enabled:
            return
        from gpudesk.nvml.nvml_processes import list_gpu_processes
        from gpudesk.nvml.nvml_session import NvmlUnavailableError, shared_session

        try:
            self.listing = list_gpu_processes(shared_session(self.nvml))
        except NvmlUnavailableError as exc:
            self.enabled = False
            status = getattr(exc, "status", None)
            self.notes.append("NVML unavailable: " + (getattr(status, "message", None) or str(exc)))

    def apply(self, report: MemoryReport) -> None:
        """Merge the last NVML view and the child states into ``report`` (NVML indices mapped by
        :func:`gpudesk.oom.evidence.merge_into`)."""
        report.notes.extend(n for n in self.notes if n not in report.notes)
        if self.workers and not report.workers:
            report.workers = [w for pid, w in self.workers.items() if pid != self.pid]
        if self.listing is None:
            return
        evidence = MemoryReport(source="evidence")
        used: dict[int, list[int | None]] = {}
        for p in self.listing:
            if p.pid not in self.job_pids:
                continue
            for w in report.workers:
                if w.pid == p.pid:
                    w.on_gpu = True
            used.setdefault(p.gpu_index, []).append(p.used_memory_bytes)
            evidence.ensure_device(p.gpu_index).uuid = p.gpu_uuid
        for index, values in used.items():  # the same GPUs, in the same order, as evidence.devices
            dev = evidence.ensure_device(index)
            known = [v for v in values if v is not None]
            # the job's processes on this GPU; unknown when NVML could not say for one of them
            dev.process_used_bytes = sum(known) if len(known) == len(values) else None
            dev.other_processes = [
                ProcessMemory(pid=p.pid, used_bytes=p.used_memory_bytes, gpu_index=index, name=p.name,
                              user=p.user, alive=p.visible)
                for p in self.listing if p.gpu_index == index and p.pid not in self.job_pids
            ]
        merge_into(report, evidence)


class JobCollector:
    """Turns the job's JSON lines into MemorySamples, status messages and the final report."""

    def __init__(self, pid: int, on_sample: Callable[[MemorySample], None] | None,
                 progress: Callable[[str, float | None], None] | None):
        self.pid = pid
        self.on_sample = on_sample
        self.progress = progress
        self.report = MemoryReport(source="launch", pid=pid)
        self.oom_events: list[dict[str, Any]] = []
        self.final: dict[int, dict[str, Any]] = {}
        self.hello: set[int] = set()
        self.status: dict[int, str | None] = {}

    def feed(self, docs: list[dict[str, Any]], start_epoch: float) -> None:
        for doc in docs:
            kind, pid = doc.get("type"), doc.get("pid")
            if isinstance(pid, bool) or not isinstance(pid, int) or not isinstance(kind, str):
                continue  # every line our probe writes names its process and kind; anything else is not ours
            if not isinstance(doc.get("status", ""), str):
                doc = {**doc, "status": None}
            for key in ("probe",):
                if key in doc and not isinstance(doc[key], dict):
                    doc = {**doc, key: None}
            raw_t = doc.get("t", start_epoch)
            if isinstance(raw_t, bool) or not isinstance(raw_t, (int, float)) or not math.isfinite(raw_t):
                raw_t = start_epoch  # a time stamp that is not a number: the sample is kept, placed at the start
            t = float(raw_t) - start_epoch
            if kind == "hello":
                self.hello.add(pid)
            elif kind == "status":
                self.status[pid] = doc.get("status")
                if self.progress and doc.get("status") != "sampling":
                    self.progress(f"Process {pid}: {doc.get('status')}", None)
            elif kind == "sample":
                devices = doc.get("devices")
                for d in devices if isinstance(devices, list) else []:
                    if not isinstance(d, dict) or clean_figure(d.get("index")) is None:
                        continue  # not a device entry: nothing to plot
                    sample = MemorySample(t_s=t, pid=pid, device_index=d.get("index"),
                                          allocated_bytes=clean_figure(d.get("allocated_bytes")),
                                          reserved_bytes=clean_figure(d.get("reserved_bytes")),
                                          peak_allocated_bytes=clean_figure(d.get("peak_allocated_bytes")))
                    self.report.samples.append(sample)
                    if self.on_sample:
                        self.on_sample(sample)
            elif kind == "oom":
                self.oom_events.append(doc)
                if self.progress:
                    self.progress(f"Process {pid} ran out of memory on GPU {doc.get('device')}; snapshot taken.", None)
            elif kind == "final":
                self.final[pid] = doc.get("probe") or {}

    def finish(self, tail: Iterable[str]) -> MemoryReport:
        text = "".join(tail)
        base: MemoryReport | None = None
        if text.strip():
            try:
                parsed = parse_text(text)
                if parsed.kind != "unknown":
                    base = parsed
            except OomInputError:
                base = None
        probe_report = None
        event = self.oom_events[0] if self.oom_events else None
        doc = event.get("probe") if event else self.final.get(self.pid) or next(iter(self.final.values()), None)
        if doc:
            try:
                probe_report = report_from_probe(doc, source="launch")
            except ProbeResultError as exc:
                self.report.notes.append(_("The job's probe answer could not be read: {error}").format(error=exc))
        if base is None:
            base = probe_report or MemoryReport(source="launch")
        elif probe_report is not None:
            merge_into(base, probe_report)
            for attr in ("torch_imported", "cuda_initialized", "torch_version", "python_version", "status"):
                setattr(base, attr, getattr(probe_report, attr))
        if event is not None:
            if base.requested_bytes is None:
                base.requested_bytes = event.get("alloc_bytes")
            if base.device_index is None:
                base.device_index = event.get("device")
            for key, figure in (("oom_observer_alloc_bytes", clean_figure(event.get("alloc_bytes"))),
                                ("oom_observer_device_free_bytes", clean_figure(event.get("device_free_bytes")))):
                if figure is not None:  # parsed holds figures only: a missing one is left out
                    base.parsed[key] = figure
        base.source = "launch"
        base.pid = self.pid
        base.samples = self.report.samples
        base.host_rss_samples = self.report.host_rss_samples
        base.notes.extend(self.report.notes)
        if base.status is None:
            base.status = self.status.get(self.pid)
        if not self.hello:
            base.notes.append(_(
                "The probe did not load in the job: the command is not Python, or it runs Python with -I/-S "
                "(no sitecustomize), or it clears PYTHONPATH. Output was still captured and parsed."
            ))
        if text and base.text is None:
            base.text = text
        return base
