"""``host_memory_growth``: the process's host memory (RSS, incl. pinned buffers) keeps growing.

From psutil samples of the target over time (evidence.py / launch): growth >= 1 GiB and >= 20 % between
the first and last sample, mostly monotonic. The article's "DataLoader pin_memory growth" row
(pytorch#97432: pin_memory + large prefetch_factor; #13246 copy-on-access in workers; #62066 persistent
workers). Confidence 0.5 + share of growth (max 0.85).
"""

from __future__ import annotations

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _


def check(f: Facts) -> Cause | None:
    samples = f.report.host_rss_samples
    if len(samples) < 3:
        return None
    (t0, first), (t1, last) = samples[0], samples[-1]
    growth = last - first
    ups = sum(1 for a, b in zip(samples, samples[1:]) if b[1] >= a[1])
    if growth < GiB or first <= 0 or growth / first < 0.2 or ups < 0.7 * (len(samples) - 1):
        return None
    rate = growth / (t1 - t0) if t1 > t0 else None
    return Cause(
        id="host_memory_growth",
        title=_("Host memory of the process keeps growing"),
        confidence=clamp(0.5 + min(0.35, growth / first / 4)),
        evidence=evidence(host_rss_first_bytes=first, host_rss_last_bytes=last, host_rss_growth_bytes=growth,
                          host_rss_growth_bytes_per_s=round(rate) if rate else None, window_s=round(t1 - t0, 1),
                          samples=len(samples)),
        explanation=_("Resident host memory grows steadily; with pin_memory=True the pinned (page-locked) buffers "
                    "of the DataLoader grow with prefetch_factor × num_workers × batch size."),
        fix=_("Lower DataLoader prefetch_factor (e.g. 2) and num_workers, or set pin_memory=False"),
        more_fixes=[_("Keep dataset objects as numpy arrays, not Python lists/dicts (copy-on-access in workers, pytorch#13246)."),
                    _("Restart persistent workers per epoch (persistent_workers=False) if they grow (pytorch#62066).")],
    )
