"""Catalogs built from db/ with one sourced price row left out, for tests about the unknown-price path.

The shipped catalog prices the A100 80GB SXM4 at its 2026 refurbished street price (db/prices.csv row
``a100-80-sxm4-street``), which makes it the article case's cheapest option. Tests written for the article case
as it stood (A100 price unknown, H100 SXM5 at its dated bill-of-materials price) build this variant.
"""

from __future__ import annotations

import csv
import importlib.util
import shutil
from pathlib import Path

DB_DIR = Path(__file__).resolve().parents[2] / "db"


def build_without_prices(out_dir: Path, price_ids: set[str]) -> Path:
    """Copy db/ to ``out_dir`` without the ``prices.csv`` rows ``price_ids`` and build it; returns the .db path."""
    src = out_dir / "db"
    shutil.copytree(DB_DIR, src, ignore=shutil.ignore_patterns("__pycache__"))
    path = src / "prices.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
        fields = list(rows[0].keys())
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(r for r in rows if r["id"] not in price_ids)
    spec = importlib.util.spec_from_file_location("build_catalog_variant", DB_DIR / "build_catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(out_dir / "catalog.db", src)
