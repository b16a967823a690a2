"""Fuzzing the probe's JSON answer (issue 14): any bytes or any JSON document gives a MemoryReport or a
ProbeResultError; every figure that reaches the report is a whole number 0..2^63 or None (a dict-valued
figure is unknown with a note), and the diagnosis runs on it without an exception."""

from __future__ import annotations

import json
import time

import pytest
from helpers.fuzz_profile import fuzz
from hypothesis import given
from hypothesis import strategies as st

from gpudesk.oom.diagnose import diagnose
from gpudesk.oom.errors import ProbeResultError
from gpudesk.oom.probe_result import (
    _DEVICE_FIELDS,
    _TEXT_FIELDS,
    MAX_FIGURE,
    report_from_probe,
)

GiB = 2**30
scalar = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(), st.text(max_size=10))
value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                     max_leaves=10)
figure = st.one_of(value, st.integers(0, 200 * GiB))
device = st.fixed_dictionaries({"index": st.one_of(st.integers(0, 16), value)},
                               optional={k: figure for k in _DEVICE_FIELDS})
doc = st.fixed_dictionaries({"probe_version": st.just(1)}, optional={
    "devices": st.one_of(st.lists(device, max_size=3), value), "pid": value, "env": value, "errors": value,
    "torch_imported": value, "cuda_initialized": value, "status": value, "probe_duration_s": value,
    "torch_version": value})


def _check_report(data) -> None:
    try:
        report = report_from_probe(data)
    except ProbeResultError as exc:
        assert len(str(exc)) < 600
        return
    for dev in report.devices:
        for key in _DEVICE_FIELDS:
            v = getattr(dev, key)
            if key in _TEXT_FIELDS:
                assert v is None or isinstance(v, str)
            else:
                assert v is None or (type(v) is int and 0 <= v <= MAX_FIGURE), (key, v)
    diagnose(report)


@fuzz
@given(doc)
def test_fuzz_probe_documents(d):
    _check_report(d)
    _check_report(json.dumps(d, allow_nan=True))


@fuzz
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200), value.map(json.dumps)))
def test_fuzz_probe_bytes(data):
    _check_report(data)


def test_dict_valued_figures_are_unknown_with_a_note():
    report = report_from_probe({"probe_version": 1, "devices": [
        {"index": 0, "total_bytes": {"v": 1}, "allocated_bytes": [1, 2], "reserved_bytes": 20 * GiB,
         "num_ooms": -1, "name": {"x": 1}}]})
    dev = report.devices[0]
    assert dev.total_bytes is None and dev.allocated_bytes is None and dev.num_ooms is None and dev.name is None
    assert dev.reserved_bytes == 20 * GiB
    assert any("GPU 0 total_bytes was dict" in n for n in report.notes)


@pytest.mark.parametrize("text", ['{"probe_version": 1, "x": ' + "[" * 200_000 + "]" * 200_000 + "}",
                                  '{"probe_version": 1, "pid": ' + "9" * 5000 + "}"])
def test_crafted_answers_are_refused_fast(text):
    t0 = time.process_time()
    with pytest.raises(ProbeResultError):
        report_from_probe(text)
    assert time.process_time() - t0 < 2.0


@fuzz
@given(st.lists(st.one_of(value.map(json.dumps), st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
                          st.fixed_dictionaries({"type": st.sampled_from(["hello", "status", "sample", "oom", "final"])},
                                                optional={"pid": value, "t": value, "devices": value, "probe": value,
                                                          "status": value}).map(lambda d: json.dumps(d, allow_nan=True))),
                max_size=8))
def test_fuzz_launch_channel_lines(lines):
    """The JSON lines a launched job appends (launch_channel): never an exception, bad lines counted."""
    import tempfile
    from pathlib import Path

    from gpudesk.oom.launch_channel import JobChannel, JobCollector

    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        channel = JobChannel(Path(d))
        state = JobCollector(1, None, None)
        state.feed(channel.read(), start_epoch=0.0)
        report = state.finish([])
    for s in report.samples:
        for v in (s.allocated_bytes, s.reserved_bytes, s.peak_allocated_bytes):
            assert v is None or (type(v) is int and v >= 0)
