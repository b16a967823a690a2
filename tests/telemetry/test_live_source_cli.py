"""Issue 32: `gpudesk monitor record --source` picks the live AMD source (amdsmi, faked at its library boundary) by
name or automatically when NVML cannot start, and says clearly what is missing when neither library loads."""

from __future__ import annotations

import json
import sys

from helpers.fake_amdsmi import make, mi300x
from helpers.fake_pynvml import make_fake_pynvml

from gpudesk.cli import main
from gpudesk.telemetry.core import model as m


def test_auto_falls_back_to_amdsmi_when_nvml_cannot_start(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(init_error="DriverNotLoaded"))
    lib = make([mi300x(0), mi300x(1, gfx=30.0)])
    monkeypatch.setitem(sys.modules, "amdsmi", lib)
    assert main(["monitor", "record", "--interval", "0.05", "--duration", "0.2s"]) == 0
    captured = capsys.readouterr()
    assert "Session 1:" in captured.out and "AMD SMI live (2 GPU(s))" in captured.err
    assert lib.state["shut_down"] == 1
    assert main(["monitor", "analyze", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gpus"]["0"]["metrics"][m.GPU_UTIL]["median"] == 95 and out["gpus"]["1"]["metrics"][m.GPU_UTIL]["median"] == 30
    assert main(["monitor", "analyze", "--list"]) == 0
    assert "amdsmi" in capsys.readouterr().out


def test_source_amdsmi_is_used_even_when_nvml_works(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(2))
    monkeypatch.setitem(sys.modules, "amdsmi", make([mi300x(0)]))
    assert main(["monitor", "record", "--source", "amdsmi", "--interval", "0.05", "--duration", "0.1s"]) == 0
    assert "AMD SMI live (1 GPU(s))" in capsys.readouterr().err


def test_missing_amdsmi_library_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "amdsmi", None)  # import amdsmi raises ImportError
    assert main(["monitor", "record", "--source", "amdsmi", "--duration", "0.1s"]) == 1
    assert "pip install amdsmi" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "pynvml", make_fake_pynvml(init_error="DriverNotLoaded"))
    assert main(["monitor", "record", "--duration", "0.1s"]) == 1
    err = capsys.readouterr().err
    assert "driver-not-loaded" in err and "pip install amdsmi" in err and "Traceback" not in err
