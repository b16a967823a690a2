"""Input starvation at realistic levels: low-utilization spans that coincide with host-to-device traffic or with
a saturated host CPU.

Real host-to-device copies rarely reach the method's 85 % of the link (the ``pipeline-starvation`` rule keeps
the method's literal test): NVIDIA's bandwidthTest (github.com/NVIDIA/cuda-samples, Samples/1_Utilities/
bandwidthTest) measures about 6-12 GB/s pageable and 20-25 GB/s pinned on a Gen4 x16 link of 31.5 GB/s. So a
low span is judged a copy-bound stall when its PCIe RX (host to device, dmon ``rxpci``) is at least
``h2d_link_share_pct`` of the link (when the link is known), or at least ``h2d_min_bytes_per_s`` and
``h2d_vs_busy_ratio`` times what the same GPUs moved while busy. It is judged a host-CPU stall when the host CPU
is at or above ``cpu_saturated_pct`` during the span (psutil or host metrics, when the source recorded them).
"""

from __future__ import annotations

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import middle
from gpudesk.telemetry.core.model import History
from gpudesk.nvml.pcie import link_bytes_per_s
from gpudesk.telemetry.rules.base import (
    CRITICAL,
    WARNING,
    Finding,
    RuleContext,
    checked,
    not_judged,
    util_not_recorded,
)
from gpudesk.telemetry.rules.spans import (
    Span,
    coverage,
    gpu_spans,
    host_cpu_of,
    job_spans,
    rx_of,
    touches,
    util_of,
)
from gpudesk.telemetry.rules.starvation import link_for
from gpudesk.units import format_duration, format_rate

RULE = "input-starvation"


def advice_h2d() -> str:
    return _("The GPUs wait while data crosses PCIe from the host: the input pipeline, not the GPU, sets the "
             "pace. Keep batches on the device (cache the dataset in GPU memory when it fits), use pinned "
             "memory with non_blocking copies and prefetching (DataLoader pin_memory=True, prefetch_factor), "
             "decode on the GPU (DALI, nvJPEG), and send compact inputs (uint8 images, not float32).")


def advice_cpu() -> str:
    return _("The GPUs wait while the host CPU is saturated: data loading and augmentation on the CPU cannot "
             "keep up. Add DataLoader workers (num_workers up to the free cores), move decoding and "
             "augmentation to the GPU, cache preprocessed samples, and check that no other process competes for "
             "the CPU.")


def _link_caps(frame: History, ctx: RuleContext) -> dict[int, float]:
    caps: dict[int, float] = {}
    for idx, g in enumerate(frame.gpus):
        gen, width, _src = link_for(frame.columns, idx, ctx, g)
        cap = link_bytes_per_s(gen, width)
        if cap is not None:
            caps[g] = cap
    return caps


def _busy_rx(grid: History, low_util_pct: float) -> float | None:
    """Median per-GPU host-to-device rate over the busy slots (the pipeline's normal feed)."""
    with np.errstate(invalid="ignore"):
        busy = ~np.isnan(util_of(grid)) & (util_of(grid) >= low_util_pct)
    v = rx_of(grid)[busy]
    v = v[~np.isnan(v)]
    return middle(v) if v.size else None


def check(frame: History, ctx: RuleContext) -> list[Finding]:
    th = ctx.thresholds
    grid = ctx.grid(frame)
    if not len(grid):
        return []
    if np.all(np.isnan(util_of(grid))):
        return [util_not_recorded(RULE, frame.span)]
    has_rx = bool(np.any(~np.isnan(rx_of(grid))))
    has_cpu = bool(np.any(~np.isnan(host_cpu_of(grid))))
    jobs = [s for s in job_spans(grid, th, cache=ctx.spans) if not s.at_edge]
    cov = coverage(jobs, len(grid))
    # a GPU span inside a job span is judged with the job's
    spans = jobs + [s for s in gpu_spans(grid, th, cache=ctx.spans) if not s.at_edge and not touches(cov, s)]
    if not has_rx and not has_cpu:
        if not spans:
            return [checked(RULE, _("No stall to explain: no low-utilization span; PCIe and host CPU were not "
                                    "recorded."), {}, frame.span)]
        return [not_judged(RULE, None, _("neither PCIe throughput nor host CPU load was recorded (record with "
                                         "'nvidia-smi dmon -s ut', NVML, or a local recording that reads psutil)."),
                           frame.span)]
    caps = _link_caps(frame, ctx)
    busy_rx = _busy_rx(grid, th.low_util_pct)
    out: list[Finding] = []
    for span in spans:
        f = _judge(span, caps, busy_rx, ctx)
        if f is not None:
            out.append(f)
    if out:
        out.sort(key=lambda f: -float(f.evidence["duration_s"]))
        return out
    if has_rx and has_cpu:
        what = _("host-to-device traffic at or above {floor} (or {share:.0f} % of the link) or host CPU at or above "
                 "{cpu:.0f} %")
    elif has_rx:
        what = _("host-to-device traffic at or above {floor} (or {share:.0f} % of the link)")
    else:
        what = _("host CPU at or above {cpu:.0f} %")
    what = what.format(floor=format_rate(th.h2d_min_bytes_per_s), share=th.h2d_link_share_pct, cpu=th.cpu_saturated_pct)
    return [checked(RULE, _("No starvation found: {n} low-utilization span(s) checked for {what}.").format(
        n=len(spans), what=what), {"spans_checked": len(spans)}, frame.span)]


def _cause(rx: float | None, share: float | None, cpu: float | None, h2d: bool, cpu_hit: bool) -> str:
    """What the GPUs waited on during a span, as one clause."""
    if h2d and cpu_hit:
        if share is None:
            text = _("PCIe RX at {rx} per GPU and host CPU at {cpu:.0f} %")
        else:
            text = _("PCIe RX at {rx} per GPU ({pct:.0f} % of the link) and host CPU at {cpu:.0f} %")
    elif h2d:
        text = _("PCIe RX at {rx} per GPU") if share is None else _("PCIe RX at {rx} per GPU ({pct:.0f} % of the "
                                                                     "link)")
    else:
        text = _("host CPU at {cpu:.0f} %")
    return text.format(rx=format_rate(rx), pct=100 * (share or 0.0), cpu=cpu or 0.0)


def _judge(span: Span, caps: dict[int, float], busy_rx: float | None, ctx: RuleContext) -> Finding | None:
    th = ctx.thresholds
    rx = span.pcie_rx_median_bytes_per_s
    cap = caps.get(span.gpu) if span.gpu is not None else (min(caps.values()) if caps else None)
    share = rx / cap if rx is not None and cap else None
    h2d = False
    if rx is not None:
        over_link = share is not None and share * 100 >= th.h2d_link_share_pct
        over_busy = busy_rx is None or rx >= th.h2d_vs_busy_ratio * max(busy_rx, 1.0)
        h2d = over_link or (rx >= th.h2d_min_bytes_per_s and over_busy)
    cpu = span.host_cpu_median_pct
    cpu_hit = cpu is not None and cpu >= th.cpu_saturated_pct
    if not (h2d or cpu_hit):
        return None
    who = _("all GPUs") if span.gpu is None else _("GPU {gpu}").format(gpu=span.gpu)
    summary = _("Input starvation: {who} at {util:.0f} % for {length} while {what}.").format(
        who=who, util=span.util_median_pct, length=format_duration(span.duration_s), what=_cause(rx, share, cpu, h2d, cpu_hit))
    evidence = span.to_dict()
    evidence.update({"pcie_rx_link_share_pct": None if share is None else round(100 * share, 1),
                     "pcie_rx_busy_median_bytes_per_s": busy_rx, "cause": "host-cpu" if cpu_hit and not h2d
                     else "host-to-device" if h2d and not cpu_hit else "host-to-device+host-cpu"})
    severity = CRITICAL if span.gpu is None else WARNING
    return Finding(RULE, span.gpu, severity, summary, evidence, (span.t0, span.t1),
                   advice_h2d() if h2d else advice_cpu())
