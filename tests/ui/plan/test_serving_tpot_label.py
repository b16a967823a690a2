"""A serving option's step time is its TPOT (issue 29): the sheet (Markdown, hence the PDF) and the compare view
name it "TPOT (time per output token)", in English and Chinese, and keep "Step time" for training options."""

from __future__ import annotations


import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.planner import load_profile, plan, plan_to_dict, requirement_to_dict
from gpudesk.planner.sheet_markdown import plan_to_markdown
from gpudesk.store.plans import SavedPlan
from gpudesk.ui.plan.compare import CompareView
from gpudesk.units import format_duration


@pytest.fixture(scope="module")
def chat_api() -> tuple[dict, dict]:
    req = load_profile(paths.examples_dir() / "chat-api-qps200.toml")
    return plan_to_dict(plan(req, open_catalog())), requirement_to_dict(req)


def _saved(plan_dict: dict) -> SavedPlan:
    return SavedPlan(id=1, name="chat", notes="", profile_text="", profile_format="toml", plan=plan_dict,
                     created_at="2026-12-05T00:00:00+00:00", updated_at="2026-12-05T00:00:00+00:00", deleted_at=None,
                     format_version=1)


def test_chinese_serving_sheet_names_the_tpot(chat_api, zh_cn):
    plan_dict, profile = chat_api
    markdown = plan_to_markdown(plan_dict, profile=profile)
    tpot = format_duration(plan_dict["candidates"][0]["tpot_s"])
    assert f"| TPOT（每个输出 token 的时间） | {tpot} |" in markdown
    assert "| TTFT（首 token 时间） |" in markdown
    assert "| 单步时间 |" not in markdown and "| Step time |" not in markdown


def test_compare_view_shows_the_tpot_of_a_serving_plan(qtbot, chat_api):
    plan_dict, _profile = chat_api
    view = CompareView()
    qtbot.addWidget(view)
    rows = dict(view.rows_for(_saved(plan_dict)))
    assert rows["TPOT (time per output token)"] == format_duration(plan_dict["candidates"][0]["tpot_s"])
    assert "Step time" not in rows
