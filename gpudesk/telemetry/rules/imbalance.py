"""Multi-GPU imbalance: one GPU idles while the others work.

The method (DIGEST.md section 5, "training does not get faster"): gradient-synchronisation waits show as cards
out of step. Judged on per-GPU median utilization over the span: the least busy GPU is at least 30 points below
the median of the others, which are busy (>= 60 %).
"""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry import model as m
from gpudesk.telemetry.rules.base import WARNING, Finding, RuleContext, not_judged, per_gpu, r

RULE = "multi-gpu-imbalance"
GAP = 30.0
BUSY = 60.0
ADVICE = ("One GPU lags the others: in data-parallel training every step waits for the slowest card. The method "
          "points to synchronisation waits: check uneven batch or sequence lengths, a rank doing extra work "
          "(logging, evaluation, checkpointing on rank 0), a slower link (nvidia-smi topo -m, nccl-tests), or a "
          "throttling card.")


def check(frame, ctx: RuleContext) -> list[Finding]:
    util = frame.metrics.get(m.GPU_UTIL)
    span = frame.span
    gpus = frame.gpus
    if len(gpus) < 2:
        return []
    if util is None:
        return [not_judged(RULE, None, "GPU utilization was not recorded.", span)]
    medians: dict[int, float] = {}
    for g, idx in per_gpu(frame):
        v = util[idx]
        v = v[~np.isnan(v)]
        if v.size:
            medians[g] = float(np.median(v))
    if len(medians) < 2:
        return [not_judged(RULE, None, "GPU utilization is N/A on all but one GPU.", span)]
    low = min(medians, key=medians.get)
    others = [v for g, v in medians.items() if g != low]
    others_med = float(np.median(others))
    if others_med >= BUSY and others_med - medians[low] >= GAP:
        return [Finding(
            RULE, low, WARNING,
            f"GPU {low} works at a median {medians[low]:.0f} % while the other GPUs run at {others_med:.0f} %.",
            {"gpu_util_median_pct_by_gpu": {str(g): r(v) for g, v in sorted(medians.items())},
             "lagging_gpu_util_median_pct": r(medians[low]), "others_util_median_pct": r(others_med)},
            span, ADVICE)]
    return []
