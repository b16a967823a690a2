"""``gpudesk oom snapshot FILE [--json] [--device N]``."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
import snapshot_builder as sb
from helpers.real_snapshots import real_snapshot

from gpudesk.cli import main


@pytest.fixture
def frag_file(tmp_path: Path) -> Path:
    path = tmp_path / "oom-snapshot.pickle"
    path.write_bytes(pickle.dumps(sb.fragmentation_oom("2.4")))
    return path


def test_text_output_explains_and_ranks(frag_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["oom", "snapshot", str(frag_file)]) == 0
    out = capsys.readouterr().out
    assert "layout torch 2.4+ (allocator_settings)" in out
    assert "PyTorch asked for 150.00 MiB on GPU 0 while the GPU had 100.00 MiB free" in out
    assert "550.00 MiB free in 10 pieces spread over 5 segments" in out
    assert "This is fragmentation." in out
    assert "1. Fragmented allocator cache [fragmentation]" in out
    assert "Top frames by bytes alive at the peak:" in out


def test_json_output(frag_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["oom", "snapshot", str(frag_file), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    dev = doc["device"]
    assert doc["format_version"] == "torch 2.4+ (allocator_settings)"
    assert dev["verdict"] == "fragmentation"
    assert dev["oom"]["requested_bytes"] == 150 * sb.MiB
    assert dev["fragmentation"]["largest_usable_free_block_bytes"] == 100 * sb.MiB
    assert doc["diagnosis"]["causes"][0]["id"] == "fragmentation"
    assert doc["diagnosis"]["report"]["source"] == "snapshot"


def test_real_file_and_device_choice(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(real_snapshot("select_n_generate.json.gz"))
    assert main(["oom", "snapshot", path, "--device", "1"]) == 0
    assert "no OOM event on GPU 1" in capsys.readouterr().out
    assert main(["oom", "snapshot", path, "--device", "0"]) == 2
    assert "no GPU 0 in this snapshot (it has 1)" in capsys.readouterr().err


def test_unsafe_and_missing_files_fail_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    class Evil:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.getcwd, ())

    bad = tmp_path / "evil.pickle"
    bad.write_bytes(pickle.dumps({"segments": [Evil()]}))
    assert main(["oom", "snapshot", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "not a plain memory snapshot: it asks to load posix.getcwd" in err
    assert "Traceback" not in err
    assert main(["oom", "snapshot", str(tmp_path / "nope.pickle")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_header_parts_are_separated_and_an_empty_cache_is_said_plainly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "short.pickle"
    path.write_bytes(pickle.dumps(sb.shortage_oom("2.5")))
    assert main(["oom", "snapshot", str(path)]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0]
    assert "; GPU 0; " in head and head.endswith(" trace events")
    assert "0 B free in 0 pieces" not in out and "largest free block was 0 B" not in out
    assert "held no free block" in out
