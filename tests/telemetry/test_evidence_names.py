"""Every evidence key and rule id the findings carry on the labelled cases has a written display name (the window
and the CLI show names, never raw keys such as "thermal_throttled_samples_pct" or ids such as "thermal-throttling")."""

from __future__ import annotations

from rules_cases import CASES

from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_text, resolve_gpu_model
from gpudesk.telemetry.rules import run_rules
from gpudesk.telemetry.rules.evidence_names import EVIDENCE_NAMES, RULE_NAMES, evidence_name, rule_name


def test_every_key_and_rule_of_the_labelled_cases_has_a_name() -> None:
    keys: set[str] = set()
    rules: set[str] = set()
    for case in CASES:
        gpu = resolve_gpu_model(case.gpu_model) if case.gpu_model else None
        frame, devices, _log = frame_and_devices_from_text(case.text(), gpu, case.interval_s)
        for f in run_rules(frame, devices, interval_s=case.interval_s):
            rules.add(f.rule)
            keys.update(f.evidence)
    assert keys and rules
    # "spans" is a list the window counts in its own words ("spans: 3 (listed on the timeline)").
    assert sorted(keys - set(EVIDENCE_NAMES) - {"spans"}) == []
    assert sorted(rules - set(RULE_NAMES)) == []


def test_a_key_without_a_name_reads_as_its_words() -> None:
    assert evidence_name("thermal_throttled_samples_pct") == "Thermal-throttled samples"
    assert evidence_name("brand_new_key_s") == "brand new key"
    assert rule_name("thermal-throttling") == "Thermal throttling"
    assert rule_name("brand-new-rule") == "brand new rule"


def test_the_summary_names_the_other_flagged_rules() -> None:
    from gpudesk.telemetry.rules.base import WARNING, Finding
    from gpudesk.telemetry.rules.findings_summary import summarize

    text = summarize([Finding("thermal-throttling", 3, WARNING, "GPU 3: thermal throttling in 58 % of the samples.",
                              {"thermal_throttled_samples_pct": 58.3})])
    assert "Also flagged: Thermal throttling." in text and "thermal-throttling" not in text
