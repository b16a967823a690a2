"""Bootstrap for ``gpudesk oom run``: copied as ``sitecustomize.py`` into a private folder put first on the
job's PYTHONPATH, next to ``_gpudesk_probe.py`` (a copy of :mod:`gpudesk.oom.probe_script`).

Standard library only, and inert unless ``GPUDESK_OOM_DIR`` is set (so importing this module elsewhere does
nothing). In each Python process of the job it:

* starts a daemon thread that every ``GPUDESK_OOM_INTERVAL_S`` seconds appends one JSON line to
  ``$GPUDESK_OOM_DIR/<pid>.jsonl`` (created 0600): ``{"type": "sample", "t", "pid", "devices": [{"index",
  "allocated_bytes", "reserved_bytes", "peak_allocated_bytes"}]}`` once torch is imported and CUDA is
  initialised by the job itself, or ``{"type": "status", "status": ...}`` while it is not;
* once CUDA is in use, attaches PyTorch's OOM observer (``torch._C._cuda_attach_out_of_memory_observer``),
  which runs before the exception unwinds and writes ``{"type": "oom", "device", "alloc_bytes",
  "device_allocated_bytes", "device_free_bytes", "probe": {...}, "snapshot": path|null}``; with
  ``GPUDESK_OOM_RECORD_HISTORY=1`` it also enables ``torch.cuda.memory._record_memory_history`` and dumps
  the snapshot pickle at the OOM (view it at pytorch.org/memory_viz);
* at exit writes ``{"type": "final", "probe": {...}}``;
* then imports the job's own ``sitecustomize`` if it has one, so nothing of the job's set-up is lost.

It never imports torch and never initialises CUDA; the sampler thread only reads devices with reserved
memory (a new thread's current device is 0, so it calls nothing that uses the current device, except
``set_device`` to a device already in use before enabling history recording).
"""

import os
import sys

MYPY = False
if MYPY:  # type checkers only: nothing more is imported into the job (annotations are quoted text)
    from typing import Any


def _start(folder: str) -> None:
    import atexit
    import json
    import threading
    import time

    import _gpudesk_probe as probe

    interval = float(os.environ.get("GPUDESK_OOM_INTERVAL_S", "0.5"))
    record = os.environ.get("GPUDESK_OOM_RECORD_HISTORY") == "1"
    pid = os.getpid()
    fd = os.open(os.path.join(folder, "%d.jsonl" % pid), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    lock = threading.Lock()
    state: dict[str, Any] = {"observer": False, "history": False, "status": None}

    def emit(doc: "dict[str, Any]") -> None:
        doc["pid"] = pid
        doc["t"] = time.time()
        data = (json.dumps(doc) + "\n").encode("utf-8")
        with lock:
            os.write(fd, data)

    def on_oom(device: int, alloc: int, device_alloc: int, device_free: int) -> None:
        torch = sys.modules.get("torch")
        doc = probe.collect(include_summary=True, include_snapshot=True)
        snapshot = None
        if state["history"] and torch is not None:
            path = os.path.join(folder, "%d-oom-snapshot.pickle" % pid)
            try:
                torch.cuda.memory._dump_snapshot(path)
                snapshot = path
            except Exception as exc:  # reported in the event; an observer must not raise into the allocator
                doc.setdefault("errors", []).append("snapshot dump: %s" % exc)
        emit({"type": "oom", "device": device, "alloc_bytes": alloc, "device_allocated_bytes": device_alloc,
              "device_free_bytes": device_free, "probe": doc, "snapshot": snapshot})

    def set_status(text: str) -> None:
        if state["status"] != text:
            state["status"] = text
            emit({"type": "status", "status": text})

    def tick() -> None:
        torch = sys.modules.get("torch")
        cuda = getattr(torch, "cuda", None) if torch is not None else None
        if torch is None or cuda is None or not hasattr(cuda, "is_initialized"):
            set_status(probe.STATUS_NO_TORCH)
            return
        if not cuda.is_initialized():
            set_status(probe.STATUS_NO_CUDA)
            return
        devices = probe.used_devices(torch)
        if not devices:
            set_status("CUDA initialised; no GPU memory allocated yet.")
            return
        if not state["observer"]:
            state["observer"] = True  # one try: a torch without the hook still gets sampled
            attach = getattr(torch._C, "_cuda_attach_out_of_memory_observer", None)
            if attach is None:
                emit({"type": "status", "status": "this torch has no OOM observer; the OOM moment is not caught"})
            else:
                attach(on_oom)
            if record:
                cuda.set_device(devices[0])  # a device already in use: its context exists, none is created
                cuda.memory._record_memory_history(max_entries=100000)
                state["history"] = True
        set_status("sampling")
        emit({"type": "sample", "devices": [
            {"index": i, "allocated_bytes": cuda.memory_allocated(i), "reserved_bytes": cuda.memory_reserved(i),
             "peak_allocated_bytes": cuda.max_memory_allocated(i)} for i in devices]})

    def loop() -> None:
        while True:
            try:
                tick()
            except Exception as exc:  # e.g. torch half-imported by the main thread; report and keep sampling
                set_status("sampler error: %s: %s" % (type(exc).__name__, exc))
            time.sleep(interval)

    def final() -> None:
        emit({"type": "final", "probe": probe.collect(include_summary=True, include_snapshot=False)})

    emit({"type": "hello", "python_version": sys.version.split()[0]})
    threading.Thread(target=loop, name="gpudesk-oom-sampler", daemon=True).start()
    atexit.register(final)


def _chain_user_sitecustomize() -> None:
    """Import the sitecustomize that ours shadows, if any (with our folder removed from sys.path)."""
    import importlib

    here = os.path.dirname(os.path.abspath(__file__))
    saved_path = sys.path[:]
    ours = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        importlib.import_module("sitecustomize")
    except ModuleNotFoundError as exc:
        if exc.name != "sitecustomize":
            raise
    finally:
        sys.path[:] = saved_path
        if ours is not None:
            sys.modules["sitecustomize"] = ours


if os.environ.get("GPUDESK_OOM_DIR") and __name__ == "sitecustomize":
    _start(os.environ["GPUDESK_OOM_DIR"])
    _chain_user_sitecustomize()
