"""Issue 32: the live AMD monitor through amdsmi, end to end on the library faked at its boundary
(tests/helpers/fake_amdsmi.py): poll, record, load, analyse, burn-in report; a `gpu`-marked test for real cards."""

from __future__ import annotations

import itertools

import pytest
from helpers.fake_amdsmi import AmdSmiLibraryException, AmdSmiRetryException, make, mi300x

from gpudesk.store import open_store
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.sources.amdsmi_source import AmdSmiSource, AmdSmiUnavailableError
from gpudesk.telemetry.rules.analysis import analyze
from gpudesk.telemetry.recording.burnin import build_report
from gpudesk.telemetry.recording.recorder import Recorder, load_frame
from gpudesk.telemetry.core.source import SampleSource

MIB = 2**20


def _source(gpus):
    ticks = itertools.count(1_700_000_000)
    return AmdSmiSource(make(gpus), clock=lambda: float(next(ticks)))


def test_poll_maps_amdsmi_fields_to_the_nvml_shaped_metrics():
    src = _source([mi300x(0), mi300x(1, gfx=30.0, power_w=300.0)])
    assert isinstance(src, SampleSource)
    dev = src.devices()[0]
    assert dev.name == "AMD Instinct MI300X" and dev.memory_total_bytes == 196592 * MIB and dev.pci_bus_id == "0000:11:00.0"
    (batch,) = src.poll()
    s0, s1 = batch.samples
    assert s0.values[m.GPU_UTIL] == 95 and s0.values[m.MEM_UTIL] == 40 and s0.values[m.MEM_USED] == 150000 * MIB
    assert s0.values[m.POWER] == 700 and s1.values[m.POWER] == 300
    assert s0.values[m.GPU_TEMP] == 71  # no edge sensor on MI300X: the hotspot reading
    assert s0.values[m.SM_CLOCK] == 2100e6 and s0.values[m.MEM_CLOCK] == 1300e6 and s0.values[m.MEM_TEMP] == 60


def test_not_supported_is_not_asked_again_and_other_errors_are_retried():
    gpu = mi300x(0)
    calls = {"n": 0}

    def flaky():
        calls["n"] += 1
        return AmdSmiRetryException(11) if calls["n"] == 1 else {"gfx_activity": 50.0, "umc_activity": 10.0}

    gpu["activity"] = flaky
    gpu["clk_mem"] = AmdSmiLibraryException(2)
    src = _source([gpu])
    first = src.poll()[0].samples[0]
    assert first.values[m.GPU_UTIL] is None and "AmdSmiRetryException" in first.reasons[m.GPU_UTIL]
    second = src.poll()[0].samples[0]
    assert second.values[m.GPU_UTIL] == 50
    assert second.values[m.MEM_CLOCK] is None and "AmdSmiLibraryException" in second.reasons[m.MEM_CLOCK]
    assert src._skip[0].get("clk_mem")  # NOT_SUPPORTED (2) is remembered


def test_missing_library_or_failed_init_is_a_clear_error():
    with pytest.raises(AmdSmiUnavailableError, match="could not start"):
        AmdSmiSource(make([], init_error=AmdSmiLibraryException(8)))


def test_record_analyse_and_burn_in_report_end_to_end():
    gpus = [mi300x(0), mi300x(1)]
    src = _source(gpus)
    db = open_store()
    rec = Recorder(db, flush_interval_s=0.0)
    rec.start(src.devices(), source=src.describe(), interval_s=1.0, name="mi300x burn-in")
    for tick in range(120):
        gpus[1]["activity"] = {"gfx_activity": 20.0 if tick % 2 else 95.0, "umc_activity": 30.0}
        for batch in src.poll():
            rec.write(batch)
    sid = rec.stop()
    src.close()
    assert src.lib.state["shut_down"] == 1
    frame = load_frame(db, sid)
    assert len(frame) == 120 and frame.gpus == [0, 1]  # 120 rounds of two GPUs
    result = analyze(frame, src.devices()).to_json()
    assert result["gpus"]["0"]["metrics"][m.POWER]["median"] == 700
    assert result["gpus"]["0"]["metrics"][m.GPU_UTIL]["median"] == 95
    assert result["gpus"]["1"]["metrics"][m.GPU_UTIL]["median"] == pytest.approx(57.5)
    report = build_report(frame, src.devices(), source="amdsmi", generated_at="x")
    assert [g.name for g in report.gpus] == ["AMD Instinct MI300X"] * 2 and report.duration_s == 119
    assert report.to_json()["gpus"]


@pytest.mark.gpu
def test_real_amd_gpu():
    amdsmi = pytest.importorskip("amdsmi")
    try:
        src = AmdSmiSource(amdsmi)
    except AmdSmiUnavailableError as exc:
        pytest.skip(f"no AMD GPU here: {exc}")
    try:
        (batch,) = src.poll()
        assert batch.samples and all(s.values[m.MEM_TOTAL] for s in batch.samples)
    finally:
        src.close()
