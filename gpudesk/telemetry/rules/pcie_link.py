"""PCIe link running below its maximum generation or width under load.

NVML's current generation/width "may be reduced when the GPU is not in use" (nvidia-smi --help-query-gpu): an
idle link at Gen1 is normal. Only samples under load (GPU utilization >= 50 %) count; flagged when the current
link is below the maximum in most (>= 50 %) of them - a riser, bifurcation, a x4 slot or a bad seat.
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import nan_middle
from gpudesk.telemetry.core import model as m
from gpudesk.nvml.pcie import describe_link
from gpudesk.telemetry.rules.base import WARNING, Finding, RuleContext, not_judged, seen_span, r, readable
from gpudesk.telemetry.rules.starvation import link_for

RULE = "pcie-link-degraded"


def advice() -> str:
    return _("The GPU's PCIe link runs below what card and slot support while the GPU is busy. The method's "
             "PCIe wall: host-device traffic is limited by the link. Reseat the card, check risers and slot "
             "wiring (x16 electrical), BIOS PCIe generation settings and bifurcation; verify with nvidia-smi -q "
             "-d PCIE.")


def check(frame: m.History, ctx: RuleContext) -> list[Finding]:
    out: list[Finding] = []
    gen_c, width_c = frame.columns.get(m.PCIE_GEN_CUR), frame.columns.get(m.PCIE_WIDTH_CUR)
    util = frame.columns.get(m.GPU_UTIL)
    for idx, g in enumerate(frame.gpus):
        span = seen_span(frame, idx)
        if not (readable(gen_c[:, idx] if gen_c is not None else None)
                or readable(width_c[:, idx] if width_c is not None else None)):
            out.append(not_judged(RULE, g, _("the current PCIe generation/width was not recorded (dmon logs do "
                                                    "not carry it; NVML does)."), span))
            continue
        gen, width, source = link_for(frame.columns, idx, ctx, g)
        if gen is None or width is None:
            out.append(not_judged(RULE, g, _("the maximum PCIe generation/width is unknown."), span))
            continue
        u = util[:, idx] if util is not None else None
        if not readable(u):
            out.append(not_judged(RULE, g, _("GPU utilization is N/A, so 'under load' cannot be told from idle."),
                                  span))
            continue
        loaded = ~np.isnan(u) & (u >= ctx.thresholds.link_load_util_pct)
        if not loaded.any():
            continue
        gc = gen_c[:, idx][loaded] if gen_c is not None else np.full(int(loaded.sum()), np.nan)
        wc = width_c[:, idx][loaded] if width_c is not None else np.full(int(loaded.sum()), np.nan)
        low = (~np.isnan(gc) & (gc < gen)) | (~np.isnan(wc) & (wc < width))
        share = float(low.mean())
        if share * 100 >= ctx.thresholds.pcie_degraded_share_pct:
            out.append(Finding(
                RULE, g, WARNING,
                _("GPU {gpu}: PCIe link below its maximum ({link}) in {share_pct:.0f} % of the busy samples.").format(
                    gpu=g, link=describe_link(gen, width, source), share_pct=100 * share),
                {"pcie_gen_current_median": r(nan_middle(gc)) if readable(gc) else None,
                 "pcie_width_current_median_lanes": r(nan_middle(wc)) if readable(wc) else None,
                 "pcie_gen_max": gen, "pcie_width_max_lanes": width, "busy_samples_degraded_pct": r(100 * share)},
                span, advice()))
    return out
