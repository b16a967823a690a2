"""Bottleneck rules over a window of samples; each module holds one rule (``check(frame, ctx) -> [Finding]``).

``run_rules(frame, devices=None, interval_s=None, thresholds=None)`` runs them all and returns the findings,
judged ones first. Two promises hold for every rule:

* it says what it checked: a judged rule that found nothing returns an "info" finding saying so (the rules
  do it themselves where they have something to add; :data:`CHECKED` is the fallback sentence otherwise);
* a rule that cannot judge says why once: identical "not-judged" findings of several GPUs become one, naming
  the GPUs.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from gpudesk.i18n import _
from gpudesk.telemetry.core.model import DeviceInfo, History, middle
from gpudesk.telemetry.rules import (
    busy_signal,
    clocks,
    cpu_bound,
    imbalance,
    input_starvation,
    low_util,
    memory,
    memory_creep,
    nvlink,
    pcie_link,
    periodic,
    starvation,
    throttling,
)
from gpudesk.telemetry.rules.base import (
    CRITICAL,
    INFO,
    NOT_JUDGED,
    WARNING,
    Finding,
    RuleContext,
    checked,
)
from gpudesk.telemetry.rules.text import gpu_list, sentences
from gpudesk.telemetry.rules.thresholds import Thresholds

RULES = (low_util.check, input_starvation.check, starvation.check, periodic.check, cpu_bound.check,
         imbalance.check, memory.check, memory_creep.check, throttling.check, clocks.check, pcie_link.check,
         nvlink.check)
# Rules that tell busy from idle: they judge on the best busy signal recorded (rules/busy_signal.py).
BUSY_RULES = frozenset({low_util.check, input_starvation.check, starvation.check, periodic.check, cpu_bound.check,
                        imbalance.check, clocks.check, nvlink.check})
_ORDER = {CRITICAL: 0, WARNING: 1, INFO: 2, NOT_JUDGED: 3}

# What each rule checks, said when a rule judged and found nothing (rules that say it themselves are absent).
CHECKED = (starvation.RULE, cpu_bound.RULE, memory.RULE, pcie_link.RULE)


def checked_sentence(rule_id: str, th: Thresholds) -> str:
    """The fallback "checked" sentence of a rule in :data:`CHECKED`, in the current language."""
    sentences = {
        starvation.RULE: _("The method's starvation test (median utilization under {util:.0f} % while PCIe is over "
                           "{pcie:.0f} % of the link) did not fire."),
        cpu_bound.RULE: _("No CPU-bound swing: utilization does not swing between busy and idle from one sample to "
                          "the next."),
        memory.RULE: _("Memory stays under the {safe:.0f} % safe line."),
        pcie_link.RULE: _("PCIe links held their maximum generation and width under load."),
    }
    return sentences[rule_id].format(util=th.method_util_below_pct, pcie=th.method_pcie_above_pct,
                                     safe=th.safe_line_pct)

__all__ = [
    "CHECKED",
    "CRITICAL",
    "INFO",
    "NOT_JUDGED",
    "RULES",
    "WARNING",
    "Finding",
    "RuleContext",
    "Thresholds",
    "estimate_interval",
    "run_rules",
]


def estimate_interval(frame: History) -> float:
    """Typical sampling interval (s) between rounds (median of the first 10,000 gaps); 1 s when it cannot be told."""
    if len(frame) < 2:
        return 1.0
    d = np.diff(frame.times[:10_000])
    d = d[d > 0]
    return middle(d) if d.size else 1.0


def _collapse_not_judged(findings: list[Finding]) -> list[Finding]:
    """One not-judged finding per (rule, reason): the same reason on several GPUs is said once, naming them."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    out: list[Finding] = []
    for f in findings:
        if f.severity != NOT_JUDGED:
            out.append(f)
            continue
        text = f.summary
        if f.gpu is not None:
            text = text.replace(f"GPU {f.gpu}", "GPU")
        groups.setdefault((f.rule, text), []).append(f)
    for group in groups.values():
        if len(group) == 1 or all(f.gpu is None for f in group):
            out.append(group[0])
            continue
        gpus = sorted({f.gpu for f in group if f.gpu is not None})
        spans = [f.span for f in group if f.span]
        span = (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None
        first = group[0]
        # Translators: {summary} is a whole "Could not judge: ..." sentence, {gpus} e.g. "GPUs 0-3"
        summary = _("{summary} ({gpus})").format(summary=first.summary, gpus=gpu_list(gpus))
        out.append(Finding(first.rule, None, NOT_JUDGED, summary,
                           {"gpus": gpus}, span, first.advice))
    return out


def run_rules(
    frame: History,
    devices: Iterable[DeviceInfo] | dict[int, DeviceInfo] | None = None,
    *,
    interval_s: float | None = None,
    min_sustained_s: float = 30.0,
    thresholds: Thresholds | None = None,
) -> list[Finding]:
    """Run every rule over ``frame``; findings sorted by severity (critical first), then GPU."""
    if isinstance(devices, dict):
        devs = dict(devices)
    else:
        devs = {d.index: d for d in (devices or [])}
    th = thresholds or Thresholds()
    ctx = RuleContext(devs, interval_s or estimate_interval(frame), min_sustained_s, th)
    findings: list[Finding] = []
    if not len(frame):
        return findings
    busy, used = busy_signal.busy_frame(frame)
    note = busy_signal.signal_note(used)
    for rule in RULES:
        if rule in BUSY_RULES:
            found = rule(busy, ctx)
            for f in found:
                if f.gpu is not None and f.gpu in used:
                    f.evidence.setdefault("busy_signal", used[f.gpu])
                elif used:
                    f.evidence.setdefault("busy_signal_by_gpu", {str(g): s for g, s in sorted(used.items())})
                if note and f.judged:
                    f.summary = sentences([f.summary, note])
            findings.extend(found)
        else:
            findings.extend(rule(frame, ctx))
    findings = _collapse_not_judged(findings)
    said = {f.rule for f in findings}
    for rule_id in CHECKED:
        if rule_id not in said:
            findings.append(checked(rule_id, checked_sentence(rule_id, th), {}, frame.span))
    findings.sort(key=lambda f: (_ORDER.get(f.severity, 9), -1 if f.gpu is None else f.gpu, f.rule))
    return findings
