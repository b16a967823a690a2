"""A plan under zh_CN (issue 19): rationale, warnings, binding constraint and the Markdown sheet read in Chinese,
while the stable ids of the JSON (workload kind, interconnect and field ids, memory and TCO keys) stay English."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from gpudesk import i18n
from gpudesk.catalog import open_catalog
from gpudesk.planner import plan, plan_to_dict
from gpudesk.planner.classify import WORKLOAD_KINDS, kind_label
from gpudesk.planner.requirement import Requirement
from gpudesk.planner.sheet import build_sheet
from gpudesk.planner.sheet_json import sheet_to_dict
from gpudesk.planner.sheet_markdown import sheet_to_markdown
from gpudesk.planner.tco import TCO_LINES
from gpudesk.sizing.estimate import COMPONENT_ORDER

from helpers.planner_cases import training_70b

PARTS = i18n.LOCALE_DIR / "zh_CN" / "LC_MESSAGES" / "parts"
CJK = re.compile(r"[\u4e00-\u9fff]")
FIELD = re.compile(r"\{[^{}]*\}")


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _english_phrases() -> set[str]:
    """The fixed English words of every planner and sizing message: the text between its placeholders, where that
    is at least four words (short pieces such as "per GPU" also occur in data)."""
    phrases: set[str] = set()
    for part in ("planner", "sizing"):
        with open(PARTS / f"{part}.po", "rb") as fh:
            for message in read_po(fh):
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                for text in ids:
                    for piece in FIELD.split(text or ""):
                        piece = piece.strip(" .,;:()\"'")
                        if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 4:
                            phrases.add(piece)
    return phrases


def _lora_8b() -> Requirement:
    req = Requirement()
    req.model.model = "meta-llama/Llama-3.1-8B"
    req.model.mode = "lora"
    req.model.seq_len_tokens = 4096
    req.data.sample_count = 200_000
    req.workload.deadline_s = 7 * 86400
    return req


def _texts(result) -> list[str]:
    c = result.candidates[0]
    return ([d for d, _src in result.rationale] + list(result.warnings) + [d for d, _src in c.rationale]
            + list(c.warnings) + [a for a, _src in c.memory.assumptions])


@pytest.mark.parametrize("make", [_lora_8b, lambda: training_70b(30)], ids=["lora-8b", "70b-missed-deadline"])
def test_plan_and_sheet_read_in_chinese_and_keep_english_ids(catalog, zh_cn, make):
    result = plan(make(), catalog)
    assert result.candidates
    data = plan_to_dict(result)
    markdown = sheet_to_markdown(build_sheet(data, catalog=catalog))
    texts = _texts(result)
    assert texts and all(CJK.search(t) for t in texts if re.search(r"[a-z]{3,} [a-z]{3,} [a-z]{3,}", t)), texts
    assert all(CJK.search(c.rank_reason or "") for c in result.candidates)
    for heading in ("## 推荐配置", "## 物料清单", "| 每块 GPU 的预计显存 |", "## 依据", "## 风险", "## 到货后检查"):
        assert heading in markdown
    assert "| 权重 |" in markdown and "显存" in markdown
    english = [p for p in _english_phrases() if p in markdown or any(p in t for t in texts)]
    assert not english, english[:10]

    # Stable ids stay English: the JSON's enums, ids and keys.
    assert data["workload_kind"] in WORKLOAD_KINDS
    # ... while people read the kind in words: the sheet says it in Chinese, the JSON keeps the id.
    assert f"**{kind_label(data['workload_kind'])}**" in markdown and data["workload_kind"] not in markdown
    assert all(CJK.search(kind_label(kind)) for kind in WORKLOAD_KINDS)
    assert set(data["memory"]["breakdown_bytes"]) <= set(COMPONENT_ORDER)
    top = data["candidates"][0]
    assert set(top["tco_breakdown_usd"]) <= set(TCO_LINES)
    assert re.fullmatch(r"[a-z0-9.+-]+", top["interconnect"]), top["interconnect"]
    sheet = sheet_to_dict(build_sheet(data, catalog=catalog))
    assert {"bill_of_materials", "memory_per_gpu", "timing", "tco_usd", "risks"} <= set(sheet)
    assert {line["category"] for line in sheet["bill_of_materials"]} <= {"GPU", "Server", "Storage", "Network",
                                                                          "Software", "Support"}
    assert set(sheet["timing"]) <= {"step_time_s", "ttft_s", "tpot_s", "comm_share", "time_to_result_s", "deadline_s", "deadline_miss_s",
                                    "qps_capacity", "target_qps", "data_rate_needed_bytes_per_s",
                                    "data_rate_available_bytes_per_s"}
    if result.binding is not None:
        assert data["binding"]["field"] == "workload.deadline_s" and data["binding"]["label"] == "Deadline (time to result)"
        assert "截止时间" in data["binding"]["text"] and "workload.deadline_s" in data["binding"]["text"]
        assert all(CJK.search(change["text"]) for change in data["binding"]["changes"])


def test_english_stays_the_default_after_chinese(catalog, zh_cn):
    i18n.set_language("en")
    result = plan(_lora_8b(), catalog)
    assert not any(CJK.search(t) for t in _texts(result))
    assert "## Recommended configuration" in sheet_to_markdown(build_sheet(plan_to_dict(result), catalog=catalog))
    assert [kind_label(kind) for kind in WORKLOAD_KINDS] == list(WORKLOAD_KINDS)  # English: the id itself
