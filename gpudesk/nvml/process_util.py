"""Per-process SM and memory-bandwidth utilization from NVML.

``nvmlDeviceGetProcessesUtilizationInfo`` (driver >= 550; one ``nvmlProcessUtilizationInfo_v1_t`` per sample with
``smUtil``, ``memUtil``, ``encUtil``, ``decUtil``, ``jpgUtil``, ``ofaUtil``) or, on older drivers,
``nvmlDeviceGetProcessUtilization`` (``nvmlProcessUtilizationSample_t``). Both return the samples the driver kept
since ``lastSeenTimeStamp`` (microseconds), several per process possibly; the newest one per PID is used (as nvitop
does). NVML answers NOT_FOUND when no process ran a kernel since that time: that is "no samples", not an error.
Source: https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html (nvmlDeviceGetProcessUtilization,
nvmlDeviceGetProcessesUtilizationInfo).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudesk.nvml.nvml_session import NvmlSession


@dataclass(frozen=True)
class ProcessUtilization:
    """One process's share of one GPU over the last sample period, in percent of the GPU."""

    pid: int
    sm_util_pct: float
    mem_util_pct: float
    timestamp_us: int


@dataclass
class ProcessUtilizationReading:
    """PID -> utilization of one GPU, or the reason none could be read (``reason``; empty ``by_pid`` then)."""

    by_pid: dict[int, ProcessUtilization] = field(default_factory=dict)
    reason: str | None = None
    call: str = ""


def read_process_utilization(session: NvmlSession, index: int, since_us: int = 0) -> ProcessUtilizationReading:
    """The newest utilization sample per process on GPU ``index`` since ``since_us`` (0: all the driver kept)."""
    nv = session.nvml
    handle = session.handle(index)
    if nv is None or handle is None:
        return ProcessUtilizationReading(reason="GPU handle unavailable")
    for name in ("nvmlDeviceGetProcessesUtilizationInfo", "nvmlDeviceGetProcessUtilization"):
        fn = getattr(nv, name, None)
        if fn is None or name in session.missing_functions:
            continue
        samples, why = session.call(fn, handle, since_us)
        if samples is None:
            if why is not None and why.startswith("FunctionNotFound"):
                continue  # an older driver: try the older call
            if why is not None and why.startswith("NotFound"):
                return ProcessUtilizationReading(call=name)  # no process ran since then
            return ProcessUtilizationReading(reason=why, call=name)
        out: dict[int, ProcessUtilization] = {}
        for s in samples:
            pid, ts = int(s.pid), int(s.timeStamp)
            if pid in (0, 0xFFFFFFFF):
                continue
            old = out.get(pid)
            if old is None or ts >= old.timestamp_us:
                out[pid] = ProcessUtilization(pid, float(s.smUtil), float(s.memUtil), ts)
        return ProcessUtilizationReading(out, call=name)
    return ProcessUtilizationReading(reason="FunctionNotFound")
