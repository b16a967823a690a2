"""Review fixes in the OOM doctor's readings (review3).

* "Room at the start" (rules/leak.py ``_ROOM_AT_START``) needs the memory to have had room: the same words with a
  negation between them (没有空余, "no free memory", "not enough free memory") say the memory was short from the start,
  which is a shortage, not growth. Variants of jingyaogong/minimind#522's wording, marked as such."""

from __future__ import annotations

import pytest

from gpudesk.oom import diagnose_text


@pytest.mark.parametrize("text", [
    "一开始显存就没有空余，爆显存",  # variant: negated Chinese wording
    "CUDA out of memory. At first there was no free memory on the GPU",  # variant: negated English wording
    "CUDA out of memory. At the start there was not enough free memory",  # variant
    "CUDA out of memory. Initially there wasn't enough free GPU memory",  # variant
])
def test_negated_room_at_start_is_not_a_leak(text: str) -> None:
    assert diagnose_text(text).causes[0].id != "leak"


@pytest.mark.parametrize("text", [
    "训练开始的时候，显存应该是有空余的，但是不到1个epoch溢出",  # jingyaogong/minimind#522
    "一开始显存没满，训练到一半就爆显存",  # variant: "not full" is room
    "CUDA out of memory. At first there was plenty of free memory",  # variant
])
def test_room_at_start_still_a_leak(text: str) -> None:
    assert diagnose_text(text).causes[0].id == "leak"
