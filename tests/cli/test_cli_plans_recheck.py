"""``gpudesk plans recheck ID``: a saved plan (the row the Plan tab writes) re-planned with this gpudesk, its
differences printed as text or JSON; exit status 0 when the saved figures match, 1 when they differ, 2 when the plan
cannot be rechecked (qa51 D6)."""

from __future__ import annotations

import copy
import json

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.planner import dumps_profile, load_profile
from gpudesk.planner.mixed import plan_document
from gpudesk.store import open_store
from gpudesk.store.plans import get_plan, save_plan

GIB = 1024**3


@pytest.fixture(scope="module")
def article():
    catalog = open_catalog()
    req = load_profile(paths.examples_dir() / "article-13b-finetune.toml", catalog)
    out = dumps_profile(req), plan_document(req, catalog).to_dict()
    catalog.close()
    return out


def _save(article, alter=None) -> int:
    text, document = article
    data = copy.deepcopy(document)
    if alter is not None:
        alter(data)
    return save_plan(open_store(), "Article case", text, data, profile_format="toml")


def _lower_peak(d):
    d["candidates"][0]["per_gpu_memory_bytes"] -= 3 * GIB


def test_text_names_the_changed_figure(article, capsys):
    plan_id = _save(article, _lower_peak)
    assert main(["plans", "recheck", str(plan_id), "--no-my-prices"]) == 1
    out = capsys.readouterr().out
    now = article[1]["candidates"][0]["per_gpu_memory_bytes"]
    assert f"Saved plan {plan_id} “Article case”" in out
    assert f"  per-GPU peak {now / GIB:.2f} GiB (saved {(now - 3 * GIB) / GIB:.2f} GiB)\n" in out
    assert "step time" not in out


def test_json_carries_the_values_in_their_units(article, capsys):
    plan_id = _save(article, _lower_peak)
    assert main(["plans", "recheck", str(plan_id), "--json", "--no-my-prices"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["plan_id"] == plan_id and data["status"] == "changed" and data["option_in_recomputed_plan"]
    [change] = data["changes"]
    now = article[1]["candidates"][0]["per_gpu_memory_bytes"]
    assert change["figure"] == "per_gpu_memory" and change["unit"] == "bytes"
    assert change["recomputed"] == now and change["saved"] == now - 3 * GIB


def test_matching_figures_exit_0(article, capsys):
    plan_id = _save(article)
    assert main(["plans", "recheck", str(plan_id), "--no-my-prices"]) == 0
    assert "the saved figures match this gpudesk" in capsys.readouterr().out
    assert main(["plans", "list"]) == 0
    assert f"{plan_id}" in capsys.readouterr().out


def test_corrupt_document_is_a_clear_error_and_the_row_is_kept(article, capsys):
    def too_new(d):
        d["version"] = 999

    plan_id = _save(article, too_new)
    before = get_plan(open_store(), plan_id)
    assert main(["plans", "recheck", str(plan_id), "--no-my-prices"]) == 2
    err = capsys.readouterr().err
    assert "cannot be rechecked" in err and "unchanged" in err
    assert f"Saved plan {plan_id} “Article case”" in err  # qa51 D10: the error names the plan
    assert get_plan(open_store(), plan_id) == before


def test_errors_exit_2_and_name_the_plan(article, capsys):
    """qa51 D6/D10: an error is not "the figures differ" (1): no such id, an invalid profile, an unknown model."""
    assert main(["plans", "recheck", "987654", "--no-my-prices"]) == 2
    err = capsys.readouterr().err
    assert "No saved plan with id 987654" in err and "gpudesk plans list" in err
    text, document = article
    store = open_store()
    bad_toml = save_plan(store, "Bad profile", text + "\n[[[", document, profile_format="toml")
    assert main(["plans", "recheck", str(bad_toml), "--no-my-prices"]) == 2
    assert f"Saved plan {bad_toml} “Bad profile”" in capsys.readouterr().err
    unknown = save_plan(store, "Unknown model", text.replace('"llama-2-13b"', '"no-such-model-xyz"'), document,
                        profile_format="toml")
    assert main(["plans", "recheck", str(unknown), "--no-my-prices"]) == 2
    assert f"Saved plan {unknown} “Unknown model”" in capsys.readouterr().err
    assert main(["plans", "recheck", str(unknown), "--json", "--no-my-prices"]) == 2


def test_changed_gpu_price_is_listed_with_its_currency(article, capsys):
    """qa51 D7: a plan saved at $20,000 per GPU, rechecked against the catalog's price now."""
    def cheaper(d):
        d["candidates"][0]["gpu_price_usd"] = 20_000

    plan_id = _save(article, cheaper)
    now = article[1]["candidates"][0]["gpu_price_usd"]
    assert now and now != 20_000
    assert main(["plans", "recheck", str(plan_id), "--no-my-prices"]) == 1
    out = capsys.readouterr().out
    assert f"  GPU price ${now:,.0f} per GPU (saved $20,000 per GPU)\n" in out
    assert main(["plans", "recheck", str(plan_id), "--json", "--no-my-prices"]) == 1
    [change] = json.loads(capsys.readouterr().out)["changes"]
    assert change == {"figure": "gpu_price", "unit": "USD", "saved": 20_000, "recomputed": now,
                      "saved_text": "$20,000 per GPU", "recomputed_text": f"${now:,.0f} per GPU"}


def test_matching_json_has_a_summary(article, capsys):
    plan_id = _save(article)
    assert main(["plans", "recheck", str(plan_id), "--json", "--no-my-prices"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == "the saved figures match this gpudesk"
    assert main(["plans", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split() == ["ID", "Saved", "(UTC)", "Name"]


def test_zh_cn(article, capsys):
    plan_id = _save(article, _lower_peak)
    assert main(["--lang", "zh_CN", "plans", "recheck", str(plan_id), "--no-my-prices"]) == 1
    out = capsys.readouterr().out
    assert "单 GPU 峰值" in out and "保存时" in out and "已保存的规划未被改动" in out


def test_zh_cn_errors_have_no_stray_spaces(article, capsys):
    """qa51 D12: "已保存的配置文件 不是有效的 TOML" and "不在目录中。 目录中没有" had a space inside Chinese text."""
    text, document = article
    store = open_store()
    bad_toml = save_plan(store, "Bad profile", text + "\n[[[", document, profile_format="toml")
    unknown = save_plan(store, "Unknown model", text.replace('"llama-2-13b"', '"gemma-2-9x"'), document,
                        profile_format="toml")
    assert main(["--lang", "zh_CN", "plans", "recheck", str(bad_toml), "--no-my-prices"]) == 2
    err = capsys.readouterr().err
    assert "已保存的配置文件不是有效的 TOML" in err, err
    assert main(["--lang", "zh_CN", "plans", "recheck", str(unknown), "--no-my-prices"]) == 2
    err = capsys.readouterr().err
    assert "不在目录中。" in err and "。 " not in err, err
