"""llm-foundry's attention kernels (flash-attn 2 and its Triton port, Ampere mma.sync): the FlashAttention-2 rate,
not Hopper's cuDNN / FlashAttention-3 class.

Source: github.com/mosaicml/llm-foundry at 5e85bd6, llmfoundry/models/layers/attention.py and setup.py extra
'gpu-flash2' (flash-attn==2.4.2); the MPT-7B 65k-token row of scripts/train/benchmarking/README.md (8x H100,
FULL_SHARD, activation checkpointing, MBS 1) is the attention-bound case."""

from __future__ import annotations

import json
from pathlib import Path

from gpudesk.sizing.speed_train import FRAMEWORKS, attention_efficiency
from gpudesk.sizing.speed_train_cases import predict_train_case

_ROWS = Path(__file__).parents[1] / "fixtures" / "speed" / "fresh50_train_runs.jsonl"


def _row(row_id: str) -> dict:
    for line in _ROWS.read_text().splitlines():
        row = json.loads(line)
        if row["id"] == row_id:
            return row
    raise AssertionError(row_id)


def test_llm_foundry_attention_is_flash_attn_2_rate() -> None:
    fw = FRAMEWORKS["llm-foundry"]
    assert fw.attention_kernel == "flash-attn-2"
    # Hopper: FlashAttention-2 reaches ~35 % of the peak against cuDNN's ~50 %; Ampere: the same kernel class.
    assert attention_efficiency(fw, "Hopper") < attention_efficiency(FRAMEWORKS["megatron"], "Hopper")
    assert attention_efficiency(fw, "Ampere") == attention_efficiency(FRAMEWORKS["megatron"], "Ampere")


def test_published_llm_foundry_name_takes_its_profile_and_slows_long_sequences() -> None:
    row = _row("foundry-5e85bd6-mpt-7b-h100-8gpu-s65536")
    assert row["framework"] == "llm-foundry (composer + pytorch fsdp)"
    foundry = predict_train_case(row)[0]
    as_megatron = predict_train_case({**row, "framework": "megatron-core"})[0]
    # At 65k tokens attention is most of the step: the FlashAttention-2 rate makes it markedly slower.
    assert foundry < 0.85 * as_megatron
    # Published 1956 tokens/s/GPU (README table); the cuDNN-rate prediction was ~1.48x that.
    assert 0.8 < foundry / row["measured"]["value"] < 1.25
    short = _row("foundry-5e85bd6-mpt-70b-h100-128gpu-s2048")
    # At 2k tokens attention is a small share: within a few percent.
    assert predict_train_case(short)[0] > 0.95 * predict_train_case({**short, "framework": "megatron-core"})[0]
