"""Turn the probe's JSON answer into a :class:`MemoryReport` (source "probe"), validating its shape.

The answer comes from another process (or a file anyone could have written into the private folder's place),
so every field is checked at this boundary: byte and count figures must be whole numbers from 0 to 2^63 (a
dict, list, string, bool, NaN or negative value becomes unknown with a note naming the device and field),
text fields must be text, and the document is at most 64 MiB and 64 levels deep. Only ProbeResultError leaves.
"""

from __future__ import annotations

import json
import math
from typing import Any

from gpudesk.json_limits import json_depth_ok
from gpudesk.oom.errors import ProbeResultError
from gpudesk.oom.report import DeviceMemory, MemoryReport
from gpudesk.i18n import _

MAX_PROBE_BYTES = 64 * 1024 * 1024  # memory_summary of a 64-GPU job is well under 1 MB
MAX_NESTING = 64
MAX_FIGURE = 2**63  # bytes and counts: more than any GPU has
_TEXT_FIELDS = ("name", "uuid", "memory_summary")
_DEVICE_FIELDS = (
    "name", "uuid", "total_bytes", "allocated_bytes", "reserved_bytes", "peak_allocated_bytes", "peak_reserved_bytes",
    "inactive_split_bytes", "num_alloc_retries", "num_ooms", "oversize_allocations", "oversize_segments",
    "largest_free_block_bytes", "private_pool_bytes", "memory_summary",
)


def load_probe_json(data: str | bytes | dict[str, Any]) -> dict[str, Any]:
    """The probe document as a dict.

    Raises:
        ProbeResultError: not valid JSON, not an object, or without ``probe_version``.
    """
    if isinstance(data, dict):
        doc = data
    elif not isinstance(data, (str, bytes, bytearray)):
        raise ProbeResultError(_("The probe's answer is a {type_name}, not a JSON document.").format(
            type_name=type(data).__name__))
    else:
        if len(data) > MAX_PROBE_BYTES:
            raise ProbeResultError(_("The probe's answer is {size} bytes, more than a probe writes "
                                     "({limit}); it was not read.").format(size=len(data), limit=MAX_PROBE_BYTES))
        if not json_depth_ok(data, MAX_NESTING):
            raise ProbeResultError(_("The probe's answer nests lists or objects more than {levels} levels deep; "
                                     "it is not a gpudesk probe result.").format(levels=MAX_NESTING))
        try:
            doc = json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            excerpt = (data[:80] if isinstance(data, str) else repr(data[:80]))
            raise ProbeResultError(_("The probe's answer is not valid JSON ({error}); it began with {excerpt!r}.").format(
                error=str(exc)[:200], excerpt=excerpt)) from exc
    if not isinstance(doc, dict) or "probe_version" not in doc:
        raise ProbeResultError(_("The probe's answer is JSON but not a gpudesk probe result (no probe_version)."))
    if not isinstance(doc.get("devices", []), list):
        raise ProbeResultError(_("The probe's answer has 'devices' that is not a list."))
    return doc


def report_from_probe(data: str | bytes | dict[str, Any], source: str = "probe") -> MemoryReport:
    """MemoryReport from a probe answer; ``status`` carries "torch not imported" / "CUDA not initialised".

    Raises:
        ProbeResultError: see :func:`load_probe_json`.
    """
    doc = load_probe_json(data)
    report = MemoryReport(source=source, framework="pytorch" if doc.get("torch_imported") else "unknown", kind="probe")
    pid = doc.get("pid")
    report.pid = pid if isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid < 2**31 else None
    report.torch_imported = _flag(doc.get("torch_imported"))
    report.cuda_initialized = _flag(doc.get("cuda_initialized"))
    report.torch_version = _text(doc.get("torch_version"))
    report.python_version = _text(doc.get("python_version"))
    report.status = _text(doc.get("status"))
    env = doc.get("env")
    env = {k: v for k, v in env.items() if isinstance(v, str)} if isinstance(env, dict) else {}
    conf = env.get("PYTORCH_ALLOC_CONF") or env.get("PYTORCH_CUDA_ALLOC_CONF")
    if conf:
        for item in conf.split(","):
            key, _sep, value = item.partition(":")
            if key.strip():
                report.alloc_conf[key.strip()] = value.strip()
    for key, value in env.items():
        report.parsed[f"env_{key}"] = value
    errors = doc.get("errors")
    for err in errors if isinstance(errors, list) else []:
        report.notes.append(_("probe: {error}").format(
            error=str(err)[:500] if isinstance(err, (str, int, float)) else _("an error entry that is not text")))
    duration = doc.get("probe_duration_s")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and math.isfinite(duration) and duration >= 0:
        report.parsed["probe_duration_s"] = duration
    for d in doc.get("devices") or []:
        if not isinstance(d, dict) or not _is_int(d.get("index")) or not 0 <= d["index"] < 4096:
            shown = f"{d!r:.80}" if not isinstance(d, (dict, list)) else f"a JSON {type(d).__name__} entry"
            raise ProbeResultError(_("The probe's answer has a device entry without a valid index: {shown}").format(shown=shown))
        report.devices.append(_device(d, report.notes))
    if report.devices:
        report.device_index = report.devices[0].index
    return report


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return value[:10_000] if isinstance(value, str) else None


def clean_figure(raw: object) -> int | None:
    """A byte or count figure from a probe document as a whole number 0..2^63, else None (dicts, lists,
    strings, bools, NaN, fractions, negatives are not figures)."""
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw <= MAX_FIGURE:
        return raw
    if isinstance(raw, float) and math.isfinite(raw) and raw.is_integer() and 0 <= raw <= MAX_FIGURE:
        return int(raw)
    return None


def _device(d: dict[str, Any], notes: list[str]) -> DeviceMemory:
    """One device entry with each figure checked: an impossible one becomes None and a note names it."""
    values: dict[str, Any] = {}
    for key in _DEVICE_FIELDS:
        raw = d.get(key)
        if raw is None:
            values[key] = None
        elif key in _TEXT_FIELDS:
            values[key] = raw if isinstance(raw, str) else None
        else:
            values[key] = clean_figure(raw)
        if raw is not None and values[key] is None:
            kind = type(raw).__name__ if isinstance(raw, (dict, list, str, bool)) else f"{raw!r:.40}"
            notes.append(_("probe: GPU {index} {key} was {kind}, not a figure; treated as unknown.").format(
                index=d["index"], key=key, kind=kind))
    return DeviceMemory(index=d["index"], **values)
