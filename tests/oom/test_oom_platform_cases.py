"""Real messages from every other runtime and platform (tests/fixtures/oom/platform_cases.jsonl, issue 28): each
with its public URL and the cause its thread established, written down before the doctor was run on it. The
first cause is counted strictly (``not_capacity`` only when the doctor says it, with the recorded check)."""

from __future__ import annotations

import json

import pytest
from oom_support import FIXTURES

from gpudesk.oom import diagnose_text
from gpudesk.oom.accuracy import FAMILY_MIN_CASES, evaluate, load_accuracy, load_cases
from gpudesk.oom.cause import CAUSE_IDS
from gpudesk.oom.framework_checks import framework_of, in_framework_terms
from gpudesk.oom.parsers.generic import extract
from gpudesk.oom.signatures import CHECKS, GGML_PINNED_CHECK, check_command

ROWS = [json.loads(line) for line in (FIXTURES / "platform_cases.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
# Measured when the rules were written (issue 28): 116 of 134 (before: 19 of the first 120); 118 once CuPy's pool
# figures were read (held before the request, its limit); the floor sits at the measurement so a regression of
# one case fails CI.
FLOOR = 118
# Families whose own figure is below 70 % (reported, not hidden). CuPy/Numba/JCuda is at 7/9: its two misses are
# leaks that one message cannot show (a leak needs memory over time). Windows/WSL is at 3/5 since a one-line PyTorch
# "CUDA error: out of memory" reads first as the job's own need (most public threads with only that line were fixed
# by a smaller batch, gpudesk.oom.rules.signature): two of its cases are that one line, WSL only in their threads.
BELOW_TARGET: set[str] = {"windows_wsl"}


@pytest.fixture(scope="module")
def platforms():
    return evaluate([c for c in load_cases() if c.case_set == "platforms"])


def test_cases_are_real_labelled_and_complete():
    assert len(ROWS) >= 120
    assert len({r["url"] for r in ROWS}) == len(ROWS)
    for row in ROWS:
        assert row["url"].startswith("https://github.com/") and row["message"].strip() and row["context"].strip()
        assert row["expected_cause"] in CAUSE_IDS and row["labelled"] in ("before_rules", "after_rules")
        if row["expected_cause"] == "not_capacity":
            assert row["expected_check"] in CHECKS, row["url"]
    older = {json.loads(line)["url"] for name in ("cases.jsonl", "engine_cases.jsonl")
             for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line.strip()}
    assert not older & {r["url"] for r in ROWS}, "the new set is separate from the 82 older cases"


def test_first_cause_accuracy_overall_and_per_family(platforms, capsys):
    with capsys.disabled():
        print(f"\nPlatform cases: first cause right in {platforms.right}/{platforms.total} ("
              + ", ".join(f"{f.family} {f.right}/{f.total}" for f in platforms.families()) + ")")
    assert platforms.right >= FLOOR and platforms.share >= 0.85
    for family in platforms.families():
        if family.total >= FAMILY_MIN_CASES and family.family not in BELOW_TARGET:
            assert family.share >= 0.7, family


def test_not_capacity_cases_are_called_so_with_the_deciding_check(platforms):
    right, total = platforms.not_capacity()
    assert total >= 50 and right / total >= 0.8


def test_no_real_message_with_a_figure_comes_back_not_found(platforms):
    assert [o.case.url for o in platforms.not_found() if extract(o.case.message).has_figure] == []
    assert platforms.not_found() == []


def test_cases_added_after_the_rules_are_scored_apart(platforms):
    later = platforms.subset(labelled="after_rules")
    # First runs: 4 of 9 (before the Vulkan buffer-limit wording was read), then 4 of 5 (before TPU VMEM was read).
    assert later.total >= 14 and later.right >= 11


def test_the_older_82_cases_keep_their_accuracy():
    accuracy = load_accuracy()
    assert accuracy.subset("public").right >= 24 and accuracy.subset("engines").right >= 53


@pytest.mark.parametrize("row", [r for r in ROWS if r["expected_cause"] == "not_capacity"], ids=lambda r: r["url"])
def test_not_capacity_answers_carry_their_check_command(row):
    d = diagnose_text(row["message"])
    for cause in d.causes:
        if cause.id == "not_capacity" and "deciding_check" in cause.evidence:
            command = check_command(cause.evidence["deciding_check"], d.report.platform)
            if cause.evidence["deciding_check"] == "pin_memory" and cause.evidence["check_command"] != command:
                # ggml's CUDA backend pins through its own switch (GGML_PINNED_CHECK), not a DataLoader's.
                assert d.report.runtime in ("llamacpp", "ollama") and d.report.backend in ("cuda", "rocm")
                command = GGML_PINNED_CHECK.command
            framework = framework_of(d.report)
            if framework:  # a non-PyTorch framework's own calls (qa19)
                command = in_framework_terms(command, framework) or command
            assert command in " ".join(cause.checks) or command in cause.fix
