"""Property tests of the fleet readers (issue 25): the exposition-text reader agrees with prometheus_client's
parser on generated pages (and never raises anything but FleetError on any text), and any JSON value a server
returns as a Prometheus API answer either reads or ends in a FleetError - never another exception, never a
non-finite value kept."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.exporter_scrape import iter_samples, parse_exposition
from gpudesk.telemetry.fleet.fleet import KeyIndex
from gpudesk.telemetry.fleet.fleet_http import FleetError, FleetUnreachable
from gpudesk.telemetry.fleet.prometheus_source import PrometheusSource

NAMES = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE", "dcgm_fi_dev_fb_used", "DCGM_FI_PROF_SM_ACTIVE",
         "other_metric", "node_cpu_seconds"]
label_names = st.sampled_from(["gpu", "UUID", "Hostname", "pod", "namespace", "modelName", "le", "x_y"])
# label values: any text, including quotes, backslashes, newlines, braces and terminal escapes
label_values = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
values = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                   st.sampled_from(["NaN", "+Inf", "-Inf", "1e3", "-0", "140737488355328"]))


def _value_text(v: object) -> str:
    if isinstance(v, str):
        return v
    assert isinstance(v, float)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(v)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


@st.composite
def pages(draw: st.DrawFn) -> tuple[str, list[tuple[str, dict[str, str], str]]]:
    lines, expected = [], []
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True)):
        lines.append(f"# HELP {name} some help text {{with}} braces")
        lines.append(f"# TYPE {name} gauge")
        for _ in range(draw(st.integers(0, 4))):
            labels = draw(st.dictionaries(label_names, label_values, max_size=4))
            value = _value_text(draw(values))
            body = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items())
            ts = draw(st.one_of(st.none(), st.integers(0, 2**40)))
            lines.append(f"{name}{{{body}}} {value}" + ("" if ts is None else f" {ts}"))
            expected.append((name, labels, value))
    return "\n".join(lines) + "\n", expected


@given(pages())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_reader_agrees_with_prometheus_client(page):
    text, _expected = page
    reference = [(s.name, dict(s.labels), s.value) for fam in text_string_to_metric_families(text)
                 for s in fam.samples]
    ours = [(fm_name, labels, value) for fm_name, labels, value in iter_samples(
        text, lambda name: df.FieldMap(name, None, "x"), "page", 10**6)]
    assert len(ours) == len(reference)
    for (name, labels, value), (ref_name, ref_labels, ref_value) in zip(ours, reference):
        assert name.dcgm_name == ref_name and labels == ref_labels
        assert value == ref_value or (math.isnan(value) and math.isnan(ref_value))


@given(st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_any_text_reads_or_is_a_fleet_error(text):
    index, samples = KeyIndex(), {}
    try:
        parse_exposition(text, index, samples, 0.0, "h:9400", "page", max_series=50)
    except FleetError:
        return
    for s in samples.values():
        assert all(v is None or math.isfinite(v) for v in s.values.values())


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8)
json_values = st.recursive(json_scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
    st.sampled_from(["status", "data", "result", "metric", "value", "values", "gpu", "UUID", "__name__",
                     "resultType", "error", "x"]), kids, max_size=5), max_leaves=25)
# answers that are mostly right: the API's envelope around a generated result
answers = st.one_of(json_values, st.builds(
    lambda result: {"status": "success", "data": {"resultType": "matrix", "result": result}},
    st.lists(st.fixed_dictionaries({"metric": st.one_of(st.dictionaries(st.sampled_from(
        ["__name__", "gpu", "UUID", "Hostname"]), st.one_of(st.sampled_from(["0", "1", "DCGM_FI_DEV_GPU_UTIL"]),
                                                            json_scalars), max_size=4), json_values),
        "value": st.one_of(st.lists(st.one_of(st.floats(), st.text(max_size=6), st.sampled_from(
            ["NaN", "+Inf", "-Inf", "-4", "55"])), min_size=2, max_size=2), json_values),
        "values": st.one_of(st.lists(st.lists(st.one_of(st.floats(), st.sampled_from(
            ["NaN", "+Inf", "-Inf", "-4", "55"])), min_size=2, max_size=2), max_size=3), json_values)}),
        max_size=3)))


@pytest.fixture(scope="module")
def source():
    return PrometheusSource("http://127.0.0.1:1")  # never contacted: the answer is handed in below


@given(answers)
@example({"status": "success", "data": {"resultType": "matrix", "result": [  # found by this test (QA run):
    {"metric": {"__name__": "0", "gpu": "0"}, "value": None, "values": [[1.3835058055382163e+20, 0.0]]}]}})
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_json_answer_reads_or_is_a_fleet_error(source, doc):
    body = json.dumps(doc).encode()
    source.http.get_bytes = lambda path, params=None, accept="": body  # the server's answer, as read
    source._present = {"DCGM_FI_DEV_GPU_UTIL"}
    for read in (lambda: source.snapshot([m.GPU_UTIL]), lambda: source.history(600, end=1e9, metrics=[m.GPU_UTIL]),
                 lambda: source.window_means(600, end=1e9), source.metric_names_present, source.labels,
                 lambda: source.series(["up"])):
        try:
            out = read()
        except FleetUnreachable:
            raise
        except FleetError:
            continue
        batch = getattr(out, "batch", None)
        if batch is not None:
            assert all(v is None or math.isfinite(v) for s in batch.samples for v in s.values.values())
        frame = getattr(out, "frame", None)
        if frame is not None:
            for col in frame.columns.values():
                assert not any(math.isinf(x) for x in col.ravel())


def test_history_values_are_finite_or_nan_with_a_reason(source):
    doc = {"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"gpu": "0", "UUID": "GPU-a"}, "values": [[1e9 - 60, "-Inf"], [1e9 - 30, "50"], [1e9, "-3"]]}]}}
    source.http.get_bytes = lambda path, params=None, accept="": json.dumps(doc).encode()
    source._present = {"DCGM_FI_DEV_GPU_UTIL"}
    hist = source.history(120, end=1e9, step_s=30, metrics=[m.GPU_UTIL])
    col = hist.frame.columns[m.GPU_UTIL]
    assert sorted(x for x in col.ravel() if not math.isnan(x)) == [50.0]
    assert hist.frame.reasons[(0, m.GPU_UTIL)] == "infinite (-Inf)"


point_values = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda v: f"{v:g}"),
                         st.sampled_from(["NaN", "+Inf", "-Inf", "0", "-4", "1e-300"]))
range_docs = st.lists(st.fixed_dictionaries({
    "metric": st.dictionaries(st.sampled_from(["gpu", "UUID", "Hostname", "pod"]),
                              st.text(max_size=10) | st.just('"values":[[1,"2"]]'), max_size=3),
    "values": st.lists(st.tuples(st.integers(0, 2**33).map(float), point_values).map(list), max_size=6)}),
    max_size=4).map(lambda result: {"status": "success", "data": {"resultType": "matrix", "result": result}})


@given(range_docs, st.sampled_from([(",", ":"), (", ", ": ")]))
@settings(max_examples=300, deadline=None)
def test_the_fast_range_reader_gives_json_loads_numbers(doc, separators):
    from gpudesk.telemetry.fleet.prometheus_matrix import decode_range_answer

    body = json.dumps(doc, separators=separators).encode()
    fast = decode_range_answer(body)
    if fast is None:  # the caller then decodes it the ordinary way
        return
    slow = json.loads(body)
    for got, want in zip(fast["data"]["result"], slow["data"]["result"]):
        assert got["metric"] == want["metric"]
        expected = np.array(want["values"], dtype=np.float64).reshape(-1, 2)
        assert np.array_equal(got["values"], expected, equal_nan=True)


def test_the_fast_range_reader_reads_prometheus_own_layout():
    from gpudesk.telemetry.fleet.prometheus_matrix import decode_range_answer

    body = (b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"gpu":"0","UUID":"GPU-a"},'
            b'"values":[[1733000000,"45.5"],[1733000015.5,"NaN"],[1733000030,"-Inf"]]},{"metric":{"gpu":"1"},'
            b'"values":[]}]}}')
    doc = decode_range_answer(body)
    assert doc is not None
    first, second = doc["data"]["result"]
    assert first["values"].tolist()[0] == [1733000000.0, 45.5] and math.isnan(first["values"][1, 1])
    assert first["values"][2, 1] == -math.inf and second["values"].shape == (0, 2)
    assert decode_range_answer(body.replace(b'"45.5"', b'{"x":1}')) is None  # anything odd: the ordinary way


plain_texts = st.one_of(
    st.integers(-(10**15) + 1, 10**15 - 1).map(str),
    st.tuples(st.floats(min_value=-1e8, max_value=1e8, allow_nan=False), st.integers(0, 6)).map(
        lambda t: f"{t[0]:.{t[1]}f}"),
    st.sampled_from(["0", "-0", "-0.000", "1733000000", "1733000015.5", "0.30000000000001", "999999999999999"]))


@given(st.lists(plain_texts, min_size=1, max_size=40))
@settings(max_examples=400, deadline=None)
def test_plain_decimals_are_the_numbers_strtod_gives(texts):
    from gpudesk.telemetry.fleet.prometheus_matrix import plain_decimals

    got = plain_decimals(",".join(texts).encode())
    assert got is not None, texts
    want = np.array([float(t) for t in texts])
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), texts


@pytest.mark.parametrize("odd", ["NaN", "+Inf", "1e5", "+3", " 4", "1.2.3", "-", "", ".", "1234567890123456",
                                 "5-", "--5", "1,", "0x10"])
def test_plain_decimals_leave_anything_else_to_the_text_reader(odd):
    from gpudesk.telemetry.fleet.prometheus_matrix import plain_decimals

    assert plain_decimals(f"12,{odd},3.5".encode()) is None
