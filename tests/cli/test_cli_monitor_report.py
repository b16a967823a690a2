"""``gpudesk monitor report`` and ``gpudesk monitor thresholds``."""

from __future__ import annotations

import json
from pathlib import Path

from gpudesk.cli import main
from gpudesk.store import open_store
from gpudesk.store.plans import save_plan

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "monitor_rules"
LOG = FIX / "issue13_4gpu_h2d_stall.txt"
PLAN = {"name": "p", "candidates": [{"count": 4, "gpu_name": "NVIDIA A100 80GB PCIe",
                                     "per_gpu_memory_bytes": 55e9, "safe_line_bytes": 64e9}]}


def test_report_from_a_log_and_a_saved_plan(tmp_path, capsys):
    plan_id = save_plan(open_store(), "13B fine-tune", "", PLAN)
    out = tmp_path / "burnin.md"
    assert main(["monitor", "report", str(LOG), "--gpu-model", "a100-80-pcie", "--plan", str(plan_id),
                 "--out", str(out)]) == 0
    text = out.read_text()
    assert "Plan: 13B fine-tune" in text and "| GPU count | 4 | 4 | pass |" in text
    assert "1 stall of 35 s" in capsys.readouterr().out


def test_report_errors_are_sentences(tmp_path, capsys):
    assert main(["monitor", "report", str(LOG), "--out", str(tmp_path / "r.pdf")]) == 2
    assert main(["monitor", "report", str(LOG), "--plan", "99", "--out", str(tmp_path / "r.md")]) == 2
    bad = tmp_path / "plan.json"
    bad.write_text("[1, 2]")
    assert main(["monitor", "report", str(LOG), "--plan-file", str(bad), "--out", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert ".md, .html or .json" in err and "No saved plan with id 99" in err and "JSON object" in err
    assert "Traceback" not in err


def test_thresholds_set_show_reset(capsys):
    assert main(["monitor", "thresholds", "--set", "min_span_s=20"]) == 0
    capsys.readouterr()
    assert main(["monitor", "thresholds", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["min_span_s"] == 20.0
    assert main(["monitor", "analyze", str(LOG), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["thresholds"]["min_span_s"] == 20.0
    assert main(["monitor", "thresholds", "--set", "nope=1"]) == 2
    assert "Unknown rule thresholds: nope" in capsys.readouterr().err
    assert main(["monitor", "thresholds", "--reset", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["min_span_s"] == 10.0


def test_report_from_a_recording_in_the_store(tmp_path, capsys):
    assert main(["monitor", "import", str(FIX / "issue13_30min_15min_stall.txt"), "--gpu-model", "a100-80-pcie"]) == 0
    plan_id = save_plan(open_store(), "2-GPU plan", "", {"candidates": [{"count": 2, "gpu_name": "NVIDIA A100 80GB PCIe",
                                                                          "per_gpu_memory_bytes": 55e9,
                                                                          "safe_line_bytes": 64e9}]})
    capsys.readouterr()
    out = tmp_path / "r.json"
    assert main(["monitor", "report", "1", "--plan", str(plan_id), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["source"].startswith("recording 1") and data["plan_name"] == "2-GPU plan"
    assert data["summary"] == "GPUs busy 50 % of the run; 1 stall of 15 min."
    assert {c["item"]: c["verdict"] for c in data["comparisons"]}["GPU count"] == "pass"


def test_binary_plan_file_and_thresholds_are_errors_not_tracebacks(tmp_path, capsys):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 8)
    assert main(["monitor", "report", str(LOG), "--plan-file", str(garbage), "--out", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert str(garbage) in err and "not UTF-8" in err and "gpudesk plan" in err
    bad = tmp_path / "t.json"
    bad.write_bytes(b"\xff\xfe\x00\x01")
    assert main(["monitor", "analyze", str(LOG), "--thresholds", str(bad)]) == 2
    assert main(["monitor", "report", str(LOG), "--thresholds", str(bad), "--out", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert err.count(f"The rule thresholds file {bad} is not text") == 2 and "Traceback" not in err
