"""db/build_catalog.py: deterministic output equal to the shipped file, and clear errors on bad sources."""

from __future__ import annotations

import importlib.util
import shutil
import sqlite3
from pathlib import Path

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog

REPO = Path(__file__).resolve().parents[2]


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_catalog", REPO / "db" / "build_catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


builder = _load_builder()


def _dump(path: Path) -> list[str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [line for line in conn.iterdump() if "sqlite_version" not in line]
    finally:
        conn.close()


def test_shipped_catalog_equals_a_fresh_build(tmp_path):
    fresh = builder.build(tmp_path / "catalog.db")
    shipped = paths.catalog_path()
    hint = "run `make catalog` after editing db/ and ship the result"
    built_with = open_catalog(shipped).meta()["sqlite_version"]
    if built_with == sqlite3.sqlite_version:
        assert fresh.read_bytes() == shipped.read_bytes(), hint
    else:  # another SQLite release may lay pages out differently: compare the content
        assert _dump(fresh) == _dump(shipped), hint


def test_build_is_deterministic(tmp_path):
    a = builder.build(tmp_path / "a.db").read_bytes()
    b = builder.build(tmp_path / "b.db").read_bytes()
    assert a == b


def _sources(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(REPO / "db", src, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return src


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_bad_number_names_file_line_and_column(tmp_path):
    src = _sources(tmp_path)
    row = "t4,NVIDIA Tesla T4 16GB,NVIDIA,Turing,TU104,7.5,"
    _edit(src / "gpus.csv", row + "16,", row + "sixteen,")
    out = tmp_path / "out.db"
    with pytest.raises(builder.BuildError, match=r"gpus.csv:6 column memory_gb: 'sixteen' is not a number"):
        builder.build(out, src)
    assert not out.exists()
    assert not list(tmp_path.glob(".catalog-*"))


def test_missing_required_value_and_unknown_column(tmp_path):
    src = _sources(tmp_path)
    url = "https://github.com/stas00/ml-engineering/blob/master/network/README.md"
    _edit(src / "links.csv", f"pcie4-x16,PCIe 4.0 x16,pcie,4,31.5,{url},", "pcie4-x16,PCIe 4.0 x16,pcie,4,31.5,,")
    with pytest.raises(builder.BuildError, match="links.csv:3 column source_url: a value is required"):
        builder.build(tmp_path / "out.db", src)
    src2 = _sources(tmp_path / "b")
    _edit(src2 / "models.csv", "id,name,family", "id,nmae,family")
    with pytest.raises(builder.BuildError, match="not in db/schema.sql"):
        builder.build(tmp_path / "out.db", src2)


def test_dangling_server_link_and_bad_kind(tmp_path):
    src = _sources(tmp_path)
    _edit(src / "servers.csv", "hgx,8,8,board,8,SXM,nvlink4,pcie5-x16,Hopper,h100-sxm5,",
          "hgx,8,8,board,8,SXM,nvlink9,pcie5-x16,Hopper,h100-sxm5,")
    with pytest.raises(builder.BuildError, match="'nvlink9' is not in links.csv"):
        builder.build(tmp_path / "out.db", src)
    src2 = _sources(tmp_path / "b")
    _edit(src2 / "links.csv", "ib-hdr,InfiniBand HDR 200 Gb/s,network", "ib-hdr,InfiniBand HDR 200 Gb/s,ethernet")
    with pytest.raises(builder.BuildError, match="links.csv"):
        builder.build(tmp_path / "out.db", src2)


def test_sm_count_of_an_unknown_gpu_or_below_one_is_refused(tmp_path):
    src = _sources(tmp_path)
    _edit(src / "gpu_sms.csv", "\nb200,148,", "\nb250,148,")
    with pytest.raises(builder.BuildError, match="gpu_sms.csv: gpu id 'b250' is not in gpus.csv"):
        builder.build(tmp_path / "out.db", src)
    src2 = _sources(tmp_path / "b")
    _edit(src2 / "gpu_sms.csv", "\nb200,148,", "\nb200,0,")
    with pytest.raises(builder.BuildError):
        builder.build(tmp_path / "out.db", src2)


def test_existing_output_is_kept_when_the_build_fails(tmp_path):
    out = builder.build(tmp_path / "catalog.db")
    before = out.read_bytes()
    src = _sources(tmp_path)
    (src / "scenarios.csv").unlink()
    with pytest.raises(builder.BuildError, match="scenarios.csv is missing"):
        builder.build(out, src)
    assert out.read_bytes() == before
    assert open_catalog(out).gpu("b200").memory_gb == 180


def test_fts_index_is_complete(tmp_path):
    out = builder.build(tmp_path / "catalog.db")
    conn = sqlite3.connect(out)
    (count,) = conn.execute("SELECT count(*) FROM gpus_fts").fetchone()
    assert count == conn.execute("SELECT count(*) FROM gpus").fetchone()[0]
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # no -wal/-shm next to a read-only file
    conn.close()


def test_main_reports_errors_on_stderr(tmp_path, capsys):
    src = _sources(tmp_path)
    (src / "gpus.csv").unlink()
    assert builder.main(["--out", str(tmp_path / "x.db"), "--src", str(src)]) == 1
    assert "gpus.csv is missing" in capsys.readouterr().err
