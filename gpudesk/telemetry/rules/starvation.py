"""Data-pipeline starvation: the GPU waits for data while PCIe is saturated.

The method's measurement rule (DIGEST.md section 2): watch utilization (u) and PCIe (p) every second for three
epochs and take the median; if u < 60 % while p > 85 % of the link, fix the data pipeline, not the card. PCIe
share = max(RX, TX) / per-direction capacity of the link's maximum generation x width (gpudesk.nvml.pcie).
Also flagged: the condition holding for ``method_min_sustained_s`` (Thresholds) consecutive seconds even when the medians do not.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import middle
from gpudesk.telemetry.core import model as m
from gpudesk.nvml.pcie import describe_link, link_bytes_per_s, link_unknown_reason
from gpudesk.telemetry.rules.base import (
    CRITICAL, WARNING, Finding, RuleContext, gpu_span, longest_run, not_judged, r, readable,
)

RULE = "pipeline-starvation"


def advice() -> str:
    return _("The method's rule: GPU utilization under 60 % while PCIe is over 85 % of the link means the data "
             "pipeline, not the card, is the bottleneck. Fix the pipeline first: decode on the GPU (e.g. DALI), "
             "keep data on the device, use pinned memory and larger batches, compress or cache inputs; do not "
             "buy a faster GPU for this.")


def link_for(frame_cols: dict[str, np.ndarray], idx: int, ctx: RuleContext, gpu: int) -> tuple[int | None, int | None, str | None]:
    """Max generation and width of a GPU's link: from the samples (NVML) or the device info (catalog choice)."""
    dev = ctx.device(gpu)
    gen, width, source = dev.pcie_gen_max, dev.pcie_width_max_lanes, dev.pcie_link_source
    g_col, w_col = frame_cols.get(m.PCIE_GEN_MAX), frame_cols.get(m.PCIE_WIDTH_MAX)
    g_vals = g_col[:, idx] if g_col is not None else None
    w_vals = w_col[:, idx] if w_col is not None else None
    if (gen is None or width is None) and readable(g_vals) and readable(w_vals):
        gen = int(np.nanmax(g_vals))
        width = int(np.nanmax(w_vals))
        source = "nvml"
    return gen, width, source


def check(frame: m.History, ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    for idx, g in enumerate(frame.gpus):
        t = frame.times
        span = gpu_span(t)
        util = frame.columns.get(m.GPU_UTIL)
        rx, tx = frame.columns.get(m.PCIE_RX), frame.columns.get(m.PCIE_TX)
        u = util[:, idx] if util is not None else None
        if not readable(u):
            out.append(not_judged(RULE, g, _("GPU utilization is N/A ({reason}) - e.g. MIG or WSL2, where NVML does "
                                             "not report it.").format(
                reason=frame.reason(g, m.GPU_UTIL) or _("not recorded")), span))
            continue
        if not (readable(rx[:, idx] if rx is not None else None) or readable(tx[:, idx] if tx is not None else None)):
            out.append(not_judged(RULE, g, _("PCIe throughput is N/A ({reason}); record with 'nvidia-smi dmon -s ut' "
                                             "or NVML.").format(
                reason=frame.reason(g, m.PCIE_RX) or _("not recorded")), span))
            continue
        gen, width, source = link_for(frame.columns, idx, ctx, g)
        cap = link_bytes_per_s(gen, width)
        if cap is None:
            out.append(not_judged(RULE, g, _("{reason}; pick the GPU model so the PCIe link can be assumed.").format(
                reason=link_unknown_reason(gen, width)), span))
            continue
        nan = np.full(len(frame), np.nan)
        pcie = np.fmax(rx[:, idx] if rx is not None else nan, tx[:, idx] if tx is not None else nan)
        share = pcie / cap
        ok = ~np.isnan(u) & ~np.isnan(share)
        if not ok.any():
            out.append(not_judged(RULE, g, _("no sample has both GPU utilization and PCIe throughput."), span))
            continue
        th = ctx.thresholds
        util_below, pcie_above = th.method_util_below_pct, th.method_pcie_above_pct / 100.0
        med_u = middle(u[ok])
        med_share = middle(share[ok])
        cond = ok & (u < util_below) & (share > pcie_above)
        run_s, run_t0, run_t1 = longest_run(cond, t, ctx.interval_s)
        evidence = {
            "gpu_util_median_pct": r(med_u),
            "pcie_share_median_pct": r(med_share * 100),
            "pcie_link": describe_link(gen, width, source),
            "pcie_link_capacity_bytes_per_s": cap,
            "pcie_link_source": source,
            "samples_in_condition_pct": r(100.0 * cond.sum() / ok.sum()),
            "longest_sustained_s": r(run_s),
        }
        if med_u < util_below and med_share > pcie_above:
            out.append(Finding(RULE, g, CRITICAL,
                               _("GPU {gpu}: median utilization {util:.0f} % with PCIe at {pcie:.0f} % of the link - "
                                 "the data pipeline starves the GPU.").format(gpu=g, util=med_u, pcie=med_share * 100),
                               evidence, span, advice()))
        elif run_s >= th.method_min_sustained_s:
            out.append(Finding(RULE, g, WARNING,
                               _("GPU {gpu}: utilization under {util:.0f} % with PCIe over {pcie:.0f} % of the link "
                                 "for {run_s:.0f} s in a row.").format(gpu=g, util=util_below, pcie=100 * pcie_above,
                                                                      run_s=run_s),
                               evidence, (run_t0, run_t1), advice()))
    return out
