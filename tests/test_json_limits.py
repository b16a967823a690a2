"""The bracket-depth bound applied to untrusted JSON before json.loads (probe answers, model configs)."""

import json

import pytest

from gpudesk.json_limits import json_depth_ok


def test_a_real_config_shape_is_within_bounds():
    text = json.dumps({"rope_scaling": {"factor": 8.0}, "text_config": {"layers": [1, [2, 3]]}})
    assert json_depth_ok(text, 64)
    assert json_depth_ok(text.encode(), 64)


def test_nesting_past_the_bound_is_refused():
    assert not json_depth_ok("[" * 65 + "]" * 65, 64)
    assert json_depth_ok("[" * 64 + "]" * 64, 64)


def test_brackets_inside_strings_do_not_count():
    text = json.dumps({"summary": "[" * 500 + '\\"{' * 100})
    assert json_depth_ok(text, 64)


@pytest.mark.parametrize("text", ['{"hidden_size": 4096, "num_attention', "", '{"a" 1}', '{a: 1}', '[1 2]', "{} x"])
def test_a_json_syntax_error_is_worded_in_the_users_language(text: str) -> None:
    """zh_CN once showed json's English reason ("Unterminated string starting at") inside a Chinese sentence."""
    from gpudesk import i18n
    from gpudesk.json_limits import json_error_reason

    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    assert json_error_reason(caught.value) == caught.value.msg  # English: json's own words
    before = i18n.current_language()
    i18n.set_language("zh_CN")
    try:
        reason = json_error_reason(caught.value)
    finally:
        i18n.set_language(before)
    assert reason != caught.value.msg and any("\u4e00" <= c <= "\u9fff" for c in reason), reason
