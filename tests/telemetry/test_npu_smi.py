"""Issue 32: real `npu-smi info` captures (tests/fixtures/vendor_logs/README.md, vllm-ascend issues) read into
the dmon-shaped frame; the medians are the values printed in the captures, and analysis runs on them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.core.model import GPU_TEMP, GPU_UTIL, MEM_TOTAL, MEM_USED, POWER
from gpudesk.telemetry.formats.npu_smi import NpuSmiError, parse_npu_smi_info, read_npu_smi_file
from gpudesk.telemetry.formats.log_formats import LogFormat, detect_format, read_log_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vendor_logs"
MIB = 2**20

# Read off the captures (README) before the reader was written: (power W or None, temp C, HBM used MB) per die.
EXPECTED = {
    "12980": [(162.6, 34, 3419), (None, 34, 2874)],
    "2534": [(178.5, 36, 3416), (None, 36, 3195), (186.3, 36, 3415)],
    "4989": [(165.3, 36, 3143), (None, 36, 2887), (163.6, 35, 3141)],
}


@pytest.mark.parametrize("issue", sorted(EXPECTED))
def test_capture_medians(issue):
    path = FIXTURES / f"npu-smi-info-vllm-ascend-{issue}.txt"
    assert detect_format(path.read_text(encoding="utf-8")) is LogFormat.NPU_SMI_INFO
    log = read_npu_smi_file(path)
    read = read_log_file(path)  # the one reader behind `monitor analyze|import` and the window
    assert read.format is LogFormat.NPU_SMI_INFO and read.notes[0] == "Read as npu-smi info output."
    assert np.array_equal(read.frame.columns[MEM_USED], log.frame.columns[MEM_USED], equal_nan=True)
    result = analyze(log.frame, log.devices).to_json()
    assert sorted(result["gpus"]) == [str(i) for i in range(len(EXPECTED[issue]))]
    for die, (power, temp, hbm) in enumerate(EXPECTED[issue]):
        metrics = result["gpus"][str(die)]["metrics"]
        assert metrics[GPU_TEMP]["median"] == temp and metrics[GPU_UTIL]["median"] == 0
        assert metrics[MEM_USED]["median"] == hbm * MIB and metrics[MEM_TOTAL]["median"] == 65536 * MIB
        if power is None:
            assert POWER not in metrics and "chip 0 only" in log.frame.reasons[(die, POWER)]
        else:
            assert metrics[POWER]["median"] == pytest.approx(power)
    assert log.devices[0].name == "Ascend910 (NPU 0, chip 0)" and log.devices[0].pci_bus_id == "0000:9D:00.0"
    assert any("cannot tell PCIe or HCCS" in n for n in result["notes"])


def test_successive_snapshots_are_a_time_series():
    one = (FIXTURES / "npu-smi-info-vllm-ascend-2534.txt").read_text(encoding="utf-8")
    log = parse_npu_smi_info(one + one.replace("178.5", "200.5"), interval_s=2.0)
    assert log.snapshots == 2
    t, power = log.frame.series(0, POWER)
    assert list(t) == [0.0, 2.0] and list(power) == [178.5, 200.5]


def test_not_npu_smi_is_a_clear_error(tmp_path):
    bad = tmp_path / "dmon.txt"
    bad.write_text("# gpu   pwr  gtemp\n    0    60     40\n", encoding="utf-8")
    assert detect_format(bad.read_text(encoding="utf-8")) is LogFormat.DMON
    with pytest.raises(NpuSmiError, match="dmon.txt: No npu-smi chip rows"):
        read_npu_smi_file(bad)
    with pytest.raises(NpuSmiError, match="Cannot read"):
        read_npu_smi_file(tmp_path / "missing.txt")
    assert np.isnan(parse_npu_smi_info((FIXTURES / "npu-smi-info-vllm-ascend-4989.txt").read_text()).frame
                    .columns[POWER][0, 1])


def test_atlas_a3_capture_says_each_die_is_a_device():
    log = read_npu_smi_file(FIXTURES / "npu-smi-info-vllm-ascend-2534.txt")
    # the excerpt ends before NPU 1's second chip: only NPU 0 shows both dies
    assert any(n.startswith("NPU 0: each package holds 2 dies") for n in log.notes)
    assert [d.memory_total_bytes for d in log.devices] == [65536 * MIB] * 3  # 64 GB per die, not 128 per package


def test_910b4_capture_without_phy_id_column():
    """1Panel-dev/1Panel#9472 (npu-smi 24.1.1, two 32 GB 910B4 cards, no Phy-ID column): the device is the NPU id.
    Read off the capture: NPU 0 88.2 W, 30 C, HBM 26838 of 32768 MB; NPU 1 87.0 W, 30 C, 29356 MB."""
    read = read_log_file(FIXTURES / "npu-smi-info-1panel-9472.txt")
    assert read.format is LogFormat.NPU_SMI_INFO
    result = analyze(read.frame, read.devices).to_json()["gpus"]
    assert result["0"]["metrics"][POWER]["median"] == pytest.approx(88.2)
    assert result["0"]["metrics"][MEM_USED]["median"] == 26838 * MIB
    assert result["1"]["metrics"][MEM_USED]["median"] == 29356 * MIB
    assert result["1"]["metrics"][MEM_TOTAL]["median"] == 32768 * MIB and result["1"]["metrics"][GPU_TEMP]["median"] == 30
    assert [d.name for d in read.devices] == ["910B4 (NPU 0, chip 0)", "910B4 (NPU 1, chip 0)"]
    assert not any("dies" in n for n in read.notes)  # one die per 910B4 card
