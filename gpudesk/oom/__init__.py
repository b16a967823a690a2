"""OOM doctor core (Qt-free): parse OOM texts, probe processes, gather evidence, rank causes.

API summary (stable; all memory in bytes, times in seconds, unknown = None)
--------------------------------------------------------------------------
Data (``gpudesk.oom.report`` / ``gpudesk.oom.cause``):
    MemoryReport      source, framework, kind, era, requested_bytes, device_index, devices: [DeviceMemory],
                      parsed {name: bytes|count}, missing [clause], notes [str], alloc_conf, alloc_conf_hint,
                      samples [MemorySample], host_rss_samples [(t_s, bytes)], workers [WorkerState],
                      pid, torch_imported, cuda_initialized, torch_version, status, text.
                      ``.device`` = failing GPU; ``to_dict()`` / ``from_dict()``.
    DeviceMemory      index, total/free/allocated/reserved/private_pool/peak_*/inactive_split/
                      largest_free_block/process_used _bytes, num_alloc_retries, num_ooms, oversize_*,
                      other_processes [ProcessMemory], memory_summary; derived reserved_unallocated_bytes,
                      fragmentation_ratio, non_pytorch_bytes, unattributed_bytes, other_processes_bytes.
    ProcessMemory     pid, used_bytes, gpu_index, name, user, alive, is_target.
    MemorySample      t_s, pid, device_index, allocated_bytes, reserved_bytes, peak_allocated_bytes,
                      process_used_bytes, host_rss_bytes, step.
    Cause             id (CAUSE_IDS), title, confidence 0..1, evidence {key_with_unit: value}, explanation,
                      fix, more_fixes, checks, sizing [SizingEffect(fix, saved_bytes, note)],
                      evidence_labels {key: human-readable name} (every evidence key; show these, keep the
                      keys for JSON); ``evidence_items()`` -> [(key, label, value)]; ``label(key)``.
    Diagnosis         report, causes (best first), ``top``, ``to_dict()`` (the CLI JSON, with
                      ``parsed_labels`` and ``oom_message_found``), ``found_oom`` (False: the text held no OOM
                      message, nothing was diagnosed; the only cause is the 0.05 ``unparseable`` stand-in cause),
                      ``diagnosed`` (a cause other than ``unparseable`` exists).
    label_for(key, framework=None) -> str   the human-readable name of any evidence / parsed key
                      (gpudesk.oom.labels; TensorFlow/JAX get their own terms for allocator figures).

Text:
    parse_text(text: str | bytes) -> MemoryReport        raises OomInputError (empty / binary input)
    detect_framework(text) -> str
    diagnose(report: MemoryReport) -> Diagnosis           never raises on a report; "unparseable" cause
    diagnose_text(text) -> Diagnosis                      parse_text + diagnose

Processes (Linux first; every function says plainly why it cannot run by raising the types below):
    gpudesk.oom.attach.available_methods(pid, *, allow_other_user=False)
        -> [MethodStatus(name, usable, reason, invasive, warning)] in the order "auto" tries them
    gpudesk.oom.attach.probe_process(pid, method="auto", *, reset_peak=False, timeout_s=10.0, progress=None,
                                     allow_other_user=False, with_evidence=True, nvml=None) -> MemoryReport
        methods: "agent" (gpudesk.oom.agent in the target), "remote_exec" (Python >= 3.14),
        "gdb" (older CPython; show MethodStatus.warning and ask first). ``report.status`` says
        "torch not imported ..." / "CUDA not initialised ..." when there are no allocator figures.
    gpudesk.oom.launch.launch_job(argv, *, interval_s=0.5, on_sample=None, on_output=None, progress=None,
                                  stop=None, cwd=None, env=None, record_history=False, timeout_s=None,
                                  nvml=None) -> LaunchResult
        LaunchResult: argv, returncode, report (MemoryReport: samples, host_rss_samples, OOM-moment probe,
        NVML view), diagnosis, oom_events, output_tail, snapshot_paths, stopped. ``stop``: threading.Event.
        Callbacks run in the calling thread: on_sample(MemorySample), on_output(line), progress(msg, frac).
    gpudesk.oom.evidence.gather_evidence(pid, *, report=None, duration_s=0.0, interval_s=0.5,
                                         progress=None, nvml=None) -> MemoryReport   (NVML + psutil only)
    gpudesk.oom.evidence.merge_into(primary, extra) -> primary   (fills unknown figures)
    gpudesk.oom.agent.install()   one line in a user's script: answers probes on a 0600 unix socket
                                  and on SIGUSR1; agent.agent_available(pid) -> None | reason.
    gpudesk.oom.probe_result.report_from_probe(json) -> MemoryReport   (ProbeResultError when not valid)
    progress callbacks: ``progress(message: str, fraction: float | None)``; called from the calling thread.
    Display helper: gpudesk.units.format_bytes(bytes | None) -> "1.50 GiB" / "N/A".

Errors (gpudesk.oom.errors): OomError > OomInputError, ProbeError (MethodUnavailable(method, reason),
TargetNotFound, PermissionDenied, ProbeTimeout, ProbeResultError), LaunchError; all derive from
gpudesk.errors.GpudeskError. DiagnosisStoreError (gpudesk.store.errors) is re-exported here.

Store: gpudesk.oom.history.save_diagnosis(db, diagnosis, target=...) -> id, load_diagnosis(db, id);
gpudesk.store.diagnoses.list_diagnoses(db), delete_diagnosis(db, id) (plain rows).
"""

from __future__ import annotations

from gpudesk.oom.cause import CAUSE_IDS, Cause, Diagnosis, SizingEffect
from gpudesk.oom.diagnose import diagnose, diagnose_text
from gpudesk.oom.errors import (
    LaunchError,
    MethodUnavailable,
    OomError,
    OomInputError,
    PermissionDenied,
    ProbeError,
    ProbeResultError,
    ProbeTimeout,
    TargetNotFound,
)
from gpudesk.oom.labels import label_for
from gpudesk.oom.parsers import detect_framework, parse_text
from gpudesk.oom.report import DeviceMemory, MemoryReport, MemorySample, ProcessMemory, WorkerState
from gpudesk.store.errors import DiagnosisStoreError

__all__ = [
    "CAUSE_IDS",
    "Cause",
    "DeviceMemory",
    "Diagnosis",
    "DiagnosisStoreError",
    "LaunchError",
    "MemoryReport",
    "MemorySample",
    "MethodUnavailable",
    "OomError",
    "OomInputError",
    "PermissionDenied",
    "ProbeError",
    "ProbeResultError",
    "ProbeTimeout",
    "ProcessMemory",
    "SizingEffect",
    "TargetNotFound",
    "WorkerState",
    "detect_framework",
    "diagnose",
    "diagnose_text",
    "label_for",
    "parse_text",
]
