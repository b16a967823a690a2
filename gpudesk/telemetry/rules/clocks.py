"""SM clocks below the reference clock under load.

Reference: the application clock (nvmlDeviceGetApplicationsClock) or the maximum clock
(nvmlDeviceGetMaxClockInfo) when the source recorded them, else the highest SM clock the GPU held in this
recording (then a GPU throttled the whole time is not seen: said in the evidence). Under load (GPU utilization
at least ``load_util_pct``), the clock is low when under ``clock_below_pct`` of the reference; flagged when that
holds for at least ``clock_low_share_pct`` of the loaded samples. The clock-event reasons, when recorded, name
the cause (the throttling rules judge them).
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import middle, quantiles
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.host_metrics import SM_CLOCK_APP, SM_CLOCK_MAX
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.base import (
    WARNING,
    Finding,
    RuleContext,
    checked,
    not_judged,
    seen_span,
)
from gpudesk.telemetry.rules.text import gpu_list

RULE = "clocks-below-max"
# The reference clock, as the evidence names it (English, a stable value) and as the summary says it (translated).
HIGHEST_HELD = "highest clock held in this recording"
APPLICATION_CLOCK = "application clock"
MAXIMUM_CLOCK = "maximum clock"


def _reference_text(basis: str) -> str:
    if basis == APPLICATION_CLOCK:
        return _("application clock")
    if basis == MAXIMUM_CLOCK:
        return _("maximum clock")
    return _("highest clock held in this recording")


def advice() -> str:
    return _("Under load the SM clock sits well below what this GPU reaches: power capping, heat, a locked or "
             "lowered application clock (nvidia-smi -q -d CLOCK,PERFORMANCE shows the clock-event reasons), or "
             "a power limit set below the default (nvidia-smi -q -d POWER).")


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    clock = frame.columns.get(m.SM_CLOCK)
    util = frame.columns.get(m.GPU_UTIL)
    if clock is None or np.all(np.isnan(clock)):
        return [not_judged(RULE, None, _("the SM clock was not recorded (dmon -s c, or NVML)."), frame.span)]
    if util is None or np.all(np.isnan(util)):
        return [not_judged(RULE, None, _("GPU utilization was not recorded, so load cannot be told from idle."),
                           frame.span)]
    out: list[Finding] = []
    judged: list[int] = []
    for idx, g in enumerate(frame.gpus):
        c, u = clock[:, idx], util[:, idx]
        with np.errstate(invalid="ignore"):
            loaded = ~np.isnan(c) & ~np.isnan(u) & (u >= th.load_util_pct)
        if loaded.sum() < 10:
            continue
        judged.append(g)
        ref, basis = None, HIGHEST_HELD
        for name, label in ((SM_CLOCK_APP, APPLICATION_CLOCK), (SM_CLOCK_MAX, MAXIMUM_CLOCK)):
            col = frame.columns.get(name)
            if col is not None and np.any(~np.isnan(col[:, idx])):
                ref, basis = float(np.nanmax(col[:, idx])), label
                break
        if ref is None:
            ref = quantiles(c[~np.isnan(c)], [0.99])[0]
        low = c[loaded] < (th.clock_below_pct / 100.0) * ref
        share = float(low.mean())
        if share * 100 >= th.clock_low_share_pct:
            med = middle(c[loaded])
            out.append(Finding(
                RULE, g, WARNING,
                _("GPU {gpu}: under load the SM clock is below {pct:.0f} % of its {basis} ({ref:.0f} MHz) in "
                  "{share:.0f} % of the samples (median {med:.0f} MHz).").format(
                    gpu=g, pct=th.clock_below_pct, basis=_reference_text(basis), ref=ref / 1e6, share=100 * share, med=med / 1e6),
                {"sm_clock_loaded_median_hz": med, "sm_clock_reference_hz": ref, "reference": basis,
                 "loaded_samples_low_pct": round(100 * share, 1), "loaded_samples": int(loaded.sum())},
                seen_span(frame, idx), advice()))
    if out:
        return out
    if not judged:
        return [not_judged(RULE, None, _("fewer than 10 samples under load on every GPU."), frame.span)]
    return [checked(RULE, _("Clocks held under load on {gpus} (no more than {share:.0f} % of loaded samples under "
                            "{pct:.0f} % of the reference clock).").format(gpus=gpu_list(judged),
                                                                           share=th.clock_low_share_pct,
                                                                           pct=th.clock_below_pct), {}, frame.span)]
