"""NVLink idle while a multi-GPU job runs: the GPUs exchange gradients through PCIe or host memory instead
(NCCL_P2P_DISABLE set, a container without the NVLink devices, peer access off, or NVLink not bridged).

Judged when two or more GPUs are busy (median utilization at least ``imbalance_busy_pct``) and NVLink throughput
was recorded (NVML field values or DCGM_FI_PROF_NVLINK_TX/RX_BYTES): idle when every busy GPU's 95th percentile
of NVLink RX+TX is under ``nvlink_idle_bytes_per_s``. A single GPU, or a recording without NVLink columns, is
not judged (said once).
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import quantiles
from gpudesk.telemetry.core.model import nan_middle
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.base import (
    WARNING,
    Finding,
    RuleContext,
    checked,
    not_judged,
)
from gpudesk.telemetry.rules.text import gpu_list
from gpudesk.units import format_rate

RULE = "nvlink-idle"


def advice() -> str:
    return _("The GPUs work together but NVLink carries nothing: collectives go through PCIe or host memory. "
             "Check nvidia-smi topo -m and nvidia-smi nvlink --status, that NCCL_P2P_DISABLE is not set, and "
             "run nccl-tests all_reduce_perf to compare the bus bandwidth with the link's datasheet figure.")


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    util = frame.columns.get(m.GPU_UTIL)
    if len(frame.gpus) < 2:
        return []
    rx, tx = frame.columns.get(m.NVLINK_RX), frame.columns.get(m.NVLINK_TX)
    if (rx is None or np.all(np.isnan(rx))) and (tx is None or np.all(np.isnan(tx))):
        return [not_judged(RULE, None, _("NVLink throughput was not recorded (dmon logs do not carry it; NVML field "
                                         "values and DCGM do)."), frame.span)]
    if util is None:
        return [not_judged(RULE, None, _("GPU utilization was not recorded."), frame.span)]
    busy: list[int] = []
    p95: dict[int, float] = {}
    for idx, g in enumerate(frame.gpus):
        u = util[:, idx]
        if np.any(~np.isnan(u)) and nan_middle(u) >= th.imbalance_busy_pct:
            busy.append(g)
            total = np.nansum(np.vstack([c[:, idx] if c is not None else np.full(len(frame), np.nan) for c in (rx, tx)]),
                              axis=0)
            p95[g] = quantiles(total, [0.95])[0]
    if len(busy) < 2:
        return [checked(RULE, _("Fewer than two GPUs busy: NVLink use not expected."), {}, frame.span)]
    if all(v < th.nvlink_idle_bytes_per_s for v in p95.values()):
        return [Finding(RULE, None, WARNING,
                        _("NVLink idle while {gpus} are busy (95th percentile under {limit} on every GPU).").format(
                            gpus=gpu_list(busy), limit=format_rate(th.nvlink_idle_bytes_per_s)),
                        {"nvlink_p95_bytes_per_s_by_gpu": {str(g): v for g, v in sorted(p95.items())}},
                        frame.span, advice())]
    return [checked(RULE, _("NVLink carries traffic while {gpus} are busy.").format(gpus=gpu_list(busy)),
                    {"nvlink_p95_bytes_per_s_by_gpu": {str(g): v for g, v in sorted(p95.items())}}, frame.span)]
