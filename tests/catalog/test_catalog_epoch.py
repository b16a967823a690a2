"""Cross-check against Epoch AI's ML Hardware data (tests/fixtures/catalog/epoch_ml_hardware.csv, CC BY 4.0):
where the catalog's datasheet figure differs from Epoch's by more than 2 %, the GPU's notes must say so."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpudesk.catalog import open_catalog

EPOCH = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "epoch_ml_hardware.csv"
with EPOCH.open(encoding="utf-8", newline="") as _handle:
    EPOCH_ROWS = {row["Hardware name"]: row for row in csv.DictReader(_handle)}

# catalog id -> Epoch "Hardware name"
PAIRS = {
    "v100-sxm2-16": "NVIDIA Tesla V100 SXM2",
    "v100-sxm2-32": "NVIDIA Tesla V100 SXM2 32 GB",
    "v100-pcie-16": "NVIDIA Tesla V100 PCIe 16 GB",
    "v100-pcie-32": "NVIDIA Tesla V100 PCIe 32 GB",
    "t4": "NVIDIA Tesla T4",
    "a10": "NVIDIA A10 PCIe",
    "a40": "NVIDIA A40 PCIe",
    "a100-40-pcie": "NVIDIA A100 PCIe",
    "a100-40-sxm4": "NVIDIA A100 SXM4 40 GB",
    "a100-80-sxm4": "NVIDIA A100 SXM4 80 GB",
    "h100-pcie": "NVIDIA H100 PCIe",
    "h100-sxm5": "NVIDIA H100 SXM5 80GB",
    "h100-nvl": "NVIDIA H100 NVL",
    "h200-sxm": "NVIDIA H200 SXM",
    "b200": "NVIDIA B200",
    "l4": "NVIDIA L4",
    "rtx3090": "NVIDIA GeForce RTX 3090",
    "rtx4080": "NVIDIA GeForce RTX 4080",
    "rtx4090": "NVIDIA GeForce RTX 4090",
    "rtx-a6000": "NVIDIA RTX A6000",
    "rtx-6000-ada": "NVIDIA RTX 6000 Ada Generation",
    "mi300x": "AMD Instinct MI300X",
    # Added for issue 12 (late-2026 catalog)
    "b300": "NVIDIA B300",
    "gb200": "NVIDIA GB200",
    "gb300": "NVIDIA GB300",
    "h800-sxm5": "NVIDIA H800 SXM5",
    "h20": "NVIDIA HGX H20",
    "l20": "NVIDIA L20 PCle",
    "a800-80-pcie": "NVIDIA A800 PCIe 80 GB",
    "a800-80-sxm4": "NVIDIA A800 SXM",
    "mi325x": "AMD Instinct MI325X",
    "mi355x": "AMD Instinct MI355X",
    # Added for issue 24 (MLPerf Inference v4.1 GH200-144GB rows)
    "gh200": "NVIDIA GH200",
    # Added for issues 24/27/28 (cards users name in OOM messages and forum threads)
    "gtx1080ti": "NVIDIA GeForce GTX 1080 Ti",
    "rtx2080ti": "NVIDIA GeForce RTX 2080 Ti 11GB",
    "titan-v": "NVIDIA Titan V",
    "rtx3080": "NVIDIA GeForce RTX 3080",
    "rtx3090ti": "NVIDIA GeForce RTX 3090 Ti",
    "rtx4070": "NVIDIA GeForce RTX 4070",
    "p100-pcie-16": "NVIDIA Tesla P100 PCIe 16GB",
    "p40": "NVIDIA P40",
    "p4": "NVIDIA Tesla P4",
    "k80": "NVIDIA Tesla K80",
    "a10g": "NVIDIA A10G",
    "l40": "NVIDIA L40",
    "rtx-a4000": "NVIDIA RTX A4000",
    "rtx-a5000": "NVIDIA RTX A5000",
    "rx7900xtx": "AMD Radeon RX 7900 XTX",
}

# catalog attribute -> (Epoch column, factor from Epoch units to catalog units)
COLUMNS = {
    "memory_bandwidth_gbps": ("Memory bandwidth (byte/s)", 1e-9),
    "tdp_w": ("TDP (W)", 1.0),
    "fp32_tflops": ("FP32 (single precision) performance (FLOP/s)", 1e-12),
}


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


def test_every_pair_exists(catalog):
    ids = {g.id for g in catalog.gpus()}
    assert set(PAIRS) <= ids
    assert set(PAIRS.values()) <= set(EPOCH_ROWS)


@pytest.mark.parametrize("gpu_id", sorted(PAIRS))
def test_disagreements_with_epoch_are_noted(catalog, gpu_id):
    gpu = catalog.gpu(gpu_id)
    row = EPOCH_ROWS[PAIRS[gpu_id]]
    for attr, (column, factor) in COLUMNS.items():
        if not row[column]:
            continue
        theirs = float(row[column]) * factor
        ours = getattr(gpu, attr)
        if abs(ours - theirs) > 0.02 * theirs:
            assert "Epoch" in (gpu.notes or ""), f"{gpu_id}.{attr}: catalog {ours} vs Epoch {theirs:g} not noted"


def test_geforce_epoch_tensor_rate_is_the_fp16_accumulate_one(catalog):
    # Epoch's GeForce tensor figure is the FP16-accumulate rate; the catalog's BF16 is the FP32-accumulate half.
    gpu = catalog.gpu("rtx4090")
    epoch = float(EPOCH_ROWS["NVIDIA GeForce RTX 4090"]["Tensor-FP16/BF16 performance (FLOP/s)"]) / 1e12
    assert gpu.bf16_dense_tflops == pytest.approx(epoch / 2, rel=0.01)
    assert "330.3" in gpu.accumulate_note
