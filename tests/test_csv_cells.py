"""gpudesk.csv_cells: the one CSV-injection rule every export uses (catalog, monitor samples, plan BOM)."""

from __future__ import annotations

import math

import pytest

from gpudesk.catalog.export import safe_cell as catalog_cell
from gpudesk.csv_cells import csv_cell, formula_safe
from gpudesk.planner.sheet_csv import safe_cell as sheet_cell
from gpudesk.telemetry.recording.export import safe_cell as samples_cell


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3+cmd|' /C calc'!A0", "@SUM(A1)", "\tx", "\rx"])
def test_text_that_could_start_a_formula_gets_an_apostrophe_in_every_export(text):
    assert formula_safe(text) == "'" + text
    assert csv_cell(text) == "'" + text
    assert catalog_cell(text) == "'" + text
    assert samples_cell(text) == "'" + text
    assert sheet_cell(text).startswith("'")


def test_numbers_are_data_in_every_export_negative_ones_included():
    # The three copies disagreed: the catalog passed -5 raw, the plan sheet wrote "'-5". One rule now.
    assert csv_cell(-5) == -5 and csv_cell(-2.5) == -2.5
    assert catalog_cell(-5) == -5
    assert sheet_cell(-1250.0) == "-1250"
    assert not sheet_cell(-0.004).startswith("'")


def test_missing_booleans_and_non_finite_values():
    assert csv_cell(None) == "" and csv_cell(True) == "yes" and csv_cell(False) == "no"
    assert csv_cell(math.nan) == "nan" and csv_cell(-math.inf) == "'-inf"
    assert csv_cell("A100 80GB") == "A100 80GB"
