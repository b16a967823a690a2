"""The one-paragraph summary above the findings: how busy the GPUs were, the stalls (how many, how long, how
often) and their cause where a rule found one, then the other warnings by name, or what was checked when all is
quiet. Built from the findings alone, so it reads the same for NVML recordings, dmon logs and fleet data.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpudesk.i18n import _, ngettext
from gpudesk.telemetry.rules.base import CRITICAL, INFO, NOT_JUDGED, WARNING, Finding, not_judged_reason
from gpudesk.units import format_duration, format_rate
from gpudesk.telemetry.rules.evidence_names import rule_name
from gpudesk.telemetry.rules.text import sentences as join_sentences

JUDGED = (WARNING, CRITICAL)


def _busy_share(findings: Sequence[Finding]) -> float | None:
    for f in findings:
        if f.rule == "low-utilization" and isinstance(f.evidence.get("busy_share_pct"), (int, float)):
            return float(f.evidence["busy_share_pct"])
    return None


def _stall_lengths(findings: Sequence[Finding]) -> list[float]:
    out: list[float] = []
    for f in findings:
        if f.rule != "low-utilization" or f.severity not in JUDGED:
            continue
        spans = f.evidence.get("spans")
        if isinstance(spans, list):
            out.extend(float(s["duration_s"]) for s in spans)
        elif "start_s" in f.evidence:
            out.append(float(f.evidence["duration_s"]))
    return out


def _sentence(clause: str) -> str:
    """A clause made a sentence: capitalized, with the language's full stop."""
    # Translators: {clause} is a whole clause; the full stop of the language ends it.
    return _("{clause}.").format(clause=clause[:1].upper() + clause[1:])


def _stalls(lengths: list[float], period_s: float | None) -> str:
    length = (format_duration(lengths[0]) if min(lengths) == max(lengths)
              else _("{short} to {long}").format(short=format_duration(min(lengths)), long=format_duration(max(lengths))))
    n = len(lengths)
    if period_s is None:
        return ngettext("{n} stall of {length}", "{n} stalls of {length}", n).format(n=n, length=length)
    return ngettext("{n} stall of {length} every {period}", "{n} stalls of {length} every {period}", n).format(
        n=n, length=length, period=format_duration(period_s))


def _with_cause(before: str | None, starving: Sequence[Finding]) -> str:
    """The stall clause ``before`` (or nothing) followed by the cause the input-starvation findings name."""
    causes = {str(f.evidence.get("cause")) for f in starving}
    if "host-cpu" in causes or "host-to-device+host-cpu" in causes:
        cpu = max(float(f.evidence.get("host_cpu_median_pct") or 0) for f in starving)
        if before is None:
            return _("each with host CPU at {cpu:.0f} %: the data loader is the bottleneck").format(cpu=cpu)
        # Translators: {before} is the clause about busy time and stalls ("GPUs busy 62 % of the run; 4 stalls ...")
        return _("{before}, each with host CPU at {cpu:.0f} %: the data loader is the bottleneck").format(
            before=before, cpu=cpu)
    rx = format_rate(max(float(f.evidence.get("pcie_rx_median_bytes_per_s") or 0) for f in starving))
    if before is None:
        return _("with PCIe RX at {rx} per GPU meanwhile: the GPUs wait on host-to-device copies").format(rx=rx)
    return _("{before}, with PCIe RX at {rx} per GPU meanwhile: the GPUs wait on host-to-device copies").format(
        before=before, rx=rx)


def summarize(findings: Sequence[Finding]) -> str:
    """One paragraph, e.g. "GPUs busy 62 % of the run; 4 stalls of 20-40 s every 10 min, each with host CPU at
    100 %: the data loader is the bottleneck."""
    busy = _busy_share(findings)
    lengths = _stall_lengths(findings)
    periodic = next((f for f in findings if f.rule == "periodic-dips" and f.severity in JUDGED), None)
    starving = [f for f in findings if f.rule == "input-starvation" and f.severity in JUDGED]
    head = _("GPUs busy {busy:.0f} % of the run").format(busy=busy) if busy is not None else ""
    in_use = next((f.evidence.get("gpus_in_use") for f in findings
                   if f.rule == "low-utilization" and "gpus_in_use" in f.evidence), None)
    if in_use == []:
        head = _("The GPUs were idle the whole run (no job ran on them)")
    if lengths:
        stalls = _stalls(lengths, float(periodic.evidence["period_s"]) if periodic is not None else None)
        # Translators: {busy} is "GPUs busy 62 % of the run", {stalls} e.g. "4 stalls of 20 s to 40 s every 10 min"
        head = _("{busy}; {stalls}").format(busy=head, stalls=stalls) if head else stalls
    if starving:
        head = _with_cause(head or None, starving)
    sentences = [_sentence(head)] if head else []
    others = sorted({f.rule for f in findings if f.severity in JUDGED}
                    - {"low-utilization", "periodic-dips", "input-starvation"})
    barely = [f for f in findings if f.rule == "low-utilization" and f.severity in JUDGED
              and "start_s" not in f.evidence and "spans" not in f.evidence]
    sentences += [f.summary for f in barely]
    if others:
        sentences.append(_("Also flagged: {rules}.").format(rules=", ".join(rule_name(rule) for rule in others)))
    if not lengths and not others and not starving and not barely:
        judged = len({f.rule for f in findings if f.severity == INFO})
        blind = len({f.rule for f in findings if f.severity == NOT_JUDGED})
        unjudged_stalls = next((f for f in findings if f.rule == "low-utilization" and f.severity == NOT_JUDGED),
                               None)
        if unjudged_stalls is not None:
            why = not_judged_reason(unjudged_stalls.summary)
            sentences.append(_("Stalls not judged: {why} {ok} check(s) passed, {blind} could not judge (their reasons "
                               "are listed).").format(why=why, ok=judged, blind=blind))
        else:
            sentences.append(_("No stall or other problem found: {ok} check(s) passed, {blind} could not judge (their "
                               "reasons are listed).").format(ok=judged, blind=blind))
    return join_sentences(sentences)
