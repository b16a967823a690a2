"""Configuration-sheet exporters (Markdown, JSON, CSV) on real plans of the shipped example profiles."""

from __future__ import annotations

import csv
import io
import json

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.planner import load_profile, plan, plan_to_dict, requirement_to_dict
from gpudesk.planner.sheet import SheetError, build_sheet
from gpudesk.planner.sheet_csv import BOM_COLUMNS, plan_to_csv, safe_cell, write_csv
from gpudesk.planner.sheet_json import plan_to_json, write_json
from gpudesk.planner.sheet_markdown import md_escape, plan_to_markdown, write_markdown

ARTICLE = "article-13b-finetune.toml"


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


def _planned(catalog, name):
    req = load_profile(paths.examples_dir() / name)
    return plan_to_dict(plan(req, catalog)), requirement_to_dict(req)


@pytest.fixture(scope="module")
def article(catalog):
    return _planned(catalog, ARTICLE)


def test_markdown_sheet_has_every_section_of_the_article_case(article, catalog):
    plan_dict, profile = article
    text = plan_to_markdown(plan_dict, profile=profile, catalog=catalog)
    for heading in ("## Recommended configuration", "## Bill of materials", "## Software versions",
                    "## Expected memory per GPU, time and 3-year TCO", "## Risks", "## Checks after delivery",
                    "## Rationale"):
        assert heading in text
    assert "| Expected memory per GPU | Size | Expected time | Value | Total cost of ownership (3 years) | USD |" in text
    top = plan_dict["candidates"][0]
    assert top["gpu_name"] in text
    assert top["interconnect_name"] in text
    # Versions pinned by the article: PyTorch 2.0.1, CUDA 12.1 (driver >= 525.60.13), DeepSpeed 0.8.3.
    assert "| pytorch | 2.0.1 |" in text
    assert "| CUDA | 12.1 |" in text
    assert "525.60.13" in text
    assert "| deepspeed | 0.8.3 |" in text
    # Memory against the safe line, in GiB, and the deadline of 7 days.
    assert f"{top['safe_line_bytes'] / 1024**3:.1f} GiB" in text
    assert "| Deadline | 7 d |" in text
    assert "72-hour burn-in" in text
    assert f"all_reduce_perf -b 8 -e 4G -f 2 -g {top['count']}".replace("_", "\\_") in text
    assert "ECC enabled" in text  # the article profile requires ECC


def test_nccl_check_names_the_link_bandwidth_from_the_catalog(article, catalog):
    plan_dict, profile = article
    sheet = build_sheet(plan_dict, profile=profile, catalog=catalog)
    top = plan_dict["candidates"][0]
    link = catalog.link(top["interconnect"])
    nccl = next(c for c in sheet.checks if c.name.startswith("nccl-tests"))
    assert f"{link.bandwidth_gbps_per_direction:g} GB/s per direction" in nccl.passes_when
    assert f"{0.8 * link.bandwidth_gbps_per_direction:,.0f} GB/s" in nccl.passes_when


def test_json_sheet_parses_and_keeps_units_in_keys(article, catalog):
    plan_dict, profile = article
    doc = json.loads(plan_to_json(plan_dict, profile=profile, catalog=catalog))
    assert doc["format"] == "gpudesk-configuration-sheet" and doc["version"] == 1
    top = plan_dict["candidates"][0]
    assert doc["candidate"] == top
    assert doc["memory_per_gpu"]["total_bytes"] == top["per_gpu_memory_bytes"]
    assert doc["memory_per_gpu"]["safe_line_bytes"] == top["safe_line_bytes"]
    assert doc["memory_per_gpu"]["headroom_bytes"] == top["safe_line_bytes"] - top["per_gpu_memory_bytes"]
    assert doc["timing"]["time_to_result_s"] == top["time_to_result_s"]
    assert doc["timing"]["deadline_s"] == 7 * 86400
    assert doc["tco_usd"]["total_3y"] == top["tco_3y_usd"]
    assert doc["tco_usd"]["breakdown"] == top["tco_breakdown_usd"]
    assert {line["category"] for line in doc["bill_of_materials"]} >= {"GPU", "Server", "Storage", "Network", "Software"}


def test_csv_bill_of_materials_rows_and_prices(article, catalog):
    plan_dict, profile = article
    text = plan_to_csv(plan_dict, profile=profile, catalog=catalog)
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text[1:])))
    assert tuple(rows[0]) == BOM_COLUMNS
    by_category = {}
    for row in rows[1:]:
        by_category.setdefault(row[0], []).append(row)
    top = plan_dict["candidates"][0]
    gpu = by_category["GPU"][0]
    assert gpu[1] == top["gpu_name"]
    assert float(gpu[2]) == top["count"]
    assert float(gpu[4]) == pytest.approx(top["tco_breakdown_usd"]["gpus"])
    assert float(gpu[3]) * top["count"] == pytest.approx(top["tco_breakdown_usd"]["gpus"])
    server = by_category["Server"][0]
    assert server[1] == top["server_name"]
    assert float(server[4]) == pytest.approx(top["tco_breakdown_usd"]["hosts"])
    assert any(row[1] == "deepspeed 0.8.3" for row in by_category["Software"])
    total = by_category["Total"][0]
    priced = [float(r[4]) for r in rows[1:] if r[0] not in ("Total", "TCO") and r[4]]
    assert float(total[4]) == pytest.approx(sum(priced))
    assert float(by_category["TCO"][0][4]) == pytest.approx(top["tco_3y_usd"], abs=0.01)


@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcmd"])
def test_formula_cells_are_neutralised(text):
    cell = safe_cell(text)
    assert cell.startswith("'")
    assert cell[1:] == text.replace("\r", " ") or cell[1:] == text


def test_no_exported_cell_can_start_a_formula(catalog):
    plan_dict, profile = _planned(catalog, ARTICLE)
    profile = json.loads(json.dumps(profile))
    profile["software"]["libraries"] = ["=cmd|' /C calc'!A0", "@evil==1", "+x", "-y"]
    hostile = json.loads(json.dumps(plan_dict))
    hostile["candidates"][0]["gpu_name"] = "=1+1"
    hostile["candidates"][0]["server_name"] = "-2"
    hostile["candidates"][0]["tco_breakdown_usd"]["residual"] = -1234.0
    rows = list(csv.reader(io.StringIO(plan_to_csv(hostile, profile=profile)[1:])))
    cells = [cell for row in rows for cell in row]
    assert len(rows) > 5
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'=1+1" in cells


def test_markdown_escapes_outside_text():
    assert md_escape("<b>x</b> *bold* [link](y) a|b") == "\\<b\\>x\\</b\\> \\*bold\\* \\[link\\](y) a\\|b"
    assert md_escape(None) == "N/A"
    assert md_escape("two\nlines") == "two lines"


def test_every_shipped_example_exports(catalog, tmp_path):
    for path in sorted(paths.examples_dir().glob("*.toml")):
        plan_dict, profile = _planned(catalog, path.name)
        if not plan_dict["candidates"]:
            with pytest.raises(SheetError, match="no candidates"):
                build_sheet(plan_dict)
            continue
        md = write_markdown(plan_dict, tmp_path / f"{path.stem}.md", profile=profile, catalog=catalog)
        js = write_json(plan_dict, tmp_path / f"{path.stem}.json", profile=profile, catalog=catalog)
        cs = write_csv(plan_dict, tmp_path / f"{path.stem}.csv", profile=profile, catalog=catalog)
        assert md.read_text(encoding="utf-8").startswith("# ")
        assert json.loads(js.read_text(encoding="utf-8"))["candidate"]["gpu_id"] == plan_dict["candidates"][0]["gpu_id"]
        assert cs.read_bytes().startswith(b"\xef\xbb\xbf" + b"category,item")


def test_inference_plan_reports_qps_not_time_to_result(catalog):
    plan_dict, profile = _planned(catalog, "chat-api-qps200.toml")
    sheet = build_sheet(plan_dict, profile=profile)
    names = [name for name, _value, _unit in sheet.timing]
    assert "QPS the configuration sustains" in names
    assert "Target QPS" in names
    assert "Time to result" not in names
    # A serving step is one decode step: the sheet calls its time TPOT (issue 29), never a training "Step time".
    top = plan_dict["candidates"][0]
    assert top["tpot_s"] and top["ttft_s"]
    timing = {name: value for name, value, _unit in sheet.timing}
    assert "Step time" not in timing
    assert timing["TPOT (time per output token)"] == top["tpot_s"]
    assert timing["TTFT (time to first token)"] == top["ttft_s"]
    markdown = plan_to_markdown(plan_dict, profile=profile, catalog=catalog)
    assert "| TPOT (time per output token) |" in markdown and "| Step time |" not in markdown
    data = json.loads(plan_to_json(plan_dict, profile=profile, catalog=catalog))
    assert data["timing"]["tpot_s"] == top["tpot_s"] and "step_time_s" not in data["timing"]


def test_bad_input_is_refused_with_a_clear_message(article, tmp_path):
    plan_dict, _profile = article
    with pytest.raises(SheetError, match="no candidates"):
        build_sheet({"candidates": []})
    with pytest.raises(SheetError, match="Candidate 1000 does not exist"):
        build_sheet(plan_dict, candidate_index=999)
    with pytest.raises(SheetError, match="needs a plan dictionary"):
        build_sheet(["not", "a", "plan"])  # type: ignore[arg-type]
    with pytest.raises(SheetError, match="Cannot write"):
        write_markdown(plan_dict, tmp_path / "missing-folder" / "x.md")


# The tryout's /tmp/try/llama70-serve.toml: Llama 3.1 70B at 50 req/s with TTFT / TPOT targets, FP8 weights and KV.
LLAMA70_SERVE = """version = 1
name = "Llama 3.1 70B chat at 50 req/s, TTFT 1 s"
[model]
model = "meta-llama/Llama-3.1-70B"
mode = "inference"
weight_format = "fp8"
kv_precision = "fp8"
[workload]
training_share = 0.0
target_qps = 50.0
prompt_tokens = 2000
output_tokens = 300
max_concurrent_sequences = 256
ttft_target_s = 1.0
tpot_target_s = 0.05
[operations]
max_gpus = 64
"""


def test_serving_alternatives_show_tensor_parallel_and_latency(catalog, tmp_path):
    path = tmp_path / "serve.toml"
    path.write_text(LLAMA70_SERVE, encoding="utf-8")
    data = plan_to_dict(plan(load_profile(path), catalog))
    md = plan_to_markdown(data, 0)
    section = md.split("## Alternatives considered", 1)[1].split("\n## ", 1)[0]
    assert "| Parallelism | Memory per GPU | QPS capacity | TTFT | TPOT |" in section
    assert "N/A / N/A" not in section
    tp1 = [c for c in data["candidates"][1:] if c["tensor_parallel"] == 1 and c["sharding"] is None]
    assert tp1, "a GPU that holds the 70B FP8 model alone is among the alternatives"
    c = tp1[0]
    # An option in a chassis sold whole (an NVL72 rack) reads "N of 72 bought".
    count = f"{c['count']} of {c['gpus_bought']} bought" if c["gpus_bought"] > c["count"] else str(c["count"])
    row = next(line for line in section.splitlines() if line.startswith(f"| {c['gpu_name']} | {count} |"))
    cells = [x.strip() for x in row.split("|")[1:-1]]
    assert cells[3] == "tp1" and cells[6].endswith("ms") and cells[7].endswith("ms")


def test_sheet_of_a_selected_candidate_is_not_titled_recommended(article):
    # New-user test: with row #5 selected the exported sheet said "Recommended configuration" over #5's 8 x H200.
    plan_dict, profile = article
    count = len(plan_dict["candidates"])
    assert count >= 5
    text = plan_to_markdown(plan_dict, candidate_index=4, profile=profile)
    assert f"## Configuration #5 of {count} (selected; the recommended one is #1)" in text
    assert "Recommended configuration" not in text
    assert "## Recommended configuration" in plan_to_markdown(plan_dict, candidate_index=0, profile=profile)


def test_a_plan_where_nothing_fits_exports_why(catalog, tmp_path):
    # Export used to be refused when nothing fits, so "why nothing fits" could not be shared.
    req = load_profile(paths.examples_dir() / "pretraining-70b.toml")
    req.operations.max_gpus = 4
    plan_dict = plan_to_dict(plan(req, catalog))
    assert not plan_dict["candidates"]
    path = write_markdown(plan_dict, tmp_path / "nofit.md", profile=requirement_to_dict(req))
    text = path.read_text(encoding="utf-8")
    assert "## No configuration fits this requirement" in text
    assert 'The GPU-count limit binds: "Largest GPU count to consider" is 4' in text
    assert "## Closest options" in text and "h100-sxm5" in text
    assert "## Rejected configurations" in text and "Volta has no BF16" in text
    assert "## Requirement (as entered)" in text
