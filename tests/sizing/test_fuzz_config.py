"""Fuzzing the HF config.json reader and the parameter-count parser (issue 14): only ShapeError/ConfigFileError
(the sizing layer's own errors) may come out, and an accepted config has a positive parameter count within
100 T."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

from helpers.fuzz_profile import fuzz
from hypothesis import given
from hypothesis import strategies as st

from gpudesk.sizing.checks import MAX_PARAMS
from gpudesk.sizing.config_validation import NUMERIC_FIELDS
from gpudesk.sizing.errors import ShapeError, SizingError
from gpudesk.sizing.shapes import parse_param_count, spec_from_hf_config

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "fixtures").glob("**/*config.json"))
BASES = [json.loads(p.read_text(encoding="utf-8")) for p in CONFIGS]
KEYS = sorted(NUMERIC_FIELDS) + ["model_type", "text_config", "architectures", "tie_word_embeddings", "hidden_act",
                                 "multi_query", "_name_or_path", "feed_forward_proj", "d_kv"]
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(10**400), 10**400), st.floats(),
                        st.text(max_size=20), st.sampled_from(["8", "4k", "NaN", "llama", "t5", "bert", "silu"]))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                               st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=20)


def _read(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "config.json"
        p.write_text(text, encoding="utf-8")
        try:
            spec = spec_from_hf_config(p)
        except SizingError:
            return
        assert 1 <= spec.params <= MAX_PARAMS


@fuzz
@given(st.sampled_from(BASES), st.dictionaries(st.sampled_from(KEYS), json_value, max_size=6))
def test_fuzz_real_configs_with_bad_values(base, changes):
    cfg = dict(base)
    cfg.update(changes)
    _read(json.dumps(cfg, allow_nan=True))


@fuzz
@given(st.one_of(st.text(max_size=300), json_value.map(lambda v: json.dumps(v, allow_nan=True)),
                 st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)))
def test_fuzz_any_text_as_config(text):
    _read(text)


@fuzz
@given(st.one_of(st.text(max_size=40), st.integers(-(10**400), 10**400), st.floats(),
                 st.from_regex(r"[-+]?[0-9_,.]{0,400}(e[-+]?[0-9]{1,4})?[tbgmkTBGMK]?", fullmatch=True)))
def test_fuzz_parse_param_count(text):
    try:
        n = parse_param_count(text)
    except ShapeError as exc:
        assert len(str(exc)) < 300
        return
    assert 1 <= n <= MAX_PARAMS and not math.isnan(n)
