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


#: The host price the article-case tests give the HGX A100 board (a test input: the shipped catalog has no sourced
#: one, so it is "price unknown" there, issue 12); the HGX H100 host figure the planner used to copy onto it.
ARTICLE_HOST_PRICES_USD = {"hgx-a100": 74000.0}


def build_without_prices(out_dir: Path, price_ids: set[str], host_prices_usd: dict[str, float] | None = None) -> Path:
    """Copy db/ to ``out_dir`` without the ``prices.csv`` rows ``price_ids`` (and with ``host_prices_usd`` set on
    those servers.csv rows) and build it; returns the .db path."""
    src = out_dir / "db"
    shutil.copytree(DB_DIR, src, ignore=shutil.ignore_patterns("__pycache__"))
    if host_prices_usd:
        servers = src / "servers.csv"
        with servers.open(encoding="utf-8", newline="") as handle:
            server_rows = list(csv.DictReader(handle))
            server_fields = list(server_rows[0].keys())
        for row in server_rows:
            if row["id"] in host_prices_usd:
                row["host_price_usd"] = f"{host_prices_usd[row['id']]:g}"
                row["host_price_source"] = "test input (tests/helpers/catalog_variants.py)"
        with servers.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=server_fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(server_rows)
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
