"""Defects a new user found in the monitor's core and CLI (usertest issue 4): each test failed before its fix.

Inputs are the real dmon Sample A (tests/fixtures/monitor/sample_a_pucvmet.txt, Mozilla DeepSpeech issue 178).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from gpudesk.cli import main
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.formats.dmon import read_dmon_file
from gpudesk.telemetry.formats.dmon_import import resolve_gpu_model
from gpudesk.telemetry.core.model import TelemetryError
from gpudesk.telemetry.rules import run_rules

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"
SAMPLE_A = FIX / "sample_a_pucvmet.txt"


def test_throttling_is_judged_from_dmon_pviol_tviol_and_reported_when_absent():
    """Defect 2: Sample A records pviol 0 and tviol 0 on every GPU: the rule judged "no throttling" and must
    say so (the CLI printed no throttling line at all)."""
    frame = read_dmon_file(SAMPLE_A).frame
    found = run_rules(frame)
    for g in range(4):
        for rule in ("power-throttling", "thermal-throttling"):
            (f,) = [x for x in found if x.rule == rule and x.gpu == g]
            assert f.severity == "info" and f.judged, (rule, g, f.summary)
            assert "no " in f.summary and f.evidence["basis"] == "dmon pviol/tviol"
    assert not [x for x in found if x.rule == "throttling"]  # no "not judged: neither ... recorded"


def test_cli_analyze_prints_the_throttling_verdict(capsys):
    assert main(["monitor", "analyze", str(SAMPLE_A)]) == 0
    out = capsys.readouterr().out
    assert out.count("[info] Power throttling") == 4 and out.count("[info] Thermal throttling") == 4


def test_unknown_gpu_model_names_the_real_list_command_and_suggests(capsys):
    """Defect 8: 'gpudesk catalog gpus' does not exist; the catalog's 'Did you mean' is passed on."""
    with pytest.raises(TelemetryError) as err:
        resolve_gpu_model("a1000 80gb")
    text = str(err.value)
    assert "catalog gpus" not in text and "gpudesk catalog list" in text and "Did you mean" in text
    assert main(["monitor", "analyze", str(SAMPLE_A), "--gpu-model", "a1000 80gb"]) == 2
    assert "Did you mean" in capsys.readouterr().err


def test_analyze_dash_reads_standard_input(monkeypatch, capsys):
    """Defect 24: 'monitor analyze -' reads the log from standard input."""
    monkeypatch.setattr("sys.stdin", io.StringIO(SAMPLE_A.read_text()))
    assert main(["monitor", "analyze", "-", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["gpus"]["3"]["metrics"][m.GPU_UTIL]["median"] == 18.0 and doc["sampling_rounds"] == 1


def test_pcie_throughput_is_shown_as_the_log_printed_it(capsys):
    """Defect 13: rxpci 41 in a "MB/s" column is 41 MB/s (decimal), not 42.99 (MiB read as MB)."""
    frame = read_dmon_file(SAMPLE_A).frame
    assert frame.series(0, m.PCIE_RX)[1].tolist() == [41e6]
    assert main(["monitor", "analyze", str(SAMPLE_A)]) == 0
    out = capsys.readouterr().out
    gpu0 = out.split("GPU 1 (")[0]
    assert "PCIe RX                          41 MB/s" in gpu0 and "PCIe TX                          8 MB/s" in gpu0
    assert "42.99" not in out


def test_cli_analysis_units_and_wording_for_a_short_log(capsys):
    """Defect 19 (monitor part): no "0.00 h", "0.00 bool", "0.00 count", "only 1 utilization samples"."""
    assert main(["monitor", "analyze", str(SAMPLE_A)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(": 0 s, 1 sampling round, 4 GPU(s)")
    for wrong in ("0.00 h", " bool", " count", "1 utilization samples", "1 samples"):
        assert wrong not in out, wrong
    assert "Thermal violation                no (1 sample)" in out
    assert "Power draw                       111 W (1 sample)" in out
    assert "only 1 utilization sample;" in out


def test_cli_help_texts_for_interval_and_json(capsys):
    for sub in ("analyze", "import"):
        with pytest.raises(SystemExit):
            main(["monitor", sub, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--interval S seconds between dmon samples" in text
        assert "--json print" in text


def test_many_rounds_stats_keep_median_p5_p95(capsys, tmp_path):
    lines = SAMPLE_A.read_text().splitlines()
    log = tmp_path / "run.log"
    log.write_text("\n".join(lines[:2] + lines[2:] * 30) + "\n")
    assert main(["monitor", "analyze", str(log)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith(": 29 s, 30 sampling rounds, 4 GPU(s)")
    assert "median" in out and "(30 samples)" in out
    result = analyze(read_dmon_file(log).frame)
    assert result.rounds == 30 and np.isclose(result.span[1] - result.span[0], 29.0)


def test_undated_stamps_read_as_time_of_day_or_relative_never_1970():
    """Defect 10 (core): a dmon log without a date has stamps in the first days of 1970."""
    from gpudesk.telemetry.core import timebase as tb

    assert tb.time_basis(0.0, 3.0) == tb.RELATIVE  # no time column: rows from 0
    assert tb.time_basis(36000.0, 36010.0) == tb.TIME_OF_DAY  # -o T: 10:00:00
    assert tb.time_basis(0.0, 3.0, has_time=True) == tb.TIME_OF_DAY  # a log starting at midnight
    assert tb.time_basis(1.7e9, 1.7e9 + 60) == tb.LOCAL and tb.time_basis(1.7e9, as_printed=True) == tb.PRINTED
    assert tb.format_time(0.0, tb.RELATIVE) == "t+0 s" and tb.format_time(3725.0, tb.RELATIVE) == "t+1:02:05"
    assert tb.format_time(36000.0, tb.TIME_OF_DAY) == "10:00:00"
    assert tb.format_time(86401.0, tb.TIME_OF_DAY, "%Y-%m-%d %H:%M") == "00:00 (+1 d)"
    assert tb.format_time(1_767_225_600.0, tb.PRINTED) == "2026-01-01 00:00:00"
    assert tb.axis_label(0.0, 60.0, tb.RELATIVE) == "t+0 s" and tb.axis_label(120.0, 60.0, tb.RELATIVE) == "t+2 min"


def test_csv_of_an_undated_log_has_no_1970_stamps():
    import csv

    from gpudesk.telemetry.recording.export import export_csv_text

    rows = list(csv.DictReader(io.StringIO(export_csv_text(read_dmon_file(SAMPLE_A).frame))))
    assert [r["time_s"] for r in rows] == ["0.0"] * 4 and all(r["time_utc"] == "" for r in rows)


# --- second tryout (issue 13): wording and validation ----------------------------------------------------------

def _first_round(tmp_path: Path) -> Path:
    """Sample A's header and its first sampling round: one sample per GPU."""
    lines = SAMPLE_A.read_text().splitlines()
    one = tmp_path / "one_round.txt"
    one.write_text("\n".join(lines[:6]) + "\n")
    return one


def test_one_sample_is_not_judged_for_busy_time_imbalance_or_stragglers(tmp_path, capsys):
    assert main(["monitor", "analyze", str(_first_round(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "busy 0 %" not in out and "GPUs busy" not in out
    assert "Stalls not judged: 1 sample (1 s)" in out
    for rule in ("Low utilization", "Imbalance between GPUs", "Straggler GPU"):
        assert f"[not judged] {rule} (all GPUs): Could not judge: 1 sample" in out, rule


def test_equal_dip_lengths_read_once_and_a_never_set_flag_reads_no():
    t = np.arange(900, dtype=float)
    util = np.where(t % 60 >= 54, 5.0, 97.0)  # a 6 s dip every 60 s
    frame = m.History.from_rows(t + 1.7e9, np.zeros(900, dtype=np.int32), {m.GPU_UTIL: util})
    (dips,) = [f for f in run_rules(frame) if f.rule == "periodic-dips"]
    assert "15 dips of 6 s every 1 min" in dips.summary and "6 s-6 s" not in dips.summary
    from gpudesk.cli.monitor import _stat_line
    from gpudesk.telemetry.core.stats import span_stats

    never = np.zeros(900)
    sometimes = (t % 100 == 0).astype(float)  # 9 of 900 samples
    flags = m.History.from_rows(np.repeat(t, 2) + 1.7e9, np.tile(np.arange(2, dtype=np.int32), 900),
                          {m.THERMAL_VIOLATION: np.column_stack([never, sometimes]).reshape(-1)})
    stats = span_stats(flags)
    assert _stat_line("Thermal violation", "bool", stats[0][m.THERMAL_VIOLATION]).endswith("no (0 of 900 samples)")
    assert _stat_line("Thermal violation", "bool", stats[1][m.THERMAL_VIOLATION]).endswith(
        "yes in 9 of 900 samples (1 %)")


def test_to_alone_names_only_the_bound_given(capsys):
    assert main(["monitor", "analyze", str(SAMPLE_A), "--to", "-5"]) == 2
    err = capsys.readouterr().err
    assert "None" not in err and "before --to -5" in err
