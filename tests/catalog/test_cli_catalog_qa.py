"""``gpudesk catalog`` hands-on QA (issue 2): missing values read N/A as everywhere else; naming the same GPU
twice compares it once. Each test failed before its fix."""

from __future__ import annotations

import json

from gpudesk.cli import main


def test_list_shows_missing_values_as_na(capsys):
    assert main(["catalog", "list"]) == 0
    out = capsys.readouterr().out
    a100 = next(line for line in out.splitlines() if line.startswith("a100-80-sxm4 "))
    t4 = next(line for line in out.splitlines() if line.startswith("t4 "))
    assert a100.split()[6] == "N/A"  # FP8 dense: Ampere has no FP8
    assert t4.split()[9] == "N/A"  # no dated price
    assert t4.split()[-1] == "0.35"  # but an on-demand cloud rate
    assert " - " not in a100 + t4
    assert "N/A = not supported by the GPU, or no dated price; unknown = a rate" in out


def test_compare_names_each_gpu_once(capsys):
    assert main(["catalog", "compare", "h100-sxm5", "H100 SXM5", "a100 80gb sxm", "--json"]) == 0
    assert [g["id"] for g in json.loads(capsys.readouterr().out)] == ["h100-sxm5", "a100-80-sxm4"]


def test_compare_of_one_gpu_named_twice_is_refused(capsys):
    assert main(["catalog", "compare", "h100-sxm5", "h100 sxm5"]) != 0
    err = capsys.readouterr().err
    assert "all name h100-sxm5; compare needs two different GPUs" in err


def test_pcie_only_cards_say_none_for_nvlink_not_zero(capsys):
    from gpudesk.cli import main

    assert main(["catalog", "compare", "a10", "l4"]) == 0
    line = next(text for text in capsys.readouterr().out.splitlines() if "NVLink" in text)
    assert "none (PCIe only)" in line and "0 GB/s" not in line
    assert main(["catalog", "show", "a10", "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["nvlink_gbps"] == 0  # the JSON keeps 0 as the issue specifies


def test_show_in_chinese_translates_labels_and_reasons(capsys):
    # QA: under zh_CN every label ("Memory bandwidth:") and reason ("N/A (no public measurement)") was English.
    assert main(["--lang", "zh_CN", "catalog", "show", "ascend-910b"]) == 0
    out = capsys.readouterr().out
    assert "显存带宽" in out and "无公开测量" in out and "Memory bandwidth" not in out
    assert "全部来源：" in out and "ECC:" in out and "yes" not in out  # was the fuzzy "所有 GPU" / English
    from gpudesk.cli.columns import display_width

    values = {"名称": "Huawei Ascend 910B", "显存带宽": "1200 GB/s", "TDP": "310 W"}
    starts = {display_width(line[:line.index(value)]) for line in out.splitlines()
              for label, value in values.items() if line.startswith(label)}
    assert len(starts) == 1  # the values start in one column
