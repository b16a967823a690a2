"""The probe that runs INSIDE a target Python process (self-contained: standard library only).

This file is executed in the target as it is (by the agent, a launch bootstrap, ``sys.remote_exec`` or a
gdb-injected pending call); it must not import gpudesk. Rules it keeps (oom.md §4.4):

* it never imports torch: it uses ``sys.modules.get("torch")`` and reports "torch not imported";
* it never initialises CUDA: without ``torch.cuda.is_initialized()`` it reports "CUDA not initialised" and
  calls nothing else (``current_device``, ``mem_get_info``, ``synchronize`` and tensor creation all create
  contexts);
* it touches only devices the process already uses: explicit indices ``i`` with ``memory_reserved(i) > 0``,
  plus the current device when it runs on the main thread (a new thread's current device is 0, and any CUDA
  runtime call there would create a context on GPU 0, pytorch#58626);
* it changes nothing unless asked: ``reset_peak_memory_stats`` only with ``reset_peak=True``;
* it writes its JSON answer to a file created with mode 0600 (``O_EXCL``) inside a 0700 folder made by
  gpudesk, then renames it into place so the reader never sees half a document.

Result (``collect()``; bytes, seconds)::

    {"probe_version": 1, "pid", "python_version", "torch_imported", "torch_version", "cuda_initialized",
     "status", "env": {PYTORCH_ALLOC_CONF, PYTORCH_CUDA_ALLOC_CONF, CUDA_VISIBLE_DEVICES, LOCAL_RANK, ...},
     "devices": [{"index", "name", "uuid", "total_bytes", "allocated_bytes", "reserved_bytes", "peak_allocated_bytes",
                  "peak_reserved_bytes", "inactive_split_bytes", "requested_bytes", "num_alloc_retries",
                  "num_ooms", "oversize_allocations", "oversize_segments", "largest_free_block_bytes",
                  "private_pool_bytes", "segments", "memory_summary"}],
     "errors": [str], "probe_duration_s"}
"""

import json
import os
import sys
import threading
import time

MYPY = False
if MYPY:  # type checkers only: the probe imports nothing more into the target (annotations are quoted text)
    from typing import Any

PROBE_VERSION = 1
ENV_KEYS = (
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "CUDA_VISIBLE_DEVICES",
    "LOCAL_RANK",
    "RANK",
    "WORLD_SIZE",
    "XLA_PYTHON_CLIENT_PREALLOCATE",
    "XLA_CLIENT_MEM_FRACTION",
    "TF_FORCE_GPU_ALLOW_GROWTH",
)
STATUS_NO_TORCH = "torch not imported in this process, so there are no allocator statistics (gpudesk did not import it)."
STATUS_NO_CUDA = ("CUDA not initialised in this process, so the allocator has no statistics yet "
                  "(gpudesk did not initialise it).")


def used_devices(torch: "Any") -> "list[int]":
    """Indices of the GPUs this process uses, found without creating a CUDA context anywhere."""
    found = []
    for i in range(torch.cuda.device_count()):
        if torch.cuda.memory_reserved(i) > 0:
            found.append(i)
    if threading.current_thread() is threading.main_thread():
        current = torch.cuda.current_device()
        if current not in found:
            found.append(current)
    return sorted(found)


def _stat(stats: "dict[str, Any]", key: str) -> "int | None":
    value = stats.get(key)
    return int(value) if value is not None else None


def _segments(torch: "Any", errors: "list[str]") -> "list[dict[str, Any]] | None":
    """Allocator segments from ``torch.cuda.memory._snapshot()`` (state only, no history), or None."""
    memory = getattr(torch.cuda, "memory", None)
    snap_fn = getattr(memory, "_snapshot", None)
    if snap_fn is None:
        errors.append("torch.cuda.memory._snapshot is not available in this torch version")
        return None
    try:
        segments: list[dict[str, Any]] = snap_fn().get("segments", [])
        return segments
    except Exception as exc:  # the probe must never raise into the target; the error is reported instead
        errors.append("snapshot: %s: %s" % (type(exc).__name__, exc))
        return None


def _segment_figures(segments: "list[dict[str, Any]]", index: int) -> "tuple[int, int, int]":
    largest_free = 0
    pools = 0
    count = 0
    for seg in segments:
        if seg.get("device") != index:
            continue
        count += 1
        pool = seg.get("segment_pool_id")
        if pool is not None and tuple(pool) != (0, 0):
            pools += int(seg.get("allocated_size", 0))
        for block in seg.get("blocks", []):
            if block.get("state") == "inactive":
                largest_free = max(largest_free, int(block.get("size", 0)))
    return largest_free, pools, count


def device_figures(torch: "Any", index: int, include_summary: bool, segments: "list[dict[str, Any]] | None",
                   errors: "list[str]") -> "dict[str, Any]":
    stats = torch.cuda.memory_stats(index)
    dev: dict[str, Any] = {
        "index": index,
        "allocated_bytes": _stat(stats, "allocated_bytes.all.current"),
        "reserved_bytes": _stat(stats, "reserved_bytes.all.current"),
        "peak_allocated_bytes": _stat(stats, "allocated_bytes.all.peak"),
        "peak_reserved_bytes": _stat(stats, "reserved_bytes.all.peak"),
        "inactive_split_bytes": _stat(stats, "inactive_split_bytes.all.current"),
        "requested_bytes": _stat(stats, "requested_bytes.all.current"),
        "num_alloc_retries": _stat(stats, "num_alloc_retries"),
        "num_ooms": _stat(stats, "num_ooms"),
        "oversize_allocations": _stat(stats, "oversize_allocations.current"),
        "oversize_segments": _stat(stats, "oversize_segments.current"),
        "name": None,
        "uuid": None,
        "total_bytes": None,
        "largest_free_block_bytes": None,
        "private_pool_bytes": None,
        "segments": None,
        "memory_summary": None,
    }
    try:
        props = torch.cuda.get_device_properties(index)
        dev["name"] = props.name
        dev["total_bytes"] = int(props.total_memory)
        uuid = getattr(props, "uuid", None)
        dev["uuid"] = None if uuid is None else str(uuid)
    except Exception as exc:
        errors.append("device %d properties: %s: %s" % (index, type(exc).__name__, exc))
    if segments is not None:
        largest, pools, count = _segment_figures(segments, index)
        dev["largest_free_block_bytes"] = largest
        dev["private_pool_bytes"] = pools
        dev["segments"] = count
    if include_summary:
        try:
            dev["memory_summary"] = torch.cuda.memory_summary(device=index, abbreviated=True)
        except Exception as exc:
            errors.append("memory_summary(%d): %s: %s" % (index, type(exc).__name__, exc))
    return dev


def collect(reset_peak: bool = False, include_summary: bool = True, include_snapshot: bool = True) -> "dict[str, Any]":
    """Allocator figures of this process as a JSON-ready dict (see the module docstring)."""
    start = time.perf_counter()
    out: dict[str, Any] = {
        "probe_version": PROBE_VERSION,
        "pid": os.getpid(),
        "python_version": sys.version.split()[0],
        "torch_imported": False,
        "torch_version": None,
        "cuda_initialized": None,
        "status": None,
        "env": {k: os.environ[k] for k in ENV_KEYS if k in os.environ},
        "devices": [],
        "errors": [],
        "peak_reset": False,
    }
    torch = sys.modules.get("torch")
    if torch is None or getattr(torch, "cuda", None) is None:
        out["status"] = STATUS_NO_TORCH
    else:
        out["torch_imported"] = True
        out["torch_version"] = str(getattr(torch, "__version__", "unknown"))
        initialised = bool(torch.cuda.is_initialized())
        out["cuda_initialized"] = initialised
        if not initialised:
            out["status"] = STATUS_NO_CUDA
        else:
            try:
                indices = used_devices(torch)
                segments = _segments(torch, out["errors"]) if include_snapshot else None
                for i in indices:
                    out["devices"].append(device_figures(torch, i, include_summary, segments, out["errors"]))
                if reset_peak:
                    for i in indices:
                        torch.cuda.reset_peak_memory_stats(i)
                    out["peak_reset"] = True
                out["status"] = "Allocator statistics of %d GPU(s) in use." % len(indices)
            except Exception as exc:
                out["errors"].append("%s: %s" % (type(exc).__name__, exc))
                out["status"] = "The probe failed inside the process: %s" % exc
    out["probe_duration_s"] = time.perf_counter() - start
    return out


def write_json(doc: "dict[str, Any]", path: str) -> None:
    """Write ``doc`` to ``path`` through a 0600 temporary file in the same (0700) folder, then rename."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(doc, fh)
    os.replace(tmp, path)


def run_to_file(path: str, reset_peak: bool = False, include_summary: bool = True,
                include_snapshot: bool = True) -> None:
    """Entry point for injected runs: collect and write; failures are written as the result, not raised."""
    try:
        doc = collect(reset_peak, include_summary, include_snapshot)
    except Exception as exc:
        doc = {"probe_version": PROBE_VERSION, "pid": os.getpid(), "status": "probe failed: %s" % exc,
               "errors": ["%s: %s" % (type(exc).__name__, exc)], "devices": []}
    try:
        write_json(doc, path)
    except OSError as exc:
        # The caller's folder is gone (it timed out and cleaned up) or unwritable: report on stderr only.
        sys.stderr.write("gpudesk probe: could not write its result to %s: %s\n" % (path, exc))
