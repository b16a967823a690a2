"""The burn-in report: a recording, its findings and a saved plan joined; rendered as Markdown, HTML, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.telemetry.recording.burnin import (
    FAIL,
    INCOMPLETE,
    NOT_JUDGED,
    PASS,
    BurnInError,
    build_report,
)
from gpudesk.telemetry.recording.burnin_render import format_for, heatmap_svg, render, to_html
from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_file, resolve_gpu_model
from gpudesk.telemetry.core.model import TelemetryError

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "monitor_rules"
# gpu_power_w is the TDP of all the candidate's GPUs together, as the planner writes it (count x tdp_w,
# gpudesk/planner/train_eval.py): 4 x 300 W for the A100 80GB PCIe
PLAN = {"name": "13B fine-tune", "candidates": [
    {"count": 4, "gpu_name": "NVIDIA A100 80GB PCIe", "interconnect": "pcie4", "per_gpu_memory_bytes": 55e9,
     "safe_line_bytes": 64e9, "step_time_s": 0.42, "gpu_power_w": 1200.0},
    {"count": 8, "gpu_name": "NVIDIA H100 80GB SXM5", "per_gpu_memory_bytes": 30e9, "safe_line_bytes": 20e9}]}


@pytest.fixture(scope="module")
def stall():
    return frame_and_devices_from_file(FIX / "issue13_4gpu_h2d_stall.txt", resolve_gpu_model("a100-80-pcie"))


def test_plan_side_by_side_with_the_recording(stall):
    frame, devs, _log = stall
    rep = build_report(frame, devs, source="log", plan=PLAN, plan_name="13B fine-tune", generated_at="x")
    verdicts = {c.item: c.verdict for c in rep.comparisons}
    assert verdicts == {"GPU count": PASS, "GPU model": PASS, "Memory per GPU (peak)": PASS,
                        "GPU utilization (median)": PASS, "Step time": NOT_JUDGED, "Power per GPU (median)": PASS}
    burn = rep.checks[0]
    assert burn.verdict == FAIL and "input-starvation" in burn.evidence and "10 min of 3 d" in burn.evidence
    assert [c.name for c in rep.checks][1:] == ["Peak memory against the safe line", "nccl-tests all-reduce bandwidth",
                                                "Driver, CUDA and framework versions"]
    assert rep.checks[1].verdict == PASS
    assert rep.heatmap.values.shape[0] == 4 and len(rep.gpus) == 4


def test_a_different_candidate_fails_where_it_should(stall):
    frame, devs, _log = stall
    rep = build_report(frame, devs, source="log", plan=PLAN, candidate_index=1)
    verdicts = {c.item: c.verdict for c in rep.comparisons}
    assert verdicts["GPU count"] == FAIL and verdicts["GPU model"] == FAIL and verdicts["Memory per GPU (peak)"] == FAIL
    with pytest.raises(BurnInError, match="pick one from 1 to 2"):
        build_report(frame, devs, source="log", plan=PLAN, candidate_index=5)
    with pytest.raises(BurnInError, match="no candidate"):
        build_report(frame, devs, source="log", plan={"candidates": []})


def test_without_a_plan_a_clean_short_run_is_incomplete_not_passed():
    frame, devs, _ = frame_and_devices_from_file(FIX / "real_a100_um_healthy.txt", resolve_gpu_model("a100-80-pcie"))
    rep = build_report(frame, devs, source="real")
    assert not rep.comparisons and rep.checks[0].verdict == INCOMPLETE


def test_renderings_escape_outside_text_and_mark_spans(stall):
    frame, devs, _log = stall
    rep = build_report(frame, devs, source="<script>alert(1)</script>|x", plan=PLAN, plan_name="a|b")
    page = to_html(rep)
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    svg = heatmap_svg(rep)
    assert svg.count('stroke="#c0392b"') == 4  # the critical job span outlined on every GPU row
    md = render(rep, "md")
    assert "a\\|b" in md and "## Plan against measurement" in md and "GPUs busy 94 % of the run" in md
    data = json.loads(render(rep, "json"))
    assert data["version"] == 1 and data["checks"][0]["verdict"] == "fail" and len(data["heatmap"]["values_pct"]) == 4
    assert format_for(Path("r.HTML")) == "html"
    with pytest.raises(TelemetryError, match=".md, .html or .json"):
        format_for(Path("r.pdf"))


def test_power_is_judged_per_gpu_and_against_the_tdp(tmp_path):
    # the tryout: a planner export for 8 x A100 SXM4 (gpu_power_w 3200 W = 8 x 400 W) against a dmon log whose
    # GPUs draw a median 600-690 W (an H100's power, not an A100's): the old report compared 643 W with 3200 W
    lines = ["#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem",
             "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %"]
    for s in range(60):
        for g in range(8):
            lines.append(f" 20261130   10:00:{s:02d}  {g:5d}    643     70     65     97     50")
    log = tmp_path / "h100_power.log"
    log.write_text("\n".join(lines) + "\n")
    frame, devs, _ = frame_and_devices_from_file(log, None)
    plan = {"candidates": [{"count": 8, "gpu_id": "a100-80-sxm4", "gpu_name": "NVIDIA A100 80GB SXM4",
                            "gpu_power_w": 3200.0}]}
    rep = build_report(frame, devs, source="log", plan=plan)
    (power,) = [c for c in rep.comparisons if c.item == "Power per GPU (median)"]
    assert power.verdict == FAIL and power.expected.startswith("400 W") and "643 W" in power.measured
    assert "TDP" in power.note and "impossible" in power.note
    # the log's -o DT stamps are the node's local time with no zone: never labelled UTC
    md = render(rep, "md")
    assert "UTC" not in md and "node-local time as printed, no zone" in md and "2026-11-30 10:00:00" in md
    assert rep.to_json()["time_basis"] == "printed"
