"""One reader for every log format: detection, parsing of each format, and `monitor analyze|import` saying which
format they read. Fixtures are real captures (URL in their first line)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpudesk.cli import main
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.core.dcgm_fields import GR_ENGINE_ACTIVE, SM_ACTIVE
from gpudesk.telemetry.recording.export import export_csv_text
from gpudesk.telemetry.formats.log_formats import LogFormat, LogFormatError, detect_format, read_log_file, read_log_text
from gpudesk.telemetry.core.model import History
from gpudesk.telemetry.rules import run_rules

FIX = Path(__file__).resolve().parents[1] / "fixtures"
FORMATS = FIX / "monitor_formats"
DCGMI_MIG = FORMATS / "dcgmi_dmon_mig_gract_tenso_dcgm_user_guide.txt"
SMI_CSV = FORMATS / "smi_query_csv_gtx1080ti_bpytop26.csv"
DMON = FIX / "monitor" / "sample_a_pucvmet.txt"
DCGMI_ISSUE152 = FIX / "fleet" / "dcgmi_dmon_mig_issue152.txt"
NPU_SMI = FIX / "vendor_logs" / "npu-smi-info-vllm-ascend-2534.txt"


@pytest.mark.parametrize(("path", "fmt"), [
    (DMON, LogFormat.DMON),
    (DCGMI_MIG, LogFormat.DCGMI_DMON),
    (DCGMI_ISSUE152, LogFormat.DCGMI_DMON),
    (SMI_CSV, LogFormat.SMI_QUERY_CSV),
    (NPU_SMI, LogFormat.NPU_SMI_INFO),
])
def test_detects_each_real_capture(path, fmt):
    assert detect_format(path.read_text()) is fmt
    read = read_log_file(path)
    assert read.format is fmt
    assert read.notes[0] == f"Read as {fmt.label()} output."
    assert len(read.frame) > 0


def test_dcgmi_mig_rows_become_their_own_gpus():
    read = read_log_file(DCGMI_MIG)
    assert [d.name for d in read.devices] == ["GPU 0 (dcgmi)", "MIG GPU instance 0 (dcgmi GPU-I)",
                                              "MIG GPU instance 1 (dcgmi GPU-I)"]
    assert read.frame.gpus == [0, 1, 2]
    # GRACT 0.986 on GPU-I 0 in the fourth tick, kept as a ratio x 100
    assert read.frame.series(1, GR_ENGINE_ACTIVE)[1][3] == pytest.approx(98.6)
    assert not any("not GPU, GPU-I or GPU-CI" in n for n in read.notes)  # the "Id" unit row is not a bad line


def test_smi_query_csv_values_and_units():
    read = read_log_file(SMI_CSV)
    f = read.frame
    assert f.gpus == [0, 1]
    assert [d.name for d in read.devices] == ["GeForce GTX 1080 Ti", "GeForce GTX 1060 6GB"]
    assert f.series(0, m.GPU_UTIL)[1].tolist() == [36.0]
    assert f.series(0, m.MEM_USED)[1].tolist() == [2856 * 1024 * 1024]
    assert f.series(1, m.POWER)[1].tolist() == [pytest.approx(5.68)]
    # fields gpudesk does not map keep their base unit in the name (Hz, %), as every metric does
    assert f.series(0, "smi_clocks_current_graphics_hz")[1].tolist() == [1936e6]
    assert f.series(0, "smi_fan_speed_pct")[1].tolist() == [29.0]
    assert any("No timestamp column" in n for n in read.notes)


def test_monitor_analyze_prints_unmapped_smi_fields_with_their_unit(capsys):
    """QA: 'smi_clocks_current_graphics  1936000000' (Hz without a unit) for a 1936 MHz reading."""
    assert main(["monitor", "analyze", str(SMI_CSV)]) == 0
    lines = capsys.readouterr().out.splitlines()
    clock = next(line for line in lines if "smi_clocks_current_graphics" in line)
    fan = next(line for line in lines if "smi_fan_speed" in line)
    assert "1936 MHz" in clock and "1936000000" not in clock
    assert "29 %" in fan


def test_smi_query_csv_with_timestamps_and_na():
    text = ("timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
            "2024/05/02 10:11:12.000, 0, 97 %, 70000 MiB, [N/A]\n"
            "2024/05/02 10:11:13.000, 0, 3 %, 70010 MiB, 310.5 W\n")
    read = read_log_text(text)
    assert read.format is LogFormat.SMI_QUERY_CSV
    t, util = read.frame.series(0, m.GPU_UTIL)
    assert util.tolist() == [97.0, 3.0]
    assert t[1] - t[0] == pytest.approx(1.0)
    power = read.frame.series(0, m.POWER)[1]
    assert np.isnan(power[0]) and power[1] == pytest.approx(310.5)
    assert read.frame.reason(0, m.POWER) == "nvidia-smi [N/A]"


def test_recording_csv_export_reads_back_the_same_numbers():
    dmon = read_log_file(DMON)
    text = export_csv_text(dmon.frame)
    back = read_log_text(text)
    assert back.format is LogFormat.GPUDESK_CSV
    for metric in (m.GPU_UTIL, m.MEM_USED, m.POWER):
        assert back.frame.series(2, metric)[1].tolist() == dmon.frame.series(2, metric)[1].tolist()


def test_known_format_that_cannot_be_read_is_a_clear_error():
    with pytest.raises(LogFormatError) as err:
        read_log_text("GPU 0  0.5  0.4\n#Entity SMACT SMOCC\n")  # a row before the header
    assert "dcgmi dmon" in err.value.user_text()


def test_rules_prefer_sm_active_over_nvml_utilization():
    # NVML says 100 % (a kernel is always resident) while SM activity is 10 %: busy, not productive
    n = 120
    t = np.arange(n, dtype=float)
    frame = History.from_rows(t, np.zeros(n), {m.GPU_UTIL: np.full(n, 100.0), SM_ACTIVE: np.full(n, 10.0),
                                         m.MEM_USED: np.full(n, 40e9)})
    findings = run_rules(frame)
    low = [f for f in findings if f.rule == "low-utilization"]
    assert any(f.evidence.get("busy_share_pct") == 0.0 for f in low)
    assert all(f.evidence.get("busy_signal_by_gpu", {}).get("0", f.evidence.get("busy_signal")) == SM_ACTIVE
               for f in low)
    assert any("SM active" in f.summary for f in low)
    only_util = run_rules(History.from_rows(t, np.zeros(n), {m.GPU_UTIL: np.full(n, 100.0)}))
    assert not any("SM active" in f.summary for f in only_util)


def test_monitor_analyze_judges_a_dcgmi_mig_log_on_engine_activity(capsys):
    assert main(["monitor", "analyze", str(DCGMI_MIG), "--interval", "10", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "dcgmi dmon"
    assert doc["gpus"]["1"]["metrics"][GR_ENGINE_ACTIVE]["unit"] == "%"
    texts = [f["summary"] for f in doc["findings"]]
    assert not any("GPU utilization was not recorded" in s for s in texts)
    low = [f for f in doc["findings"] if f["rule"] == "low-utilization" and f["severity"] != "not-judged"]
    assert low and all(f["evidence"]["busy_signal_by_gpu"] == {"0": GR_ENGINE_ACTIVE, "1": GR_ENGINE_ACTIVE,
                                                               "2": GR_ENGINE_ACTIVE} for f in low)
    # SMACT of two H100 MIG instances, one above 1.0 (the DCGM fault of that issue): read, judged, said
    assert main(["monitor", "analyze", str(DCGMI_ISSUE152)]) == 0
    out = capsys.readouterr().out
    assert "(dcgmi dmon)" in out and "SM active" in out and "no samples" not in out
    assert "a ratio above 1.0; kept as read" in out


def test_monitor_import_of_a_dcgmi_log_says_its_format(capsys):
    assert main(["monitor", "import", str(DCGMI_MIG), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "dcgmi dmon" and doc["rows"] == 30 and doc["gpus"] == [0, 1, 2]


def test_gpu_ci_rows_are_compute_instances():
    # the row layout of dcgmi dmon -i ci:N (compute instances are "GPU-CI <id>"), dcgmi_dmon.py docstring
    text = "#Entity   SMACT  SMOCC\nID\nGPU-CI 3  0.412  0.200\nGPU-CI 4  0.011  0.003\n"
    read = read_log_text(text)
    assert read.format is LogFormat.DCGMI_DMON
    assert [d.name for d in read.devices] == ["MIG compute instance 3 (dcgmi GPU-CI)",
                                              "MIG compute instance 4 (dcgmi GPU-CI)"]
    assert read.frame.series(0, SM_ACTIVE)[1].tolist() == [pytest.approx(41.2)]


@pytest.mark.parametrize("command", ["analyze", "import"])
def test_monitor_reads_an_npu_smi_info_capture(capsys, tmp_path, monkeypatch, command):
    """QA: `monitor analyze|import` of an npu-smi info capture said 'No nvidia-smi dmon header found'."""
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(tmp_path))
    for path in sorted((FIX / "vendor_logs").glob("npu-smi-info-*.txt")):
        assert main(["monitor", command, str(path)]) == 0, path
        out = capsys.readouterr().out
        assert "npu-smi info" in out and "dmon' header" not in out


@pytest.mark.parametrize("path", [DMON, SMI_CSV, DCGMI_ISSUE152, NPU_SMI])
@pytest.mark.parametrize("interval", ["1e300", "86401", "0"])
def test_monitor_analyze_refuses_an_interval_over_a_day(capsys, interval, path):
    """QA: --interval 1e300 placed rows 1e+300 s apart (and a long log's times overflow to inf); the CSV and
    dcgmi readers took 0 too."""
    assert main(["monitor", "analyze", str(path), "--interval", interval]) == 2
    err = capsys.readouterr().err
    assert "interval" in err and "86400" in err and "Traceback" not in err
