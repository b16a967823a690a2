"""The JSON form of a snapshot analysis (``gpudesk oom snapshot --json``); keys carry their units."""

from __future__ import annotations

from typing import Any

from gpudesk.oom.snapshot.analysis import DeviceAnalysis, SnapshotAnalysis

TOP_JSON = 20


def analysis_to_dict(analysis: SnapshotAnalysis, device: int | None = None) -> dict[str, Any]:
    snap = analysis.snapshot
    dev = analysis.device(device)
    return {
        "file": snap.source_name,
        "file_size_bytes": snap.file_size_bytes,
        "format_version": snap.format_version,
        "devices": snap.devices,
        "event_count": snap.event_count,
        "notes": list(snap.notes),
        "allocator_settings": snap.allocator_settings.as_conf() if snap.allocator_settings else None,
        "device": _device(dev) if dev is not None else None,
    }


def _device(dev: DeviceAnalysis) -> dict[str, Any]:
    f = dev.fragmentation
    return {
        "index": dev.device,
        "verdict": dev.verdict,
        "explanation": list(dev.explanation),
        "at": dev.at_kind,
        "at_event_index": dev.at_index,
        "event_count": dev.event_count,
        "oom": None if dev.oom is None else {
            "event_index": dev.oom.index,
            "requested_bytes": dev.oom.requested_bytes,
            "device_free_bytes": dev.oom.device_free_bytes,
            "stream": dev.oom.stream,
            "time_us": dev.oom.time_us,
        },
        "ooms_total": dev.ooms_total,
        "fragmentation": {
            "reserved_bytes": f.reserved_bytes,
            "allocated_bytes": f.allocated_bytes,
            "cached_free_bytes": f.cached_free_bytes,
            "free_pieces": f.free_piece_count,
            "segments": len(f.segments),
            "segments_with_free": f.segments_with_free,
            "largest_free_block_bytes": f.largest_free_block_bytes,
            "usable_free_bytes": f.usable_free_bytes,
            "largest_usable_free_block_bytes": f.largest_usable_free_block_bytes,
            "private_pool_bytes": f.private_pool_bytes,
            "private_pool_allocated_bytes": f.private_pool_allocated_bytes,
            "expandable_segments": f.expandable,
        },
        "peak": {
            "event_index": dev.peak_index,
            "allocated_bytes": dev.peak_allocated_bytes,
            "reserved_bytes": dev.peak_reserved_bytes,
        },
        "composition_bytes": dict(dev.composition_bytes),
        "top_frames": [
            {"frame": g.label, "bytes": g.bytes, "allocations": g.count, "category": g.category}
            for g in dev.top_frames[:TOP_JSON]
        ],
        "top_allocations": [
            {"address": a.address, "size_bytes": a.size_bytes, "created_at_event": a.created_at, "frame": a.label,
             "category": a.category}
            for a in dev.top_allocations[:TOP_JSON]
        ],
        "leak_suspects": [
            {"frame": s.label, "bytes": s.bytes, "allocations": s.count, "iterations": s.iterations}
            for s in dev.leak_suspects
        ],
    }
