"""``gpudesk monitor fleet --dcgmi``: a real dcgmi dmon output (URL in the fixture) imported from the CLI.
The --prometheus and --scrape paths are tested against a real Prometheus in tests/telemetry/test_prometheus_source.py."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from gpudesk.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fleet"


def test_dcgmi_file_json(capsys):
    assert main(["monitor", "fleet", "--dcgmi", str(FIXTURES / "dcgmi_dmon_8gpu_na_issue244.txt"), "--host", "n1",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [g["gpu_index"] for g in doc["gpus"]] == list(range(8))
    assert doc["gpus"][0]["gr_engine_active_pct_mean"] == 88.8
    assert doc["gpus"][2]["gr_engine_active_pct_mean"] is None


def test_dcgmi_stdin_with_mig(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO((FIXTURES / "dcgmi_dmon_mig_issue152.txt").read_text()))
    assert main(["monitor", "fleet", "--dcgmi", "-", "--host", "h100"]) == 0
    out = capsys.readouterr().out
    assert "h100 GPU ? | MIG 21 (?) | no UUID | SM active 1.294" in out
    assert "129.4 %" not in out
    assert "ratio above 1.0" in out


def test_missing_file_and_not_dcgmi_text(capsys, tmp_path):
    assert main(["monitor", "fleet", "--dcgmi", str(tmp_path / "nope.log")]) == 2
    bad = tmp_path / "bad.log"
    bad.write_text("hello\n")
    assert main(["monitor", "fleet", "--dcgmi", str(bad)]) == 1
    assert "No dcgmi dmon rows" in capsys.readouterr().err


def test_record_a_dcgmi_window_as_a_recording(capsys):
    from gpudesk.store import open_store
    from gpudesk.telemetry.recording.recorder import load_frame, session_devices

    assert main(["monitor", "fleet", "--dcgmi", str(FIXTURES / "dcgmi_dmon_mig_issue152.txt"), "--host", "h100",
                 "--record", "mig burn-in", "--json"]) == 0
    sid = json.loads(capsys.readouterr().out)["recording_id"]
    db = open_store()
    try:
        frame = load_frame(db, sid)
        names = [d.name for d in session_devices(db, sid)]
    finally:
        db.close()
    assert names == ["h100 GPU ? / MIG 21", "h100 GPU ? / MIG 22"]
    assert frame.series(0, "sm_active_pct")[1].tolist() == [129.4]


def test_live_dcgmi_command(capsys, tmp_path):
    # A real process printing the issue 244 output one row at a time, as "ssh node dcgmi dmon" would.
    script = tmp_path / "fake_remote.py"
    script.write_text(
        "import sys, time\n"
        f"for line in open({str(FIXTURES / 'dcgmi_dmon_8gpu_na_issue244.txt')!r}):\n"
        "    print(line, end='', flush=True)\n"
        "    time.sleep(0.01)\n")
    assert main(["monitor", "fleet", "--dcgmi-command", f"{sys.executable} {script}", "--host", "n9",
                 "--window", "20s", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [g["gpu_index"] for g in doc["gpus"]] == list(range(8)) and doc["gpus"][0]["host"] == "n9"
    assert doc["gpus"][1]["sm_active_pct_mean"] == 77.7
    assert main(["monitor", "fleet", "--dcgmi-command", "no-such-program-xyz", "--window", "2s"]) == 1
    assert "Could not start" in capsys.readouterr().err


def test_impossible_flags_are_refused_before_any_network(capsys):
    # port 1 is never contacted: each error comes from the flag check, not "Could not reach"
    for extra, said in ((["--timeout", "-1"], "--timeout must be a positive"),
                        (["--window", "0s"], "--window must be a positive"),
                        (["--step", "0"], "--step must be a positive"),
                        (["--metric-name", "foo=bar"], "foo: not a gpudesk metric")):
        assert main(["monitor", "fleet", "--prometheus", "http://127.0.0.1:1", *extra]) != 0
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err and "--duration" not in err
    assert main(["monitor", "fleet", "--prometheus", "http://[::1"]) != 0
    assert "not a valid address" in capsys.readouterr().err


def test_dcgmi_output_says_what_was_not_judged(capsys):
    assert main(["monitor", "fleet", "--dcgmi", str(FIXTURES / "dcgmi_dmon_8gpu_na_issue244.txt"),
                 "--host", "n1"]) == 0
    out = capsys.readouterr().out
    assert "0 finding(s)" not in out
    assert "not judged" in out and "[not judged] Imbalance between GPUs" in out
    # qa19: people read the rules' names, the JSON keeps their ids.
    assert "multi-gpu-imbalance" not in out and "[info] Input starvation" in out
    assert main(["monitor", "fleet", "--dcgmi", str(FIXTURES / "dcgmi_dmon_8gpu_na_issue244.txt"), "--host", "n1",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "multi-gpu-imbalance" in {f["rule"] for f in doc["not_judged"]}
    assert "input-starvation" in {f["rule"] for f in doc["findings"]}


# --- issue 25: hostile servers through the CLI (tests/helpers/hostile_server.py) ---------------------------------

def _strict_json(text: str):
    def refuse(token: str):
        raise ValueError(f"{token} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_non_finite_readings_are_na_with_the_reason_in_text_and_json(capsys):
    from helpers.hostile_server import HostileServer

    with HostileServer() as srv:
        assert main(["monitor", "fleet", "--scrape", srv.url + "/nonfinite/metrics"]) == 0
        out = capsys.readouterr().out
        assert "util N/A (not a number (NaN))" in out and "util N/A (infinite (-Inf))" in out
        assert "power N/A (infinite (+Inf))" in out and "power N/A (negative (-5), impossible" in out
        assert "inf %" not in out
        assert main(["monitor", "fleet", "--prometheus", srv.url + "/nonfinite", "--json"]) == 0
        doc = _strict_json(capsys.readouterr().out)
        assert doc["gpus"][1]["gpu_util_pct_mean"] is None
        assert doc["gpus"][1]["reasons"]["gpu_util_pct"] == "infinite (-Inf)"


def test_limits_and_redirects_through_the_cli(capsys, monkeypatch):
    from helpers.hostile_server import HostileServer

    monkeypatch.setenv("GPUDESK_FLEET_SECRET", "s3cret-token")
    with HostileServer() as srv, HostileServer() as other:
        srv.redirect_target = other.url + "/ok"
        assert main(["monitor", "fleet", "--scrape", srv.url + "/ok/metrics", "--max-series", "3"]) == 1
        assert "too large: 4 series, limit 3 (raise with --max-series)" in capsys.readouterr().err
        assert main(["monitor", "fleet", "--prometheus", srv.url + "/huge", "--max-body-mib", "2"]) == 1
        assert "too large: more than 2 MiB, limit 2 MiB" in capsys.readouterr().err
        assert main(["monitor", "fleet", "--prometheus", srv.url + "/redirect-away", "--auth", "bearer"]) == 1
        err = capsys.readouterr().err
        assert f"redirected to {other.url}/ok/api/v1/label/__name__/values" in err
        assert "credentials were not sent there" in err and other.requests == []
        assert main(["monitor", "fleet", "--prometheus", srv.url + "/ok", "--max-series", "0"]) == 2
        assert "--max-series must be a positive whole number, got 0." in capsys.readouterr().err
