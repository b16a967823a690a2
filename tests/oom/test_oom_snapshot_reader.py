"""Reading snapshots: every layout since PyTorch 2.0, pickle and JSON, real public files, refusing code."""

from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import threading
from pathlib import Path

import pytest
import snapshot_builder as sb
from helpers.real_snapshots import real_snapshot

from gpudesk.errors import GpudeskError
from gpudesk.oom.snapshot.errors import (
    SnapshotCancelled,
    SnapshotError,
    SnapshotFormatError,
    SnapshotUnsafe,
)
from gpudesk.oom.snapshot.model import ACTIONS, FREE_REQUESTED, OOM
from gpudesk.oom.snapshot.reader import load_snapshot
from gpudesk.oom.snapshot.unpickle import PlainUnpickler

VERSIONS = {"2.0": "torch 2.0 (block history)", "2.1": "torch 2.1+ (block frames)", "2.2": "torch 2.2+ (timestamps)",
            "2.4": "torch 2.4+ (allocator_settings)", "2.5": "torch 2.5+ (user_metadata)"}


def _write_pickle(tmp_path: Path, raw: object, name: str = "snap.pickle") -> Path:
    path = tmp_path / name
    path.write_bytes(pickle.dumps(raw))  # what torch.cuda.memory._dump_snapshot does (default protocol)
    return path


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_every_layout_reads_with_its_label_and_the_same_oom(tmp_path: Path, version: str) -> None:
    snap = load_snapshot(_write_pickle(tmp_path, sb.fragmentation_oom(version)))
    assert snap.format_version == VERSIONS[version]
    assert snap.devices == [0]
    trace = snap.trace_of(0)
    ooms = [i for i, a in enumerate(trace.action.tolist()) if a == OOM]
    assert len(ooms) == 1
    assert trace.size_bytes[ooms[0]] == 150 * sb.MiB
    assert trace.addr[ooms[0]] == 100 * sb.MiB  # device_free sits in the address column for oom rows
    segs = snap.segments_of(0)
    assert sum(s.total_size_bytes for s in segs) == 900 * sb.MiB
    # 2.0 blocks have no address: it is rebuilt from the segment address and the sizes before the block
    for seg in segs:
        assert seg.blocks[0].address == seg.address
        assert seg.blocks[1].address == seg.address + seg.blocks[0].size_bytes
    allocated = [b for s in segs for b in s.blocks if b.is_allocated]
    assert {b.requested_size_bytes for b in allocated} == {70 * sb.MiB}
    assert all(snap.stack(b.stack_id)[0].filename == "model.py" for b in allocated)
    assert trace.has_times == (version >= "2.2")
    assert (snap.allocator_settings is not None) == (version >= "2.4")


def test_json_and_gzip_forms_read_like_the_pickle(tmp_path: Path) -> None:
    raw = sb.leak_run("2.5")
    raw_json = json.loads(json.dumps(raw))  # tuples become lists, as in a JSON file
    (tmp_path / "s.json").write_text(json.dumps(raw_json))
    with gzip.open(tmp_path / "s.json.gz", "wt") as fh:
        json.dump(raw_json, fh)
    a = load_snapshot(_write_pickle(tmp_path, raw))
    b = load_snapshot(tmp_path / "s.json")
    c = load_snapshot(tmp_path / "s.json.gz")
    for other in (b, c):
        assert other.event_count == a.event_count
        assert (other.trace_of(0).size_bytes == a.trace_of(0).size_bytes).all()
        assert len(other.stacks) == len(a.stacks)  # value-interned stacks: JSON does not share objects


def test_real_public_snapshot_eor_nn() -> None:
    """JasperSolt/EoR_NN snapshot.pickle (see the .url sidecar): 10 segments, 5,803 events, PyTorch 2.2+ layout."""
    snap = load_snapshot(real_snapshot("eor_nn_counterfactuals.json.gz"))
    assert snap.format_version == "torch 2.2+ (timestamps)"
    assert len(snap.segments) == 10
    assert snap.event_count == 5803
    actions = snap.trace_of(0).action.tolist()
    assert actions.count(ACTIONS.index("alloc")) == 1935
    assert actions.count(FREE_REQUESTED) == 1926
    assert actions.count(ACTIONS.index("snapshot")) == 9
    assert any(f.filename.endswith("counterfactuals.py") for st in snap.stacks for f in st)


def test_real_public_snapshot_without_trace_select_n() -> None:
    snap = load_snapshot(real_snapshot("select_n_generate.json.gz"))
    assert snap.devices == [1]
    assert snap.event_count == 0
    assert len(snap.segments) == 40
    assert sum(s.total_size_bytes for s in snap.segments) > 5 * 1024**3


class _Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.system, (f"touch {self.marker}",))


def test_malicious_pickle_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    raw = sb.shortage_oom("2.5")
    raw["segments"][0]["blocks"][0]["frames"] = [_Evil(marker)]
    path = _write_pickle(tmp_path, raw)
    with pytest.raises(SnapshotUnsafe) as err:
        load_snapshot(path)
    assert not marker.exists()
    assert "system" in err.value.message
    assert isinstance(err.value, GpudeskError) and err.value.remedy


@pytest.mark.parametrize("payload", [
    b"cos\nsystem\n(S'echo hi'\ntR.",  # protocol 0 GLOBAL + REDUCE
    b"\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x08builtins\x94\x8c\x04eval\x94\x93\x94\x8c\x011\x94\x85\x94R\x94.",
    b"\x80\x02cbuiltins\nexec\nq\x00X\x01\x00\x00\x001q\x01\x85q\x02Rq\x03.",
])
def test_globals_in_any_protocol_are_refused(payload: bytes) -> None:
    with pytest.raises(SnapshotUnsafe):
        PlainUnpickler(io.BytesIO(payload)).load()


def test_persistent_ids_are_refused() -> None:
    with pytest.raises(SnapshotUnsafe):
        PlainUnpickler(io.BytesIO(b"\x80\x02X\x01\x00\x00\x00aQ.")).load()


def test_damaged_empty_and_foreign_files_give_clear_errors(tmp_path: Path) -> None:
    good = pickle.dumps(sb.leak_run("2.5"))
    (tmp_path / "cut.pickle").write_bytes(good[: len(good) // 2])
    (tmp_path / "empty.pickle").write_bytes(b"")
    (tmp_path / "text.txt").write_text("RuntimeError: CUDA out of memory.")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    (tmp_path / "bad_event.json").write_text('{"segments": [], "device_traces": [[{"action": "teleport"}]]}')
    with pytest.raises(SnapshotError, match="damaged or truncated"):
        load_snapshot(tmp_path / "cut.pickle")
    with pytest.raises(SnapshotFormatError, match="empty"):
        load_snapshot(tmp_path / "empty.pickle")
    with pytest.raises(SnapshotFormatError, match="neither a pickle nor JSON"):
        load_snapshot(tmp_path / "text.txt")
    with pytest.raises(SnapshotFormatError, match="no 'segments'"):
        load_snapshot(tmp_path / "other.json")
    with pytest.raises(SnapshotFormatError, match="Trace event 0 of device 0"):
        load_snapshot(tmp_path / "bad_event.json")
    with pytest.raises(SnapshotError, match="does not exist"):
        load_snapshot(tmp_path / "missing.pickle")


def test_progress_reaches_the_file_size_and_cancel_stops_reading(tmp_path: Path) -> None:
    path = _write_pickle(tmp_path, sb.many_events(60_000))
    size = path.stat().st_size
    seen: list[tuple[int, int, str]] = []
    load_snapshot(path, progress=lambda d, t, text: seen.append((d, t, text)))
    byte_reports = [s for s in seen if s[1] == size]
    assert byte_reports and byte_reports[-1][0] == size
    assert any(text == "Reading trace events" for _d, _t, text in seen)

    cancel = threading.Event()

    def stop_early(done: int, total: int, text: str) -> None:
        cancel.set()

    with pytest.raises(SnapshotCancelled):
        load_snapshot(path, progress=stop_early, cancel=cancel)


def test_real_pickle_flexgen_oom_snapshot_torch_2_0() -> None:
    """The real pickle, byte for byte, through the restricted unpickler (no global in it)."""
    snap = load_snapshot(real_snapshot("flexgen_oom_snapshot.pickle"))
    assert snap.format_version == "torch 2.0 (block history)"
    assert snap.devices == [0]
    assert len(snap.segments) == 176
    assert [ACTIONS[a] for a in snap.trace_of(0).action.tolist()] == ["snapshot"]
    reserved = sum(s.total_size_bytes for s in snap.segments)
    assert 11.0 * 1024**3 < reserved < 11.1 * 1024**3


def test_fast_columns_and_per_event_loop_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpudesk.oom.snapshot import convert

    raw = sb.fragmentation_oom("2.5")
    fast = convert.to_snapshot(raw)
    monkeypatch.setattr(convert, "_trace_columns", lambda *args: None)
    slow = convert.to_snapshot(raw)
    assert slow.format_version == fast.format_version
    for column in ("action", "addr", "size_bytes", "stream", "time_us", "stack_id"):
        assert (getattr(slow.trace_of(0), column) == getattr(fast.trace_of(0), column)).all(), column


def test_gzip_bomb_stops_at_the_stated_cap(tmp_path: Path) -> None:
    """The tryout's bomb: 815 KB of gzip that inflates to 800 MiB took 17 s and 1.9 GB before "damaged"."""
    from gpudesk.oom.snapshot.errors import SnapshotTooLarge
    from gpudesk.oom.snapshot.reader import GZIP_MAX_RATIO, gzip_cap_bytes

    spaces = tmp_path / "bomb.json.gz"
    spaces.write_bytes(gzip.compress(b" " * (800 * 2**20), 9))
    with pytest.raises(SnapshotFormatError, match="64 KiB of blank space"):
        load_snapshot(spaces)
    # a bomb whose content looks like a snapshot: caught by the size cap while inflating, not after
    body = gzip.compress(b'{"segments": [' + b"{}," * 100_000_000 + b"{}]}", 9)
    bomb = tmp_path / "segments.json.gz"
    bomb.write_bytes(body)
    seen: list[int] = []
    with pytest.raises(SnapshotTooLarge) as err:
        load_snapshot(bomb, progress=lambda done, total, text: seen.append(done))
    cap = gzip_cap_bytes(len(body))
    assert f"{GZIP_MAX_RATIO} times" in err.value.message and "MiB" in err.value.message
    assert max(seen) <= cap + 2 * 2**20  # stopped while inflating, within a read of the cap
    # a real-sized snapshot well inside the cap still opens
    ok = tmp_path / "ok.json.gz"
    ok.write_bytes(gzip.compress(json.dumps(sb.many_events(20_000)).encode()))
    assert load_snapshot(ok).event_count > 0


def test_a_json_list_that_is_not_segments_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty_list.json").write_text("[]")
    (tmp_path / "numbers.json").write_text("[1, 2]")
    with pytest.raises(SnapshotFormatError, match="empty list: it is not a PyTorch memory snapshot"):
        load_snapshot(tmp_path / "empty_list.json")
    with pytest.raises(SnapshotFormatError, match="not a PyTorch memory snapshot"):
        load_snapshot(tmp_path / "numbers.json")
