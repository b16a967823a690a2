"""TOML profile errors under zh_CN: tomllib's English parse reasons and the numbered problem list are translated, with
the line and column and the offending part kept (what ``gpudesk estimate speed --profile X.toml`` prints)."""

from __future__ import annotations

import re

import pytest

from gpudesk.planner.errors import PlanInputError, PlanInputErrors
from gpudesk.planner.profile import parse_profile_text
from gpudesk.planner.toml_errors import toml_error_reason

CJK = re.compile(r"[\u4e00-\u9fff]")


def _parse_error(text: str) -> str:
    with pytest.raises(PlanInputError) as info:
        parse_profile_text(text, "p.toml")
    return str(info.value)


def test_invalid_value_reads_in_chinese_with_its_position(zh_cn) -> None:
    err = _parse_error("model = \n")
    assert "Invalid value" not in err and "无效的值" in err
    assert "第 1 行" in err and "第 9 列" in err


def test_unclosed_table_header_reason_is_translated(zh_cn) -> None:
    err = _parse_error("[model\n")
    assert "Expected" not in err and "']'" in err and CJK.search(err)


def test_reason_with_a_variable_part_keeps_the_part(zh_cn) -> None:
    import tomllib

    with pytest.raises(tomllib.TOMLDecodeError) as info:
        tomllib.loads('a = "x\x01"\n')
    reason = toml_error_reason(info.value)
    assert "Illegal character" not in reason and "\\x01" in reason and CJK.search(reason)


def test_unknown_tomllib_message_is_kept_as_written() -> None:
    assert toml_error_reason(ValueError("Something new (at line 3, column 4)")) == "Something new (line 3, column 4)"


def test_english_stays_english() -> None:
    err = _parse_error("model = \n")
    assert "Invalid value (line 1, column 9)" in err


def test_problem_list_uses_the_translation_punctuation(zh_cn) -> None:
    problems = [PlanInputError("model.mtp_layers", "must be at least 0, got -1."),
                PlanInputError("model.model", "不在目录中。")]
    text = str(PlanInputErrors(problems))
    assert "。;" not in text and "。." not in text and not text.endswith(".")
    assert "；(2)" in text and text.endswith("。")


def test_problem_list_in_english() -> None:
    problems = [PlanInputError("x", "a is wrong."), PlanInputError("y", "b is wrong.")]
    assert str(PlanInputErrors(problems)) == "2 problems: (1) x: a is wrong; (2) y: b is wrong."
