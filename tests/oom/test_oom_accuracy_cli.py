"""``gpudesk oom accuracy``: per case set and family, strict, with the not-capacity figure; JSON; bad input."""

from __future__ import annotations

import json

from gpudesk.cli import main
from gpudesk.oom.accuracy import load_accuracy


def test_accuracy_text_per_set_and_family(capsys):
    assert main(["oom", "accuracy", "--set", "platforms"]) == 0
    out = capsys.readouterr().out
    acc = load_accuracy().subset("platforms")
    assert f"First cause right, set 'platforms': {acc.right}/{acc.total}" in out
    right, total = acc.not_capacity()
    assert f"said so with the deciding check: {right}/{total}" in out
    assert "ecc_driver: 16/16 (100%)" in out and "reported as no out-of-memory message: 0" in out
    assert "cases added after the rules were written" in out


def test_accuracy_json_and_misses(capsys):
    assert main(["oom", "accuracy", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["total"] >= 211 and {"set", "family", "right", "total", "share", "judged"} <= set(doc["families"][0])
    assert all({"url", "expected_cause", "top_cause", "right"} <= set(c) for c in doc["cases"])
    assert main(["oom", "accuracy", "--set", "public", "--misses"]) == 0
    assert "Wrong first cause:" in capsys.readouterr().out


def test_bad_case_folder_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "platform_cases.jsonl").write_text('{"url": "https://x", "message": "m"}\n', encoding="utf-8")
    assert main(["oom", "accuracy", "--cases", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "platform_cases.jsonl, line 1" in err and "Traceback" not in err
    assert main(["oom", "accuracy", "--cases", str(tmp_path / "none")]) == 2
    assert "no cases found" in capsys.readouterr().err


def test_cases_folder_that_is_not_a_folder_is_named(capsys, tmp_path):
    # QA: --cases /nonexist (or a file) said only "no cases found (looked for cases.jsonl, ...)".
    for bad in (tmp_path / "missing", tmp_path / "file.txt"):
        if bad.name == "file.txt":
            bad.write_text("x", encoding="utf-8")
        assert main(["oom", "accuracy", "--cases", str(bad)]) == 2
        err = capsys.readouterr().err
        assert "--cases" in err and str(bad) in err and "folder" in err
