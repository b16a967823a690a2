"""Issue 14's crafted OOM texts pasted into the doctor's text box: each is diagnosed (a ranked answer or
"unparseable" with what is missing), never a traceback, never a frozen window. The parsers' time per input size is
measured in tests/benchmarks/test_parser_scaling.py; the wait bound here only catches a hang."""

from __future__ import annotations

import pytest

from helpers.oom_tab import make_oom_tab

CRAFTED = {
    "ones-after-oom": "CUDA out of memory. " + "1" * 10000,
    "huge-capacity": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                     "capacity of " + "9" * 100000,
    "nccl-repeated": "NCCL " * 20000,
    "309-digit-size": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate " + "9" * 309 + " GiB. GPU 0 "
                      "has a total capacity of 79.11 GiB of which 1.2 GiB is free.",
    "markup": "<b>CUDA out of memory.</b> <img src=x onerror=alert(1)> Tried to allocate 20.00 MiB",
}


@pytest.fixture
def tab(qtbot):
    widget = make_oom_tab(qtbot)
    widget.show()
    return widget


@pytest.mark.parametrize("name", list(CRAFTED))
def test_crafted_text_is_diagnosed_without_error_or_freeze(qtbot, tab, name):
    tab.picker.text_input.set_text(CRAFTED[name])
    tab.picker.text_input.diagnose_button.click()
    qtbot.waitUntil(lambda: tab.results.diagnosis is not None, timeout=20000)
    assert tab.results.cause_ids(), name
    assert not [text for text, level in tab.messages if level == "error"], tab.messages
    if name == "309-digit-size":  # an impossible size is N/A with the reason, not taken as a fact
        report = tab.results.diagnosis.report
        assert report.requested_bytes is None and any("garbled" in note for note in report.notes)
