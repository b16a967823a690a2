"""qa19: the findings' severities read in the user's language in `gpudesk monitor analyze` (one table for the CLI,
the window and the burn-in report: gpudesk.telemetry.rules.evidence_names.severity_name); the JSON keeps the ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk import i18n
from gpudesk.cli import main
from gpudesk.telemetry.rules.evidence_names import severity_name

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "monitor_rules" / "issue13_4gpu_h2d_stall.txt"


@pytest.fixture(autouse=True)
def language_restored():
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def test_analyze_prints_severities_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "monitor", "analyze", str(LOG)]) == 0
    out = capsys.readouterr().out
    assert "[严重]" in out and "[警告]" in out and "[信息]" in out
    assert "[warning]" not in out and "[critical]" not in out and "[info]" not in out


def test_analyze_json_keeps_the_severity_ids(capsys):
    assert main(["--lang", "zh_CN", "monitor", "analyze", str(LOG), "--json"]) == 0
    severities = {f["severity"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert {"critical", "warning"} <= severities


def test_an_unknown_severity_is_shown_as_it_is():
    i18n.set_language("zh_CN")
    assert severity_name("not-judged") == "无法判断"
    assert severity_name("fatal") == "fatal"
