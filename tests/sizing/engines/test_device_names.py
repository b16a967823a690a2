"""Device names -> catalog rows: SM counts and AMD targets are read from the catalog, not from a second table in
sizing/engines/device.py (qafix4 item 4); the answers are those the old tables gave."""

from __future__ import annotations

import re

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.engines.device import (
    DEVICE_NAME_GPUS,
    amd_gfx_target,
    catalog_gpu_id,
    streaming_multiprocessors,
)

# (name as an engine, a log or the catalog prints it, SMs, LLVM target): the answers of the tables device.py held
# before this change (STREAMING_MULTIPROCESSORS, AMD_GFX_TARGETS at 8ad3e679).
BEFORE = [
    ("H100 80GB", 132, None), ("NVIDIA H100 80GB HBM3", 132, None), ("NVIDIA H100 PCIe", 114, None),
    ("NVIDIA H100 NVL", 132, None), ("NVIDIA H200 NVL", 132, None), ("NVIDIA GH200 480GB", 132, None),
    ("NVIDIA A100-SXM4-80GB", 108, None), ("NVIDIA A100 80GB SXM4", 108, None), ("NVIDIA A800 80GB PCIe", 108, None),
    ("NVIDIA B200", 148, None), ("rtx4090", 128, None), ("NVIDIA GeForce RTX 4090 D 24GB", 114, None),
    ("NVIDIA GeForce RTX 5090", 170, None), ("NVIDIA GeForce RTX 3090", 82, None), ("L40S", 142, None),
    ("NVIDIA L40", 142, None), ("L4", 58, None), ("NVIDIA A10G", 72, None), ("NVIDIA A40", 84, None),
    ("NVIDIA A30", 56, None), ("Tesla T4", 40, None), ("Tesla V100-SXM2-16GB", 80, None),
    ("NVIDIA RTX 6000 Ada Generation", 142, None), ("NVIDIA RTX A6000", 84, None),
    ("AMD Instinct MI300X", 0, "gfx942"), ("AMD Instinct MI300X 192GB", 0, "gfx942"), ("MI50 32GB", 0, "gfx906"),
    ("Radeon VII", 0, "gfx906"), ("AMD Instinct MI100", 0, "gfx908"), ("AMD Instinct MI250X", 0, "gfx90a"),
    ("AMD Instinct MI355X", 0, "gfx950"), ("AMD Radeon RX 7900 XTX", 0, "gfx1100"),
    ("AMD Radeon PRO W7900", 0, "gfx1100"), ("Apple M2 Max", 0, None), ("Intel Gaudi 3", 0, None),
]


@pytest.mark.parametrize(("name", "sms", "target"), BEFORE)
def test_same_answers_as_the_old_tables(name: str, sms: int, target: str | None) -> None:
    assert streaming_multiprocessors(name) == sms
    assert amd_gfx_target(name) == target


def test_names_point_at_catalog_rows_and_no_count_is_held_twice() -> None:
    gpus = {g.id: g for g in open_catalog().gpus()}
    assert {gpu_id for _part, gpu_id in DEVICE_NAME_GPUS} <= set(gpus)


#: NVIDIA catalog rows without an SM count on purpose: boards of several GPUs (K80: two GK210, A16: four GA107),
#: where one device's count is not the row's, and the AWS-only A10G, whose configuration NVIDIA never published.
NO_SM_COUNT = {"k80", "a16", "a10g"}


def test_every_single_gpu_nvidia_row_has_its_sm_count() -> None:
    missing = [g.id for g in open_catalog().gpus() if g.vendor == "NVIDIA" and not g.sm_count]
    assert sorted(missing) == sorted(NO_SM_COUNT)


def test_counts_and_targets_come_from_the_catalog() -> None:
    for gpu in open_catalog().gpus():
        if catalog_gpu_id(gpu.name) != gpu.id:
            continue
        if gpu.sm_count:
            assert streaming_multiprocessors(gpu.name) == gpu.sm_count, gpu.id
        m = re.search(r"gfx[0-9a-f]+", gpu.chip or "")
        assert amd_gfx_target(gpu.name) == (m.group(0) if m else None), gpu.id
