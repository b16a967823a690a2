"""A framework profile's description says what its flags model (qafix4 item 6)."""

from __future__ import annotations


import pytest

from gpudesk import i18n
from gpudesk.sizing.speed_train import FRAMEWORKS


@pytest.mark.parametrize("name", [n for n, f in FRAMEWORKS.items() if f.reduces_after_backward])
def test_profiles_that_reduce_after_backward_say_so(name: str) -> None:
    # speedfix102: plain Megatron-LM (no --overlap-grad-reduce, its default) all-reduces after backward; a profile
    # whose flag says so must tell the user in its description, as the deepspeed profile does.
    assert "after the last backward" in FRAMEWORKS[name].source


def test_megatron_lm_clause_is_translated(zh_cn: None) -> None:
    text = i18n._(FRAMEWORKS["megatron-lm"].source)
    assert text != FRAMEWORKS["megatron-lm"].source
    assert "--overlap-grad-reduce" in text and "最后一次反向之后" in text
