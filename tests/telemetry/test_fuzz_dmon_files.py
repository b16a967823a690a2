"""Fuzzing the file and scrape entry points of telemetry (issue 14, item 2): whole nvidia-smi dmon logs, dcgmi dmon
logs and Prometheus exposition texts built from real captures with garbage mixed in. Only the layer's own errors
(DmonError, DcgmiParseError, FleetBadResponse) may come out; what is parsed has finite times and values, GPU
indices within bounds, and percentages within 0-100."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from helpers.fuzz_profile import fuzz
from hypothesis import given
from hypothesis import strategies as st

from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.formats.dcgmi_dmon import DcgmiParseError, parse_dcgmi_dmon
from gpudesk.telemetry.formats.dmon import DmonError, parse_dmon
from gpudesk.telemetry.formats.dmon_lines import MAX_GPU_INDEX
from gpudesk.telemetry.fleet.exporter_scrape import parse_exposition
from gpudesk.telemetry.fleet.fleet import KeyIndex
from gpudesk.telemetry.fleet.fleet_http import FleetBadResponse
from gpudesk.telemetry.core.model import Sample

FIX = Path(__file__).resolve().parent.parent / "fixtures"
DMON = [ln for f in ("sample_a_pucvmet.txt", "sample_b_u.txt", "sample_c_puc.txt", "sample_g_pmon.txt",
                     "sample_f_unsupported.txt", "sample_h_dcgmi.txt")
        for ln in (FIX / "monitor" / f).read_text().splitlines()]
DCGMI = [ln for f in ("dcgmi_dmon_8gpu_na_issue244.txt", "dcgmi_dmon_mig_issue152.txt")
         for ln in (FIX / "fleet" / f).read_text().splitlines()]
PROM = [ln for f in sorted((FIX / "fleet").glob("*.prom")) for ln in f.read_text().splitlines()]
TOKENS = ["-", "N/A", "nan", "inf", "-1", "0", "250", "2000000000", "1e400", "9" * 309, "#", "# HELP", "# TYPE",
          "gauge", "{", "}", '"', "=", ",", "gpu", "UUID", "Hostname", "DCGM_FI_DEV_GPU_UTIL", "GPU", "\x00", "１２"]
token = st.one_of(st.sampled_from(TOKENS), st.text(max_size=10), st.integers(-10**12, 10**12).map(str),
                  st.floats(allow_nan=True, allow_infinity=True).map(repr))
crafted = st.lists(token, max_size=12).map(" ".join)


def mutated(real: list[str]):
    """A real capture's lines, some replaced by crafted ones, shuffled a little."""
    return st.tuples(st.lists(st.sampled_from(real), max_size=40), st.lists(crafted, max_size=8), st.randoms()) \
        .map(lambda parts: _mix(*parts))


def _mix(lines: list[str], garbage: list[str], rnd) -> str:
    out = list(lines)
    for g in garbage:
        out.insert(rnd.randint(0, len(out)), g)
    return "\n".join(out) + "\n"


PCT = {k for k, info in m.METRICS.items() if info.unit == "%"}


@fuzz
@given(mutated(DMON))
def test_fuzz_dmon_file_text(text):
    try:
        log = parse_dmon(text)
    except DmonError as exc:
        assert str(exc)
        return
    frame = log.frame
    assert all(math.isfinite(t) for t in frame.times)
    assert all(0 <= g <= MAX_GPU_INDEX for g in frame.gpus)
    for metric, values in frame.columns.items():
        finite = values[~np.isnan(values)]
        assert np.isfinite(finite).all(), metric
        if metric in PCT:
            assert ((finite >= 0) & (finite <= 100)).all(), metric


@fuzz
@given(mutated(DCGMI))
def test_fuzz_dcgmi_dmon_text(text):
    try:
        parse_dcgmi_dmon(text)
    except DcgmiParseError as exc:
        assert str(exc)


@fuzz
@given(mutated(PROM))
def test_fuzz_prometheus_exposition(text):
    samples: dict[int, Sample] = {}
    try:
        parse_exposition(text, KeyIndex(), samples, 0.0, "fuzz:9400", "fuzz")
    except FleetBadResponse as exc:
        assert str(exc)
        return
    for sample in samples.values():
        for metric, value in sample.values.items():
            assert value is None or math.isfinite(value), (metric, value)
