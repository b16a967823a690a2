"""Live dmon stream from a command, and the ``gpudesk monitor`` CLI."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from gpudesk.cli import main
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.sources.dmon_stream import DmonStreamError, DmonStreamSource
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
    assert batches[0].samples[3].values[m.PCIE_RX] == 62e6
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
    assert g3[m.PCIE_RX]["median"] == 62e6 and g3[m.PCIE_RX]["unit"] == "bytes/s"
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
    from gpudesk.nvml.nvml_session import probe_nvml
    from gpudesk.telemetry.sources.nvml_source import NvmlSource

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


def test_cli_stream_shows_what_the_command_said_when_it_gives_no_samples(capsys):
    """'ssh lab-node nvidia-smi dmon' failing prints only its own error; the user must see it, not just a status."""
    cmd = [sys.executable, "-c", "print('ssh: Could not resolve hostname lab-node: Name or service not known');"
                                 "raise SystemExit(255)"]
    assert main(["monitor", "stream", shlex.join(cmd)]) == 2
    err = capsys.readouterr().err
    assert "exit status 255" in err and "Could not resolve hostname lab-node" in err


def test_cli_stream_notes_a_command_that_dies_after_some_samples(tmp_path, capsys):
    script = tmp_path / "dies.py"
    script.write_text(f"print(open({str(FIX / 'sample_a_pucvmet.txt')!r}).read(), flush=True)\n"
                      "print('Connection to lab-node closed by remote host.'); raise SystemExit(255)\n")
    assert main(["monitor", "stream", shlex.join([sys.executable, str(script)])]) == 0
    captured = capsys.readouterr()
    assert "Session 1: 4 GPU samples written." in captured.out
    assert "exit status 255: Connection to lab-node closed by remote host." in captured.err


FEED = """
import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
print("#Date       Time        gpu    sm   mem  rxpci  txpci", flush=True)
print("#YYYYMMDD   HH:MM:SS    Idx     %     %   MB/s   MB/s", flush=True)
t = 1767225600
while True:
    stamp = time.strftime(" %Y%m%d   %H:%M:%S", time.gmtime(t))
    for g in range(2):
        print(f"{stamp}    {g}    {50 + g}    10    100    20", flush=True)
    t += 1
    time.sleep(0.1)
"""

RUN_WITH_FAKE_NVML = """
import sys
sys.path.insert(0, {tests!r})
from helpers.fake_pynvml import make_fake_pynvml
sys.modules["pynvml"] = make_fake_pynvml(2)
from gpudesk.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def _wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _sessions():
    from gpudesk.store import open_store
    from gpudesk.store.recordings import list_sessions

    return list_sessions(open_store())


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_stop_signals_end_a_stream_cleanly_and_stop_its_command(tmp_path, sig):
    """kill, a closed SSH session and Ctrl+C sent to gpudesk alone: the data is committed, the session is marked
    ended (not interrupted) and the dmon command does not run on as an orphan."""
    import signal
    import subprocess

    feed, pid_file = tmp_path / "feed.py", tmp_path / "feed.pid"
    feed.write_text(FEED)
    cmd = shlex.join([sys.executable, str(feed), str(pid_file)])
    proc = subprocess.Popen([sys.executable, "-m", "gpudesk", "monitor", "stream", cmd],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: any(s.sample_rows >= 6 for s in _sessions())), proc.communicate(timeout=5)
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    (sess,) = _sessions()
    assert not sess.interrupted and sess.sample_rows >= 6 and f"{sess.sample_rows} GPU samples written" in out
    feed_pid = int(pid_file.read_text())
    assert _wait_for(lambda: subprocess.run(["ps", "-p", str(feed_pid), "-o", "stat="], capture_output=True,
                                            text=True).stdout.strip() in ("", "Z"), timeout=10)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_stop_signals_end_a_recording_cleanly(tmp_path, sig):
    """Ctrl+C, kill and a closed SSH session during 'gpudesk monitor record' (fake NVML, 2 GPUs): the samples
    are committed, the session is marked ended, and the stop is prompt."""
    import signal
    import subprocess

    runner = tmp_path / "run.py"
    runner.write_text(RUN_WITH_FAKE_NVML.format(tests=str(Path(__file__).resolve().parent.parent)))
    proc = subprocess.Popen([sys.executable, str(runner), "monitor", "record", "--interval", "0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: any(s.sample_rows >= 4 for s in _sessions())), proc.communicate(timeout=5)
    t0 = time.monotonic()
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert time.monotonic() - t0 < 5
    (sess,) = _sessions()
    assert not sess.interrupted and f"Session {sess.id}: {sess.sample_rows} GPU samples written." in out


def test_cli_rejects_a_bad_interval_and_an_empty_span(capsys):
    """'--interval 0' used to import a session with every row at the same time (and -1 backwards in time); a
    span outside the data used to print an empty analysis with status 0."""
    sample = str(FIX / "sample_a_pucvmet.txt")
    for bad in ("0", "-1", "nan"):
        assert main(["monitor", "import", sample, "--interval", bad]) == 2
        assert "interval must be more than 0 and at most 86400 seconds" in capsys.readouterr().err
    assert main(["monitor", "analyze", sample, "--interval", "0"]) == 2
    capsys.readouterr()
    assert main(["monitor", "import", sample]) == 0
    capsys.readouterr()
    assert main(["monitor", "analyze", "1", "--from", "5000", "--to", "6000", "--json"]) == 2
    assert "no samples between --from 5000 and --to 6000; the data spans 0 to 0" in capsys.readouterr().err
    assert main(["monitor", "analyze", "1", "--from", "10", "--to", "5"]) == 2
    assert "--from 10 is after --to 5" in capsys.readouterr().err
    assert main(["monitor", "analyze", "1", "--from", "0", "--to", "0", "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert "PCIe link unknown (no GPU model picked): PCIe shares cannot be computed" in notes
    assert not any("PCIe link PCIe link" in n for n in notes)


def test_cli_analyze_text_scales_units_per_metric(capsys):
    """Sample A's 2 MB of BAR1 used to print as '0.00 GiB' and 5 MB/s of PCIe TX as '0.01 GB/s'."""
    assert main(["monitor", "analyze", str(FIX / "sample_a_pucvmet.txt")]) == 0
    lines = capsys.readouterr().out.splitlines()
    gpu3 = lines[lines.index(next(ln for ln in lines if ln.startswith("GPU 3"))):]
    row = {ln[:35].strip(): ln for ln in gpu3 if "(1 sample)" in ln}
    assert "2 MiB" in row["BAR1 used"] and "11.39 GiB" in row["Memory used"]
    assert "62 MB/s" in row["PCIe RX"] and "5 MB/s" in row["PCIe TX"]  # as printed in dmon's MB/s columns
    assert "4513 MHz" in row["Memory clock"] and "18 %" in row["GPU utilization"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_a_slow_recording_at_once(tmp_path):
    """With '--interval 60' Ctrl+C used to wait for the rest of the minute (the sleep resumes after a signal)."""
    import signal
    import subprocess

    runner = tmp_path / "run.py"
    runner.write_text(RUN_WITH_FAKE_NVML.format(tests=str(Path(__file__).resolve().parent.parent)))
    proc = subprocess.Popen([sys.executable, str(runner), "monitor", "record", "--interval", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: len(_sessions()) == 1), proc.communicate(timeout=5)  # the first tick follows
    time.sleep(1.0)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err
    assert time.monotonic() - t0 < 5
    (sess,) = _sessions()
    assert not sess.interrupted and sess.sample_rows == 2 and "2 GPU samples written" in out
