"""CSV export safety and the shared field formatting."""

from __future__ import annotations

import csv

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.catalog.export import UNKNOWN_CELL, ExportError, catalog_cell, safe_cell, write_csv
from gpudesk.catalog.fields import FIELDS_BY_KEY, differing_keys, gpu_json


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
        ("+1", "'+1"),
        ("-cmd", "'-cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("H100", "H100"),
        (-3.5, -3.5),
        (None, ""),
        (True, "yes"),
    ],
)
def test_safe_cell(value, expected):
    assert safe_cell(value) == expected


def test_write_csv_round_trip(tmp_path):
    path = tmp_path / "out.csv"
    assert write_csv(path, ["Name", "Memory (GB)"], [["=evil()", 80.0], ["ok", None]]) == 2
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows == [["Name", "Memory (GB)"], ["'=evil()", "80.0"], ["ok", ""]]


def test_write_csv_unwritable(tmp_path):
    with pytest.raises(ExportError, match="Choose another folder"):
        write_csv(tmp_path / "missing" / "out.csv", ["a"], [])


def test_field_formatting(catalog):
    gpu = catalog.gpu("h100-sxm5")
    assert FIELDS_BY_KEY["memory_bandwidth_gbps"].format(gpu.memory_bandwidth_gbps) == "3350 GB/s"
    assert FIELDS_BY_KEY["bf16_dense_tflops"].format(989.4) == "989.4 TFLOPS"
    assert FIELDS_BY_KEY["fp8_dense_tflops"].format(None) == "N/A (no FP8 support)"
    assert FIELDS_BY_KEY["price_usd"].format(33600.0) == "33,600 USD"
    assert FIELDS_BY_KEY["ecc"].format(True) == "yes"
    assert FIELDS_BY_KEY["launch_year"].format(2022) == "2022"
    assert gpu_json(gpu)["fp8_dense_tflops"] == 1978.9
    assert differing_keys([gpu, catalog.gpu("h200-sxm")], ("bf16_dense_tflops", "memory_gb")) == {"memory_gb"}


def test_catalog_cell_tells_unknown_from_absent(catalog):
    a10g = catalog.gpu("a10g")
    assert catalog_cell(a10g, "bf16_dense_tflops", None) == UNKNOWN_CELL == "unknown"  # Ampere has BF16
    assert catalog_cell(a10g, "fp8_dense_tflops", None) is None  # Ampere has no FP8: an empty cell
    assert catalog_cell(a10g, "memory_gb", 24.0) == 24.0


def test_differing_keys_tells_unknown_from_absent(catalog):
    a10g, t4, p40 = catalog.gpu("a10g"), catalog.gpu("t4"), catalog.gpu("p40")
    assert "bf16_dense_tflops" in differing_keys([a10g, t4], ("bf16_dense_tflops",))
    assert "bf16_dense_tflops" not in differing_keys([t4, p40], ("bf16_dense_tflops",))
