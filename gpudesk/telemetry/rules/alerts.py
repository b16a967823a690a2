"""Alerts: the conditions worth interrupting someone for, judged live on each sample batch and NVML event.

Kinds (each raised once per episode per GPU, then re-armed when the condition clears):

* ``job-finished`` - a GPU that was busy for at least ``job_busy_min_s`` is now idle with its memory released
  (under ``allocated_bytes``) for ``job_idle_s``.
* ``idle-while-allocated`` - memory held (at least ``allocated_bytes``) while the busy signal stays under
  ``idle_pct`` for ``idle_s``: a notebook or a hung job keeps a GPU nobody else can use.
* ``memory-running-out`` - memory used rises (least-squares slope over ``memory_window_s``, at least
  ``memory_min_rise_bytes``) and at that rate reaches the total within ``memory_horizon_s``: "memory will run out
  in ~T at this rate".
* ``throttling`` - NVML clock-event reasons name power or thermal slowdown (``nvmlClocksEventReason*`` bits) for
  ``throttle_s``.
* ``xid`` / ``ecc`` - NVML events (:mod:`gpudesk.nvml.events`): every Xid, double-bit ECC at once, single-bit ECC
  at most once per ``repeat_s``. Xid meanings from NVIDIA's Xid catalogue,
  https://docs.nvidia.com/deploy/xid-errors/index.html.

The busy signal is the best one the sample carries (SM active, graphics-engine active, NVML utilization: the same
choice as the rules, :mod:`gpudesk.telemetry.rules.busy_signal`). Thresholds default to the rules' own
(:class:`~gpudesk.telemetry.rules.thresholds.Thresholds`: ``low_util_pct``, ``idle_util_pct``, ``idle_mem_bytes``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from gpudesk.i18n import _
from gpudesk.nvml.events import KIND_ECC_DBE, KIND_XID, NvmlEvent
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules import throttling as throttling_rule
from gpudesk.telemetry.rules.busy_signal import BUSY_SIGNALS
from gpudesk.units import MIB as MiB, format_bytes, format_duration
from gpudesk.telemetry.rules.thresholds import Thresholds


class AlertKind(str, Enum):
    JOB_FINISHED = "job-finished"
    IDLE_ALLOCATED = "idle-while-allocated"
    MEMORY_RUNNING_OUT = "memory-running-out"
    THROTTLING = "throttling"
    XID = "xid"
    ECC = "ecc"
    FINDING = "finding"  # a findings rule judged on the live window (gpudesk.telemetry.rules.live_rules)


INFO, WARNING, CRITICAL = "info", "warning", "critical"

# Xid codes -> meaning (NVIDIA Xid catalogue); the ones that need a reset or mean lost data are critical.
XID_MEANINGS: dict[int, str] = {
    13: "Graphics Engine Exception", 31: "GPU memory page fault", 43: "GPU stopped processing",
    45: "Preemptive cleanup, due to previous errors", 48: "Double Bit ECC Error", 61: "Internal micro-controller "
    "breakpoint/warning", 62: "Internal micro-controller halt", 63: "ECC page retirement or row remapping recording "
    "event", 64: "ECC page retirement or row remapper recording failure", 74: "NVLink Error", 79: "GPU has fallen off "
    "the bus", 92: "High single-bit ECC error rate", 94: "Contained ECC error", 95: "Uncontained ECC error",
    119: "GSP RPC Timeout", 120: "GSP Error",
}
XID_CRITICAL = frozenset({48, 62, 64, 74, 79, 95, 119, 120})


@dataclass
class AlertThresholds:
    """When each alert fires (units in the names)."""

    busy_pct: float = Thresholds.low_util_pct
    idle_pct: float = Thresholds.idle_util_pct
    allocated_bytes: float = float(Thresholds.idle_mem_bytes)
    idle_s: float = 600.0
    job_busy_min_s: float = 60.0
    job_idle_s: float = 30.0
    memory_window_s: float = 300.0
    memory_horizon_s: float = 1800.0
    memory_min_rise_bytes: float = 256.0 * MiB
    throttle_s: float = 30.0
    repeat_s: float = 3600.0

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_rules(cls, rules: Thresholds, **overrides: float) -> AlertThresholds:
        """The alert thresholds that are the rules' own taken from ``rules`` (the thresholds the user edited for
        the findings), so a live alert and a finding judge busy, idle and allocated alike."""
        return cls(busy_pct=rules.low_util_pct, idle_pct=rules.idle_util_pct,
                   allocated_bytes=float(rules.idle_mem_bytes), **overrides)


@dataclass
class Alert:
    kind: AlertKind
    severity: str
    gpu_index: int | None
    gpu_uuid: str | None
    t: float
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    rule: str = ""  # the rule that raised it: a findings rule's id, or the kind's own condition (its value)

    def __post_init__(self) -> None:
        if not self.rule:
            self.rule = self.kind.value

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "rule": self.rule, "severity": self.severity, "gpu_index": self.gpu_index,
                "gpu_uuid": self.gpu_uuid, "t": self.t, "message": self.message, "evidence": self.evidence}


@dataclass
class _GpuState:
    busy_since: float | None = None
    job_running: bool = False
    job_started: float | None = None
    done_since: float | None = None
    idle_alloc_since: float | None = None
    throttle_since: float | None = None
    memory: deque[tuple[float, float]] = field(default_factory=deque)
    armed: dict[AlertKind, bool] = field(default_factory=lambda: {k: True for k in AlertKind})


def busy_value(values: dict[str, float | None]) -> tuple[str, float] | None:
    """(metric, value) of the best busy signal in one sample, or None when none was read."""
    for metric in BUSY_SIGNALS:
        v = values.get(metric)
        if v is not None:
            return metric, float(v)
    return None


class AlertEngine:
    """Feed it batches (:meth:`feed`) and NVML events (:meth:`feed_events`); it returns the alerts they raise."""

    def __init__(self, thresholds: AlertThresholds | None = None) -> None:
        self.th = thresholds or AlertThresholds()
        self._gpus: dict[int, _GpuState] = {}
        self._events_last: dict[tuple[int | None, str], float] = {}

    def _state(self, gpu: int) -> _GpuState:
        return self._gpus.setdefault(gpu, _GpuState())

    def feed(self, batch: Any) -> list[Alert]:
        out: list[Alert] = []
        for s in batch.samples:
            out.extend(self._sample(s.t, s.gpu_index, s.gpu_uuid, s.values))
        return out

    def _fire(self, st: _GpuState, kind: AlertKind, alert: Alert) -> list[Alert]:
        if not st.armed[kind]:
            return []
        st.armed[kind] = False
        return [alert]

    def _sample(self, t: float, gpu: int, uuid: str | None, values: dict[str, float | None]) -> list[Alert]:
        th, st = self.th, self._state(gpu)
        out: list[Alert] = []
        busy = busy_value(values)
        mem = values.get(m.MEM_USED)
        total = values.get(m.MEM_TOTAL)
        # --- job running / finished ------------------------------------------------------------------------
        if busy is not None and busy[1] >= th.busy_pct:
            st.busy_since = st.busy_since if st.busy_since is not None else t
            st.done_since = None
            if not st.job_running and t - st.busy_since >= th.job_busy_min_s:
                st.job_running, st.job_started = True, st.busy_since
                st.armed[AlertKind.JOB_FINISHED] = True
        else:
            st.busy_since = None
        idle = busy is not None and busy[1] < th.idle_pct
        released = mem is not None and mem < th.allocated_bytes
        if st.job_running and idle and released:
            st.done_since = st.done_since if st.done_since is not None else t
            if t - st.done_since >= th.job_idle_s:
                ran = st.done_since - (st.job_started or st.done_since)
                st.job_running = False
                out += self._fire(st, AlertKind.JOB_FINISHED, Alert(
                    AlertKind.JOB_FINISHED, INFO, gpu, uuid, t,
                    _("GPU {gpu}: the job finished: it ran for {ran} and released its memory {ago} ago.").format(
                        gpu=gpu, ran=format_duration(ran), ago=format_duration(t - st.done_since)),
                    {"ran_s": round(ran, 1), "idle_s": round(t - st.done_since, 1)}))
        # --- idle while allocated ---------------------------------------------------------------------------
        if idle and mem is not None and mem >= th.allocated_bytes:
            st.idle_alloc_since = st.idle_alloc_since if st.idle_alloc_since is not None else t
            if t - st.idle_alloc_since >= th.idle_s:
                assert busy is not None
                out += self._fire(st, AlertKind.IDLE_ALLOCATED, Alert(
                    AlertKind.IDLE_ALLOCATED, WARNING, gpu, uuid, t,
                    _("GPU {gpu} has been idle for {idle} while {mem} of its memory stays allocated.").format(
                        gpu=gpu, idle=format_duration(t - st.idle_alloc_since), mem=format_bytes(mem)),
                    {"idle_s": round(t - st.idle_alloc_since, 1), "mem_used_bytes": mem, "busy_signal": busy[0],
                     "busy_value_pct": busy[1]}))
        else:
            st.idle_alloc_since = None
            st.armed[AlertKind.IDLE_ALLOCATED] = True
        # --- memory running out -----------------------------------------------------------------------------
        if mem is not None:
            st.memory.append((t, float(mem)))
            while st.memory and t - st.memory[0][0] > th.memory_window_s:
                st.memory.popleft()
            out += self._memory(st, gpu, uuid, t, float(mem), total)
        # --- throttling -------------------------------------------------------------------------------------
        reasons = values.get(m.CLOCK_EVENTS)
        slowed = reasons is not None and int(reasons) & (m.POWER_THROTTLE_BITS | m.THERMAL_THROTTLE_BITS
                                                         | m.HW_SLOWDOWN_BIT)
        if slowed:
            assert reasons is not None
            st.throttle_since = st.throttle_since if st.throttle_since is not None else t
            if t - st.throttle_since >= th.throttle_s:
                bits = int(reasons)
                why = (_("heat") if bits & m.THERMAL_THROTTLE_BITS else _("power cap") if bits & m.POWER_THROTTLE_BITS
                       else _("hardware slowdown"))
                out += self._fire(st, AlertKind.THROTTLING, Alert(
                    AlertKind.THROTTLING, WARNING, gpu, uuid, t,
                    _("GPU {gpu} has been slowed by {why} for {length} (clock event reasons 0x{bits:x}).").format(
                        gpu=gpu, why=why, length=format_duration(t - st.throttle_since), bits=bits),
                    {"clock_event_reasons": bits, "throttled_s": round(t - st.throttle_since, 1)},
                    rule=throttling_rule.RULE_THERMAL if bits & m.THERMAL_THROTTLE_BITS else throttling_rule.RULE_POWER))
        else:
            st.throttle_since = None
            st.armed[AlertKind.THROTTLING] = True
        return out

    def _memory(self, st: _GpuState, gpu: int, uuid: str | None, t: float, mem: float,
                total: float | None) -> list[Alert]:
        th = self.th
        pts = np.asarray(st.memory, dtype=np.float64)
        if total is None or pts.shape[0] < 5 or pts[-1, 0] - pts[0, 0] < min(60.0, th.memory_window_s / 2):
            return []
        rise = pts[-1, 1] - pts[0, 1]
        slope = float(np.polyfit(pts[:, 0] - pts[0, 0], pts[:, 1], 1)[0])  # bytes per second
        eta = (float(total) - mem) / slope if slope > 0 else float("inf")
        if rise < th.memory_min_rise_bytes or eta > th.memory_horizon_s:
            if eta > 2 * th.memory_horizon_s:
                st.armed[AlertKind.MEMORY_RUNNING_OUT] = True
            return []
        return self._fire(st, AlertKind.MEMORY_RUNNING_OUT, Alert(
            AlertKind.MEMORY_RUNNING_OUT, CRITICAL if eta < th.memory_horizon_s / 3 else WARNING, gpu, uuid, t,
            _("GPU {gpu}: memory will run out in ~{eta} at this rate ({rate}/min; {used} of {total} used).").format(
                gpu=gpu, eta=format_duration(max(eta, 0.0)), rate=format_bytes(slope * 60), used=format_bytes(mem),
                total=format_bytes(total)),
            {"eta_s": round(eta, 1), "slope_bytes_per_s": round(slope, 1), "mem_used_bytes": mem,
             "mem_total_bytes": total, "window_s": round(float(pts[-1, 0] - pts[0, 0]), 1)}))

    def feed_events(self, events: list[NvmlEvent], t: float, uuids: dict[int, str | None] | None = None
                    ) -> list[Alert]:
        out: list[Alert] = []
        for ev in events:
            uuid = (uuids or {}).get(ev.gpu_index) if ev.gpu_index is not None else None
            gpu_text = _("GPU {gpu}").format(gpu=ev.gpu_index) if ev.gpu_index is not None else _("A GPU")
            where = {"gpu_instance_id": ev.gpu_instance_id, "compute_instance_id": ev.compute_instance_id}
            if ev.kind == KIND_XID:
                meaning = XID_MEANINGS.get(ev.code)
                text = (_("{gpu}: Xid {code} ({meaning}).").format(gpu=gpu_text, code=ev.code, meaning=meaning)
                        if meaning else _("{gpu}: Xid {code}.").format(gpu=gpu_text, code=ev.code))
                out.append(Alert(AlertKind.XID, CRITICAL if ev.code in XID_CRITICAL else WARNING, ev.gpu_index,
                                 uuid, t, text, {"xid": ev.code, **where}))
                continue
            key = (ev.gpu_index, ev.kind)
            double = ev.kind == KIND_ECC_DBE
            if not double and t - self._events_last.get(key, -1e300) < self.th.repeat_s:
                continue
            self._events_last[key] = t
            text = (_("{gpu}: uncorrectable (double-bit) ECC error; data in GPU memory may be corrupt.") if double
                    else _("{gpu}: correctable (single-bit) ECC errors are being reported.")).format(gpu=gpu_text)
            out.append(Alert(AlertKind.ECC, CRITICAL if double else WARNING, ev.gpu_index, uuid, t, text,
                             {"ecc": ev.kind, **where}))
        return out
