"""Plan charts and field parsing: stacked memory bars against the safe line, TCO bars, cost/time scatter,
display-unit conversions that keep stored values exact."""

from __future__ import annotations

import pytest

from gpudesk.planner.document import PlanOption
from gpudesk.ui.plan.charts import CostTimeScatter, TcoChart, candidate_label
from gpudesk.ui.plan.fields import FieldSpec, parse_number
from gpudesk.ui.plan.memory_chart import MemoryBarSpec, MemoryBreakdownChart
from gpudesk.units import format_duration, format_gib, format_usd

GIB = 1024**3


def test_memory_bars_stack_and_caption_the_safe_line(qtbot):
    chart = MemoryBreakdownChart()
    qtbot.addWidget(chart)
    under = MemoryBarSpec("A", [("weights", 10 * GIB), ("activations", 20 * GIB)], 79.18 * GIB, 63.34 * GIB)
    over = MemoryBarSpec("B", [("weights", 50 * GIB), ("kv_cache", 20 * GIB)], 79.18 * GIB, 63.34 * GIB)
    chart.set_bars([under, over])
    # A figure and its unit are joined by a no-break space: the wrapped caption never leaves "GiB" alone.
    assert chart.caption.text().replace("\u00a0", " ").splitlines() == [
        "A: 30.00 GiB per GPU, 33.34 GiB under the safe line of 63.34 GiB",
        "B: 70.00 GiB per GPU, 6.66 GiB OVER the safe line of 63.34 GiB",
    ]
    assert " GiB" not in chart.caption.text() and chart.caption.text().count("\u00a0GiB") == 6
    bars = chart._items  # noqa: SLF001 - the drawn items are the point of this test
    assert list(bars["activations"].opts["y0"]) == pytest.approx([10.0, 50.0])
    assert list(bars["kv_cache"].opts["y0"]) == pytest.approx([30.0, 50.0])
    assert list(bars["kv_cache"].opts["height"]) == pytest.approx([0.0, 20.0])
    safe_x, safe_y = chart._safe.getData()  # noqa: SLF001
    assert list(safe_y) == pytest.approx([63.34] * 4)
    assert chart.legend.entries[:3] == ["weights", "activations", "kv cache"]
    # A redraw with fewer parts drops the stale ones from the plot and the legend.
    chart.set_bars([MemoryBarSpec("C", [("weights", GIB)], None, None)])
    assert set(chart._items) == {"weights"}  # noqa: SLF001
    assert chart.caption.text() == "C: 1.00\u00a0GiB per GPU (no safe line known)"


def test_tco_chart_skips_candidates_without_a_total(qtbot):
    priced = {"gpu_name": "NVIDIA H100 SXM5 80GB", "count": 8, "tco_3y_usd": 530975.0,
              "tco_breakdown_usd": {"gpus": 268800.0, "hosts": 74000.0, "residual": -10000.0, "energy": 22516.7}}
    unpriced = {"gpu_name": "AMD Instinct MI300X 192GB", "count": 8, "tco_3y_usd": None, "tco_breakdown_usd": {}}
    chart = TcoChart()
    qtbot.addWidget(chart)
    chart.set_candidates([PlanOption.from_dict(priced), PlanOption.from_dict(unpriced)])
    assert chart.bar_count == 1
    assert "8× H100 SXM5 80GB: 531 k USD" in chart.caption.text()
    assert "1 candidate(s) without a TCO figure are not drawn." in chart.caption.text()
    assert "Residual value" not in chart.legend.entries  # no names given: keys shown as they are
    assert "residual" in chart.legend.entries


def test_scatter_groups_by_deadline_and_leaves_out_unknowns(qtbot):
    rows = [
        {"gpu_name": "NVIDIA A100 80GB SXM4", "count": 8, "time_to_result_s": 3 * 86400, "tco_3y_usd": 4e5, "meets_deadline": True},
        {"gpu_name": "NVIDIA L4 24GB", "count": 4, "time_to_result_s": 30 * 86400, "tco_3y_usd": 5e4, "meets_deadline": False},
        {"gpu_name": "NVIDIA T4 16GB", "count": 1, "time_to_result_s": None, "tco_3y_usd": 9e3, "meets_deadline": None},
    ]
    scatter = CostTimeScatter()
    qtbot.addWidget(scatter)
    scatter.set_candidates([PlanOption.from_dict(r) for r in rows], deadline_s=7 * 86400)
    assert scatter.point_count == 2
    assert scatter.legend.entries == ["Meets the deadline", "Misses the deadline", "Deadline"]
    assert scatter.caption.text() == "Dashed line: the deadline (7.0 days)."


def test_labels_and_units():
    assert candidate_label(PlanOption.from_dict({"gpu_name": "NVIDIA GeForce RTX 4090 24GB", "count": 2})) == "2× RTX 4090 24GB"
    assert format_gib(66571993088) == "62.00 GiB"
    assert format_gib(None) == "N/A"
    assert format_usd(-0.0) == "$0"
    assert format_usd(-1234.4) == "−$1,234"
    assert format_duration(190635) == "2 d 5 h"
    assert format_duration(None) == "N/A"


@pytest.mark.parametrize(
    ("spec", "text", "stored"),
    [
        (FieldSpec("x.p", "Share", unit="%", scale=0.01), "70", 0.7),
        (FieldSpec("x.p", "Share", unit="%", scale=0.01), "20", 0.2),
        (FieldSpec("x.b", "Size", kind="int", unit="TB", scale=1e12), "12", 12_000_000_000_000),
        (FieldSpec("x.b", "Size", kind="int", unit="TB", scale=1e12), "0.5", 500_000_000_000),
        (FieldSpec("x.d", "Deadline", unit="days", scale=86400.0), "7", 604800.0),
        (FieldSpec("x.n", "Count", kind="int"), "1,024", 1024),
        (FieldSpec("x.n", "Count", kind="int", optional=True), "", None),
    ],
)
def test_display_units_convert_exactly(spec, text, stored):
    value, problem = parse_number(spec, text)
    assert problem is None
    assert value == stored
    assert type(value) is type(stored)


def test_parameter_count_accepts_suffixes_and_names_the_field_on_bad_text():
    from gpudesk.ui.plan.questions import model_page

    spec = next(f for f in model_page(None).fields if f.key == "model.params")
    assert parse_number(spec, "13") == (13_000_000_000, None)
    assert parse_number(spec, "350M") == (350_000_000, None)
    assert parse_number(spec, "0.23") == (230_000_000, None)
    value, problem = parse_number(spec, "lots")
    assert value is None
    assert problem == "Parameter count (billion): cannot read 'lots' as a parameter count; write e.g. 13B, 350M or 6.7e9."


def test_tco_chart_names_what_is_missing_from_an_unpriced_bar(qtbot):
    # New-user test: an 8 x H200 with a known GPU price but no host price read "without the GPUs" while its bar
    # included the GPUs.
    no_host = {"gpu_name": "NVIDIA H200 SXM 141GB", "count": 8, "tco_3y_usd": None, "price_known": True,
               "host_price_known": False, "tco_breakdown_usd": {"gpus": 280000.0, "energy": 25000.0}}
    no_gpu = {"gpu_name": "AMD Instinct MI355X 288GB", "count": 8, "tco_3y_usd": None, "price_known": False,
              "host_price_known": True, "tco_breakdown_usd": {"hosts": 90000.0, "energy": 30000.0}}
    chart = TcoChart()
    qtbot.addWidget(chart)
    chart.set_candidates([PlanOption.from_dict(no_host), PlanOption.from_dict(no_gpu)])
    lines = chart.caption.text().splitlines()
    assert "without the servers" in lines[0] and "without the GPUs" not in lines[0]
    assert "without the GPUs" in lines[1] and "servers" not in lines[1]


def test_a_paged_part_is_drawn_but_left_out_of_the_captioned_need(qtbot):
    # bitsandbytes PagedAdamW states (CUDA unified memory, evicted to host RAM when the card runs short) are
    # stacked as their own part; the caption's figure and margin are the need on the card, as every fit uses it
    # (MemoryEstimate.device_need_bytes), so they match the plan's table and estimate memory --gpu.
    chart = MemoryBreakdownChart()
    qtbot.addWidget(chart)
    spec = MemoryBarSpec("T4", [("weights", 2 * GIB), ("paged_optimizer_states", 4 * GIB), ("gradients", 2 * GIB)],
                         14.56 * GIB, 11.65 * GIB)
    chart.set_bars([spec])
    assert spec.total_bytes == 8 * GIB and spec.need_bytes == 4 * GIB
    assert chart.caption.text().replace("\u00a0", " ") == "T4: 4.00 GiB per GPU, 7.65 GiB under the safe line of 11.65 GiB"
    assert list(chart._items["paged_optimizer_states"].opts["height"]) == pytest.approx([4.0])  # noqa: SLF001
