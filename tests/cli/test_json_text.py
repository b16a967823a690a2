"""The fast indented JSON writer gives json.dumps(indent=2, ensure_ascii=False)'s bytes, on real plans and on
any JSON-like value."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudesk.catalog import open_catalog
from gpudesk.cli.json_text import dumps_indented, dumps_json
from gpudesk.planner import load_profile, plan, plan_to_dict

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "resources" / "examples").glob("*.toml"))

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text())
keys = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
values = st.recursive(scalars, lambda children: st.lists(children, max_size=4)
                      | st.tuples(children, children) | st.dictionaries(keys, children, max_size=4), max_leaves=30)


@given(values)
@settings(max_examples=300, deadline=None)
def test_same_text_as_json_dumps(value):
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("profile", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_same_text_for_every_example_plan(profile):
    catalog = open_catalog()
    data = plan_to_dict(plan(load_profile(profile, catalog), catalog))
    assert dumps_indented(data) == json.dumps(data, indent=2, ensure_ascii=False)


def test_non_finite_floats_and_unknown_types():
    assert dumps_indented([math.nan, math.inf, -math.inf]) == '[\n  NaN,\n  Infinity,\n  -Infinity\n]'
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_indented({"a": {1, 2}})
    with pytest.raises(TypeError):
        dumps_indented({(1, 2): 3})


def _strict_loads(text: str):
    def refuse(token: str):
        raise ValueError(f"{token} is not JSON")
    return json.loads(text, parse_constant=refuse)


@given(values)
@settings(max_examples=300, deadline=None)
def test_dumps_json_is_always_rfc_8259(value):
    # every --json output goes through dumps_json: no NaN/Infinity ever, and finite values unchanged
    text = dumps_json(value)
    doc = _strict_loads(text)
    finite_only = json.loads(json.dumps(value, allow_nan=True), parse_constant=lambda _c: None)
    if "_reason" not in text:
        assert doc == finite_only


def test_non_finite_floats_are_null_with_the_reason_beside_them():
    doc = _strict_loads(dumps_json({"util_pct": -math.inf, "power_w": 300.0, "t": [math.nan, 1.0]}))
    assert doc == {"util_pct": None, "util_pct_reason": "not a finite number (-Infinity)", "power_w": 300.0,
                   "t": [None, 1.0]}
    assert dumps_json({"a": "显存"}) == '{\n  "a": "\\u663e\\u5b58"\n}'
    assert dumps_json({"a": "显存"}, ensure_ascii=False) == '{\n  "a": "显存"\n}'


def test_every_cli_json_output_goes_through_dumps_json():
    # json.dump(s) without allow_nan=False writes NaN/Infinity; the CLI modules write JSON through dumps_json
    cli = Path(__file__).resolve().parents[2] / "gpudesk" / "cli"
    for path in cli.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("dump", "dumps") and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "json"):
                strict = any(k.arg == "allow_nan" and isinstance(k.value, ast.Constant) and k.value.value is False
                             for k in node.keywords)
                assert strict, f"{path.name}:{node.lineno} writes JSON with json.{node.func.attr}"
