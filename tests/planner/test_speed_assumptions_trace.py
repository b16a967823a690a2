"""The plan's trace states the speed model's assumptions as ``gpudesk estimate speed`` prints them (issue 24): one
rationale step per assumption, "label: value" with units, each with its own source, and no machine name or raw
e-notation float in the text."""

from __future__ import annotations

import re

import pytest

from gpudesk import i18n
from gpudesk.catalog import open_catalog
from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile, plan
from gpudesk.sizing.speed_common import ASSUMPTION_LABELS


@pytest.fixture(autouse=True)
def english():
    before = i18n.current_language()
    i18n.set_language("en")
    yield
    i18n.set_language(before)


@pytest.mark.parametrize("example, line, source", [
    ("chat-api-qps200.toml", "Host overhead: 1 ms per step + 17.6 µs per running request", "PR 17866"),
    ("chat-api-qps200.toml", "Token budget per step: ", "max_num_batched_tokens"),
    ("article-13b-finetune.toml", "Matmul efficiency: 80.3 % of the dense BF16 peak (989 TFLOPS)", "MAMF"),
])
def test_each_speed_assumption_is_a_step_of_the_trace_with_its_own_source(example, line, source):
    result = plan(load_profile(examples_dir() / example), open_catalog())
    top = result.candidates[0]
    steps = [(text, src) for text, src in top.rationale if text.startswith(line)]
    assert len(steps) == 1 and source in steps[0][1]
    texts = " ".join(text for text, _src in top.rationale)
    assert not any(f"{name} " in texts or f"{name}:" in texts for name in ASSUMPTION_LABELS if "_" in name)
    assert re.search(r"\d[eE]-\d", texts) is None
