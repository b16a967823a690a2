"""The 26 public cases of oom-cases.jsonl: each diagnoses to its recorded category, or to the documented
different first cause (the two cases where the recorded category cannot be read from the message alone)."""

from __future__ import annotations

import pytest
from oom_support import load_cases

from gpudesk.oom import diagnose_text
from gpudesk.oom.accuracy import CATEGORY_TO_CAUSE  # the one mapping, also used by `gpudesk oom accuracy`


# Cases (1-based line numbers) whose first cause differs on purpose, with the cause gpudesk gives first and
# where the recorded one must still appear.
KNOWN_DIFFERENT = {
    # compressed-tensors#587: 1.83 GiB unallocated is 2.4 % of reserved; free + cache cover the 1.96 GiB request
    # by only 1.2 % of the GPU. From the numbers this is a near-full GPU; the merged fix (5 % fragmentation
    # headroom) is a budget decision the message cannot show. Fragmentation is ranked second.
    11: ("genuine_shortage", "fragmentation"),
    # fairseq#2442: a single rank's message; imbalance needs the other ranks' figures (probe / NVML of every
    # GPU). The numbers alone read as a near-full GPU with 6.7 % cache.
    16: ("genuine_shortage", None),
}

CASES = load_cases()


def test_every_category_is_mapped():
    assert {c["category"] for c in CASES} <= set(CATEGORY_TO_CAUSE)
    assert len(CASES) == 26


@pytest.mark.parametrize("number", range(1, len(CASES) + 1))
def test_case_first_cause(number):
    case = CASES[number - 1]
    diagnosis = diagnose_text(case["message"])
    assert diagnosis.causes, "every public case gets at least one cause"
    ids = [c.id for c in diagnosis.causes]
    expected = CATEGORY_TO_CAUSE[case["category"]]
    if number in KNOWN_DIFFERENT:
        first, also = KNOWN_DIFFERENT[number]
        assert ids[0] == first
        if also:
            assert also in ids
    else:
        assert ids[0] == expected, (case["url"], ids)
    for cause in diagnosis.causes:
        assert 0 < cause.confidence <= 1
        assert cause.fix
    confs = [c.confidence for c in diagnosis.causes]
    assert confs == sorted(confs, reverse=True)


def test_share_of_cases_matching(capsys):
    matched = 0
    for case in CASES:
        top = diagnose_text(case["message"]).causes[0].id
        matched += top == CATEGORY_TO_CAUSE[case["category"]]
    share = matched / len(CASES)
    with capsys.disabled():
        print(f"\nOOM public cases: first cause matches the recorded category in {matched}/{len(CASES)} ({share:.0%})")
    assert matched == len(CASES) - len(KNOWN_DIFFERENT)


def test_framework_of_cases():
    frameworks = [diagnose_text(c["message"]).report.framework for c in CASES]
    expected = ["vllm" if "max seq len" in c["message"] else c["framework"] for c in CASES]
    assert frameworks == expected
