"""The model-shape errors a user meets (a bad config.json, a parameter count, a repo id) read in Chinese under
zh_CN, with the field, the path and the keys they name kept verbatim (issue 31, item 3: every user-facing message
translatable); and in English again once the language is switched back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpudesk import i18n
from gpudesk.sizing.errors import ConfigFileError, ShapeError
from gpudesk.sizing.shapes import find_cached_config, parse_param_count, spec_from_hf_config, spec_from_params

LLAMA = Path(__file__).resolve().parents[1] / "fixtures" / "plan" / "llama-2-7b-hf.config.json"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _config(tmp_path: Path, **changes: object) -> Path:
    cfg = json.loads(LLAMA.read_text(encoding="utf-8"))
    cfg.update(changes)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return path


def test_config_field_errors_read_in_chinese(tmp_path, zh_cn):
    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(_config(tmp_path, hidden_size=-4096))
    assert info.value.field == "hidden_size"
    assert "hidden_size 必须大于 0，当前为 -4096。" in info.value.reason and str(tmp_path) in info.value.reason

    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(_config(tmp_path, num_local_experts=[8, 8]))
    assert "num_local_experts 必须是整数，当前为 JSON 列表。" in info.value.reason

    broken = tmp_path / "broken.json"
    broken.write_text('{"hidden_size": 4096,', encoding="utf-8")
    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(broken)
    assert "不是有效的 JSON（第 1 行第 22 列" in info.value.reason


def test_missing_shape_keys_name_the_keys_in_a_chinese_sentence(tmp_path, zh_cn):
    cfg = json.loads(LLAMA.read_text(encoding="utf-8"))
    del cfg["vocab_size"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    with pytest.raises(ConfigFileError) as info:
        spec_from_hf_config(path)
    assert "缺少词表大小（查找了 vocab_size）。" in info.value.reason


def test_parameter_count_and_repo_id_errors_read_in_chinese(tmp_path, zh_cn):
    with pytest.raises(ShapeError) as info:
        parse_param_count("lots")
    assert info.value.reason == "无法将 'lots' 读作参数量；请写成 13B、350M 或 6.7e9 这样的形式。"
    with pytest.raises(ShapeError) as info:
        parse_param_count("500T")
    assert info.value.reason == "'500T' 超过 100 T 参数；请检查单位。"
    with pytest.raises(ConfigFileError) as info:
        find_cached_config("not a repo")
    assert CJK.search(info.value.reason) and "meta-llama/Llama-3.1-8B" in info.value.reason
    with pytest.raises(ConfigFileError) as info:
        find_cached_config("acme/no-such-model", env={"HF_HUB_CACHE": str(tmp_path)})
    assert "不在本地 Hugging Face 缓存中" in info.value.reason
    assert "huggingface-cli download acme/no-such-model config.json" in info.value.reason


def test_the_same_errors_read_in_english_again(zh_cn):
    i18n.set_language("en")
    with pytest.raises(ShapeError) as info:
        parse_param_count("lots")
    assert info.value.reason == "cannot read 'lots' as a parameter count; write e.g. 13B, 350M or 6.7e9."


def test_a_guessed_shape_says_so_in_chinese(zh_cn):
    spec = spec_from_params(7e9)
    assert spec.shape_is_guess and spec.name == "7B 参数模型"
    assert spec.source == "由 7000000000 个参数推断（Llama 式结构；属于推测）"
