"""Issue 32: real `amd-smi monitor`, `npu-smi info watch` and `hl-smi -Q ... -f csv` captures
(tests/fixtures/vendor_logs/README.md) import and analyse to the medians read off the captures by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpudesk.cli import main
from gpudesk.telemetry.formats.amd_smi_monitor import AmdSmiMonitorError, parse_amd_smi_monitor
from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.formats.hl_smi_csv import HlSmiCsvError, parse_hl_smi_csv
from gpudesk.telemetry.formats.log_formats import LogFormat, detect_format, read_log_file
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_CLOCK, MEM_TEMP, MEM_TOTAL, MEM_USED, MEM_UTIL, POWER, \
    SM_CLOCK
from gpudesk.telemetry.formats.npu_smi_watch import NpuSmiWatchError, parse_npu_smi_watch

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "vendor_logs"
MIB = 2**20


def _medians(path: Path, fmt: LogFormat) -> dict[str, dict[str, float]]:
    read = read_log_file(path)  # the one reader behind `monitor analyze|import` and the window
    assert read.format is fmt
    result = analyze(read.frame, read.devices).to_json()
    return {g: {k: m["median"] for k, m in v["metrics"].items()} for g, v in result["gpus"].items()}


def test_amd_smi_monitor_cpx_capture():
    path = FIX / "amd-smi-monitor-ptv-amdsmi-changelog.txt"
    m = _medians(path, LogFormat.AMD_SMI_MONITOR)
    assert sorted(m, key=int) == [str(i) for i in range(32)]  # each CPX partition is its own device
    assert m["0"][POWER] == 248 and m["0"][GPU_TEMP] == 55 and m["0"][MEM_TEMP] == 48
    assert m["0"][MEM_USED] == 283 * MIB and m["0"][MEM_TOTAL] == 196300 * MIB  # amd-smi's "MB" is MiB
    assert (m["4"][POWER], m["4"][GPU_TEMP], m["4"][MEM_TEMP]) == (221, 50, 42)
    assert (m["31"][POWER], m["31"][GPU_TEMP], m["31"][MEM_TEMP]) == (227, 51, 49)
    assert float(np.median([g[POWER] for g in m.values()])) == 224.5
    read = read_log_file(path)
    assert not read.has_time and read.devices[0].memory_total_bytes == 196300 * MIB
    assert any("hotspot" in n for n in read.notes) and any("PCIe direction" in n for n in read.notes)


def test_amd_smi_monitor_blog_capture():
    m = _medians(FIX / "amd-smi-monitor-putm-rocm-blog.txt", LogFormat.AMD_SMI_MONITOR)
    assert len(m) == 8
    assert (m["0"][POWER], m["0"][GPU_TEMP], m["0"][MEM_TEMP], m["0"][GPU_UTIL]) == (182, 42, 41, 83)
    assert m["0"][SM_CLOCK] == 1613e6 and m["0"][MEM_UTIL] == 0 and m["0"][MEM_CLOCK] == 1230e6
    assert (m["3"][POWER], m["3"][GPU_UTIL], m["3"][SM_CLOCK], m["3"][MEM_CLOCK]) == (116, 1, 134e6, 913e6)
    assert float(np.median([g[GPU_UTIL] for g in m.values()])) == 0


def test_amd_smi_monitor_watch_capture_has_time_and_a_cut_row():
    path = FIX / "amd-smi-monitor-w1-rocm-smi-lib-216.txt"
    read = read_log_file(path)
    assert read.has_time and list(read.frame.times) == [1740686195.0] and read.frame.gpus == [0, 1]
    m = _medians(path, LogFormat.AMD_SMI_MONITOR)
    assert (m["0"][POWER], m["0"][GPU_TEMP], m["0"][MEM_TEMP], m["0"][MEM_CLOCK]) == (8, 28, 32, 96e6)
    assert m["0"][MEM_USED] == 16 * MIB and m["0"][MEM_TOTAL] == 30679 * MIB
    assert (m["1"][POWER], m["1"][GPU_TEMP], m["1"][MEM_TEMP]) == (8, 29, 30) and MEM_USED not in m["1"]


def test_amd_smi_monitor_repeated_tables_and_process_table():
    one = (FIX / "amd-smi-monitor-putm-rocm-blog.txt").read_text(encoding="utf-8")
    text = one + "\nPROCESS INFO:\nGPU                  NAME      PID  GTT_MEM\n  0                   rvs  1564865    0.0 B\n" \
        + one.replace("182 W", "200 W")
    frame, _devices, notes, stamped = parse_amd_smi_monitor(text, interval_s=2.0)
    t0, power0 = frame.series(0, POWER)
    assert not stamped and list(t0) == [0.0, 2.0] and list(power0) == [182, 200]
    assert len(frame) * len(frame.gpus) == 16 and not any("skipped" in n for n in notes)  # the process row is not a GPU row
    with pytest.raises(AmdSmiMonitorError, match="No amd-smi monitor rows"):
        parse_amd_smi_monitor("GPU  POWER  GPU_TEMP\n")


def test_npu_smi_watch_training_capture():
    path = FIX / "npu-smi-watch-neutronascend.txt"
    assert detect_format(path.read_text(encoding="utf-8")) is LogFormat.NPU_SMI_WATCH
    m = _medians(path, LogFormat.NPU_SMI_WATCH)
    assert list(m) == ["2"]  # one chip per NPU: the device is the NPU ID
    assert m["2"][POWER] == pytest.approx(90.2) and m["2"][GPU_TEMP] == 34
    assert m["2"][GPU_UTIL] == 0 and m["2"][MEM_UTIL] == 0 and MEM_USED not in m["2"]
    read = read_log_file(path, interval_s=1.0)
    assert len(read.frame) == 31 and float(read.frame.times[-1]) == 30.0
    assert float(np.nanmax(read.frame.columns[POWER])) == pytest.approx(100.1)
    assert any("Memory(%) has no total" in n for n in read.notes)


def test_npu_smi_watch_doc_capture_and_dies():
    path = FIX / "npu-smi-watch-hiascend-200ia2.txt"
    read = read_log_file(path, interval_s=5.0)
    assert list(read.frame.times) == [0.0, 5.0, 10.0]
    m = _medians(path, LogFormat.NPU_SMI_WATCH)
    assert m["0"][POWER] == 4.0 and m["0"][GPU_TEMP] == 43 and m["0"][GPU_UTIL] == 0
    header = "NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)\n"
    frame, devices, _notes = parse_npu_smi_watch(header + "0 0 160.0 40 50\n0 1 - 41 60\n0 0 161.0 40 52\n0 1 - 41 62\n")
    assert [d.name for d in devices] == ["Ascend NPU 0, chip 0 (npu-smi)", "Ascend NPU 0, chip 1 (npu-smi)"]
    assert frame.gpus == [0, 1] and len(frame) == 2 and np.isnan(frame.columns[POWER][:, 1]).all()  # the second die prints "-"
    with pytest.raises(NpuSmiWatchError, match="No npu-smi info watch rows"):
        parse_npu_smi_watch(header)


@pytest.mark.parametrize("name", ["hl-smi-csv-slurm-monitor-test-gpu.csv", "hl-smi-csv-slurm-monitor-conftest.csv"])
def test_hl_smi_csv_captures(name):
    path = FIX / name
    assert detect_format(path.read_text(encoding="utf-8")) is LogFormat.HL_SMI_CSV
    m = _medians(path, LogFormat.HL_SMI_CSV)
    read = read_log_file(path)
    assert len(m) == 8 and all(d.name == "HL-205" for d in read.devices)
    card = next(d.index for d in read.devices if d.uuid == "00P1-HL2000A1-14-P64W99-13-05-03")
    expected = (103, 36, 15) if "test-gpu" in name else (103, 34, 14)
    assert (m[str(card)][POWER], m[str(card)][GPU_TEMP], m[str(card)][GPU_UTIL]) == expected
    assert m[str(card)][MEM_USED] == 512 * MIB and m[str(card)][MEM_TOTAL] == 32768 * MIB
    if "test-gpu" in name:
        assert card == 0 and float(np.median([g[POWER] for g in m.values()])) == 103
        assert float(np.median([g[GPU_TEMP] for g in m.values()])) == 33.5
    assert any("no index field" in n for n in read.notes)


def test_hl_smi_csv_loop_and_errors():
    text = "index, name, power.draw [W], utilization.aip [%]\n0, HL-225, 300 W, 90 %\n1, HL-225, N/A, 80 %\n" \
           "0, HL-225, 310 W, 95 %\n1, HL-225, 305 W, 85 %\n"
    frame, _devices, _notes, stamped = parse_hl_smi_csv(text, interval_s=5.0)
    assert not stamped and list(frame.times) == [0.0, 5.0] and frame.gpus == [0, 1]
    assert np.isnan(frame.columns[POWER][0, 1]) and frame.columns[GPU_UTIL].tolist() == [[90, 80], [95, 85]]
    with pytest.raises(HlSmiCsvError, match="No hl-smi CSV rows"):
        parse_hl_smi_csv("power.draw [W], utilization.aip [%]\n300, 90\n")


def test_cli_analyze_and_import_read_the_vendor_captures(capsys):
    for name in ("amd-smi-monitor-putm-rocm-blog.txt", "npu-smi-watch-neutronascend.txt",
                 "hl-smi-csv-slurm-monitor-test-gpu.csv"):
        assert main(["monitor", "analyze", str(FIX / name), "--json"]) == 0
        assert main(["monitor", "import", str(FIX / name)]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_amd_smi_monitor_header_with_a_column_gpudesk_does_not_know():
    text = ("GPU  XCP  POWER  GPU_TEMP  NEW_METRIC  VRAM_USED  VRAM_TOTAL\n"
            "  0    0  500 W     70 °C       1 %    1000 MB   196300 MB\n")
    assert detect_format(text) is LogFormat.AMD_SMI_MONITOR
    frame, _devices, _notes, _stamped = parse_amd_smi_monitor(text)
    assert frame.columns[POWER][0, 0] == 500 and frame.columns[MEM_USED][0, 0] == 1000 * MIB
    assert detect_format("GPU  POWER\n  0  5 W\n") is not LogFormat.AMD_SMI_MONITOR  # one mapped column is too few


def test_npu_smi_watch_layout_without_chip_column():
    """Newer npu-smi prints no ChipId(Idx) and adds NPU Util(%) / AI Cube(%): the device is the NPU id."""
    text = ("NpuID(Idx)  Pwr(W)      Temp(C)     AI Core(%)  AI Cpu(%)   Ctrl Cpu(%) Memory(%)   Memory BW(%)   "
            "NPU Util(%)    AI Cube(%)\n"
            "0           290.4       51          7           0           16          3           2              0              0\n"
            "1           292.1       49          0           0           4           3           0              0              0\n")
    frame, devices, _notes = parse_npu_smi_watch(text)
    assert frame.gpus == [0, 1] and len(frame) == 1 and list(frame.columns[POWER][0]) == [290.4, 292.1]
    assert list(frame.columns[GPU_UTIL][0]) == [7, 0] and list(frame.columns[MEM_UTIL][0]) == [2, 0]
    assert [d.name for d in devices] == ["Ascend NPU 0, chip 0 (npu-smi)", "Ascend NPU 1, chip 0 (npu-smi)"]
