"""The streaming pickle decoder (trace events straight into columns) against the standard restricted unpickler:
the same snapshot, field for field, on every builder snapshot, the real fixture, the benchmark's generated file
and hypothesis-generated traces; and the same error where the file is not a valid snapshot."""

from __future__ import annotations

import io
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.errors import SnapshotError
from gpudesk.oom.snapshot.model import ACTIONS, Snapshot
from gpudesk.oom.snapshot.reader import load_snapshot
from gpudesk.oom.snapshot.stream_pickle import NotStreamable, TraceColumns, decode_pickle_columns
from tests.helpers.real_snapshots import real_snapshot
from tests.oom import snapshot_builder as sb

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from test_snapshot_scale import write_snapshot  # noqa: E402

VERSIONS = ("2.0", "2.1", "2.2", "2.4", "2.5")
PROTOCOLS = (2, 3, 4, 5)


def _assert_same(fast: Snapshot, slow: Snapshot) -> None:
    assert fast.segments == slow.segments
    assert fast.stacks == slow.stacks
    assert fast.allocator_settings == slow.allocator_settings
    assert fast.format_version == slow.format_version
    assert fast.notes == slow.notes
    assert len(fast.traces) == len(slow.traces)
    for a, b in zip(fast.traces, slow.traces, strict=True):
        assert a.device == b.device
        for name in ("action", "addr", "size_bytes", "stream", "time_us", "stack_id"):
            left, right = getattr(a, name), getattr(b, name)
            assert left.dtype == right.dtype and np.array_equal(left, right), name


def _streams(path: Path) -> bool:
    """Whether the streaming decoder reads the file itself (no fall-back to the standard unpickler)."""
    try:
        value = decode_pickle_columns(io.BytesIO(path.read_bytes()).read)
    except NotStreamable:
        return False
    traces = value.get("device_traces", []) if isinstance(value, dict) else []
    return all(isinstance(t, TraceColumns) for t in traces)


def _compare(path: Path) -> Snapshot:
    fast = load_snapshot(path)
    slow = load_snapshot(path, columns=False)
    _assert_same(fast, slow)
    verdicts = [_findings(d) for d in analyse(fast).devices]
    assert verdicts == [_findings(d) for d in analyse(slow).devices]
    return fast


def _findings(d: Any) -> tuple[Any, ...]:
    """What the analysis of one device concludes (all but the timeline's arrays)."""
    return (d.device, d.event_count, d.at_index, d.at_kind, d.oom, d.ooms_total, d.fragmentation, d.peak_index,
            d.peak_allocated_bytes, d.peak_reserved_bytes, d.top_allocations, d.top_frames, d.composition_bytes,
            d.leak_suspects, d.iteration_troughs, d.verdict, d.explanation)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", ["fragmentation_oom", "shortage_oom", "leak_run"])
def test_builder_snapshots_decode_the_same_through_columns(tmp_path, case, version, protocol):
    path = tmp_path / "s.pickle"
    path.write_bytes(pickle.dumps(getattr(sb, case)(version), protocol=protocol))
    assert _streams(path)
    snap = _compare(path)
    assert snap.event_count > 0


def test_the_real_flexgen_snapshot_decodes_the_same(tmp_path):
    path = real_snapshot("flexgen_oom_snapshot.pickle")
    assert _streams(path)
    _compare(path)


def test_the_benchmark_file_decodes_the_same(tmp_path):
    path = tmp_path / "big.pickle"
    write_snapshot(path, 9_000)
    assert _streams(path)
    assert len(_compare(path).trace_of(0)) == 9_000


_TEXT = st.sampled_from(["", "train.py", "model.py", "??", "é"])
_FRAMES = st.lists(st.fixed_dictionaries({"filename": _TEXT, "line": st.integers(0, 5000), "name": _TEXT}),
                   max_size=3)
_INT = st.one_of(st.integers(0, 300), st.integers(0, 2**40), st.integers(-2**63, 2**64), st.sampled_from([2**31]))
_VALUE = st.one_of(_INT, st.none(), st.booleans(), st.floats(allow_nan=False), _TEXT)
_KEYS = ("addr", "size", "stream", "time_us", "device_free")


@st.composite
def _event(draw: Any, shared: list[list[dict[str, Any]]]) -> dict[str, Any]:
    event: dict[str, Any] = {"action": draw(st.sampled_from(ACTIONS))}
    for key in _KEYS:
        if draw(st.booleans()):
            event[key] = draw(_INT) if draw(st.integers(0, 20)) else draw(_VALUE)
    frames = draw(st.integers(0, 3))
    if frames == 1:
        event["frames"] = draw(st.sampled_from(shared))  # the same list object: memoised by the pickler
    elif frames == 2:
        event["frames"] = draw(_FRAMES)
    if draw(st.booleans()):
        event["user_metadata"] = draw(_TEXT)
        event["compile_context"] = draw(_TEXT)
    if not draw(st.integers(0, 30)):
        event["action"] = draw(_VALUE)
    return event


@st.composite
def _snapshot(draw: Any) -> dict[str, Any]:
    shared = draw(st.lists(_FRAMES, min_size=1, max_size=3))
    traces = [draw(st.lists(_event(shared), max_size=40)) for _ in range(draw(st.integers(0, 3)))]
    raw = sb.fragmentation_oom("2.5")
    raw["device_traces"] = traces
    return raw


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=_snapshot(), protocol=st.sampled_from(PROTOCOLS))
def test_generated_traces_decode_the_same_or_fail_the_same(tmp_path, raw, protocol):
    path = tmp_path / "g.pickle"
    path.write_bytes(pickle.dumps(raw, protocol=protocol))
    try:
        slow = load_snapshot(path, columns=False)
    except SnapshotError as exc:
        with pytest.raises(type(exc)) as info:
            load_snapshot(path)
        assert info.value.user_text() == exc.user_text()
        return
    _assert_same(load_snapshot(path), slow)


def test_an_event_dict_reached_again_through_the_memo_is_left_to_the_standard_unpickler(tmp_path):
    event = {"action": "alloc", "addr": 1, "size": 512, "stream": 0}
    raw = sb.fragmentation_oom("2.5")
    raw["device_traces"] = [[event, event]]  # one object twice: the pickler writes the second as a memo get
    path = tmp_path / "twice.pickle"
    path.write_bytes(pickle.dumps(raw, protocol=4))
    assert not _streams(path)
    _assert_same(load_snapshot(path), load_snapshot(path, columns=False))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_long_runs_of_one_layout_decode_every_number_encoding_the_same(tmp_path, protocol):
    """Thousands of events of one layout (read as runs by the layout scanner) whose numbers need every integer
    opcode: BININT1, BININT2, BININT (negative too) and LONG1 up to 8 bytes, and an oom row's device_free."""
    rng = np.random.default_rng(7)
    magnitudes = [0, 200, 60_000, 2**31 - 1, -5, -(2**31), 2**40, -(2**40), 2**63 - 1, -(2**63) + 1, 2**55]
    shared = [sb.FORWARD, sb.PARAMS, []]
    trace = []
    for i in range(6000):
        action = ACTIONS[int(rng.integers(0, len(ACTIONS)))]
        event = {"action": action, "addr": int(rng.choice(magnitudes)) if i % 7 else 0x7F00_0000_0000 + i,
                 "size": int(rng.choice(magnitudes)), "stream": int(rng.choice(magnitudes[:3])),
                 "time_us": i * 3, "frames": [] if i % 5 == 0 else shared[i % 3], "compile_context": "",
                 "user_metadata": ""}
        if action == "oom":
            event["device_free"] = int(rng.choice(magnitudes))
        trace.append(event)
    raw = sb.fragmentation_oom("2.5")
    raw["device_traces"] = [trace, [dict(e) for e in trace[:1500]]]
    path = tmp_path / "runs.pickle"
    path.write_bytes(pickle.dumps(raw, protocol=protocol))
    assert _streams(path)
    with pytest.raises(SnapshotError) as slow_error:  # negative sizes are refused, by both
        load_snapshot(path, columns=False)
    with pytest.raises(type(slow_error.value)) as fast_error:
        load_snapshot(path)
    assert fast_error.value.user_text() == slow_error.value.user_text()
    for event in [e for t in raw["device_traces"] for e in t]:
        for key in ("addr", "size", "stream", "device_free"):
            if key in event:
                event[key] = abs(event[key])
    path.write_bytes(pickle.dumps(raw, protocol=protocol))
    assert _streams(path)
    snap = _compare(path)
    assert len(snap.trace_of(0)) == 6000 and len(snap.trace_of(1)) == 1500


def test_a_trace_list_reached_again_through_the_memo_is_left_to_the_standard_unpickler(tmp_path):
    trace = [{"action": "alloc", "addr": 4096 * i, "size": 512, "stream": 0} for i in range(50)]
    raw = sb.fragmentation_oom("2.5")
    raw["device_traces"] = [trace, trace]
    path = tmp_path / "twice.pickle"
    path.write_bytes(pickle.dumps(raw, protocol=4))
    assert not _streams(path)
    snap = _compare(path)
    assert [len(t) for t in snap.traces] == [50, 50]
