"""Accuracy suite: findings against the labelled logs of tests/telemetry/rules_cases.py, with a floor.

A label is found when a warning or critical finding of its rule names the same GPU (or the job) and, when the
label has a span, overlaps it (a grouped finding's listed spans count). Any other warning or critical finding is a
false warning. Floors: recall over all labels, no false warning on a healthy case, at most one case with false
warnings among the labelled ones.
"""

from __future__ import annotations

import pytest
from rules_cases import CASES, Case, Label

from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_text, resolve_gpu_model
from gpudesk.telemetry.rules import CRITICAL, WARNING, Finding, run_rules

RECALL_FLOOR = 0.9
JUDGED = (WARNING, CRITICAL)


def _spans_of(f: Finding, t0: float) -> list[tuple[float, float]]:
    listed = f.evidence.get("spans")
    if isinstance(listed, list) and listed:
        return [(s["start_s"] - t0, s["end_s"] - t0) for s in listed]
    return [(f.span[0] - t0, f.span[1] - t0)] if f.span else []


def _matches(f: Finding, label: Label, t0: float) -> bool:
    rule, gpu, span = label
    if f.rule != rule or f.gpu != gpu or f.severity not in JUDGED:
        return False
    if span is None:
        return True
    return any(a <= span[1] and span[0] <= b for a, b in _spans_of(f, t0))


def score(case: Case) -> tuple[list[Label], list[Label], list[Finding]]:
    """(labels found, labels missed, false warnings)."""
    gpu = resolve_gpu_model(case.gpu_model) if case.gpu_model else None
    frame, devices, _log = frame_and_devices_from_text(case.text(), gpu, case.interval_s)
    findings = run_rules(frame, devices)
    t0 = float(frame.times[0])
    found = [lab for lab in case.labels if any(_matches(f, lab, t0) for f in findings)]
    missed = [lab for lab in case.labels if lab not in found]
    false = [f for f in findings if f.severity in JUDGED
             and not any(_matches(f, lab, t0) for lab in case.labels)]
    return found, missed, false


@pytest.fixture(scope="module")
def scores() -> dict[str, tuple[list[Label], list[Label], list[Finding]]]:
    return {c.name: score(c) for c in CASES}


def test_recall_floor(scores):
    found = sum(len(s[0]) for s in scores.values())
    total = sum(len(c.labels) for c in CASES)
    missed = {name: s[1] for name, s in scores.items() if s[1]}
    assert found / total >= RECALL_FLOOR, missed


def test_no_false_warning_on_healthy_runs(scores):
    for case in CASES:
        if not case.labels:
            assert not scores[case.name][2], (case.name, [f.summary for f in scores[case.name][2]])


def test_false_warnings_on_labelled_runs_stay_rare(scores):
    noisy = {c.name: [f.summary for f in scores[c.name][2]] for c in CASES if c.labels and scores[c.name][2]}
    assert len(noisy) <= 1, noisy


@pytest.mark.parametrize("name", ["issue13_4gpu_h2d_stall", "issue13_30min_15min_stall"])
def test_the_issue_logs_are_found_completely(scores, name):
    _found, missed, false = scores[name]
    assert not missed and not false, (missed, [f.summary for f in false])
