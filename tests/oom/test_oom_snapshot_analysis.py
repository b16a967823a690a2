"""What the analysis says: fragmentation vs genuine shortage at the OOM, leaks, peak composition, real files."""

from __future__ import annotations

import numpy as np
import pytest
import snapshot_builder as sb
from helpers.real_snapshots import real_snapshot

from gpudesk.oom.snapshot.account import diagnose_snapshot, snapshot_report
from gpudesk.oom.snapshot.analysis import analyse
from gpudesk.oom.snapshot.convert import to_snapshot
from gpudesk.oom.snapshot.layout import layout_at, layout_at_end
from gpudesk.oom.snapshot.reader import load_snapshot
from gpudesk.oom.snapshot.timeline import (
    Envelope,
    build_lifetimes,
    decimate_minmax,
    troughs,
)

MiB = sb.MiB


@pytest.mark.parametrize("version", ["2.0", "2.2", "2.5"])
def test_fragmentation_oom_is_explained_with_the_pieces(version: str) -> None:
    dev = analyse(to_snapshot(sb.fragmentation_oom(version))).device()
    assert dev is not None and dev.oom is not None
    assert dev.verdict == "fragmentation"
    f = dev.fragmentation
    assert dev.oom.requested_bytes == 150 * MiB and dev.oom.device_free_bytes == 100 * MiB
    assert f.reserved_bytes == 900 * MiB and f.allocated_bytes == 350 * MiB
    assert f.cached_free_bytes == 550 * MiB
    assert f.free_piece_count == 10 and f.segments_with_free == 5
    assert f.largest_usable_free_block_bytes == 100 * MiB
    assert "fragmentation" in dev.explanation[2]
    diag = diagnose_snapshot(analyse(to_snapshot(sb.fragmentation_oom(version))))
    assert diag.top is not None and diag.top.id == "fragmentation"
    assert diag.top.evidence["largest_free_block_bytes"] == 100 * MiB


def test_genuine_shortage_is_not_called_fragmentation() -> None:
    analysis = analyse(to_snapshot(sb.shortage_oom()))
    dev = analysis.device()
    assert dev is not None and dev.verdict == "genuine_shortage"
    assert dev.fragmentation.cached_free_bytes == 0
    diag = diagnose_snapshot(analysis)
    assert [c.id for c in diag.causes][:1] == ["genuine_shortage"]
    assert diag.top is not None and diag.top.evidence["shortfall_bytes"] == 150 * MiB
    assert dev.top_frames[0].label == "train.py:20 build_model" and dev.top_frames[0].bytes == 600 * MiB
    assert dev.composition_bytes["parameters"] == 600 * MiB
    assert dev.composition_bytes["activations"] == 350 * MiB


def test_leak_suspect_found_by_stack_across_iterations() -> None:
    analysis = analyse(to_snapshot(sb.leak_run(iterations=8)))
    dev = analysis.device()
    assert dev is not None and dev.oom is None
    assert [s.label for s in dev.leak_suspects] == ["train.py:44 train_step"]
    assert dev.leak_suspects[0].count == 8 and dev.leak_suspects[0].iterations == 8
    assert len(dev.iteration_troughs) >= 7
    diag = diagnose_snapshot(analysis)
    assert diag.top is not None and diag.top.id == "leak"
    assert all(c.id != "fragmentation" for c in diag.causes)  # nothing failed: no fragmentation cause


def test_parameters_and_one_off_state_are_not_leaks() -> None:
    dev = analyse(to_snapshot(sb.leak_run(iterations=2))).device()
    assert dev is not None
    assert dev.leak_suspects == []  # two iterations are not enough to call it a leak


def test_account_feeds_the_memory_report() -> None:
    report = snapshot_report(analyse(to_snapshot(sb.fragmentation_oom())), total_bytes=1024 * MiB)
    assert report.source == "snapshot"
    assert report.requested_bytes == 150 * MiB
    d = report.device
    assert d is not None
    assert (d.free_bytes, d.reserved_bytes, d.allocated_bytes) == (100 * MiB, 900 * MiB, 350 * MiB)
    assert d.total_bytes == 1024 * MiB and d.peak_allocated_bytes == 900 * MiB
    assert report.alloc_conf == {"expandable_segments": "False"}
    assert report.to_dict()["devices"][0]["reserved_unallocated_bytes"] == 550 * MiB


def test_timeline_is_anchored_on_the_final_state() -> None:
    snap = to_snapshot(sb.leak_run(iterations=4))
    dev = analyse(snap).device()
    assert dev is not None
    tl = dev.timeline
    assert tl.allocated_bytes[-1] == 300 * MiB + 4 * 16 * MiB
    assert tl.reserved_bytes[-1] == sum(s.total_size_bytes for s in snap.segments)
    assert tl.allocated_bytes.max() == 300 * MiB + 3 * 16 * MiB + 160 * MiB + 16 * MiB


def test_trace_cut_by_the_ring_buffer_keeps_earlier_allocations() -> None:
    raw = sb.leak_run(iterations=6)
    raw["device_traces"][0] = raw["device_traces"][0][40:]  # max_entries wrapped: the start is lost
    dev = analyse(to_snapshot(raw)).device()
    assert dev is not None
    assert dev.timeline.baseline_allocated_bytes > 0
    assert dev.timeline.allocated_bytes.min() >= 300 * MiB
    before = [a for a in dev.top_allocations if a.created_at == -1]
    assert sum(a.size_bytes for a in before) >= 300 * MiB


def test_real_snapshot_eor_nn_explained() -> None:
    analysis = analyse(load_snapshot(real_snapshot("eor_nn_counterfactuals.json.gz")))
    dev = analysis.device()
    assert dev is not None and dev.oom is None
    assert dev.fragmentation.reserved_bytes == 128 * MiB
    assert dev.fragmentation.free_piece_count == 14
    assert dev.peak_index is not None and dev.peak_allocated_bytes == int(dev.timeline.allocated_bytes.max())
    assert any(g.label.startswith("/oscar/home/jsolt/FourierNN/counterfactuals.py:") for g in dev.top_frames)
    assert dev.explanation[0].startswith("The snapshot has no OOM event on GPU 0")


def test_minmax_decimation_keeps_every_spike() -> None:
    values = np.zeros(2_000_000, dtype=np.int64)
    values[1_234_567] = 10
    values[7] = -3
    x, y = decimate_minmax(values, 1000)
    assert len(x) == len(y) == 2000
    assert y.max() == 10 and y.min() == -3


def test_troughs_mark_iterations_not_layers() -> None:
    wave = np.array([0, 5, 10, 2, 9, 1, 8, 0, 10], dtype=np.int64)
    assert troughs(wave) == [3, 5, 7]
    # a forward pass: kept activations climb, freed temporaries make small dips; no iteration inside it
    forward = np.array([0, 30, 30, 40, 35, 50, 45, 60, 55, 70, 65, 80], dtype=np.int64)
    assert troughs(forward) == []
    # the empty start before the model is loaded is not an iteration boundary
    leak = np.array([0, 100, 160, 100, 165, 105, 170, 110, 175], dtype=np.int64)
    assert troughs(leak) == [3, 5, 7]


def test_envelope_matches_the_events_at_every_zoom() -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(0, 1000, 3_000_000).astype(np.int64)
    values[2_345_678] = 5000
    env = Envelope(values)
    x, y = env.window(0, len(values), 1000)
    assert len(y) == 2000 and y.max() == 5000 and y.min() == 0
    assert x[0] >= 0 and x[-1] <= len(values)
    x, y = env.window(2_345_000, 2_346_000, 300)  # zoomed in: from the events themselves
    assert y.max() == 5000 and x.min() >= 2_345_000
    assert env.window(10, 5, 100)[0].size == 0


def test_real_flexgen_snapshot_full_gpu_from_one_call_site() -> None:
    dev = analyse(load_snapshot(real_snapshot("flexgen_oom_snapshot.pickle"))).device()
    assert dev is not None and dev.oom is None and dev.peak_index is None  # only a "snapshot" marker
    f = dev.fragmentation
    assert f.cached_free_bytes < 5 * MiB and f.free_piece_count == 3
    assert dev.top_frames[0].label.endswith("flexgen/pytorch_backend.py:190 allocate")
    assert dev.top_frames[0].bytes == f.allocated_bytes
    assert dev.explanation[1].startswith("The largest holder is ")


def test_real_oom_snapshot_code_location_is_a_genuine_shortage() -> None:
    """Constructor-Sun/code_location memory_snapshot.pickle (see the .url): the only public snapshot found with
    an ``oom`` action. Described before computing: GPU 1 of 3, a 4.94 GiB request, 91 MiB free, 78 GiB
    reserved and nearly all allocated to activations of update_nodes; expandable segments on."""
    analysis = analyse(load_snapshot(real_snapshot("code_location_gnn_oom.json.gz")))
    dev = analysis.device()
    assert dev is not None and dev.device == 1 and dev.oom is not None
    assert dev.oom.requested_bytes == 5_308_694_528
    assert dev.oom.device_free_bytes == 95_682_560
    assert dev.verdict == "genuine_shortage"
    assert dev.fragmentation.largest_usable_free_block_bytes == 17_313_792
    assert dev.top_frames[0].label.endswith("src/train/models.py:174 update_nodes")
    assert dev.leak_suspects == []  # layers of one forward pass are not iterations
    assert analysis.snapshot.allocator_settings is not None
    assert analysis.snapshot.allocator_settings.expandable_segments is True
    diag = diagnose_snapshot(analysis)
    assert diag.top is not None and diag.top.id == "genuine_shortage"


def test_cuda_graph_pool_segments_are_not_usable_and_reach_the_pool_rule() -> None:
    raw = sb.shortage_oom("2.5")
    for seg in raw["segments"][:6]:  # the parameters' segments belong to a graph's private pool
        seg["segment_pool_id"] = (1, 7)
    analysis = analyse(to_snapshot(raw))
    dev = analysis.device()
    assert dev is not None
    assert dev.fragmentation.private_pool_bytes == 600 * MiB
    assert dev.fragmentation.private_pool_allocated_bytes == 600 * MiB
    assert any("private pools" in line for line in dev.explanation)
    report = snapshot_report(analysis)
    assert report.device is not None and report.device.private_pool_bytes == 600 * MiB
    assert "cuda_graph_pools" in [c.id for c in diagnose_snapshot(analysis).causes]


def test_a_request_that_fits_a_free_block_is_not_called_a_shortage() -> None:
    raw = sb.fragmentation_oom("2.5")
    oom = next(e for e in raw["device_traces"][0] if e["action"] == "oom")
    oom["size"] = 50 * MiB  # smaller than the 100 MiB free blocks: the layout does not explain the failure
    dev = analyse(to_snapshot(raw)).device()
    assert dev is not None and dev.verdict == "unexplained"
    assert "was large enough, yet the allocation failed" in dev.explanation[2]


@pytest.mark.parametrize("name", ["eor_nn_counterfactuals.json.gz", "code_location_gnn_oom.json.gz"])
def test_layout_rebuilt_from_the_trace_matches_the_allocators_blocks(name: str) -> None:
    """The layout the analysis rebuilds at an event (used at the OOM) equals, at the last event, the blocks
    the allocator itself wrote: the same free bytes, pieces and largest free block on every GPU."""
    snap = load_snapshot(real_snapshot(name))
    checked = 0
    for device in snap.devices:
        trace, segments = snap.trace_of(device), snap.segments_of(device)
        if len(trace) < 2:
            continue
        rebuilt = layout_at(segments, trace, build_lifetimes(trace, segments), len(trace) - 1)
        written = layout_at_end(segments)
        assert [s.free_pieces for s in rebuilt] == [s.free_pieces for s in written]
        checked += 1
    assert checked >= 1
