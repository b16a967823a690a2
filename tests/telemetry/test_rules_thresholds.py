"""Rule thresholds: one versioned module, a settings file with only the changed values, clear errors."""

from __future__ import annotations

import json

import pytest
from helpers import stall_logs

from gpudesk.telemetry.formats.dmon import parse_dmon
from gpudesk.telemetry.rules import run_rules
from gpudesk.telemetry.rules.thresholds import (
    THRESHOLDS_VERSION,
    Thresholds,
    ThresholdsError,
    load_thresholds,
    save_thresholds,
    thresholds_from_dict,
)


def test_defaults_when_no_file(tmp_path):
    assert load_thresholds(tmp_path / "none.json") == Thresholds()


def test_save_keeps_only_changes_and_version_and_round_trips(tmp_path):
    path = save_thresholds(Thresholds(min_span_s=20.0, periodic_min_dips=6), tmp_path / "t.json")
    data = json.loads(path.read_text())
    assert data == {"version": THRESHOLDS_VERSION, "min_span_s": 20.0, "periodic_min_dips": 6}
    back = load_thresholds(path)
    assert back.min_span_s == 20.0 and back.periodic_min_dips == 6 and isinstance(back.periodic_min_dips, int)


@pytest.mark.parametrize("data, field", [
    ({"min_spam_s": 3}, "min_spam_s"),
    ({"min_span_s": "ten"}, "min_span_s"),
    ({"min_span_s": -1}, "min_span_s"),
    ({"min_span_s": True}, "min_span_s"),
    ({"version": THRESHOLDS_VERSION + 1}, "version"),
])
def test_bad_values_are_refused_by_name(data, field):
    with pytest.raises(ThresholdsError) as err:
        thresholds_from_dict(data)
    assert err.value.field == field


def test_broken_json_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "t.json"
    bad.write_text("{not json")
    with pytest.raises(ThresholdsError, match="not valid JSON"):
        load_thresholds(bad)


def test_a_changed_threshold_changes_the_finding():
    frame = parse_dmon(stall_logs.issue_4gpu_h2d_stall()).frame
    spans = [f for f in run_rules(frame) if f.rule == "low-utilization" and f.severity == "warning"]
    assert spans and spans[0].evidence["duration_s"] == 35.0
    longer = Thresholds(min_span_s=60.0)
    assert not [f for f in run_rules(frame, thresholds=longer)
                if f.rule == "low-utilization" and f.severity == "warning"]


def test_every_threshold_has_a_label_for_the_settings_form():
    from dataclasses import fields

    from gpudesk.telemetry.rules.threshold_labels import THRESHOLD_LABELS

    assert set(THRESHOLD_LABELS) == {f.name for f in fields(Thresholds)}


@pytest.mark.parametrize("name, value", [("low_util_pct", 200), ("min_span_s", 1e308), ("min_span_s", float("inf")),
                                         ("straggler_min_correlation", 2), ("periodic_min_dips", 2.5)])
def test_values_outside_their_range_are_refused_with_the_range(name, value):
    with pytest.raises(ThresholdsError) as err:
        thresholds_from_dict({name: value})
    assert err.value.field == name
    assert "from" in err.value.message or "whole number" in err.value.message


def test_binary_thresholds_file_is_a_clear_error_naming_the_file(tmp_path, monkeypatch, capsys):
    from gpudesk.cli import main

    bad = tmp_path / "rule-thresholds.json"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00binary")
    with pytest.raises(ThresholdsError) as err:
        load_thresholds(bad)
    assert str(bad) in err.value.message and "--reset" in (err.value.remedy or "")
    assert main(["monitor", "thresholds", "--file", str(bad)]) == 2
    out = capsys.readouterr().err
    assert "not text" in out and str(bad) in out and "Traceback" not in out
    assert main(["monitor", "thresholds", "--file", str(bad), "--set", "low_util_pct=200"]) == 2
    assert main(["monitor", "thresholds", "--file", str(tmp_path / "t.json"), "--set", "low_util_pct=200"]) == 2
    assert "from 0 to 100" in capsys.readouterr().err


def test_saving_an_out_of_range_value_is_refused_and_writes_nothing(tmp_path):
    target = tmp_path / "t.json"
    with pytest.raises(ThresholdsError, match="from 0 to 100"):
        save_thresholds(Thresholds(low_util_pct=200.0), target)
    assert not target.exists()
