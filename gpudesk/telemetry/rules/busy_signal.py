"""The best "busy" signal a recording holds, per GPU, for the rules that tell busy from idle.

NVML's utilization (``nvmlDeviceGetUtilizationRates.gpu``, dmon ``sm``) is "percent of time over the past sample
period during which one or more kernels was executing" (``nvidia-smi --help-query-gpu``): one tiny kernel on one
SM reads as 100 %. SM activity (DCGM ``DCGM_FI_PROF_SM_ACTIVE``, field 1002, dcgmi ``SMACT``; NVML GPM
``NVML_GPM_METRIC_SM_UTIL``) is the fraction of time each SM had at least one warp resident, averaged over all
SMs, so it falls when kernels leave SMs empty (DCGM user guide, "Profiling Metrics",
https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/feature-overview.html#profiling-metrics). Graphics-engine
activity (field 1001, ``GRACT``; GPM ``NVML_GPM_METRIC_GRAPHICS_UTIL``) is the time the graphics/compute engine was
busy, the same kind of signal as NVML utilization but per MIG instance where utilization is N/A.

The rules that judge busy vs idle read ``gpu_util_pct``; :func:`busy_frame` hands them a frame whose
``gpu_util_pct`` column holds, per GPU, the best signal recorded: SM active, else graphics-engine active, else NVML
utilization. Ratios are shown explicitly converted to percent (ratio x 100). Which signal judged each GPU is
returned so every finding can say it.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.dcgm_fields import GR_ENGINE_ACTIVE, SM_ACTIVE
from gpudesk.telemetry.core.model import History

BUSY_SIGNALS = (SM_ACTIVE, GR_ENGINE_ACTIVE, m.GPU_UTIL)


def signal_label(metric: str) -> str:
    """The busy signal's name for people."""
    if metric == SM_ACTIVE:
        return _("SM active (DCGM SMACT or NVML GPM SM utilization, ratio x 100)")
    if metric == GR_ENGINE_ACTIVE:
        return _("graphics engine active (DCGM GRACT or NVML GPM graphics utilization, ratio x 100)")
    return _("GPU utilization (NVML; time a kernel was running)")


def choose(frame: History) -> dict[int, str]:
    """GPU -> the best busy signal with at least one readable value on that GPU (GPUs with none are absent)."""
    out: dict[int, str] = {}
    todo = list(range(len(frame.gpus)))
    for metric in BUSY_SIGNALS:
        col = frame.columns.get(metric)
        if col is None or not todo:
            continue
        has = ~np.isnan(col).all(axis=0)
        for j in [j for j in todo if has[j]]:
            out[frame.gpus[j]] = metric
            todo.remove(j)
    return {g: out[g] for g in frame.gpus if g in out}


def busy_frame(frame: History) -> tuple[History, dict[int, str]]:
    """``frame`` with its ``gpu_util_pct`` column replaced, per GPU, by the best busy signal (the same frame when
    NVML utilization is the best everywhere), and GPU -> the signal used."""
    used = choose(frame)
    if all(metric == m.GPU_UTIL for metric in used.values()):
        return frame, used
    base = frame.columns.get(m.GPU_UTIL)
    shape = (len(frame), len(frame.gpus))
    column = np.full(shape, np.nan, dtype=np.float32) if base is None else base.astype(np.float32, copy=True)
    reasons = dict(frame.reasons)
    for j, g in enumerate(frame.gpus):
        metric = used.get(g, m.GPU_UTIL)
        if metric == m.GPU_UTIL:
            continue
        column[:, j] = frame.columns[metric][:, j]
        reasons.pop((g, m.GPU_UTIL), None)
    metrics = dict(frame.columns)
    metrics[m.GPU_UTIL] = column
    return frame.replace(columns=metrics, reasons=reasons), used


def signal_note(used: dict[int, str]) -> str | None:
    """One sentence naming the busy signal each GPU was judged on, or None when it was NVML utilization on all."""
    if all(metric == m.GPU_UTIL for metric in used.values()):
        return None
    groups: dict[str, list[int]] = {}
    for g, metric in sorted(used.items()):
        groups.setdefault(metric, []).append(g)
    from gpudesk.telemetry.rules.text import clauses, gpu_list

    parts = [_("{signal} on {gpus}").format(signal=signal_label(metric), gpus=gpu_list(gpus))
             for metric, gpus in groups.items()]
    return _("Busy and idle were judged on {signals}.").format(signals=clauses(parts))
