"""qa20: every line `gpudesk monitor analyze` and `gpudesk monitor fleet` print is one translated sentence, so a
zh_CN run reads with Chinese punctuation instead of English glue (ASCII colons and brackets around Chinese words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk import i18n
from gpudesk.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DMON = FIXTURES / "monitor" / "sample_a_pucvmet.txt"
DCGMI = FIXTURES / "fleet" / "dcgmi_dmon_8gpu_na_issue244.txt"
MIG = FIXTURES / "fleet" / "dcgmi_dmon_mig_issue152.txt"


@pytest.fixture(autouse=True)
def language_restored():
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def _findings(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("  [")]


def test_analyze_findings_read_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "monitor", "analyze", str(DMON)]) == 0
    findings = _findings(capsys.readouterr().out)
    assert "  [信息] 功率降频（GPU 0）：GPU 0：1 个采样点中没有功耗降频（dmon pviol/tviol）。" in findings
    assert findings and not [line for line in findings if "): " in line or " (GPU" in line or " (所有" in line]


def test_analyze_empty_window_names_both_bounds_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "monitor", "analyze", str(DMON), "--from", "5", "--to", "9"]) != 0
    assert "在 --from 5 与 --to 9 之间没有采样" in capsys.readouterr().err


def test_fleet_findings_and_mig_read_in_chinese(capsys, monkeypatch):
    assert main(["--lang", "zh_CN", "monitor", "fleet", "--dcgmi", str(DCGMI), "--host", "n1"]) == 0
    findings = _findings(capsys.readouterr().out)
    judged = [line for line in findings if line.startswith("  [信息]")]
    assert judged and all(line.startswith("  [信息] ") and "：组 " in line for line in judged), judged
    assert not [line for line in findings if ": " in line]
    assert main(["--lang", "zh_CN", "monitor", "fleet", "--dcgmi", str(MIG), "--host", "h100"]) == 0
    assert "  h100 GPU ? | MIG 21（?） | 无 UUID | SM 活跃 1.294" in capsys.readouterr().out


def test_analyze_metric_rows_are_translated_and_aligned(capsys):
    from gpudesk.cli.columns import display_width

    assert main(["--lang", "zh_CN", "monitor", "analyze", str(DMON)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.endswith("（1 个采样）")]
    assert "  功耗                             111 W（1 个采样）" in rows
    assert not [row for row in rows if "Power draw" in row or "Memory used" in row]
    # every value starts in the same terminal column, whatever the label's script
    starts = {display_width(row[:len(row) - len(row[2:].split("  ")[-1].lstrip())]) for row in rows}
    assert starts == {35}, starts
