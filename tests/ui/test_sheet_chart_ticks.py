"""qa51 D16: the PDF sheet's chart axes tick in round steps (0, 31, 61, 92, 122 GiB before)."""

from __future__ import annotations

import pytest

from gpudesk.ui.plan.sheet_charts import _tick_text, nice_ticks


@pytest.mark.parametrize(("peak", "expected"), [
    (111.0, [0, 20, 40, 60, 80, 100, 120]),          # the article plan's memory axis (GiB)
    (2567.0, [0, 500, 1000, 1500, 2000, 2500, 3000]),  # its TCO axis (thousand USD)
    (79.18, [0, 20, 40, 60, 80, 100]),
    (0.8, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
])
def test_ticks_are_round_and_cover_the_peak(peak: float, expected: list[float]) -> None:
    ticks = nice_ticks(peak)
    assert ticks == pytest.approx(expected)
    assert ticks[-1] >= peak and len(ticks) <= 7
    assert [_tick_text(v, ticks[1]) for v in ticks[:2]] == ([f"{expected[0]:,.0f}", f"{expected[1]:,.0f}"]
                                                           if expected[1] >= 1 else ["0.0", "0.2"])
