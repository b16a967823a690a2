"""The held-back set (tests/fixtures/oom/fresh_cases.jsonl, issue 28): real messages collected after the rules were
written, each labelled from its public thread before the doctor was first run on it. The rules are not tuned on
these; the figures below are what the doctor scored when it first saw them, kept as a floor so that a regression
shows, and reported as they are (below the 85 % bar: that is the point of a held-back set)."""

from __future__ import annotations

import json

import pytest
from oom_support import FIXTURES

from gpudesk.oom.accuracy import CASE_FILES, evaluate, load_cases
from gpudesk.oom.cause import CAUSE_IDS
from gpudesk.oom.signatures import CHECKS

ROWS = [json.loads(line) for line in (FIXTURES / "fresh_cases.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
# First scoring (commit 85d1d55 labels, doctor at the commit that registered the set): 19 of 35 first causes right,
# 2 of 5 not-capacity cases with the deciding check, 1 message not recognised. Three mechanisms it exposed were
# fixed afterwards (a request figure next to a failure is recognised in any wording, PyTorch's caching host allocator
# is pinned memory, TensorFlow's own cuDNN/cuBLAS handle wording names TensorFlow): 22/35 on this now-seen set; the
# unseen measure after those fixes is the second batch (fresh_cases_2.jsonl).
FIRST_SCORE_RIGHT = 19


@pytest.fixture(scope="module")
def fresh():
    return evaluate([c for c in load_cases() if c.case_set == "fresh"])


def test_fresh_cases_are_real_labelled_and_separate_from_the_development_sets():
    assert len(ROWS) >= 30
    urls = [r["url"] for r in ROWS]
    assert len(set(urls)) == len(urls)
    for row in ROWS:
        assert row["url"].startswith("https://github.com/") and row["message"].strip() and row["context"].strip()
        assert row["expected_cause"] in CAUSE_IDS and row["labelled"] == "fresh"
        if row["expected_cause"] == "not_capacity":
            assert row["expected_check"] in CHECKS, row["url"]
    development = set()
    for _set, name in CASE_FILES:
        if name == "fresh_cases.jsonl" or not (FIXTURES / name).is_file():
            continue
        development |= {json.loads(line)["url"] for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
                        if line.strip()}
    assert not development & set(urls), "a fresh case must not be one the rules were developed on"


def test_fresh_figures_do_not_regress(fresh, capsys):
    with capsys.disabled():
        print(f"\nFresh cases: first cause right in {fresh.right}/{fresh.total} ("
              + ", ".join(f"{f.family} {f.right}/{f.total}" for f in fresh.families()) + ")")
    assert fresh.right >= FIRST_SCORE_RIGHT
