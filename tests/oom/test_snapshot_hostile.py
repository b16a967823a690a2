"""Hostile snapshots (issue 25): deep nesting, wrong types, out-of-range numbers, memo expansion, negative and
overlapping blocks. Each ends in a SnapshotError that names the problem, quickly and within bounded memory; a
hypothesis strategy mutates real layouts field by field and asserts the same of every result."""

from __future__ import annotations

import copy
import json
import pickle
import time
from pathlib import Path
from typing import Any

import pytest
import snapshot_builder as sb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.errors import SnapshotError, SnapshotFormatError
from gpudesk.oom.snapshot.reader import load_snapshot


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


DEEP = "@@DEEP@@"


def _write(tmp_path: Path, raw: object, name: str = "snap.pickle", depth: int = 0) -> Path:
    """The pickle of ``raw``; with ``depth``, the text DEEP inside it becomes a list nested ``depth`` levels,
    written opcode by opcode (MARK ... LIST), as no pickler would recurse that deep."""
    path = tmp_path / name
    data = pickle.dumps(raw, protocol=2)
    if depth:
        placeholder = b"X" + len(DEEP).to_bytes(4, "little") + DEEP.encode()
        assert data.count(placeholder) == 1
        data = data.replace(placeholder, b"(" * depth + b"]" + b"l" * depth)
    path.write_bytes(data)
    return path


def _refused(path: Path, words: str) -> SnapshotError:
    started = time.monotonic()
    with pytest.raises(SnapshotError) as info:
        analyse(load_snapshot(path))
    assert time.monotonic() - started < 10
    assert words in info.value.user_text(), info.value.user_text()
    return info.value


def test_a_frame_nested_a_hundred_thousand_levels_deep_is_refused(tmp_path):
    raw = sb.fragmentation_oom("2.5")
    raw["device_traces"][0][0]["frames"] = [{"filename": DEEP, "line": 1, "name": "f"}]
    _refused(_write(tmp_path, raw, depth=100_000), "frame's filename should be text, found a list of 1 items")


def test_allocator_settings_nested_deeply_are_described_not_recursed(tmp_path):
    raw = sb.fragmentation_oom("2.5")
    raw["allocator_settings"]["odd"] = DEEP
    snap = load_snapshot(_write(tmp_path, raw, depth=100_000))
    assert snap.allocator_settings is not None
    assert snap.allocator_settings.other["odd"] == "a list of 1 items"


@pytest.mark.parametrize("value, words", [(1e308, "found 1e+308"), ("3", "found '3'"), (True, "found True"),
                                          (2**64, "outside 0..")])
def test_a_whole_number_field_with_another_type_or_range_is_refused_by_name(tmp_path, value, words):
    raw = sb.fragmentation_oom("2.5")
    raw["segments"][0]["total_size"] = value
    error = _refused(_write(tmp_path, raw), words)
    assert error.field == "segments[0].total_size"


def test_a_string_pool_id_is_refused_by_name(tmp_path):
    raw = sb.fragmentation_oom("2.5")
    raw["segments"][0]["segment_pool_id"] = ("a", "b")
    assert _refused(_write(tmp_path, raw), "segment_pool_id[0]").field == "segments[0].segment_pool_id[0]"


@pytest.mark.parametrize("key, value, words", [("size", 1.5, "found 1.5"), ("size", -5, "negative size (-5)"),
                                               ("addr", "0x10", "found '0x10'"), ("time_us", 1e308, "1e+308")])
def test_trace_events_with_wrong_types_or_negative_sizes_are_refused(tmp_path, key, value, words):
    raw = sb.fragmentation_oom("2.5")
    raw["device_traces"][0][3][key] = value
    error = _refused(_write(tmp_path, raw), words)
    assert error.field == f"device_traces[0][3].{key}"


def test_negative_and_overlapping_blocks_are_refused_with_the_address(tmp_path):
    raw = sb.fragmentation_oom("2.5")
    seg = raw["segments"][0]
    first = seg["blocks"][0]
    seg["blocks"][1]["address"] = first["address"] + first["size"] - 512
    _refused(_write(tmp_path, raw), f"overlaps the block before it, which ends at {first['address'] + first['size']:#x}")
    raw = sb.fragmentation_oom("2.5")
    raw["segments"][0]["blocks"][1]["size"] = -5
    _refused(_write(tmp_path, raw, "neg.pickle"), "negative size (-5 B)")


def test_memo_reuse_cannot_expand_a_small_pickle_into_a_huge_trace(tmp_path):
    event = {"action": "alloc", "addr": 1 << 40, "size": 512, "stream": 0, "time_us": 1, "frames": []}
    trace = [event] * 50_000  # one dict, referenced 50,000 times through the pickle memo
    raw = {"segments": [], "device_traces": [trace] * 2_000}  # 100 M events described
    path = _write(tmp_path, raw)
    assert path.stat().st_size < 400_000
    _refused(path, "100000000 segments, blocks and trace events, more than its")


def test_deep_json_is_a_clear_error(tmp_path):
    path = tmp_path / "snap.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    _refused(path, "nests lists or objects deeper than")


# --- hypothesis: real layouts with one field replaced by a hostile value ------------------------------------

HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20), st.binary(max_size=8),
    st.just(_nested(200)), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                                                max_size=2),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out += _paths(v, (*prefix, i))
    return out


BASE = sb.fragmentation_oom("2.5")
PATHS = _paths(BASE)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(PATHS), value=HOSTILE, as_json=st.booleans())
def test_any_one_field_made_hostile_opens_or_is_refused_cleanly(tmp_path, where, value, as_json):
    raw = copy.deepcopy(BASE)
    target = raw
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    if as_json:
        try:
            text = json.dumps(raw)
        except (TypeError, ValueError, RecursionError):
            return  # not representable as JSON (bytes, deep nesting): the pickle case covers it
        path = tmp_path / "h.json"
        path.write_text(text, encoding="utf-8")
    else:
        path = _write(tmp_path, raw, "h.pickle")
    try:
        analyse(load_snapshot(path))
    except SnapshotError as exc:
        assert exc.user_text().strip()
        exc.user_text().encode("utf-8")


def test_a_field_check_names_the_field_not_a_python_type(tmp_path):
    raw = sb.fragmentation_oom("2.5")
    raw["segments"][0]["device"] = 70_000
    error = _refused(_write(tmp_path, raw), "outside 0..65536")
    assert isinstance(error, SnapshotFormatError)


def test_running_out_of_memory_is_said_as_such_not_damaged(tmp_path, monkeypatch):
    from gpudesk.oom.snapshot import unpickle
    from gpudesk.oom.snapshot.errors import SnapshotTooLarge

    class Starved(unpickle.PlainUnpickler):
        def load(self):  # what a machine without enough memory does halfway through a large file
            raise MemoryError

    def starved_columns(read):
        raise MemoryError

    monkeypatch.setattr(unpickle, "PlainUnpickler", Starved)
    path = _write(tmp_path, sb.fragmentation_oom("2.5"))
    with pytest.raises(SnapshotTooLarge, match="Not enough memory to open snap.pickle"):
        load_snapshot(path, columns=False)
    monkeypatch.setattr(unpickle, "decode_pickle_columns", starved_columns)
    with pytest.raises(SnapshotTooLarge, match="Not enough memory to open snap.pickle"):
        load_snapshot(path)
