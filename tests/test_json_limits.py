"""The bracket-depth bound applied to untrusted JSON before json.loads (probe answers, model configs)."""

import json

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
