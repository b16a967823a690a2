"""Live dmon stream from a command, and the ``gpudesk monitor`` CLI."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.telemetry import model as m
from gpudesk.telemetry.dmon_stream import DmonStreamError, DmonStreamSource
from helpers.fake_pynvml import FakeDevice, make_fake_pynvml

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "monitor"


def _poll_until(src, predicate, timeout=20.0):
    got = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got.extend(src.poll())
        if predicate(got):
            return got
        time.sleep(0.02)
    return got


def test_stream_from_a_command_prints_sample_a(tmp_path):
    script = tmp_path / "fake_dmon.py"
    script.write_text(
        "import sys, time\n"
        f"lines = open({str(FIX / 'sample_a_pucvmet.txt')!r}).read().splitlines()\n"
        "print('Warning: ssh banner'); print(lines[0]); print(lines[1])\n"
        "for k in range(2):\n"
        "    for ln in lines[2:]: print(ln, flush=True)\n"
        "    time.sleep(0.05)\n"
    )
    src = DmonStreamSource(f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    batches = _poll_until(src, lambda got: src.finished)
    src.close()
    assert [len(b) for b in batches] == [4, 4]
    assert batches[0].samples[3].values[m.PCIE_RX] == 62 * 1024 * 1024
    assert [d.index for d in src.devices()] == [0, 1, 2, 3]
    assert src.parser.other_lines == 1


def test_stream_is_killable():
    src = DmonStreamSource([sys.executable, "-c", "import time; print('# gpu sm', flush=True); time.sleep(60)"])
    time.sleep(0.2)
    t0 = time.monotonic()
    src.close(grace_s=2.0)
    assert time.monotonic() - t0 < 5
    assert src.returncode is not None and src.finished


def test_stream_command_errors():
    with pytest.raises(DmonStreamError, match="not found"):
        DmonStreamSource("gpudesk-no-such-command-xyz dmon")
    with pytest.raises(DmonStreamError, match="Type a command"):
        DmonStreamSource("   ")
    with pytest.raises(DmonStreamError, match="Cannot parse"):
        DmonStreamSource("ssh 'unterminated")


def test_cli_devices_without_nvml_says_why(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(init_error="DriverNotLoaded"))
    assert main(["monitor", "devices"]) == 1
    assert "driver-not-loaded" in capsys.readouterr().err
    assert main(["monitor", "devices", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["available"] is False and out["state"] == "driver-not-loaded"


def test_cli_devices_json_over_fake(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml([FakeDevice(0), FakeDevice(1, pcie_gen_max=5)]))
    assert main(["monitor", "devices", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [g["pcie_gen_max"] for g in out["gpus"]] == [4, 5]
    assert out["gpus"][1]["pcie_link_bytes_per_s"] == 3938e6 * 16
    assert main(["monitor", "devices"]) == 0
    assert "GPU 1: NVIDIA A100-SXM4-80GB" in capsys.readouterr().out


def test_cli_record_then_analyze_session(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(2))
    assert main(["monitor", "record", "--interval", "0.05", "--duration", "0.2s"]) == 0
    assert "Session 1:" in capsys.readouterr().out
    assert main(["monitor", "analyze", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gpus"]["0"]["metrics"][m.GPU_UTIL]["median"] == 75.0
    assert isinstance(out["findings"], list)
    assert main(["monitor", "analyze", "--list"]) == 0
    assert "nvml" in capsys.readouterr().out


def test_cli_import_analyze_file_and_export(tmp_path, capsys):
    assert main(["monitor", "import", str(FIX / "sample_a_pucvmet.txt")]) == 0
    assert "as session 1" in capsys.readouterr().out
    assert main(["monitor", "analyze", str(FIX / "sample_a_pucvmet.txt"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    g3 = out["gpus"]["3"]["metrics"]
    assert g3[m.PCIE_RX]["median"] == 62 * 1024 * 1024 and g3[m.PCIE_RX]["unit"] == "bytes/s"
    starv = [f for f in out["findings"] if f["rule"] == "pipeline-starvation"]
    assert starv and starv[0]["severity"] == "not-judged"  # no GPU model: link unknown
    assert main(["monitor", "export", "1", str(tmp_path / "s.csv")]) == 0
    assert (tmp_path / "s.csv").read_text().count("\n") == 5


def test_cli_user_errors(capsys):
    assert main(["monitor", "import", "/nonexistent/log.txt"]) == 2
    assert main(["monitor", "import", str(FIX / "sample_f_unsupported.txt")]) == 2
    assert "Not supported" in capsys.readouterr().err
    assert main(["monitor", "analyze", "42"]) == 2
    assert "No recording with id 42" in capsys.readouterr().err
    assert main(["monitor", "record", "--duration", "soon"]) == 2


@pytest.mark.gpu
def test_real_nvml_read_of_all_devices():
    from gpudesk.telemetry.nvml_session import probe_nvml
    from gpudesk.telemetry.nvml_source import NvmlSource

    status = probe_nvml()
    if not status.available:
        pytest.skip(f"no NVIDIA GPU / NVML here: {status.message}")
    src = NvmlSource()
    try:
        batch = src.read()
        assert len(batch) == status.device_count
        for s in batch:
            assert s.gpu_uuid and s.gpu_uuid.startswith(("GPU-", "MIG-"))
            assert s.values[m.MEM_TOTAL] is None or s.values[m.MEM_TOTAL] > 0
            for name, v in s.values.items():
                assert v is not None or s.reasons.get(name), name
    finally:
        src.close()


def test_cli_stream_records_a_dmon_command(tmp_path, capsys):
    script = tmp_path / "fake_dmon.py"
    script.write_text(f"print(open({str(FIX / 'sample_a_pucvmet.txt')!r}).read(), flush=True)\n")
    cmd = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    assert main(["monitor", "stream", cmd, "--duration", "20s"]) == 0
    assert "Session 1: 4 GPU samples written." in capsys.readouterr().out
    assert main(["monitor", "analyze", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gpus"]["3"]["metrics"][m.GPU_UTIL]["median"] == 18.0


def test_cli_stream_errors(tmp_path, capsys):
    assert main(["monitor", "stream", "gpudesk-no-such-command-xyz"]) == 2
    assert "not found" in capsys.readouterr().err
    script = tmp_path / "f.py"
    script.write_text(f"print(open({str(FIX / 'sample_f_unsupported.txt')!r}).read())\n")
    assert main(["monitor", "stream", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"]) == 2
    assert "Not supported on the device(s)" in capsys.readouterr().err
