"""open_catalog errors, find_gpu/find_model matching, full-text search and meta()."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from gpudesk import paths
from gpudesk.catalog import AmbiguousItemError, CatalogError, UnknownItemError, open_catalog


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("h100 sxm", "h100-sxm5"),
        ("H100 SXM", "h100-sxm5"),
        ("a100 80gb sxm", "a100-80-sxm4"),
        ("a10", "a10"),  # exact id beats the A100s that contain "a10"
        ("nvidia a10", "a10"),  # whole words beat prefixes
        ("4090", "rtx4090"),
        ("rtx 6000", "rtx-6000-ada"),
        ("NVIDIA H200 SXM 141GB", "h200-sxm"),
        ("mi300", "mi300x"),
        ("  l40s  ", "l40s"),
    ],
)
def test_find_gpu(catalog, query, expected):
    assert catalog.find_gpu(query).id == expected


@pytest.mark.parametrize(("query", "count"), [("h100", 3), ("a100 80gb", 2), ("v100 pcie", 2), ("nvidia", 77)])
def test_ambiguous_fragments_list_the_matches(catalog, query, count):
    with pytest.raises(AmbiguousItemError) as info:
        catalog.find_gpu(query)
    assert len(info.value.matches) == count
    assert all(query.split()[0] in g.name.lower() for g in info.value.matches)
    assert info.value.matches[0].id in str(info.value)


def test_unknown_gpu_suggests_close_ids(catalog):
    with pytest.raises(UnknownItemError, match="h100-sxm5"):
        catalog.find_gpu("h100 sxn")
    with pytest.raises(UnknownItemError, match="No GPU given"):
        catalog.find_gpu("   ")
    with pytest.raises(UnknownItemError, match="catalog list"):
        catalog.gpu("not-a-gpu")
    assert issubclass(UnknownItemError, CatalogError)


def test_find_model(catalog):
    assert catalog.find_model("llama 2 7b").id == "llama-2-7b"
    assert catalog.find_model("Mistral 7B").id == "mistral-7b"
    assert catalog.find_model("sdxl").id == "sdxl-unet"
    with pytest.raises(AmbiguousItemError):
        catalog.find_model("llama 2")
    with pytest.raises(UnknownItemError):
        catalog.model("llama-9")


def test_search_gpus_full_text(catalog):
    hopper = {"h100-pcie", "h100-sxm5", "h100-nvl", "h200-sxm", "h200-nvl", "h800-sxm5", "h20", "gh200", "gh200-96"}
    assert {g.id for g in catalog.search_gpus("hopper")} == hopper
    assert {g.id for g in catalog.search_gpus("hop")} == hopper
    assert {g.id for g in catalog.search_gpus("geforce lovelace")} == {"rtx4060", "rtx4060ti-8", "rtx4060ti-16", "rtx4070", "rtx4070tis", "rtx4080",
                                                                      "rtx4080s", "rtx4090", "rtx4090d"}
    assert {g.id for g in catalog.search_gpus("MIG gh100")} == {"h100-sxm5", "h100-nvl", "h200-sxm"}  # notes say MIG
    assert catalog.search_gpus("") == catalog.gpus()
    assert catalog.search_gpus('"; DROP TABLE gpus; --') == []  # punctuation is not FTS syntax
    assert catalog.search_gpus("zzzz") == []


def test_meta(catalog):
    meta = catalog.meta()
    assert meta["schema_version"] == 1
    assert meta["counts"]["gpus"] == len(catalog.gpus())
    assert len(meta["build_date"]) == 10
    epoch = next(s for s in meta["sources"] if s["id"] == "epoch-ml-hardware")
    assert "CC BY 4.0" in epoch["licence"] and "Epoch AI, 'Data on Machine Learning Hardware'" in epoch["attribution"]


def test_connection_is_read_only(catalog):
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        catalog._conn.execute("DELETE FROM gpus")


def test_missing_catalog(tmp_path):
    with pytest.raises(CatalogError, match="missing.*make catalog"):
        open_catalog(tmp_path / "nope.db")


def test_corrupt_catalog(tmp_path):
    bad = tmp_path / "catalog.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(CatalogError, match="damaged or not a catalog"):
        open_catalog(bad)


def test_truncated_catalog(tmp_path):
    bad = tmp_path / "catalog.db"
    data = paths.catalog_path().read_bytes()
    bad.write_bytes(data[: len(data) // 3])
    with pytest.raises(CatalogError):
        open_catalog(bad)


def test_wrong_schema(tmp_path):
    other = tmp_path / "catalog.db"
    shutil.copy(paths.catalog_path(), other)
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with pytest.raises(CatalogError, match="schema version 7"):
        open_catalog(other)
    empty = tmp_path / "empty.db"
    conn = sqlite3.connect(empty)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(CatalogError, match="no such table"):
        open_catalog(empty)


def test_env_override(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUDESK_CATALOG", str(tmp_path / "elsewhere.db"))
    with pytest.raises(CatalogError, match="elsewhere.db"):
        open_catalog()


def test_search_after_close_raises_catalog_error():
    cat = open_catalog()
    cat.close()
    assert cat.gpu("l4").tdp_w == 72  # loaded rows stay usable
    with pytest.raises(CatalogError, match="Full-text search"):
        cat.search_gpus("ada")
