"""Turn the probe's JSON answer into a :class:`MemoryReport` (source "probe"), validating its shape."""

from __future__ import annotations

import json
from typing import Any

from gpudesk.oom.errors import ProbeResultError
from gpudesk.oom.report import DeviceMemory, MemoryReport

_DEVICE_FIELDS = (
    "name", "uuid", "total_bytes", "allocated_bytes", "reserved_bytes", "peak_allocated_bytes", "peak_reserved_bytes",
    "inactive_split_bytes", "num_alloc_retries", "num_ooms", "oversize_allocations", "oversize_segments",
    "largest_free_block_bytes", "private_pool_bytes", "memory_summary",
)


def load_probe_json(data: str | bytes | dict) -> dict[str, Any]:
    """The probe document as a dict.

    Raises:
        ProbeResultError: not valid JSON, not an object, or without ``probe_version``.
    """
    if isinstance(data, dict):
        doc = data
    else:
        try:
            doc = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            excerpt = (data[:80] if isinstance(data, str) else repr(data[:80]))
            raise ProbeResultError(f"The probe's answer is not valid JSON ({exc}); it began with {excerpt!r}.") from exc
    if not isinstance(doc, dict) or "probe_version" not in doc:
        raise ProbeResultError("The probe's answer is JSON but not a gpudesk probe result (no probe_version).")
    if not isinstance(doc.get("devices", []), list):
        raise ProbeResultError("The probe's answer has 'devices' that is not a list.")
    return doc


def report_from_probe(data: str | bytes | dict, source: str = "probe") -> MemoryReport:
    """MemoryReport from a probe answer; ``status`` carries "torch not imported" / "CUDA not initialised".

    Raises:
        ProbeResultError: see :func:`load_probe_json`.
    """
    doc = load_probe_json(data)
    report = MemoryReport(source=source, framework="pytorch" if doc.get("torch_imported") else "unknown", kind="probe")
    report.pid = doc.get("pid")
    report.torch_imported = doc.get("torch_imported")
    report.cuda_initialized = doc.get("cuda_initialized")
    report.torch_version = doc.get("torch_version")
    report.python_version = doc.get("python_version")
    report.status = doc.get("status")
    env = doc.get("env") or {}
    conf = env.get("PYTORCH_ALLOC_CONF") or env.get("PYTORCH_CUDA_ALLOC_CONF")
    if conf:
        for item in conf.split(","):
            key, _, value = item.partition(":")
            if key.strip():
                report.alloc_conf[key.strip()] = value.strip()
    for key, value in env.items():
        report.parsed[f"env_{key}"] = value
    for err in doc.get("errors") or []:
        report.notes.append(f"probe: {err}")
    if doc.get("probe_duration_s") is not None:
        report.parsed["probe_duration_s"] = doc["probe_duration_s"]
    for d in doc.get("devices") or []:
        if not isinstance(d, dict) or not isinstance(d.get("index"), int):
            raise ProbeResultError(f"The probe's answer has a device entry without an index: {d!r:.80}")
        dev = DeviceMemory(index=d["index"], **{k: d.get(k) for k in _DEVICE_FIELDS})
        report.devices.append(dev)
    if report.devices:
        report.device_index = report.devices[0].index
    return report
