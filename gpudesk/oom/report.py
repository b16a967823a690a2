"""The data the OOM doctor collects about one out-of-memory situation: :class:`MemoryReport`.

Every memory figure is in bytes (``int``), every time in seconds; a figure that could not be read is
``None``, never 0. The names follow PyTorch's caching-allocator terms (``torch.cuda.memory_stats`` keys,
see ``torch/cuda/memory.py``) and NVML's (``nvmlProcessInfo_t.usedGpuMemory``):

* ``allocated_bytes``: live tensor blocks (``allocated_bytes.all.current`` / "allocated by PyTorch");
* ``reserved_bytes``: segments the caching allocator holds (``reserved_bytes.all.current``);
* reserved but unallocated = reserved − allocated (the cache; where it cannot be released it is
  ``inactive_split_bytes``, "Non-releasable memory" in ``memory_summary``);
* ``process_used_bytes``: NVML's per-process figure (the "Including non-PyTorch memory, this process has"
  clause), which also counts the CUDA context, NCCL, cuBLAS and other libraries;
* ``allowed_bytes``: a per-process cap (``torch.cuda.set_per_process_memory_fraction``: "N GiB allowed;", or
  the "PyTorch limit (set by user-supplied memory fraction)" line); Apple MPS's high-watermark limit is the
  ``total_bytes`` of an MPS report;
* ``other_allocations_bytes``: Apple MPS's "other allocations" (driver memory of this process that is not a
  live MPS tensor: the MPS heap cache, Metal buffers of other libraries).

A report comes from pasted text (:func:`gpudesk.oom.parse_text`), a probe inside the process, a launched
job, or the non-invasive evidence (NVML, psutil). ``to_dict()`` gives the JSON form (keys carry units).
"""

from __future__ import annotations

from gpudesk.i18n import _

import dataclasses
from dataclasses import dataclass, field
from typing import Any

REPORT_VERSION = 1

# Where a report came from.
SOURCES = ("text", "probe", "launch", "agent", "evidence", "snapshot")


@dataclass
class ProcessMemory:
    """One process's GPU memory as NVML (or the OOM text's "Process P has ..." clause) reports it.

    ``used_bytes`` is None where NVML cannot tell (Windows WDDM, MIG without privileges). ``alive`` is None
    when it was not checked, False when the PID no longer exists on this host (a zombie holder or a PID
    from another PID namespace). ``given`` is True for a figure the user typed (no PID, no tool read it).
    """

    pid: int
    used_bytes: int | None
    gpu_index: int | None = None
    name: str | None = None
    user: str | None = None
    alive: bool | None = None
    is_target: bool = False
    given: bool = False  # typed by the user beside the text (gpudesk.oom.user_context), not read from a tool


@dataclass
class DeviceMemory:
    """Memory of one GPU as seen by the allocator, NVML and the OOM text (all bytes, None = unknown).

    ``index`` is the CUDA index inside the target process (what PyTorch and its OOM message call "GPU N",
    after CUDA_VISIBLE_DEVICES); for NVML-only evidence it is NVML's index. ``uuid`` ("GPU-..." as NVML writes
    it) ties the two together when known.
    """

    index: int | None = None
    name: str | None = None
    uuid: str | None = None
    total_bytes: int | None = None
    free_bytes: int | None = None
    allocated_bytes: int | None = None
    reserved_bytes: int | None = None
    private_pool_bytes: int | None = None
    peak_allocated_bytes: int | None = None
    peak_reserved_bytes: int | None = None
    inactive_split_bytes: int | None = None
    largest_free_block_bytes: int | None = None
    num_alloc_retries: int | None = None
    num_ooms: int | None = None
    oversize_allocations: int | None = None
    oversize_segments: int | None = None
    process_used_bytes: int | None = None
    other_processes: list[ProcessMemory] = field(default_factory=list)
    memory_summary: str | None = None
    allowed_bytes: int | None = None
    other_allocations_bytes: int | None = None

    @property
    def reserved_unallocated_bytes(self) -> int | None:
        """reserved − allocated: the allocator's cache (freeable or fragmented); None if either is unknown."""
        if self.reserved_bytes is None or self.allocated_bytes is None:
            return None
        return max(0, self.reserved_bytes - self.allocated_bytes)

    @property
    def fragmentation_ratio(self) -> float | None:
        """(reserved − allocated) / reserved, oom.md §3.1 ``frag_ratio = R/(A+R)``; None when unknown."""
        unalloc = self.reserved_unallocated_bytes
        if unalloc is None or not self.reserved_bytes:
            return None
        return unalloc / self.reserved_bytes

    @property
    def other_processes_bytes(self) -> int | None:
        """Sum of the other processes' NVML memory on this GPU; None when none was listed or none known."""
        known = [p.used_bytes for p in self.other_processes if p.used_bytes is not None and not p.is_target]
        return sum(known) if known else None

    @property
    def non_pytorch_bytes(self) -> int | None:
        """NVML process memory − reserved: CUDA context, NCCL, cuBLAS, extensions (oom.md §5)."""
        if self.process_used_bytes is None or self.reserved_bytes is None:
            return None
        return self.process_used_bytes - self.reserved_bytes

    @property
    def unattributed_bytes(self) -> int | None:
        """total − free − this process − other processes: display, driver, hidden PIDs (oom.md §3.1)."""
        if self.total_bytes is None or self.free_bytes is None or self.process_used_bytes is None:
            return None
        return self.total_bytes - self.free_bytes - self.process_used_bytes - (self.other_processes_bytes or 0)


@dataclass
class MemorySample:
    """One point of a memory curve: time since the job started (s), per GPU allocator figures, host RSS."""

    t_s: float
    pid: int | None = None
    device_index: int | None = None
    allocated_bytes: int | None = None
    reserved_bytes: int | None = None
    peak_allocated_bytes: int | None = None
    process_used_bytes: int | None = None
    host_rss_bytes: int | None = None
    step: int | None = None


@dataclass
class WorkerState:
    """A child process of the target (DataLoader worker, engine core): its psutil status and memory."""

    pid: int
    status: str
    name: str | None = None
    rss_bytes: int | None = None
    on_gpu: bool | None = None


@dataclass
class MemoryReport:
    """Everything known about one OOM situation. See the module docstring for the terms.

    Attributes:
        source: one of :data:`SOURCES`.
        framework: "pytorch", "tensorflow", "jax", "vllm" or "unknown".
        kind: the message shape that was recognised, e.g. "pytorch_oom", "memory_summary",
            "tf_resource_exhausted", "tf_bfc_dump", "xla_resource_exhausted", "cublas_alloc_failed",
            "cuda_error_oom", "cuda_driver_oom", "vllm_kv_cache", "probe" or "unknown".
        era: the PyTorch message era when recognisable (e.g. "<=1.3 cached", "2.2+ nvml").
        requested_bytes: the single allocation that failed ("Tried to allocate ...").
        device_index: the GPU the failure happened on.
        devices: per-GPU figures; the failing GPU first when known.
        parsed: every number read from the input, name -> bytes / count (the CLI's ``parsed`` object).
        missing: the clauses a complete message would have but this input lacks (truncated, garbled).
        notes: plain remarks about the input (bogus values treated as unknown, PID namespace hints...).
        alloc_conf: allocator settings in force (``PYTORCH_ALLOC_CONF`` / ``PYTORCH_CUDA_ALLOC_CONF``),
            option -> value, when known (probe, launch, or a log line that printed them).
        alloc_conf_hint: the setting the message itself recommends, verbatim.
        tensor_shape / dtype / allocator_name: TensorFlow's failing tensor and BFC allocator.
        platform: the accelerator platform the text names ("cuda", "rocm", "mps", "xpu", "tpu"), None if unsaid.
        host_os: the operating system the job ran on ("linux", "windows", "wsl", "macos"), from the text's words
            or the user (gpudesk.oom.user_context), None if unsaid; ``host_os_given`` is True when the user gave it.
        engine: the serving engine that printed it ("vllm", "sglang", "trtllm", "tgi", "llamacpp", "ollama").
        runtime / backend: the runtime that printed the text ("onnxruntime", "tensorrt", "nccl", "mlx", "jax", ...)
            and the device backend it names ("cuda", "rocm", "metal", "vulkan", "tpu", "directml", "cpu"), from
            the extraction layer (gpudesk.oom.parsers.generic); None when unsaid.
        signature: what kind of failure the text's words say it is (gpudesk.oom.signatures), None if none.
        mig_profile: the MIG profile the text names ("3g.20gb"); graph_capture: the traceback runs through
            CUDA-graph capture.
        max_model_len_tokens / kv_cache_tokens: vLLM's start-up check (tokens).
        samples: memory curve (launch / agent sampling over time).
        host_rss_samples: (t_s, rss_bytes) of the target process over time (pinned host memory growth).
        workers: the target's child processes and their states.
        torch_imported / cuda_initialized: what the probe found (None for text input).
        torch_version / python_version: from the probe.
        status: a plain sentence about the collection ("CUDA not initialised in this process ...").
        text: the input text (for text reports), kept so nothing is lost.
    """

    source: str = "text"
    framework: str = "unknown"
    kind: str = "unknown"
    era: str | None = None
    requested_bytes: int | None = None
    device_index: int | None = None
    devices: list[DeviceMemory] = field(default_factory=list)
    parsed: dict[str, int | float | str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    alloc_conf: dict[str, str] = field(default_factory=dict)
    alloc_conf_hint: str | None = None
    tensor_shape: list[int] | None = None
    dtype: str | None = None
    allocator_name: str | None = None
    max_model_len_tokens: int | None = None
    kv_cache_tokens: int | None = None
    samples: list[MemorySample] = field(default_factory=list)
    host_rss_samples: list[tuple[float, int]] = field(default_factory=list)
    workers: list[WorkerState] = field(default_factory=list)
    pid: int | None = None
    torch_imported: bool | None = None
    cuda_initialized: bool | None = None
    torch_version: str | None = None
    python_version: str | None = None
    status: str | None = None
    text: str | None = None
    platform: str | None = None
    host_os: str | None = None
    host_os_given: bool = False
    engine: str | None = None
    runtime: str | None = None
    backend: str | None = None
    signature: str | None = None
    mig_profile: str | None = None
    graph_capture: bool = False

    @property
    def device(self) -> DeviceMemory | None:
        """The failing GPU's figures (or the first GPU's), None when no GPU figure is known."""
        if not self.devices:
            return None
        for dev in self.devices:
            if self.device_index is not None and dev.index == self.device_index:
                return dev
        return self.devices[0]

    def ensure_device(self, index: int | None) -> DeviceMemory:
        """The :class:`DeviceMemory` for GPU ``index``, created (and appended) when absent."""
        for dev in self.devices:
            if dev.index == index:
                return dev
        dev = DeviceMemory(index=index)
        self.devices.append(dev)
        return dev

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (version, all fields; devices with derived figures)."""
        out = dataclasses.asdict(self)
        out["version"] = REPORT_VERSION
        for dev_dict, dev in zip(out["devices"], self.devices):
            dev_dict["reserved_unallocated_bytes"] = dev.reserved_unallocated_bytes
            dev_dict["non_pytorch_bytes"] = dev.non_pytorch_bytes
            dev_dict["unattributed_bytes"] = dev.unattributed_bytes
            dev_dict["fragmentation_ratio"] = dev.fragmentation_ratio
        out["host_rss_samples"] = [list(s) for s in self.host_rss_samples]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryReport:
        """Inverse of :meth:`to_dict`; unknown keys are ignored, derived device figures recomputed.

        Raises:
            ValueError: ``data`` is not a dict or holds a field of the wrong shape.
        """
        if not isinstance(data, dict):
            raise ValueError(_('A memory report must be a JSON object, got {type}.').format(type=type(data).__name__))
        try:
            return cls._from_dict(data)
        except (AttributeError, TypeError) as exc:
            raise ValueError(_('Memory report has a field of the wrong shape: {exc}').format(exc=exc)) from exc

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> MemoryReport:
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        dev_names = {f.name for f in dataclasses.fields(DeviceMemory)}
        proc_names = {f.name for f in dataclasses.fields(ProcessMemory)}
        devices = []
        for d in kwargs.get("devices") or []:
            d = {k: v for k, v in d.items() if k in dev_names}
            d["other_processes"] = [
                ProcessMemory(**{k: v for k, v in p.items() if k in proc_names}) for p in d.get("other_processes") or []
            ]
            devices.append(DeviceMemory(**d))
        kwargs["devices"] = devices
        sample_names = {f.name for f in dataclasses.fields(MemorySample)}
        kwargs["samples"] = [
            MemorySample(**{k: v for k, v in s.items() if k in sample_names}) for s in kwargs.get("samples") or []
        ]
        worker_names = {f.name for f in dataclasses.fields(WorkerState)}
        kwargs["workers"] = [
            WorkerState(**{k: v for k, v in w.items() if k in worker_names}) for w in kwargs.get("workers") or []
        ]
        kwargs["host_rss_samples"] = [(float(t), int(b)) for t, b in kwargs.get("host_rss_samples") or []]
        return cls(**kwargs)
