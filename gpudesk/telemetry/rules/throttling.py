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

from gpudesk.i18n import _, ngettext
from gpudesk.telemetry.core.model import nan_middle
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.base import (
    CRITICAL, INFO, WARNING, Finding, RuleContext, not_judged, seen_span, r, readable,
)

RULE_POWER = "power-throttling"
RULE_THERMAL = "thermal-throttling"


def advice_power() -> str:
    return _("Clocks are held down by the power cap. The method counts power spikes among consumer-card limits "
             "and electricity in the 3-year TCO: check the power limit (nvidia-smi -q -d POWER), the PSU and "
             "chassis budget, and whether the workload's step time is really compute-bound before buying more.")


def advice_thermal() -> str:
    return _("Clocks are held down by temperature. The method warns about blower/thermal issues in dense "
             "chassis: check airflow, fan curves, inlet temperature and card spacing; a 72-hour burn-in on real "
             "data shows whether it recurs.")


# Where the throttling samples came from: a stable value in the evidence, translated in the summary.
BASIS_NVML = "NVML clock-event reasons"
BASIS_DMON = "dmon pviol/tviol"


def _basis_text(basis: str) -> str:
    return _("NVML clock-event reasons") if basis == BASIS_NVML else _("dmon pviol/tviol")


def _no_data(what: str) -> str:
    if what == "power":
        return _("no power-violation data in this recording.")
    return _("no thermal-violation data in this recording.")


def _throttled(what: str, gpu: int, share_pct: float) -> str:
    if what == "power":
        return _("GPU {gpu}: power throttling in {share_pct:.0f} % of the samples.").format(gpu=gpu,
                                                                                            share_pct=share_pct)
    return _("GPU {gpu}: thermal throttling in {share_pct:.0f} % of the samples.").format(gpu=gpu,
                                                                                          share_pct=share_pct)


def _barely_throttled(what: str, gpu: int, share_pct: float, n: int, warn_pct: float) -> str:
    if what == "power":
        text = ngettext("GPU {gpu}: power throttling in {share_pct:.1f} % of {n} sample, under the {warn_pct:.0f} % "
                        "that would matter.",
                        "GPU {gpu}: power throttling in {share_pct:.1f} % of {n} samples, under the {warn_pct:.0f} % "
                        "that would matter.", n)
    else:
        text = ngettext("GPU {gpu}: thermal throttling in {share_pct:.1f} % of {n} sample, under the {warn_pct:.0f} "
                        "% that would matter.",
                        "GPU {gpu}: thermal throttling in {share_pct:.1f} % of {n} samples, under the {warn_pct:.0f} "
                        "% that would matter.", n)
    return text.format(gpu=gpu, share_pct=share_pct, n=n, warn_pct=warn_pct)


def _not_throttled(what: str, gpu: int, n: int, basis: str) -> str:
    if what == "power":
        text = ngettext("GPU {gpu}: no power throttling in {n} sample ({basis}).",
                        "GPU {gpu}: no power throttling in {n} samples ({basis}).", n)
    else:
        text = ngettext("GPU {gpu}: no thermal throttling in {n} sample ({basis}).",
                        "GPU {gpu}: no thermal throttling in {n} samples ({basis}).", n)
    return text.format(gpu=gpu, n=n, basis=_basis_text(basis))


def _share(bits: np.ndarray, mask: int) -> np.ndarray:
    ok = ~np.isnan(bits)
    hit = np.zeros(bits.shape, dtype=bool)
    hit[ok] = (bits[ok].astype(np.int64) & mask) != 0
    return hit


def check(frame: m.History, ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    ev = frame.columns.get(m.CLOCK_EVENTS)
    pviol = frame.columns.get(m.POWER_VIOLATION)
    tviol = frame.columns.get(m.THERMAL_VIOLATION)
    temp = frame.columns.get(m.GPU_TEMP)
    power = frame.columns.get(m.POWER)
    for idx, g in enumerate(frame.gpus):
        span = seen_span(frame, idx)
        power_hit = thermal_hit = None
        if ev is not None and readable(ev[:, idx]):
            e = ev[:, idx]
            ok = ~np.isnan(e)
            power_hit = _share(e, m.POWER_THROTTLE_BITS)[ok]
            thermal_hit = _share(e, m.THERMAL_THROTTLE_BITS)[ok]
            basis = BASIS_NVML
        else:
            basis = BASIS_DMON
            if pviol is not None and readable(pviol[:, idx]):
                p = pviol[:, idx][~np.isnan(pviol[:, idx])]
                power_hit = p > 0
            if tviol is not None and readable(tviol[:, idx]):
                tv = tviol[:, idx][~np.isnan(tviol[:, idx])]
                thermal_hit = tv > 0
        if power_hit is None and thermal_hit is None:
            out.append(not_judged("throttling", g, _("neither NVML clock-event reasons nor dmon pviol/tviol were "
                                                     "recorded (record with NVML, or dmon -s v)."), span))
            continue
        extra = {}
        if temp is not None and readable(temp[:, idx]):
            extra["gpu_temp_max_c"] = r(float(np.nanmax(temp[:, idx])))
        if power is not None and readable(power[:, idx]):
            extra["power_median_w"] = r(nan_middle(power[:, idx]))
        for rule, hit, advice, what in ((RULE_POWER, power_hit, advice_power(), "power"),
                                        (RULE_THERMAL, thermal_hit, advice_thermal(), "thermal")):
            if hit is None:
                out.append(not_judged(rule, g, _no_data(what), span))
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
                out.append(Finding(rule, g, sev, _throttled(what, g, 100 * share), evidence, span, advice))
            elif share > 0:
                out.append(Finding(rule, g, INFO, _barely_throttled(what, g, 100 * share, int(hit.size),
                                                                    100 * warn_share), evidence, span))
            else:
                out.append(Finding(rule, g, INFO, _not_throttled(what, g, int(hit.size), basis), evidence, span))
    return out
