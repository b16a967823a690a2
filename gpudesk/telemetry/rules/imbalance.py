"""Multi-GPU imbalance and stragglers.

Imbalance (DIGEST.md section 5, "training does not get faster": gradient-synchronisation waits show as cards out
of step): the least busy GPU's median utilization is at least ``imbalance_gap_pct`` points below the median of the
others, which are busy (at least ``imbalance_busy_pct``).

Straggler: one GPU's utilization pattern leads or lags the others'. The utilization of each GPU (on the shared
time grid, mean removed) is cross-correlated (through the FFT) with the mean of the other GPUs for shifts of up
to 30 samples; a
GPU whose best correlation (at least ``straggler_min_correlation``) sits at a shift of at least
``straggler_min_lag_s``, and is clearly better than at no shift, runs ahead of or behind the others.
"""

from __future__ import annotations

import statistics

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import middle
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules.base import (
    WARNING,
    Finding,
    RuleContext,
    checked,
    n_samples,
    not_judged,
    r,
)
from gpudesk.telemetry.rules.spans import step_of, util_of
from gpudesk.telemetry.rules.text import gpu_list
from gpudesk.units import format_duration

RULE = "multi-gpu-imbalance"
RULE_STRAGGLER = "straggler"
MAX_SHIFT = 30


def advice() -> str:
    return _("One GPU lags the others: in data-parallel training every step waits for the slowest card. The "
             "method points to synchronisation waits: check uneven batch or sequence lengths, a rank doing "
             "extra work (logging, evaluation, checkpointing on rank 0), a slower link (nvidia-smi topo -m, "
             "nccl-tests), or a throttling card.")


def advice_straggler() -> str:
    return _("This GPU's busy and idle phases come earlier or later than the others': it runs out of step (a "
             "slower card or link, a rank with more data, or a rank doing extra host work). Compare its clocks, "
             "temperature and PCIe link with the others, and the per-rank step times in the job log.")


def stragglers(grid: History, min_lag_s: float, min_corr: float) -> list[tuple[int, float, float, float]]:
    """(gpu, lag s (positive = behind the others), best correlation, correlation at no shift) per straggler."""
    readable_cols = ~np.all(np.isnan(util_of(grid)), axis=0)  # a GPU without any utilization reading is left out
    u = util_of(grid)[:, readable_cols]
    gpus = [g for g, ok in zip(grid.gpus, readable_cols.tolist()) if ok]
    n, k = u.shape
    if k < 2 or n < 4 * MAX_SHIFT:
        return []
    col_mean = np.nanmean(u, axis=0)
    u = np.where(np.isnan(u), col_mean, u)
    out = []
    size = 1 << int(np.ceil(np.log2(2 * n)))
    shifts = np.arange(-MAX_SHIFT, MAX_SHIFT + 1)
    overlap = (n - np.abs(shifts)).astype(float)
    own_all = u - u.mean(axis=0)  # each GPU, mean removed
    # the mean of the other GPUs, mean removed, for every GPU at once: (sum of all - own) / (k - 1)
    others_all = (own_all.sum(axis=1, keepdims=True) - own_all) / (k - 1)
    sa_all, sb_all = own_all.std(axis=0), others_all.std(axis=0)
    # cross-correlation at every shift through the FFT, all GPUs in one transform each way:
    # cc[s] = sum_i own[i + s] * others[i]; the transform is linear, so the others' spectrum is (sum - own) / (k - 1)
    spectra = np.fft.rfft(own_all, size, axis=0)
    others_spectra = (spectra.sum(axis=1, keepdims=True) - spectra) / (k - 1)
    cc_all = np.fft.irfft(spectra * np.conj(others_spectra), size, axis=0)
    for j, g in enumerate(gpus):
        sa, sb = float(sa_all[j]), float(sb_all[j])
        if sa < 5 or sb < 5:
            continue
        corr = cc_all[shifts % size, j] / (overlap * sa * sb)
        peak = int(np.argmax(corr))
        best, zero = float(corr[peak]), float(corr[MAX_SHIFT])
        lag_s = float(shifts[peak]) * step_of(grid)
        if abs(lag_s) >= min_lag_s and best >= min_corr and best - zero >= 0.1:
            out.append((g, lag_s, best, zero))
    # when every GPU looks shifted against the others the pattern has no single straggler (k: the GPUs compared)
    return out if len(out) < k else []


# 1.4826 x MAD estimates the standard deviation of normally distributed values (the consistency constant of the
# median absolute deviation: Rousseeuw & Croux, "Alternatives to the Median Absolute Deviation", JASA 88 (1993),
# https://doi.org/10.1080/01621459.1993.10476408). A GPU is an outlier when its median sits at least ROBUST_Z
# such deviations (and imbalance_gap_pct points) below the median of the others.
MAD_TO_SIGMA = 1.4826
ROBUST_Z = 3.0


def lagging_gpus(medians: dict[int, float], gap_pct: float, busy_pct: float) -> list[tuple[int, float, float, float]]:
    """Every GPU whose median utilization lies at least ``gap_pct`` points (and 3 robust deviations) below the
    median of the other GPUs, those being busy (at least ``busy_pct``): (gpu, its median, the others' median,
    the others' MAD). The others' median and MAD do not move when one of them idles, unlike a mean, so one idle
    GPU does not hide a second weak one."""
    out = []
    for g, own in medians.items():
        # statistics.median: the same middle value (or mean of the two middle ones) as np.median, without numpy's
        # per-call cost on the handful of GPUs of one group (this runs once per GPU of a 5,000-GPU fleet)
        others = [v for h, v in medians.items() if h != g]
        ref = float(statistics.median(others))
        mad = float(statistics.median([abs(v - ref) for v in others]))
        gap = ref - own
        if ref >= busy_pct and gap >= gap_pct and gap >= ROBUST_Z * MAD_TO_SIGMA * mad:
            out.append((g, own, ref, mad))
    return sorted(out, key=lambda item: item[1])


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    util = frame.columns.get(m.GPU_UTIL)
    span = frame.span
    gpus = frame.gpus
    if len(gpus) < 2:
        return []
    if util is None:
        return [not_judged(RULE, None, _("GPU utilization was not recorded."), span)]
    medians: dict[int, float] = {}
    counts: dict[int, int] = {}
    for idx, g in enumerate(frame.gpus):
        v = util[:, idx]
        v = v[~np.isnan(v)]
        counts[g] = int(v.size)
        if v.size >= th.multi_gpu_min_samples:
            medians[g] = middle(v)
    if len(medians) < 2:
        if any(counts.values()):
            few = min(counts.values())
            why = _("{samples} per GPU; comparing GPUs needs at least {need} utilization samples on two or "
                    "more of them.").format(samples=n_samples(few), need=th.multi_gpu_min_samples)
            return [not_judged(RULE, None, why, span), not_judged(RULE_STRAGGLER, None, why, span)]
        return [not_judged(RULE, None, _("GPU utilization is N/A on all but one GPU."), span)]
    out: list[Finding] = []
    by_gpu = {str(g): r(v) for g, v in sorted(medians.items())}
    for low, own, others_med, mad in lagging_gpus(medians, th.imbalance_gap_pct, th.imbalance_busy_pct):
        out.append(Finding(
            RULE, low, WARNING,
            _("GPU {gpu} works at a median {low:.0f} % while the other GPUs run at {others:.0f} %.").format(
                gpu=low, low=own, others=others_med),
            {"gpu_util_median_pct_by_gpu": by_gpu, "lagging_gpu_util_median_pct": r(own),
             "others_util_median_pct": r(others_med), "others_util_mad_pct": r(mad)},
            span, advice()))
    if not out:
        low_pct, high_pct = min(medians.values()), max(medians.values())
        spread = (_("{low:.0f} %").format(low=low_pct) if round(low_pct) == round(high_pct)
                  else _("{low:.0f}-{high:.0f} %").format(low=low_pct, high=high_pct))
        out.append(checked(RULE, _("Utilization balanced across {gpus}: medians {spread}.").format(
            gpus=gpu_list(sorted(medians)), spread=spread),
            {"gpu_util_median_pct_by_gpu": by_gpu}, span))
    grid = ctx.grid(frame)
    if len(grid) < 4 * MAX_SHIFT:
        out.append(not_judged(RULE_STRAGGLER, None, _(
            "{samples} per GPU; telling a GPU that runs ahead or behind needs at least {need}.").format(
                samples=n_samples(int(len(grid))), need=4 * MAX_SHIFT), span))
        return out
    found = stragglers(grid, th.straggler_min_lag_s, th.straggler_min_correlation)
    for g, lag_s, best, zero in found:
        if lag_s > 0:
            summary = _("GPU {gpu} runs {lag} behind the other GPUs (its utilization pattern matches theirs best when "
                        "shifted, correlation {best:.2f} against {zero:.2f} unshifted).")
        else:
            summary = _("GPU {gpu} runs {lag} ahead of the other GPUs (its utilization pattern matches theirs best "
                        "when shifted, correlation {best:.2f} against {zero:.2f} unshifted).")
        out.append(Finding(
            RULE_STRAGGLER, g, WARNING,
            summary.format(gpu=g, lag=format_duration(abs(lag_s)), best=best, zero=zero),
            {"lag_s": lag_s, "correlation_shifted": round(best, 3), "correlation_unshifted": round(zero, 3)},
            span, advice_straggler()))
    if not found:
        out.append(checked(RULE_STRAGGLER, _("No straggler: no GPU's utilization pattern leads or lags the others' by "
                                             "{lag} or more.").format(lag=format_duration(th.straggler_min_lag_s)), {}, span))
    return out
