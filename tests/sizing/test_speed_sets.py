"""The measured-run sets of ``gpudesk estimate accuracy``: dev, later and fresh are summarised apart, a missing file
is an empty set, and the text report gives the fresh set its own line."""

from __future__ import annotations

import json

import pytest

from gpudesk.sizing.speed_validation import SET_FILES, evaluate_speed, speed_cases_dir, speed_report_lines, summarize_speed


def _row(case_id, kind, value):
    return {"id": case_id, "kind": kind, "gpu": "h100-sxm5", "engine": "vllm",
            "measured": {"metric": "output_tokens_per_s", "value": value, "unit": "tokens/s"}}


def test_fresh_rows_are_a_set_of_their_own_and_missing_files_are_empty(tmp_path):
    assert SET_FILES["fresh"] == ("fresh_train_runs.jsonl", "fresh_serve_runs.jsonl")
    (tmp_path / "serve_runs.jsonl").write_text(json.dumps(_row("d", "serve", 100)) + "\n", encoding="utf-8")
    (tmp_path / "fresh_serve_runs.jsonl").write_text(json.dumps(_row("f", "serve", 50)) + "\n", encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == ["dev", "fresh"]
    assert summary["fresh"]["all"]["geomean_ratio"] == 2.0 and summary["dev"]["all"]["geomean_ratio"] == 1.0
    assert summary["later"]["all"]["rows"] == 0  # later_runs.jsonl and fresh_train_runs.jsonl are missing
    lines = speed_report_lines(results, summary)
    fresh = [line for line in lines if line.startswith("fresh set (collected after the model was frozen)")]
    assert len(fresh) == 1 and "1/1 answered" in fresh[0]


def test_the_second_fresh_batch_is_its_own_set_with_its_own_report_line(tmp_path):
    # fresh2: runs collected after the second freeze; both helpers register the identical entry.
    assert SET_FILES["fresh2"] == ("fresh2_train_runs.jsonl", "fresh2_serve_runs.jsonl")
    assert list(SET_FILES)[:4] == ["dev", "later", "fresh", "fresh2"]
    (tmp_path / "fresh_serve_runs.jsonl").write_text(json.dumps(_row("f", "serve", 50)) + "\n", encoding="utf-8")
    (tmp_path / "fresh2_serve_runs.jsonl").write_text(json.dumps(_row("g", "serve", 200)) + "\n", encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == ["fresh", "fresh2"]
    assert summary["fresh2"]["all"]["geomean_ratio"] == 0.5 and summary["fresh"]["all"]["geomean_ratio"] == 2.0
    assert summary["dev"]["all"]["rows"] == 0
    lines = speed_report_lines(results, summary)
    second = [line for line in lines if line.startswith("second fresh set (collected after the model was frozen again)")]
    assert len(second) == 1 and "1/1 answered" in second[0] and "ratio 0.50" in second[0]


def test_the_bundled_second_fresh_training_batch_is_mostly_moe_with_sources():
    # The bundled fresh2 training rows: published runs with their URLs, most of them expert-parallel MoE runs.
    from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir

    rows = read_rows(speed_cases_dir() / "fresh2_train_runs.jsonl")
    assert len(rows) >= 15 and all(r["kind"] == "train" and r.get("source_url") for r in rows)
    assert sum(int(r.get("ep") or 1) > 1 for r in rows) >= 10


def test_the_third_fresh_batch_is_its_own_set_with_its_own_report_line(tmp_path):
    # fresh3: runs collected after the third freeze; both helpers register the identical entry, last in the dict.
    assert SET_FILES["fresh3"] == ("fresh3_train_runs.jsonl", "fresh3_serve_runs.jsonl")
    assert list(SET_FILES)[:5] == ["dev", "later", "fresh", "fresh2", "fresh3"]
    (tmp_path / "fresh2_serve_runs.jsonl").write_text(json.dumps(_row("g", "serve", 200)) + "\n", encoding="utf-8")
    (tmp_path / "fresh3_serve_runs.jsonl").write_text(json.dumps(_row("h", "serve", 400)) + "\n", encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == ["fresh2", "fresh3"]
    assert summary["fresh3"]["all"]["geomean_ratio"] == 0.25 and summary["fresh2"]["all"]["geomean_ratio"] == 0.5
    lines = speed_report_lines(results, summary)
    third = [line for line in lines if line.startswith("third fresh set (collected after the model was frozen a third time)")]
    assert len(third) == 1 and "1/1 answered" in third[0] and "ratio 0.25" in third[0]


def test_the_bundled_third_fresh_training_batch_spreads_over_vendors_and_layouts():
    # The bundled fresh3 training rows: published runs with their URLs, AMD and NVIDIA, pipeline, context and expert
    # parallel, LoRA and full training.
    from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir

    rows = read_rows(speed_cases_dir() / "fresh3_train_runs.jsonl")
    assert len(rows) >= 15 and all(r["kind"] == "train" and r.get("source_url") for r in rows)
    assert sum(str(r["gpu"]).startswith("mi3") for r in rows) >= 5
    assert sum(int(r.get("pp") or 1) > 1 for r in rows) >= 5 and sum(int(r.get("cp") or 1) > 1 for r in rows) >= 5
    assert sum(int(r.get("ep") or 1) > 1 for r in rows) >= 5 and sum(bool(r.get("adapter_params")) for r in rows) >= 5


def test_the_fourth_fresh_batch_is_its_own_set_with_its_own_report_line(tmp_path):
    # fresh4: runs collected after the fourth freeze; both helpers register the identical entry, last in the dict.
    assert SET_FILES["fresh4"] == ("fresh4_train_runs.jsonl", "fresh4_serve_runs.jsonl")
    assert list(SET_FILES)[:6] == ["dev", "later", "fresh", "fresh2", "fresh3", "fresh4"]
    (tmp_path / "fresh3_serve_runs.jsonl").write_text(json.dumps(_row("h", "serve", 400)) + "\n", encoding="utf-8")
    (tmp_path / "fresh4_serve_runs.jsonl").write_text(json.dumps(_row("i", "serve", 25)) + "\n", encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == ["fresh3", "fresh4"]
    assert summary["fresh4"]["all"]["geomean_ratio"] == 4.0 and summary["fresh3"]["all"]["geomean_ratio"] == 0.25
    assert summary["fresh4"]["all"]["rows"] == 1 and summary["dev"]["all"]["rows"] == 0
    lines = speed_report_lines(results, summary)
    fourth = [line for line in lines
              if line.startswith("fourth fresh set (collected after the model was frozen a fourth time)")]
    assert len(fourth) == 1 and "1/1 answered" in fourth[0] and "ratio 4.00" in fourth[0]


def test_the_bundled_fourth_fresh_training_batch_spreads_over_vendors_and_scales():
    # The bundled fresh4 training rows: published MLPerf Training v5.1 runs with their URLs, AMD and NVIDIA, one node
    # to 512 GPUs, tensor and context parallel.
    from gpudesk.sizing.speed_validation import read_rows, speed_cases_dir

    rows = read_rows(speed_cases_dir() / "fresh4_train_runs.jsonl")
    assert len(rows) >= 15 and all(r["kind"] == "train" and r.get("source_url") for r in rows)
    assert sum(str(r["gpu"]).startswith("mi3") for r in rows) >= 5
    assert max(int(r["gpus"]) for r in rows) >= 512 and sum(int(r.get("cp") or 1) > 1 for r in rows) >= 3
    assert sum(int(r.get("tp") or 1) > 1 for r in rows) >= 3


def test_the_fifth_fresh_batch_is_its_own_set_with_its_own_report_line(tmp_path):
    # fresh5: runs collected after the fifth freeze; both helpers register the identical entry, last in the dict.
    assert SET_FILES["fresh5"] == ("fresh5_train_runs.jsonl", "fresh5_serve_runs.jsonl")
    assert list(SET_FILES)[:7] == ["dev", "later", "fresh", "fresh2", "fresh3", "fresh4", "fresh5"]
    (tmp_path / "fresh4_serve_runs.jsonl").write_text(json.dumps(_row("i", "serve", 400)) + "\n", encoding="utf-8")
    (tmp_path / "fresh5_serve_runs.jsonl").write_text(json.dumps(_row("j", "serve", 50)) + "\n", encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == ["fresh4", "fresh5"]
    assert summary["fresh5"]["all"]["geomean_ratio"] == 2.0 and summary["fresh4"]["all"]["geomean_ratio"] == 0.25
    lines = speed_report_lines(results, summary)
    fifth = [line for line in lines
             if line.startswith("fifth fresh set (collected after the model was frozen a fifth time)")]
    assert len(fifth) == 1 and "1/1 answered" in fifth[0] and "ratio 2.00" in fifth[0]


def test_the_sixth_fresh_batch_is_its_own_set_with_its_own_report_line(tmp_path):
    # fresh6: runs collected after the sixth freeze; both helpers register the identical entry, last in the dict.
    assert SET_FILES["fresh6"] == ("fresh6_train_runs.jsonl", "fresh6_serve_runs.jsonl")
    assert list(SET_FILES)[:8] == ["dev", "later", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6"]
    (tmp_path / "fresh5_serve_runs.jsonl").write_text(json.dumps(_row("j", "serve", 50)) + "\n", encoding="utf-8")
    (tmp_path / "fresh6_serve_runs.jsonl").write_text(json.dumps(_row("k", "serve", 400)) + "\n", encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == ["fresh5", "fresh6"]
    assert summary["fresh6"]["all"]["geomean_ratio"] == 0.25 and summary["fresh5"]["all"]["geomean_ratio"] == 2.0
    lines = speed_report_lines(results, summary)
    sixth = [line for line in lines
             if line.startswith("sixth fresh set (collected after the model was frozen a sixth time)")]
    assert len(sixth) == 1 and "1/1 answered" in sixth[0] and "ratio 0.25" in sixth[0]


@pytest.mark.parametrize(("name", "previous", "title", "values", "ratios"), [
    # fresh7 to fresh124: runs collected after the seventh to hundred-and-twenty-fourth freezes (held out from the model builders).
    ("fresh7", ("fresh6", 400, 0.25), "seventh fresh set (collected after the model was frozen a seventh time)",
     (80, 125), (1.25, 0.8)),
    ("fresh8", ("fresh7", 125, 0.8), "eighth fresh set (collected after the model was frozen an eighth time)",
     (200, 50), (0.5, 2.0)),
    ("fresh9", ("fresh8", 50, 2.0), "ninth fresh set (collected after the model was frozen a ninth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh10", ("fresh9", 200, 0.5), "tenth fresh set (collected after the model was frozen a tenth time)",
     (400, 25), (0.25, 4.0)),
    ("fresh11", ("fresh10", 25, 4.0), "eleventh fresh set (collected after the model was frozen an eleventh time)",
     (62.5, 160), (1.6, 0.625)),
    ("fresh12", ("fresh11", 160, 0.625), "twelfth fresh set (collected after the model was frozen a twelfth time)",
     (250, 40), (0.4, 2.5)),
    ("fresh13", ("fresh12", 40, 2.5), "thirteenth fresh set (collected after the model was frozen a thirteenth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh14", ("fresh13", 80, 1.25), "fourteenth fresh set (collected after the model was frozen a fourteenth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh15", ("fresh14", 200, 0.5), "fifteenth fresh set (collected after the model was frozen a fifteenth time)",
     (400, 25), (0.25, 4.0)),
    ("fresh16", ("fresh15", 25, 4.0), "sixteenth fresh set (collected after the model was frozen a sixteenth time)",
     (62.5, 160), (1.6, 0.625)),
    ("fresh17", ("fresh16", 160, 0.625), "seventeenth fresh set (collected after the model was frozen a seventeenth time)",
     (250, 40), (0.4, 2.5)),
    ("fresh18", ("fresh17", 40, 2.5), "eighteenth fresh set (collected after the model was frozen an eighteenth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh19", ("fresh18", 80, 1.25), "nineteenth fresh set (collected after the model was frozen a nineteenth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh20", ("fresh19", 200, 0.5), "twentieth fresh set (collected after the model was frozen a twentieth time)",
     (400, 25), (0.25, 4.0)),
    ("fresh21", ("fresh20", 25, 4.0), "twenty-first fresh set (collected after the model was frozen a twenty-first time)",
     (62.5, 160), (1.6, 0.625)),
    ("fresh22", ("fresh21", 160, 0.625), "twenty-second fresh set (collected after the model was frozen a twenty-second time)",
     (250, 40), (0.4, 2.5)),
    ("fresh23", ("fresh22", 40, 2.5), "twenty-third fresh set (collected after the model was frozen a twenty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh24", ("fresh23", 80, 1.25), "twenty-fourth fresh set (collected after the model was frozen a twenty-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh25", ("fresh24", 200, 0.5), "twenty-fifth fresh set (collected after the model was frozen a twenty-fifth time)",
     (400, 25), (0.25, 4.0)),
    ("fresh26", ("fresh25", 25, 4.0), "twenty-sixth fresh set (collected after the model was frozen a twenty-sixth time)",
     (62.5, 160), (1.6, 0.625)),
    ("fresh27", ("fresh26", 160, 0.625), "twenty-seventh fresh set (collected after the model was frozen a twenty-seventh time)",
     (250, 40), (0.4, 2.5)),
    ("fresh28", ('fresh27', 40, 2.5), "twenty-eighth fresh set (collected after the model was frozen a twenty-eighth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh29", ('fresh28', 80, 1.25), "twenty-ninth fresh set (collected after the model was frozen a twenty-ninth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh30", ('fresh29', 200, 0.5), "thirtieth fresh set (collected after the model was frozen a thirtieth time)",
     (400, 25), (0.25, 4.0)),
    ("fresh31", ('fresh30', 400, 0.25), "thirty-first fresh set (collected after the model was frozen a thirty-first time)",
     (25, 400), (4.0, 0.25)),
    ("fresh32", ('fresh31', 400, 0.25), "thirty-second fresh set (collected after the model was frozen a thirty-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh33", ('fresh32', 200, 0.5), "thirty-third fresh set (collected after the model was frozen a thirty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh34", ('fresh33', 80, 1.25), "thirty-fourth fresh set (collected after the model was frozen a thirty-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh35", ('fresh34', 200, 0.5), "thirty-fifth fresh set (collected after the model was frozen a thirty-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh36", ('fresh35', 80, 1.25), "thirty-sixth fresh set (collected after the model was frozen a thirty-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh37", ('fresh36', 200, 0.5), "thirty-seventh fresh set (collected after the model was frozen a thirty-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh38", ('fresh37', 80, 1.25), "thirty-eighth fresh set (collected after the model was frozen a thirty-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh39", ('fresh38', 200, 0.5), "thirty-ninth fresh set (collected after the model was frozen a thirty-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh40", ('fresh39', 80, 1.25), "fortieth fresh set (collected after the model was frozen a fortieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh41", ('fresh40', 200, 0.5), "forty-first fresh set (collected after the model was frozen a forty-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh42", ('fresh41', 80, 1.25), "forty-second fresh set (collected after the model was frozen a forty-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh43", ('fresh42', 200, 0.5), "forty-third fresh set (collected after the model was frozen a forty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh44", ('fresh43', 80, 1.25), "forty-fourth fresh set (collected after the model was frozen a forty-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh45", ('fresh44', 200, 0.5), "forty-fifth fresh set (collected after the model was frozen a forty-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh46", ('fresh45', 80, 1.25), "forty-sixth fresh set (collected after the model was frozen a forty-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh47", ('fresh46', 200, 0.5), "forty-seventh fresh set (collected after the model was frozen a forty-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh48", ('fresh47', 80, 1.25), "forty-eighth fresh set (collected after the model was frozen a forty-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh49", ('fresh48', 200, 0.5), "forty-ninth fresh set (collected after the model was frozen a forty-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh50", ('fresh49', 80, 1.25), "fiftieth fresh set (collected after the model was frozen a fiftieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh51", ('fresh50', 200, 0.5), "fifty-first fresh set (collected after the model was frozen a fifty-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh52", ('fresh51', 80, 1.25), "fifty-second fresh set (collected after the model was frozen a fifty-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh53", ('fresh52', 200, 0.5), "fifty-third fresh set (collected after the model was frozen a fifty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh54", ('fresh53', 80, 1.25), "fifty-fourth fresh set (collected after the model was frozen a fifty-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh55", ('fresh54', 200, 0.5), "fifty-fifth fresh set (collected after the model was frozen a fifty-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh56", ('fresh55', 80, 1.25), "fifty-sixth fresh set (collected after the model was frozen a fifty-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh57", ('fresh56', 200, 0.5), "fifty-seventh fresh set (collected after the model was frozen a fifty-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh58", ('fresh57', 80, 1.25), "fifty-eighth fresh set (collected after the model was frozen a fifty-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh59", ('fresh58', 200, 0.5), "fifty-ninth fresh set (collected after the model was frozen a fifty-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh60", ('fresh59', 80, 1.25), "sixtieth fresh set (collected after the model was frozen a sixtieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh61", ('fresh60', 200, 0.5), "sixty-first fresh set (collected after the model was frozen a sixty-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh62", ('fresh61', 80, 1.25), "sixty-second fresh set (collected after the model was frozen a sixty-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh63", ('fresh62', 200, 0.5), "sixty-third fresh set (collected after the model was frozen a sixty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh64", ('fresh63', 80, 1.25), "sixty-fourth fresh set (collected after the model was frozen a sixty-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh65", ('fresh64', 200, 0.5), "sixty-fifth fresh set (collected after the model was frozen a sixty-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh66", ('fresh65', 80, 1.25), "sixty-sixth fresh set (collected after the model was frozen a sixty-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh67", ('fresh66', 200, 0.5), "sixty-seventh fresh set (collected after the model was frozen a sixty-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh68", ('fresh67', 80, 1.25), "sixty-eighth fresh set (collected after the model was frozen a sixty-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh69", ('fresh68', 200, 0.5), "sixty-ninth fresh set (collected after the model was frozen a sixty-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh70", ('fresh69', 80, 1.25), "seventieth fresh set (collected after the model was frozen a seventieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh71", ('fresh70', 200, 0.5), "seventy-first fresh set (collected after the model was frozen a seventy-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh72", ('fresh71', 80, 1.25), "seventy-second fresh set (collected after the model was frozen a seventy-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh73", ('fresh72', 200, 0.5), "seventy-third fresh set (collected after the model was frozen a seventy-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh74", ('fresh73', 80, 1.25), "seventy-fourth fresh set (collected after the model was frozen a seventy-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh75", ('fresh74', 200, 0.5), "seventy-fifth fresh set (collected after the model was frozen a seventy-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh76", ('fresh75', 80, 1.25), "seventy-sixth fresh set (collected after the model was frozen a seventy-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh77", ('fresh76', 200, 0.5), "seventy-seventh fresh set (collected after the model was frozen a seventy-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh78", ('fresh77', 80, 1.25), "seventy-eighth fresh set (collected after the model was frozen a seventy-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh79", ('fresh78', 200, 0.5), "seventy-ninth fresh set (collected after the model was frozen a seventy-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh80", ('fresh79', 80, 1.25), "eightieth fresh set (collected after the model was frozen an eightieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh81", ('fresh80', 200, 0.5), "eighty-first fresh set (collected after the model was frozen an eighty-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh82", ('fresh81', 80, 1.25), "eighty-second fresh set (collected after the model was frozen an eighty-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh83", ('fresh82', 200, 0.5), "eighty-third fresh set (collected after the model was frozen an eighty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh84", ('fresh83', 80, 1.25), "eighty-fourth fresh set (collected after the model was frozen an eighty-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh85", ('fresh84', 200, 0.5), "eighty-fifth fresh set (collected after the model was frozen an eighty-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh86", ('fresh85', 80, 1.25), "eighty-sixth fresh set (collected after the model was frozen an eighty-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh87", ('fresh86', 200, 0.5), "eighty-seventh fresh set (collected after the model was frozen an eighty-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh88", ('fresh87', 80, 1.25), "eighty-eighth fresh set (collected after the model was frozen an eighty-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh89", ('fresh88', 200, 0.5), "eighty-ninth fresh set (collected after the model was frozen an eighty-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh90", ('fresh89', 80, 1.25), "ninetieth fresh set (collected after the model was frozen a ninetieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh91", ('fresh90', 200, 0.5), "ninety-first fresh set (collected after the model was frozen a ninety-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh92", ('fresh91', 80, 1.25), "ninety-second fresh set (collected after the model was frozen a ninety-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh93", ('fresh92', 200, 0.5), "ninety-third fresh set (collected after the model was frozen a ninety-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh94", ('fresh93', 80, 1.25), "ninety-fourth fresh set (collected after the model was frozen a ninety-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh95", ('fresh94', 200, 0.5), "ninety-fifth fresh set (collected after the model was frozen a ninety-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh96", ('fresh95', 80, 1.25), "ninety-sixth fresh set (collected after the model was frozen a ninety-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh97", ('fresh96', 200, 0.5), "ninety-seventh fresh set (collected after the model was frozen a ninety-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh98", ('fresh97', 80, 1.25), "ninety-eighth fresh set (collected after the model was frozen a ninety-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh99", ('fresh98', 200, 0.5), "ninety-ninth fresh set (collected after the model was frozen a ninety-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh100", ('fresh99', 80, 1.25), "hundredth fresh set (collected after the model was frozen a hundredth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh101", ('fresh100', 200, 0.5), "hundred-and-first fresh set (collected after the model was frozen a hundred-and-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh102", ('fresh101', 80, 1.25), "hundred-and-second fresh set (collected after the model was frozen a hundred-and-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh103", ('fresh102', 200, 0.5), "hundred-and-third fresh set (collected after the model was frozen a hundred-and-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh104", ('fresh103', 80, 1.25), "hundred-and-fourth fresh set (collected after the model was frozen a hundred-and-fourth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh105", ('fresh104', 200, 0.5), "hundred-and-fifth fresh set (collected after the model was frozen a hundred-and-fifth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh106", ('fresh105', 80, 1.25), "hundred-and-sixth fresh set (collected after the model was frozen a hundred-and-sixth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh107", ('fresh106', 200, 0.5), "hundred-and-seventh fresh set (collected after the model was frozen a hundred-and-seventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh108", ('fresh107', 80, 1.25), "hundred-and-eighth fresh set (collected after the model was frozen a hundred-and-eighth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh109", ('fresh108', 200, 0.5), "hundred-and-ninth fresh set (collected after the model was frozen a hundred-and-ninth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh110", ('fresh109', 80, 1.25), "hundred-and-tenth fresh set (collected after the model was frozen a hundred-and-tenth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh111", ('fresh110', 200, 0.5), "hundred-and-eleventh fresh set (collected after the model was frozen a hundred-and-eleventh time)",
     (125, 80), (0.8, 1.25)),
    ("fresh112", ('fresh111', 80, 1.25), "hundred-and-twelfth fresh set (collected after the model was frozen a hundred-and-twelfth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh113", ('fresh112', 200, 0.5), "hundred-and-thirteenth fresh set (collected after the model was frozen a hundred-and-thirteenth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh114", ('fresh113', 80, 1.25), "hundred-and-fourteenth fresh set (collected after the model was frozen a hundred-and-fourteenth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh115", ('fresh114', 200, 0.5), "hundred-and-fifteenth fresh set (collected after the model was frozen a hundred-and-fifteenth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh116", ('fresh115', 80, 1.25), "hundred-and-sixteenth fresh set (collected after the model was frozen a hundred-and-sixteenth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh117", ('fresh116', 200, 0.5), "hundred-and-seventeenth fresh set (collected after the model was frozen a hundred-and-seventeenth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh118", ('fresh117', 80, 1.25), "hundred-and-eighteenth fresh set (collected after the model was frozen a hundred-and-eighteenth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh119", ('fresh118', 200, 0.5), "hundred-and-nineteenth fresh set (collected after the model was frozen a hundred-and-nineteenth time)",
     (125, 80), (0.8, 1.25)),
    ("fresh120", ('fresh119', 80, 1.25), "hundred-and-twentieth fresh set (collected after the model was frozen a hundred-and-twentieth time)",
     (50, 200), (2.0, 0.5)),
    ("fresh121", ('fresh120', 200, 0.5), "hundred-and-twenty-first fresh set (collected after the model was frozen a hundred-and-twenty-first time)",
     (125, 80), (0.8, 1.25)),
    ("fresh122", ('fresh121', 80, 1.25), "hundred-and-twenty-second fresh set (collected after the model was frozen a hundred-and-twenty-second time)",
     (50, 200), (2.0, 0.5)),
    ("fresh123", ('fresh122', 200, 0.5), "hundred-and-twenty-third fresh set (collected after the model was frozen a hundred-and-twenty-third time)",
     (125, 80), (0.8, 1.25)),
    ("fresh124", ('fresh123', 80, 1.25), "hundred-and-twenty-fourth fresh set (collected after the model was frozen a hundred-and-twenty-fourth time)",
     (50, 200), (2.0, 0.5)),
])
def test_a_later_fresh_batch_is_its_own_set_with_its_own_report_line(tmp_path, name, previous, title, values, ratios):
    order = list(SET_FILES)
    assert SET_FILES[name] == (f"{name}_train_runs.jsonl", f"{name}_serve_runs.jsonl")
    assert order == ["dev", "later", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8",
                     "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16",
                     "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32", "fresh33", "fresh34", "fresh35", "fresh36", "fresh37", "fresh38", "fresh39", "fresh40", "fresh41", "fresh42", "fresh43", "fresh44", "fresh45", "fresh46", "fresh47", "fresh48", "fresh49", "fresh50", "fresh51", "fresh52", "fresh53", "fresh54", "fresh55", "fresh56", "fresh57", "fresh58", "fresh59", "fresh60", "fresh61", "fresh62", "fresh63", "fresh64", "fresh65", "fresh66", "fresh67", "fresh68", "fresh69", "fresh70", "fresh71", "fresh72", "fresh73", "fresh74", "fresh75", "fresh76", "fresh77", "fresh78", "fresh79", "fresh80", "fresh81", "fresh82", "fresh83", "fresh84", "fresh85", "fresh86", "fresh87", "fresh88", "fresh89", "fresh90", "fresh91", "fresh92", "fresh93", "fresh94", "fresh95", "fresh96", "fresh97", "fresh98", "fresh99", "fresh100", "fresh101", "fresh102", "fresh103", "fresh104", "fresh105", "fresh106", "fresh107", "fresh108", "fresh109", "fresh110", "fresh111", "fresh112", "fresh113", "fresh114", "fresh115", "fresh116", "fresh117", "fresh118", "fresh119", "fresh120", "fresh121", "fresh122", "fresh123", "fresh124"]
    assert order.index(previous[0]) == order.index(name) - 1
    (tmp_path / f"{previous[0]}_serve_runs.jsonl").write_text(json.dumps(_row("a", "serve", previous[1])) + "\n",
                                                              encoding="utf-8")
    (tmp_path / f"{name}_train_runs.jsonl").write_text(json.dumps(_row("b", "train", values[0])) + "\n",
                                                       encoding="utf-8")
    (tmp_path / f"{name}_serve_runs.jsonl").write_text(json.dumps(_row("c", "serve", values[1])) + "\n",
                                                       encoding="utf-8")
    results = evaluate_speed(tmp_path, {"serve": lambda row: 100.0, "train": lambda row: 100.0})
    summary = summarize_speed(results)
    assert [r.set_name for r in results] == [previous[0], name, name]
    assert summary[name]["all"]["rows"] == 2 and summary[previous[0]]["all"]["geomean_ratio"] == previous[2]
    assert summary[name]["by_kind"]["train"]["geomean_ratio"] == ratios[0]
    assert summary[name]["by_kind"]["serve"]["geomean_ratio"] == ratios[1]
    lines = speed_report_lines(results, summary)
    own = [line for line in lines if line.startswith(title)]
    assert len(own) == 1 and "2/2 answered" in own[0] and "ratio 1.00" in own[0]


def test_the_bundled_check_is_kept_for_the_process_until_a_file_changes(tmp_path):
    rows = (speed_cases_dir() / "serve_runs.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    path = tmp_path / "serve_runs.jsonl"
    path.write_text(rows[0] + "\n", encoding="utf-8")
    first = evaluate_speed(tmp_path)
    again = evaluate_speed(tmp_path)
    assert len(first) == 1 and first[0].predicted is not None
    assert again == first and again[0] is first[0]  # not predicted a second time
    path.write_text(rows[0] + "\n" + rows[1] + "\n", encoding="utf-8")
    changed = evaluate_speed(tmp_path)
    assert [r.case_id for r in changed] == [json.loads(line)["id"] for line in rows]
    assert evaluate_speed(tmp_path, {"serve": lambda row: 1.0})[0] is not changed[0]  # own predictors: never kept
