"""Power or thermal throttling.

Evidence, by source: NVML clock-event reasons (nvmlClocksEventReason* bits: SwPowerCap 0x4, HwPowerBrakeSlowdown
0x80 = power; SwThermalSlowdown 0x20, HwThermalSlowdown 0x40 = thermal; nvml.h), or dmon's ``pviol`` (% of the
interval under a power violation) and ``tviol`` (thermal violation, bool). Flagged when throttling covers at
least 5 % of the samples (warning) or 25 % (critical); below that the rule still reports what it judged (an
"info" finding: no throttling, or throttling in too few samples to matter), so a judged rule never goes silent.
Power draw alone is not throttling and is only reported as evidence.
"""

from __future__ import annotations

import numpy as np

from gpudesk.telemetry import model as m
from gpudesk.telemetry.rules.base import (
    CRITICAL, INFO, WARNING, Finding, RuleContext, gpu_span, not_judged, per_gpu, plural, r, readable,
)

RULE_POWER = "power-throttling"
RULE_THERMAL = "thermal-throttling"
ADVICE_POWER = ("Clocks are held down by the power cap. The method counts power spikes among consumer-card limits "
                "and electricity in the 3-year TCO: check the power limit (nvidia-smi -q -d POWER), the PSU and "
                "chassis budget, and whether the workload's step time is really compute-bound before buying more.")
ADVICE_THERMAL = ("Clocks are held down by temperature. The method warns about blower/thermal issues in dense "
                  "chassis: check airflow, fan curves, inlet temperature and card spacing; a 72-hour burn-in on real "
                  "data shows whether it recurs.")


def _share(bits: np.ndarray, mask: int) -> np.ndarray:
    ok = ~np.isnan(bits)
    hit = np.zeros(bits.shape, dtype=bool)
    hit[ok] = (bits[ok].astype(np.int64) & mask) != 0
    return hit


def check(frame, ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    ev = frame.metrics.get(m.CLOCK_EVENTS)
    pviol = frame.metrics.get(m.POWER_VIOLATION)
    tviol = frame.metrics.get(m.THERMAL_VIOLATION)
    temp = frame.metrics.get(m.GPU_TEMP)
    power = frame.metrics.get(m.POWER)
    for g, idx in per_gpu(frame):
        span = gpu_span(frame.t[idx])
        power_hit = thermal_hit = None
        if ev is not None and readable(ev[idx]):
            e = ev[idx]
            ok = ~np.isnan(e)
            power_hit = _share(e, m.POWER_THROTTLE_BITS)[ok]
            thermal_hit = _share(e, m.THERMAL_THROTTLE_BITS)[ok]
            basis = "NVML clock-event reasons"
        else:
            basis = "dmon pviol/tviol"
            if pviol is not None and readable(pviol[idx]):
                p = pviol[idx][~np.isnan(pviol[idx])]
                power_hit = p > 0
            if tviol is not None and readable(tviol[idx]):
                tv = tviol[idx][~np.isnan(tviol[idx])]
                thermal_hit = tv > 0
        if power_hit is None and thermal_hit is None:
            out.append(not_judged("throttling", g, "neither NVML clock-event reasons nor dmon pviol/tviol were "
                                  "recorded (record with NVML, or dmon -s v).", span))
            continue
        extra = {}
        if temp is not None and readable(temp[idx]):
            extra["gpu_temp_max_c"] = r(float(np.nanmax(temp[idx])))
        if power is not None and readable(power[idx]):
            extra["power_median_w"] = r(float(np.nanmedian(power[idx])))
        for rule, hit, advice, what in ((RULE_POWER, power_hit, ADVICE_POWER, "power"),
                                        (RULE_THERMAL, thermal_hit, ADVICE_THERMAL, "thermal")):
            if hit is None:
                out.append(not_judged(rule, g, f"no {what}-violation data in this recording.", span))
                continue
            if not hit.size:
                continue
            share = float(hit.mean())
            warn_share = ctx.thresholds.throttle_warn_share_pct / 100.0
            crit_share = ctx.thresholds.throttle_critical_share_pct / 100.0
            evidence = {f"{what}_throttled_samples_pct": r(100 * share), "samples": int(hit.size), "basis": basis,
                        **extra}
            if share >= warn_share:
                sev = CRITICAL if share >= crit_share else WARNING
                out.append(Finding(rule, g, sev, f"GPU {g}: {what} throttling in {100 * share:.0f} % of the samples.",
                                   evidence, span, advice))
            elif share > 0:
                out.append(Finding(rule, g, INFO, f"GPU {g}: {what} throttling in {100 * share:.1f} % of "
                                   f"{plural(int(hit.size), 'sample')}, under the {100 * warn_share:.0f} % that "
                                   "would matter.", evidence, span))
            else:
                out.append(Finding(rule, g, INFO, f"GPU {g}: no {what} throttling in "
                                   f"{plural(int(hit.size), 'sample')} ({basis}).", evidence, span))
    return out
