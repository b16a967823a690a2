"""The telemetry rules, their summary and the burn-in report under zh_CN (issue 19): the sentences a user reads
are Chinese, the stable ids (rule ids, severities and verdicts in JSON, evidence keys) stay English, and the
language is read when a finding is made, not when a module is imported."""

from __future__ import annotations

import re
from pathlib import Path


from gpudesk import i18n
from gpudesk.telemetry.rules.analysis import Analysis, analyze
from gpudesk.telemetry.recording.burnin import FAIL, build_report
from gpudesk.telemetry.recording.burnin_render import to_html, to_markdown
from gpudesk.telemetry.formats.dmon_import import frame_and_devices_from_file, resolve_gpu_model
from gpudesk.telemetry.rules import CRITICAL, WARNING
from gpudesk.telemetry.rules.threshold_labels import THRESHOLD_LABELS

# issue 13, log 1 (tests/telemetry/rules_cases.py): 35 s where all four A100s sat at 8-20 % while PCIe RX ran
# at about 20 GB/s
STALL_LOG = Path(__file__).resolve().parents[1] / "fixtures" / "monitor_rules" / "issue13_4gpu_h2d_stall.txt"
CJK = re.compile(r"[\u4e00-\u9fff]")
PLAN = {"name": "13B fine-tune", "candidates": [
    {"count": 4, "gpu_name": "NVIDIA A100 80GB PCIe", "interconnect": "pcie4", "per_gpu_memory_bytes": 55e9,
     "safe_line_bytes": 64e9, "step_time_s": 0.42, "gpu_power_w": 1200.0}]}


def _stall_analysis() -> Analysis:
    frame, devices, _log = frame_and_devices_from_file(STALL_LOG, resolve_gpu_model("a100-80-pcie"))
    return analyze(frame, devices)


def test_the_35_s_stall_reads_in_chinese_with_english_rule_ids(zh_cn):
    a = _stall_analysis()
    judged = {f.rule: f for f in a.findings if f.severity in (WARNING, CRITICAL)}
    assert set(judged) == {"input-starvation", "low-utilization"}  # ids as in English
    for f in a.findings:
        assert CJK.search(f.summary), (f.rule, f.summary)
        assert f.rule.isascii() and f.severity.isascii()
        assert all(key.isascii() for key in f.evidence), f.evidence
    for f in judged.values():
        assert CJK.search(f.advice), (f.rule, f.advice)
    starving = judged["input-starvation"]
    assert starving.summary.startswith("数据供给不足：")
    assert "35 秒" in starving.summary and "20.0 GB/s" in starving.summary  # durations read in Chinese, rates in SI units
    assert "DataLoader pin_memory=True" in starving.advice  # API names stay English
    # the summary paragraph: busy share, the stall and its cause, in one Chinese sentence
    assert a.summary == ("GPU 在 94 % 的运行时间内忙碌；1 次 35 秒 的停顿，同时每块 GPU 的 PCIe RX 为 20.0 GB/s："
                         "GPU 在等待主机到设备的拷贝。")
    # not-judged findings of several GPUs are still said once, naming the GPUs
    throttling = next(f for f in a.findings if f.rule == "throttling")
    assert throttling.gpu is None and throttling.summary.startswith("无法判断：")
    assert throttling.summary.endswith("（GPU 0-3）")
    assert a.to_json()["findings"][0].keys() == {"rule", "gpu", "severity", "summary", "evidence", "span_s", "advice"}


def test_the_language_is_read_when_the_rules_run_not_at_import(zh_cn):
    chinese = _stall_analysis()
    i18n.set_language("en")
    english = _stall_analysis()
    assert english.summary.startswith("GPUs busy 94 % of the run; 1 stall of 35 s")
    assert not CJK.search(english.summary + "".join(f.summary + f.advice for f in english.findings))
    assert [f.rule for f in english.findings] == [f.rule for f in chinese.findings]
    assert THRESHOLD_LABELS["safe_line_pct"] == ("Memory safe line", "% of card", "Memory")
    i18n.set_language("zh_CN")
    assert THRESHOLD_LABELS["safe_line_pct"] == ("显存安全线", "%（占显存容量）", "显存")
    assert THRESHOLD_LABELS["idle_mem_bytes"][1] == "bytes"  # the unit the settings form converts stays an id


def test_burn_in_report_markdown_and_html_in_chinese(zh_cn):
    frame, devices, _log = frame_and_devices_from_file(STALL_LOG, resolve_gpu_model("a100-80-pcie"))
    report = build_report(frame, devices, source="issue13_4gpu_h2d_stall.txt", plan=PLAN, plan_name="13B fine-tune",
                          generated_at="2026-12-01 19:00")
    assert report.checks[0].verdict == FAIL  # the id stays English
    md = to_markdown(report)
    assert md.startswith("# 拷机测试报告\n")
    for heading in ("## 摘要", "## 利用率热力图", "## 各 GPU 统计", "## 方案与实测对比", "## 交付后检查", "## 发现"):
        assert heading in md, heading
    assert "## Summary" not in md and "## Findings" not in md
    assert "| 用真实数据进行 72 小时拷机测试 |" in md and "| 未通过 |" in md
    assert "已录制 10 分钟，需要 3 天。未通过：利用率不稳定（input-starvation, low-utilization）。" in md
    assert "- **严重** `input-starvation`（作业，" in md  # rule id in English, the rest Chinese
    html = to_html(report)
    assert "<h2>摘要</h2>" in html and "<b>严重</b> <code>input-starvation</code>" in html
