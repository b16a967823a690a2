"""Fuzzing TOML profiles (issue 14): any text or any TOML-shaped table gives a Requirement or a PlanInputError
(ProfileError is one) naming the field, never a RecursionError, OverflowError or TypeError; deep nesting and
309-digit numbers are refused fast."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest
from helpers.fuzz_profile import fuzz
from hypothesis import given
from hypothesis import strategies as st

from gpudesk.planner.errors import PlanInputError, ProfileError
from gpudesk.planner.profile import dumps_profile, load_profile, requirement_from_dict
from gpudesk.planner.requirement import SECTIONS

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "resources" / "examples").glob("*.toml"))
KEYS = {section: [f for f in cls.__dataclass_fields__] for section, cls in SECTIONS.items()}
scalar = st.one_of(st.none(), st.booleans(), st.integers(-(10**400), 10**400), st.floats(), st.text(max_size=12),
                   st.sampled_from(["13B", "8k", "4096", "llama-2-7b", "h100-sxm5-80gb", "fp16", "train"]))
value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                     max_leaves=12)


@st.composite
def profile_dicts(draw):
    data: dict = {"name": draw(st.one_of(st.text(max_size=10), value))}
    if draw(st.booleans()):
        data["version"] = draw(value)
    for section in draw(st.lists(st.sampled_from([*SECTIONS, "bogus"]), max_size=4, unique=True)):
        keys = KEYS.get(section, ["x"])
        data[section] = draw(st.dictionaries(st.sampled_from(keys), value, max_size=5))
    return data


def _check(fn, *args) -> None:
    try:
        fn(*args)
    except PlanInputError as exc:
        assert len(str(exc)) < 600
    except RecursionError:  # pragma: no cover - the failure this test exists to catch
        pytest.fail("RecursionError escaped")


@fuzz
@given(profile_dicts())
def test_fuzz_requirement_from_dict(data):
    try:
        req = requirement_from_dict(data)
        req.validate()
    except PlanInputError:
        return
    dumps_profile(req)  # whatever validates can be written back


def _load(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "p.toml"
        p.write_text(text, encoding="utf-8")
        _check(load_profile, p)


@fuzz
@given(st.one_of(st.text(max_size=300),
                 st.sampled_from(EXAMPLES).map(lambda p: p.read_text(encoding="utf-8")).flatmap(
                     lambda t: st.tuples(st.just(t), st.integers(0, len(t)), st.text(max_size=30)).map(
                         lambda x: x[0][:x[1]] + x[2] + x[0][x[1]:]))))
def test_fuzz_profile_text(text):
    _load(text)


@pytest.mark.parametrize("text", [
    "name='x'\n[model]\nparams = " + "[" * 50_000 + "]" * 50_000,
    "a = " + "{b=" * 20_000 + "1" + "}" * 20_000,
    "[model]\nparams = " + "9" * 309,
    "[model]\nparams = " + "9" * 5000,
    "version = [[[1]]]",
    "[tco]\nprices = {x = 'abc'}",
])
def test_crafted_profiles_are_refused_fast(tmp_path, text):
    p = tmp_path / "p.toml"
    p.write_text(text, encoding="utf-8")
    t0 = time.process_time()
    with pytest.raises(ProfileError):
        load_profile(p)
    assert time.process_time() - t0 < 2.0
