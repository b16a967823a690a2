"""The probe's uneven-placement test shared by the imbalance rules (gpudesk.oom.rules.multi_gpu_imbalance.uneven)."""

from gpudesk.oom.rules.multi_gpu_imbalance import uneven
from gpudesk.units import GIB


def test_ratio_and_gap_both_needed() -> None:
    assert uneven(13 * GIB, 10 * GIB)            # 1.3 x and 3 GiB more
    assert not uneven(12.9 * GIB, 10 * GIB)      # 2.9 GiB more but under 1.3 x
    assert not uneven(1.5 * GIB, 0.6 * GIB)      # 2.5 x but 0.9 GiB more
    assert uneven(1.7 * GIB, 0.6 * GIB)          # 2.8 x and 1.1 GiB more


def test_an_empty_least_busy_gpu_reads_no_imbalance() -> None:
    assert not uneven(20 * GIB, 0)
