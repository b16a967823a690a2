"""Issue 32: real `rocm-smi` captures (tests/fixtures/vendor_logs/README.md) read through the one log reader into the
dmon-shaped frame; the medians are the values printed in the captures, read off by hand before the reader existed."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.formats.log_formats import LogFormat, LogFormatError, read_log_file, read_log_text
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_CLOCK, MEM_TOTAL, MEM_USED, POWER, POWER_LIMIT, SM_CLOCK

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vendor_logs"
MHZ = 1e6

# (device, temp C, power W, SCLK MHz, MCLK MHz, cap W, GPU %), from the README
TABLES = {
    "rocm-smi-roc-smi-90.txt": [(1, 25.0, 10.0, 852, 167, 170.0, 0)],
    "rocm-smi-roc-smi-86.txt": [(1, 24.0, 3.0, 852, 167, 170.0, 0)],
    "rocm-smi-rocm-systems-1508.txt": [(0, 60.0, 319.0, 2203, 1900, 1000.0, 0), (2, 62.0, 299.0, 2186, 1900, 1000.0, 0),
                                       (4, 58.0, 304.0, 2198, 1900, 1000.0, 0), (6, 64.0, 309.0, 2206, 1900, 1000.0, 0)],
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_capture_medians(name):
    read = read_log_file(FIXTURES / name)
    assert read.format is LogFormat.ROCM_SMI and read.notes[0] == "Read as rocm-smi output."
    result = analyze(read.frame, read.devices).to_json()
    for gpu, temp, power, sclk, mclk, cap, util in TABLES[name]:
        m = result["gpus"][str(gpu)]["metrics"]
        assert m[GPU_TEMP]["median"] == temp and m[POWER]["median"] == power and m[GPU_UTIL]["median"] == util
        assert m[SM_CLOCK]["median"] == sclk * MHZ and m[MEM_CLOCK]["median"] == mclk * MHZ
        assert m[POWER_LIMIT]["median"] == cap
    assert any("cannot tell PCIe or Infinity Fabric" in n for n in result["notes"])


def test_partition_rows_are_na():
    read = read_log_file(FIXTURES / "rocm-smi-rocm-systems-1508.txt")
    assert sorted(read.frame.gpus) == list(range(8))
    metrics = analyze(read.frame, read.devices).to_json()["gpus"]["1"]["metrics"]
    assert all(k not in metrics for k in (GPU_TEMP, POWER, GPU_UTIL, SM_CLOCK))
    assert any("junction" in n for n in read.notes)


def test_csv_capture_medians():
    read = read_log_file(FIXTURES / "rocm-smi-csv-marimo-9237.csv")
    assert read.format is LogFormat.ROCM_SMI_CSV
    m = analyze(read.frame, read.devices).to_json()["gpus"]["0"]["metrics"]
    assert m[GPU_UTIL]["median"] == 0 and m[MEM_USED]["median"] == 27856896
    assert m[MEM_TOTAL]["median"] == 21458059264
    assert read.devices[0].name == "Radeon RX 7900 XT" and read.devices[0].memory_total_bytes == 21458059264


def test_watch_loop_is_a_time_series():
    one = (FIXTURES / "rocm-smi-roc-smi-90.txt").read_text(encoding="utf-8")
    read = read_log_text(one + one.replace("10.0W ", "95.5W "), interval_s=2.0)
    assert list(read.frame.times) == [0.0, 2.0] and list(read.frame.columns[POWER][:, 0]) == [10.0, 95.5]


def test_header_without_rows_is_a_clear_error():
    with pytest.raises(LogFormatError, match="No rocm-smi device rows"):
        read_log_text("GPU  Temp   AvgPwr  SCLK    MCLK    Fan    Perf  PwrCap  VRAM%  GPU%\n")


def test_rows_that_are_not_devices_are_skipped_not_misread():
    header = "GPU  Temp   AvgPwr  SCLK    MCLK    Fan    Perf  PwrCap  VRAM%  GPU%\n"
    text = header + "99999999999  25.0c  10.0W  852Mhz  167Mhz  14.9%  auto  170.0W  N/A  0%\n" \
        + "1    25.0c  10.0W   852Mhz  167Mhz  14.9%  auto  170.0W  N/A    0%\n" + "2  short row\n"
    read = read_log_text(text)
    assert read.frame.gpus == [1] and any("1 table line(s)" in n for n in read.notes)
