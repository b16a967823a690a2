"""The fast indented JSON writer gives json.dumps(indent=2, ensure_ascii=False)'s bytes, on real plans and on
any JSON-like value."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpudesk.catalog import open_catalog
from gpudesk.cli.json_text import dumps_indented
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
