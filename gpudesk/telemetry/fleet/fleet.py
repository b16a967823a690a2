"""A fleet of GPUs across many nodes: who each GPU is, its history, grouping by host or job, and findings.

Every fleet source (Prometheus, exporter scrape, ``dcgmi dmon`` text) yields the same two shapes:

* :class:`FleetSnapshot` - one :class:`~gpudesk.telemetry.core.model.SampleBatch` at one moment plus the
  :class:`GpuKey` of each sample;
* :class:`FleetHistory` - a :class:`~gpudesk.telemetry.core.model.History` plus the keys.

In both, a sample's / row's ``gpu`` is the *position* of its GPU in ``keys`` (GPUs of different hosts share
NVML indices, so the position is what keeps them apart); the key carries the host, the GPU's own index, its UUID,
its MIG instance and the job labels. The recorder, heat maps and rules work on these frames unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpudesk import i18n
from gpudesk.i18n import N_, _
from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import SampleBatch, History
from gpudesk.telemetry.rules import Finding, run_rules
from gpudesk.telemetry.rules.base import CRITICAL, WARNING

GROUP_BY_HOST = "host"
GROUP_BY_JOB = "job"
NO_JOB = N_("(no job)")  # the group of GPUs no job holds, shown translated (no_job_group)

# A GPU a job holds is "allocated but idle" when its utilization stays at or below this share of the time.
IDLE_UTIL_PCT = 5.0
IDLE_SHARE = 0.9


@dataclass(frozen=True)
class GpuKey:
    """Who a GPU (or MIG instance) is: host, NVML index, UUID, MIG instance, model and job labels.

    ``identity`` (host, UUID or index, MIG instance) is what tells two GPUs apart; the job labels change when
    pods come and go and are not part of it.
    """

    host: str
    gpu_index: int | None
    uuid: str | None = None
    mig_instance: int | None = None
    mig_profile: str | None = None
    model_name: str | None = None
    job: tuple[tuple[str, str], ...] = ()

    @property
    def identity(self) -> tuple[str, str, int | None]:
        who = self.uuid or ("" if self.gpu_index is None else str(self.gpu_index))
        return (self.host, who, self.mig_instance)

    @property
    def job_name(self) -> str | None:
        """``namespace/pod`` (Kubernetes) or the Slurm/HPC job id, or None when the GPU carries no job labels."""
        labels = dict(self.job)
        pod = labels.get("pod") or labels.get("pod_name")
        ns = labels.get("namespace") or labels.get("pod_namespace")
        if pod:
            return f"{ns}/{pod}" if ns else pod
        return labels.get("hpc_job")

    @property
    def label(self) -> str:
        """Short text for a cell: ``host GPU 3`` or ``host GPU 0 / MIG 7``."""
        gpu = "?" if self.gpu_index is None else str(self.gpu_index)
        text = f"{self.host} GPU {gpu}"
        if self.mig_instance is not None:
            text += f" / MIG {self.mig_instance}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "gpu_index": self.gpu_index,
            "uuid": self.uuid,
            "mig_instance": self.mig_instance,
            "mig_profile": self.mig_profile,
            "model_name": self.model_name,
            "job": self.job_name,
            "job_labels": dict(self.job),
        }


def _int_or_none(text: str | None) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        return None


def key_from_labels(labels: Mapping[str, str]) -> GpuKey | None:
    """The :class:`GpuKey` of a series' labels (DCGM exporter or all-smi layout), or None when the labels name
    neither a GPU index nor a UUID (NVSwitch, CPU or exporter-internal series)."""
    host = next((labels[k] for k in df.HOST_LABELS if labels.get(k)), "")
    # all-smi's "gpu" label is the model name, so the first label that reads as a number is the index
    index = next((i for i in (_int_or_none(labels.get(k)) for k in df.GPU_INDEX_LABELS) if i is not None), None)
    uuid = next((labels[k] for k in df.UUID_LABELS if labels.get(k)), None)
    if index is None and uuid is None:
        return None
    model_name = next((labels[k] for k in df.MODEL_LABELS if labels.get(k)), None)
    if model_name is None and "all_smi" in labels.get("__name__", ""):
        model_name = labels.get("gpu")
    job = tuple((k, labels[k]) for k in df.JOB_LABELS if labels.get(k))
    return GpuKey(
        host=host,
        gpu_index=index,
        uuid=uuid,
        mig_instance=_int_or_none(labels.get(df.MIG_INSTANCE_LABEL)),
        mig_profile=labels.get(df.MIG_PROFILE_LABEL) or None,
        model_name=model_name,
        job=job,
    )


class KeyIndex:
    """Assigns each GPU identity a stable position; a later key with job labels replaces one without."""

    def __init__(self) -> None:
        self.keys: list[GpuKey] = []
        self._pos: dict[tuple[str, str, int | None], int] = {}

    def position(self, key: GpuKey) -> int:
        pos = self._pos.get(key.identity)
        if pos is None:
            pos = self._pos[key.identity] = len(self.keys)
            self.keys.append(key)
        elif key.job and key.job != self.keys[pos].job:
            self.keys[pos] = key
        return pos


@dataclass
class FleetSnapshot:
    """The fleet at one moment: one sample per GPU, ``sample.gpu_index`` = position in ``keys``."""

    keys: list[GpuKey]
    batch: SampleBatch
    notes: list[str] = field(default_factory=list)
    processes: list[Any] = field(default_factory=list)  # fleet_processes.ProcessRow, where the page has them

    def to_dict(self) -> dict[str, Any]:
        gpus = []
        for s in self.batch.samples:
            row = self.keys[s.gpu_index].to_dict()
            row["t"] = s.t
            row["values"] = dict(s.values)
            row["reasons"] = dict(s.reasons)
            gpus.append(row)
        return {"t": self.batch.t, "source": self.batch.source, "gpus": gpus, "notes": list(self.notes)}


@dataclass
class FleetHistory:
    """A window of fleet history: ``frame.gpus`` = positions in ``keys``."""

    keys: list[GpuKey]
    frame: History
    step_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    processes: list[Any] = field(default_factory=list)  # fleet_processes.ProcessRow of the last scrape

    def values(self, metric: str, how: str = "mean") -> np.ndarray:
        """One number per GPU (position order) over the window: "mean", "max", "min" or "last"; NaN when the
        GPU has no readable value of ``metric``."""
        out = np.full(len(self.keys), np.nan)
        col = self.frame.columns.get(metric)
        if col is None:
            return out
        for j, pos in enumerate(self.frame.gpus):
            if pos >= len(out):
                continue
            vals = np.asarray(col[:, j], dtype=np.float64)
            ok = vals[~np.isnan(vals)]
            if not ok.size:
                continue
            if how == "max":
                out[pos] = ok.max()
            elif how == "min":
                out[pos] = ok.min()
            elif how == "last":
                out[pos] = ok[-1]
            else:
                out[pos] = ok.mean()
        return out

    def sub(self, positions: Sequence[int]) -> History:
        """The columns of these GPUs, renumbered 0..len(positions)-1 in the given order (for the rules); rounds in
        which none of them has a reading are left out."""
        frame = self.frame
        where = frame.positions()
        present = [(i, where[p]) for i, p in enumerate(positions) if p in where]
        idx = [j for _i, j in present]
        cols = {k: v[:, idx] for k, v in frame.columns.items()}
        seen = np.zeros(len(frame), dtype=bool)
        for v in cols.values():
            seen |= ~np.isnan(v).all(axis=1)
        if not bool(seen.all()):
            cols = {k: v[seen] for k, v in cols.items()}
        by_gpu = self._reasons_by_gpu()
        reasons = {(i, k): why for i, p in enumerate(positions) for k, why in by_gpu.get(p, ())}
        return History(frame.times[seen], [i for i, _j in present], cols, reasons, frame.notes)

    def _reasons_by_gpu(self) -> dict[int, list[tuple[str, str]]]:
        """GPU position -> its (metric, reason) pairs, grouped once: a fleet judged group by group would otherwise
        walk every reason of the fleet for each group (groups x GPUs x metrics)."""
        cached = self.__dict__.get("_reasons_grouped")
        if cached is None or cached[0] is not self.frame:
            grouped: dict[int, list[tuple[str, str]]] = {}
            for (g, k), why in self.frame.reasons.items():
                grouped.setdefault(g, []).append((k, why))
            cached = self.__dict__["_reasons_grouped"] = (self.frame, grouped)
        return cached[1]


def no_job_group() -> str:
    """The name of the group of GPUs that no job holds, in the user's language."""
    return i18n._(NO_JOB)


def group_keys(keys: Sequence[GpuKey], by: str = GROUP_BY_HOST) -> dict[str, list[int]]:
    """Group name -> positions, in first-seen order; by host, or by job (GPUs without a job under NO_JOB).
    Within a group GPUs are sorted by index then MIG instance."""
    groups: dict[str, list[int]] = {}
    for pos, key in enumerate(keys):
        name = key.host if by == GROUP_BY_HOST else (key.job_name or no_job_group())
        groups.setdefault(name or "?", []).append(pos)
    for positions in groups.values():
        positions.sort(key=lambda p: (keys[p].host, keys[p].gpu_index if keys[p].gpu_index is not None else -1,
                                      keys[p].mig_instance if keys[p].mig_instance is not None else -1))
    return groups


def frame_from_matrix(
    t: np.ndarray, columns: Mapping[str, np.ndarray], reasons: Mapping[tuple[int, str], str] | None = None,
    notes: Iterable[str] = (),
) -> History:
    """A History of time x GPU matrices (``columns[metric]`` of shape (len(t), n_gpus), NaN = missing): already
    the history's layout, so the matrices are its columns (GPU i = position i)."""
    n_gpu = max((int(v.shape[1]) for v in columns.values()), default=0)
    cols = {k: np.asarray(v, dtype=np.float64) for k, v in columns.items()}
    return History(np.asarray(t, dtype=np.float64), range(n_gpu), cols, reasons, notes)


@dataclass
class FleetFinding:
    """A rule's finding placed in the fleet: the GPU's key (None for a finding about a whole group)."""

    finding: Finding
    key: GpuKey | None
    group: str

    def to_dict(self) -> dict[str, Any]:
        out = self.finding.to_dict()
        out["group"] = self.group
        out["gpu"] = self.key.to_dict() if self.key else None
        return out


def _util_metric(frame: History) -> str | None:
    for name in (m.GPU_UTIL, df.GR_ENGINE_ACTIVE):
        col = frame.columns.get(name)
        if col is not None and not np.all(np.isnan(col)):
            return name
    return None


def allocated_idle(history: FleetHistory) -> list[FleetFinding]:
    """GPUs a job holds (pod or Slurm labels) whose utilization stays at or below IDLE_UTIL_PCT for at least
    IDLE_SHARE of the readable samples in the window."""
    found: list[FleetFinding] = []
    metric = _util_metric(history.frame)
    if metric is None:
        return found
    col = history.frame.columns[metric]
    for j, pos in enumerate(history.frame.gpus):
        key = history.keys[pos]
        if key.job_name is None:
            continue
        vals = np.asarray(col[:, j], dtype=np.float64)
        read = ~np.isnan(vals)
        vals = vals[read]
        if not vals.size:
            continue
        share = float(np.mean(vals <= IDLE_UTIL_PCT))
        if share < IDLE_SHARE:
            continue
        t = history.frame.times[read]
        summary = _("{gpu} is held by {job} but was idle {share_pct:.0f}% of the window.").format(
            gpu=key.label, job=key.job_name, share_pct=share * 100)
        finding = Finding(
            "allocated-idle", pos, WARNING, summary,
            {"idle_share_pct": round(share * 100, 1), "mean_util_pct": round(float(vals.mean()), 1),
             "metric": metric, "idle_threshold_pct": IDLE_UTIL_PCT},
            (float(t[0]), float(t[-1])),
            _("Release the GPU or check why the job does not use it (waiting on data, a hung rank, a notebook "
              "left open)."),
        )
        found.append(FleetFinding(finding, key, key.job_name))
    return found


# XID codes that mean the GPU or its memory failed, from NVIDIA's XID catalog
# (https://docs.nvidia.com/deploy/xid-errors/index.html): 48 double-bit ECC error, 79 GPU has fallen off the bus,
# 95 uncontained ECC error. Other codes (13 graphics engine exception, 31 MMU fault, 43 application stopped, ...)
# are usually the application's and are reported as warnings.
XID_CRITICAL = frozenset({48, 79, 95})


def xid_errors(history: FleetHistory) -> list[FleetFinding]:
    """GPUs whose last XID error (DCGM_FI_DEV_XID_ERRORS) was non-zero in the window, naming the codes seen."""
    found: list[FleetFinding] = []
    col = history.frame.columns.get(df.XID_LAST)
    if col is None:
        return found
    for j, pos in enumerate(history.frame.gpus):
        vals = np.asarray(col[:, j], dtype=np.float64)
        ok = ~np.isnan(vals) & (vals > 0)
        if not ok.any():
            continue
        codes = sorted({int(v) for v in vals[ok]})
        key = history.keys[pos]
        t = history.frame.times[ok]
        severity = CRITICAL if XID_CRITICAL & set(codes) else WARNING
        summary = _("{gpu} reported XID {codes}.").format(gpu=key.label, codes=", ".join(map(str, codes)))
        finding = Finding("xid-error", pos, severity, summary, {"xid_codes": codes},
                          (float(t[0]), float(t[-1])),
                          _("Look the code up in NVIDIA's XID catalog; 48, 79 and 95 mean a hardware fault: drain the "
                            "node and reset or replace the GPU."))
        found.append(FleetFinding(finding, key, key.job_name or key.host))
    return found


def fleet_findings(history: FleetHistory, by: str = GROUP_BY_JOB, min_sustained_s: float = 30.0, *,
                   include_not_judged: bool = False) -> list[FleetFinding]:
    """The bottleneck rules run per group (by job: imbalance within a job; by host: within a node), plus
    :func:`allocated_idle` and :func:`xid_errors`. Each finding names its GPU's key. The rules' "not judged"
    results (and why) are left out unless ``include_not_judged``."""
    out = allocated_idle(history) + xid_errors(history)
    interval = history.step_s or None
    groups = group_keys(history.keys, by)
    no_job = no_job_group()
    if by == GROUP_BY_JOB and no_job in groups:
        # GPUs that no job holds are not one job: judge them node by node
        loose = groups.pop(no_job)
        for host, positions in group_keys([history.keys[p] for p in loose], GROUP_BY_HOST).items():
            groups[f"{no_job} {host}"] = [loose[i] for i in positions]
    for name, positions in groups.items():
        sub = history.sub(positions)
        if not len(sub):
            continue
        for f in run_rules(sub, interval_s=interval, min_sustained_s=min_sustained_s):
            if not f.judged and not include_not_judged:
                continue
            key = history.keys[positions[f.gpu]] if f.gpu is not None and f.gpu < len(positions) else None
            if key is not None and f.gpu is not None:
                local = f"GPU {f.gpu}"
                if f.summary.startswith(local):  # the rules name GPUs by their index in the group's frame
                    f.summary = key.label + f.summary[len(local):]
                f.gpu = positions[f.gpu]  # the fleet position, as in FleetHistory.frame
            out.append(FleetFinding(f, key, name))
    return out
