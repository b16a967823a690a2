"""ECC on GDDR memory: the driver reports 1/16 less; HBM loses nothing; the default is the card's shipped state."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.capacity import gpu_fit, gpu_reported_total_bytes, reported_total_bytes
from gpudesk.sizing.engines.device import catalog_device

GIB = 1024**3
MIB = 1024**2


def test_gddr_with_ecc_reports_one_sixteenth_less_and_hbm_nothing() -> None:
    off = reported_total_bytes(48 * GIB, "GDDR6")
    on = reported_total_bytes(48 * GIB, "GDDR6", ecc_enabled=True)
    assert on == pytest.approx(off * 15 / 16, abs=1)
    assert reported_total_bytes(80 * GIB, "HBM3", ecc_enabled=True) == reported_total_bytes(80 * GIB, "HBM3")
    # the T4 fingerprint (14.56 GiB) was seen with ECC on: off gives it back
    assert reported_total_bytes(16 * GIB, "GDDR6") == pytest.approx(14.56 * GIB * 16 / 15, abs=1)


def test_l40s_ships_with_ecc_on_and_matches_its_logged_total() -> None:
    """vllm-project/vllm#15815 logs an L40S at total_gpu_memory 44.42 GiB; nvidia-smi shows 46068MiB
    (sgl-project/sglang PR 13023). Without ECC the catalog's L40S would be 47.33 GiB, 6.6 % too much."""
    l40s = open_catalog().gpu("l40s")
    assert l40s.ecc_default_on
    total = gpu_reported_total_bytes(l40s)
    assert abs(total / GIB / 44.42 - 1) < 0.005
    assert total < 46068 * MIB
    assert gpu_reported_total_bytes(l40s, ecc_enabled=False) / GIB > 47
    assert catalog_device(l40s).total_bytes == total
    assert catalog_device(l40s, ecc_enabled=False).total_bytes > total


def test_workstation_geforce_and_hbm_cards_ship_without_the_ecc_cost() -> None:
    cat = open_catalog()
    for gid in ("rtx-a6000", "rtx-6000-ada", "rtx4090", "rtx3090", "h100-sxm5"):
        assert not cat.gpu(gid).ecc_default_on, gid
    a6000 = cat.gpu("rtx-a6000")
    assert gpu_reported_total_bytes(a6000, ecc_enabled=True) < gpu_reported_total_bytes(a6000)


def test_the_fit_against_a_catalog_gpu_uses_the_same_total() -> None:
    l4 = open_catalog().gpu("l4")
    f = gpu_fit(22 * GIB, l4, 0.2)
    assert f.usable_bytes == gpu_reported_total_bytes(l4)
    assert f.fits  # 22 GiB fits the ECC-on L4's 22.2 GiB ...
    assert not gpu_fit(int(22.5 * GIB), l4, 0.2).fits  # ... 22.5 GiB does not
    assert gpu_fit(int(22.5 * GIB), l4, 0.2, ecc_enabled=False).fits
